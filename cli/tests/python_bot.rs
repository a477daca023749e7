//! The example bot (`examples/bot.py`, standard-library Python) plays a whole Kriegspiel game
//! against the house bot through real processes: `fogproof serve` (server, umpire service,
//! house bot), `fogproof agent` (the player's agent with the local bot API on loopback) and
//! `python3 examples/bot.py`. The record it ends with verifies valid.

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
            // Keep draining the pipe so the child never blocks on a full one.
            std::thread::spawn(move || for _ in lines {});
            return url;
        }
    }
    panic!("no line with '{label}'");
}

#[test]
fn the_example_python_bot_plays_kriegspiel_to_a_valid_record() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("python-bot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let data = dir.join("data");
    let key = dir.join("me.key");
    let journals = dir.join("me");
    let mut serve =
        fogproof(&["serve", "--data", data.to_str().expect("utf-8"), "--listen", "127.0.0.1:0"]);
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
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/bot.py");
    let mut bot = Killed(
        Command::new("python3")
            .arg(&script)
            .args(["--api", &api, "--vs", "bot", "--variant", "kriegspiel", "--time", "10+0"])
            .args(["--seed", "7"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs the example bot"),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(s) = bot.0.try_wait().expect("wait") {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(180), "the bot did not finish in 180 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut bot.0.stdout.take().expect("stdout"), &mut out);
    let _ = std::io::Read::read_to_string(&mut bot.0.stderr.take().expect("stderr"), &mut err);
    assert!(status.success(), "{status}\n{out}\n{err}");
    // `game ID RESULT REASON record PATH`
    let line = out.lines().find(|l| l.starts_with("game ")).expect("the bot reports its game");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&words[2]), "{line}");
    let record = std::fs::read(words[5]).expect("the agent saved the record");
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    assert_eq!(verified.variant.map(|v| v.0), Some(rules::Variant::Kriegspiel));
    assert_eq!(verified.result.map(|r| r.score()), Some(words[2]));
    drop((bot, agent, serve));
    let _ = std::fs::remove_dir_all(&dir);
}
