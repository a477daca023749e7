//! `fogproof bot --engine PATH`: Debian's stockfish plays chess for a bot key against a
//! player (`fogproof play`, playing the first legal move every time), through real processes:
//! `fogproof serve`, `fogproof bot --engine`, `fogproof play`. The engine's moves are the bot's
//! (its log names each), it mates, and the record verifies valid. Skips, saying so, where
//! stockfish is not installed (`apt-get install stockfish`; .ci/run installs it).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A child process killed when dropped (a failing test leaves nothing running).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stockfish() -> Option<PathBuf> {
    let debian = PathBuf::from("/usr/games/stockfish");
    if debian.exists() {
        return Some(debian);
    }
    std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join("stockfish")).find(|f| f.exists()))
}

fn new_key(path: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["keys", "new", "--out"])
        .arg(path)
        .output()
        .expect("keys new");
    assert!(out.status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["keys", "show"])
        .arg(path)
        .output()
        .expect("keys show");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("public-key: "))
        .expect("the public key is shown")
        .trim()
        .to_owned()
}

#[test]
fn stockfish_plays_chess_for_the_bot_and_mates() {
    let Some(engine) = stockfish() else {
        eprintln!("SKIPPED: stockfish is not installed (apt-get install stockfish)");
        return;
    };
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("engine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let mut serve = Killed(
        Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["serve", "--listen", "127.0.0.1:0", "--no-ledger", "--no-bot"])
            .arg("--data")
            .arg(dir.join("data"))
            .env("FOGPROOF_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fogproof serve starts"),
    );
    let mut lines = BufReader::new(serve.0.stdout.take().expect("stdout")).lines();
    let server = lines
        .by_ref()
        .find_map(|l| {
            let l = l.expect("a line");
            l.find("http://").map(|at| l[at..].trim().to_owned())
        })
        .expect("the server's address");
    std::thread::spawn(move || for _ in lines {});

    let bot_key = new_key(&dir.join("bot.key"));
    new_key(&dir.join("me.key"));
    let mut bot = Killed(
        Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["bot", "--server", &server, "--engine"])
            .arg(&engine)
            .args(["--engine-movetime-ms", "50", "--key"])
            .arg(dir.join("bot.key"))
            .env("FOGPROOF_LOG", "warn,client::uci=debug")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fogproof bot starts"),
    );
    let bot_err = bot.0.stderr.take().expect("stderr");
    let bot_log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(bot_err).read_to_string(&mut text);
        text
    });

    let mut player = Killed(
        Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["play", "--terminal", "--server", &server, "--key"])
            .arg(dir.join("me.key"))
            .args(["--variant", "chess", "--vs", &bot_key, "--color", "white", "--time", "10+0"])
            .env("FOGPROOF_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fogproof play starts"),
    );
    let mut stdin = player.0.stdin.take().expect("stdin");
    let stdout = BufReader::new(player.0.stdout.take().expect("stdout"));
    let mut seen = Vec::new();
    let mut moves = 0;
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        if let Some(list) = line.strip_prefix("legal: ") {
            let first = list.split_whitespace().next().expect("a legal move").to_owned();
            let _ = writeln!(stdin, "{first}");
            moves += 1;
        }
        seen.push(line);
    }
    let status = player.0.wait().expect("exit");
    let mut err = String::new();
    let _ = player.0.stderr.take().expect("stderr").read_to_string(&mut err);
    let text = seen.join("\n");
    assert!(status.success(), "{status}\n{text}\n{err}");
    assert!(text.contains("Verified: valid, 0-1 (checkmate)"), "{text}");
    drop(bot);
    let log = bot_log.join().expect("the bot's log");
    assert!(log.contains("engine: Stockfish"), "{log}");
    // Every Black move was the engine's: Black played as many moves as White, or one fewer.
    let engine_moves = log.matches("the engine moves").count();
    assert!(engine_moves + 1 >= moves && engine_moves > 0, "{engine_moves} of {moves}\n{log}");
    assert!(!log.contains("the engine failed"), "{log}");
    drop(serve);
    let _ = std::fs::remove_dir_all(&dir);
}
