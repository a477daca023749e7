//! `fogproof play` driven from scripted input against a real server, its umpire and its house
//! bot (in this process, on 127.0.0.1 port 0): the player process reads what it is asked from
//! the printed lines (`attempts: …`, `legal: …`, `setup: …`) and gets an answer on its standard
//! input, as a person would type it.
//!
//! - Kriegspiel to the end, with the player process killed (SIGKILL) mid-game and run again
//!   with `--resume`: the journal brings the match back and it finishes valid; the boards drawn
//!   never show an enemy man;
//! - Intrigue and 6x6, whose secret setups are typed in the terminal's text form;
//! - nothing to resume is an error naming the directory.

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

struct Network {
    dir: PathBuf,
    base: String,
    running: server::Running,
}

async fn network(name: &str) -> Network {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("play-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let relay = Identity::from_seed(&[11; 32]);
    let umpire = Identity::from_seed(&[12; 32]);
    let bot = Identity::from_seed(&[13; 32]);
    let mut config = server::Config::new(dir.join("server"), relay);
    config.default_umpire = Some(umpire.public());
    config.house_bot = Some(bot.public());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let running = server::start(config, listener, Arc::new(server::clock::TokioClock::system()))
        .await
        .expect("server");
    let base = format!("http://{}", running.addr);
    for (identity, umpire, name) in [(umpire, true, "umpire"), (bot, false, "bot")] {
        let agent = Agent::connect(AgentConfig {
            server_key: None,
            server: base.clone(),
            identity,
            name: Some(name.into()),
            dir: dir.join(name),
            umpire,
            accept: if umpire { Accept::Nothing } else { Accept::Everything },
            variants: Vec::new(),
            decider: Arc::new(move |_| {
                if umpire {
                    (Decider::None, None)
                } else {
                    (Decider::Policy(Box::new(client::HouseBot::new([13; 32]))), None)
                }
            }),
        })
        .await
        .expect("signs in");
        tokio::spawn(async move { agent.run().await });
    }
    Network { dir, base, running }
}

fn play(base: &str, key: &Path, dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["play", "--terminal", "--server", base, "--key"])
        .arg(key)
        .arg("--dir")
        .arg(dir)
        .args(args)
        .env("FOGPROOF_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fogproof play starts")
}

/// What a scripted player saw.
#[derive(Debug, Default)]
struct Seen {
    lines: Vec<String>,
    answers: usize,
}

/// Answers every question the way a person would type it, from the printed lines: the first
/// move or attempt offered, a fixed setup; types `draw` before answer number `draw_before`.
/// Stops (killing the process) after `stop_after` answers; otherwise reads to the end of the
/// output.
fn drive(child: &mut Child, stop_after: Option<usize>, draw_before: Option<usize>) -> Seen {
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut seen = Seen::default();
    let mut white = true;
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        if line.starts_with("You are Black") {
            white = false;
        }
        let answer = if let Some(list) =
            line.strip_prefix("attempts: ").or_else(|| line.strip_prefix("legal: "))
        {
            list.split_whitespace().next().map(str::to_owned)
        } else if line == "setup: intrigue" {
            Some(if white { "e1 d2 queen" } else { "c6 f7" }.to_owned())
        } else if line.starts_with("setup: secretchess6") {
            Some(if white { "NBKQ1R b5 e6" } else { "RKQ1BN a2" }.to_owned())
        } else if line.starts_with("tiebreak: secretchess6") {
            Some("KQRBN1 0000".to_owned())
        } else {
            None
        };
        seen.lines.push(line);
        if let Some(a) = answer {
            if stop_after.is_some_and(|n| seen.answers >= n) {
                let _ = child.kill();
                break;
            }
            if draw_before == Some(seen.answers) {
                let _ = writeln!(stdin, "draw");
            }
            // The process may be gone by now (the game ended): a broken pipe is fine.
            let _ = writeln!(stdin, "{a}");
            seen.answers += 1;
        }
    }
    seen
}

/// Checks the end of a finished `fogproof play`: exit 0, the local verifier's verdict valid,
/// the record saved and valid, no enemy man ever drawn (`own_only`). Returns the record.
fn finished(child: &mut Child, seen: &Seen, own_only: bool) -> Vec<u8> {
    let status = child.wait().expect("exit");
    let text = seen.lines.join("\n");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    assert!(status.success(), "{status}\n{text}\n{err}");
    assert!(text.contains("Verified: valid"), "{text}");
    let path = seen
        .lines
        .iter()
        .find_map(|l| l.strip_prefix("Record: "))
        .expect("the record's path is printed");
    let bytes = std::fs::read(path).expect("the record file");
    assert!(verifier::verify(&bytes).is_valid());
    if own_only {
        // Board lines: a rank number, then the squares. An enemy man's letter never appears.
        let mut white = None;
        for l in &seen.lines {
            if l.starts_with("You are White") {
                white = Some(true);
            } else if l.starts_with("You are Black") {
                white = Some(false);
            }
        }
        let white = white.expect("the side is shown");
        for l in &seen.lines {
            let mut parts = l.splitn(2, "  ");
            let (Some(rank), Some(squares)) = (parts.next(), parts.next()) else { continue };
            if rank.len() != 1 || !rank.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let enemy = squares.chars().any(|c| {
                c.is_ascii_alphabetic()
                    && if white { c.is_ascii_lowercase() } else { c.is_ascii_uppercase() }
            });
            assert!(!enemy, "an enemy man is drawn: {l}\n{text}");
        }
    }
    bytes
}

