//! lichess's own Python client plays fogproof: `examples/berserk_bot.py` (berserk for the
//! lichess Bot API, python-chess for the moves) plays a whole chess game against the house bot
//! through `fogproof serve` and `fogproof agent`, reading only lichess's fields (gameStart,
//! gameFull's white/black/initialFen/variant `standard`, gameState's UCI `moves` and `status`).
//! The record the agent saves verifies valid, with the result the stream named. Skips, saying
//! so, where python3 lacks berserk or chess (`pip install berserk==0.14.0 chess==1.11.2`;
//! .ci/run installs them).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped (a failing test leaves nothing running).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn fogproof(args: &[&str]) -> Killed {
    Killed(
        Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(args)
            .env("FOGPROOF_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fogproof starts"),
    )
}

/// Reads the child's output until a line holding `label`, and returns the URL on it.
fn url_after(child: &mut Killed, label: &str) -> String {
    let out = child.0.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    for line in lines.by_ref() {
        let line = line.expect("a line");
        if line.contains(label)
            && let Some(at) = line.find("http://")
        {
            let url = line[at..].split_whitespace().next().unwrap_or_default().to_owned();
            std::thread::spawn(move || for _ in lines {});
            return url;
        }
    }
    panic!("no line with '{label}'");
}

#[test]
fn a_berserk_bot_plays_chess_against_the_house_bot_through_the_agent() {
    let has = Command::new("python3")
        .args(["-c", "import berserk, chess"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        eprintln!(
            "SKIPPED: python3 lacks berserk or chess (pip install berserk==0.14.0 chess==1.11.2)"
        );
        return;
    }
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("berserk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let data = dir.join("data");
    let key = dir.join("me.key");
    let journals = dir.join("me");
    let mut serve = fogproof(&[
        "serve",
        "--data",
        data.to_str().expect("utf-8"),
        "--listen",
        "127.0.0.1:0",
        "--no-ledger",
    ]);
    let server = url_after(&mut serve, "listening on");
    let status = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["keys", "new", "--out"])
        .arg(&key)
        .stdout(Stdio::null())
        .status()
        .expect("keys new");
    assert!(status.success());
    let mut agent = fogproof(&[
        "agent",
        "--server",
        &server,
        "--key",
        key.to_str().expect("utf-8"),
        "--dir",
        journals.to_str().expect("utf-8"),
        "--listen",
        "127.0.0.1:0",
    ]);
    let api = url_after(&mut agent, "local bot API");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/berserk_bot.py");
    let mut bot = Killed(
        Command::new("python3")
            .arg(&script)
            .args(["--api", &api, "--vs", "bot", "--time", "10+0", "--seed", "3"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs the berserk bot"),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(s) = bot.0.try_wait().expect("wait") {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the bot did not finish in 300 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut bot.0.stdout.take().expect("stdout"), &mut out);
    let _ = std::io::Read::read_to_string(&mut bot.0.stderr.take().expect("stderr"), &mut err);
    assert!(status.success(), "{status}\n{out}\n{err}");
    // `game ID STATUS WINNER MOVES`
    let line = out.lines().find(|l| l.starts_with("game ")).expect("the bot reports its game");
    let words: Vec<&str> = line.split_whitespace().collect();
    let (id, lichess_status, winner) = (words[1], words[2], words[3]);
    let plies: usize = words[4].parse().expect("a move count");
    assert!(
        ["mate", "draw", "stalemate", "resign", "outoftime"].contains(&lichess_status),
        "{line}"
    );
    assert!(plies > 0, "{line}");
    // The record, once the agent has it final.
    let path = journals.join(format!("{id}.rec"));
    let record = loop {
        if path.exists() {
            // Written in one go: give the write a moment to complete.
            std::thread::sleep(Duration::from_millis(500));
            break std::fs::read(&path).expect("the record");
        }
        assert!(started.elapsed() < Duration::from_secs(360), "no record at {}", path.display());
        std::thread::sleep(Duration::from_millis(100));
    };
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    assert_eq!(verified.variant.map(|v| v.0), Some(rules::Variant::Chess));
    let score = verified.result.map(|r| r.score()).expect("a result");
    let expected = match winner {
        "white" => "1-0",
        "black" => "0-1",
        _ => "1/2-1/2",
    };
    assert_eq!(score, expected, "{line}");
    // What lichess-bot calls besides playing (client/src/local/bridge.rs), on the finished
    // game: its PGN export replays to the same end.
    let bridge = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/lichess_bridge.py");
    let out = Command::new("python3")
        .arg(&bridge)
        .args([api.as_str(), id, &plies.to_string(), lichess_status, expected])
        .output()
        .expect("python3 runs the bridge check");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    drop((bot, agent, serve));
    let _ = std::fs::remove_dir_all(&dir);
}