fn key(dir: &Path, seed: u8) -> PathBuf {
    let path = dir.join(format!("player-{seed}.key"));
    client::keyfile::write_new(&path, &Identity::from_seed(&[seed; 32]), "player")
        .expect("key file");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kriegspiel_is_played_from_the_terminal_through_a_crash_and_a_resume() {
    let net = network("kriegspiel").await;
    let (base, dir) = (net.base.clone(), net.dir.clone());
    let result = tokio::task::spawn_blocking(move || {
        let me = key(&dir, 21);
        let journals = dir.join("me");
        let mut first = play(
            &base,
            &me,
            &journals,
            &["--variant", "kriegspiel", "--time", "10+0", "--vs", "bot"],
        );
        // A draw offer on the way: journaled like a move, so the resumed player signs it again
        // at the same place (or its later messages would clash with what the relay holds).
        let seen = drive(&mut first, Some(6), Some(3));
        let _ = first.wait();
        assert_eq!(seen.answers, 6, "{}", seen.lines.join("\n"));
        assert!(seen.lines.iter().any(|l| l == "You offer a draw."), "{}", seen.lines.join("\n"));
        assert_eq!(client::journal::unfinished(&journals).len(), 1, "the match is journaled");
        let mut again = play(&base, &me, &journals, &["--resume"]);
        let seen = drive(&mut again, None, None);
        assert!(seen.lines.iter().any(|l| l.starts_with("Resuming 1 journaled")));
        finished(&mut again, &seen, true);
        assert!(client::journal::unfinished(&journals).is_empty());
        // Nothing left to resume: an error naming the directory, exit status 2.
        let out = Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["play", "--terminal", "--server", &base, "--key"])
            .arg(&me)
            .arg("--dir")
            .arg(&journals)
            .arg("--resume")
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no journaled match to resume"), "{err}");
    })
    .await;
    net.running.shutdown().await.expect("clean shutdown");
    let _ = std::fs::remove_dir_all(&net.dir);
    result.expect("the scripted player");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intrigue_and_6x6_setups_are_typed_in_the_terminal() {
    let net = network("setups").await;
    let (base, dir) = (net.base.clone(), net.dir.clone());
    let result = tokio::task::spawn_blocking(move || {
        let me = key(&dir, 22);
        for variant in ["intrigue", "secretchess6"] {
            let mut child = play(
                &base,
                &me,
                &dir.join("me"),
                &["--variant", variant, "--time", "10+0", "--vs", "bot"],
            );
            let seen = drive(&mut child, None, None);
            let text = seen.lines.join("\n");
            assert!(
                seen.lines.iter().any(|l| l.starts_with("setup: ")),
                "{variant}: the setup is asked\n{text}"
            );
            finished(&mut child, &seen, false);
            // The seat shows the setup typed, which is the one it committed to and played.
            let white = text.contains("You are White");
            let shown = match (variant, white) {
                ("intrigue", true) => {
                    "Your secret: king hides on e1, informer d2, queen on the king's square."
                }
                ("intrigue", false) => "Your secret: king hides on c6, informer f7, queen home.",
                (_, true) => "Your formation: NBKQ1R; your false squares: b5 e6",
                (_, false) => "Your formation: RKQ1BN; your false squares: a2",
            };
            assert!(text.contains(shown), "{variant}: '{shown}' is shown\n{text}");
        }
    })
    .await;
    net.running.shutdown().await.expect("clean shutdown");
    let _ = std::fs::remove_dir_all(&net.dir);
    result.expect("the scripted player");
}

/// The terminal's Intrigue board before the setups, for each color: both armies without kings
/// (no stray `-` for the position not yet made), and the setup's example is the asker's own
/// (Black's informer is on rank 7, not White's d2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_intrigue_board_before_the_setup_shows_the_armies_and_the_askers_own_example() {
    let net = network("intrigue-before").await;
    let (base, dir) = (net.base.clone(), net.dir.clone());
    let result = tokio::task::spawn_blocking(move || {
        let me = key(&dir, 23);
        for (color, top, example) in [
            ("white", "8  r n b q . b n r", "(e.g. 'e1 d2' or 'c6 f2 queen')"),
            ("black", "1  R N B . Q B N R", "(e.g. 'e8 d7' or 'c3 f7 queen')"),
        ] {
            let mut child = play(
                &base,
                &me,
                &dir.join(format!("me-{color}")),
                &["--variant", "intrigue", "--time", "10+0", "--vs", "bot", "--color", color],
            );
            let stdout = BufReader::new(child.stdout.take().expect("stdout"));
            let mut lines = Vec::new();
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                let asked = line.starts_with("Your secret setup:");
                lines.push(line);
                if asked {
                    break;
                }
            }
            let _ = child.kill();
            let _ = child.wait();
            let text = lines.join("\n");
            let ask = lines.iter().position(|l| l == "setup: intrigue").expect(&text);
            let board = lines.iter().position(|l| l == top).expect(&text);
            assert!(board < ask, "the board is drawn before the setup is asked\n{text}");
            let files = if color == "white" { "   a b c d e f g h" } else { "   h g f e d c b a" };
            assert_eq!(lines[board + 8], files, "{text}");
            for l in &lines[board..board + 9] {
                assert!(!l.contains('-'), "no stray '-' on the board\n{text}");
            }
            assert!(text.contains(&format!("You are {} (intrigue).", capital(color))), "{text}");
            assert!(lines.last().expect("asked").contains(example), "{color}\n{text}");
        }
    })
    .await;
    net.running.shutdown().await.expect("clean shutdown");
    let _ = std::fs::remove_dir_all(&net.dir);
    result.expect("the scripted player");
}

fn capital(color: &str) -> String {
    let mut c = color.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}
