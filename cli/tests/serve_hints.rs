//! The commands `fogproof serve` prints for a newcomer work when pasted: each hint is run as
//! printed (in a fresh directory, as a person would from a second terminal) and does what it
//! says. After `cargo run` the binary is not on the `PATH`, so the hints name it by its path.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Reads `child`'s stdout on a thread; lines arrive on the returned channel.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (30 s at most) for a line starting with `prefix`; every line seen is in the panic.
fn wait_for(rx: &mpsc::Receiver<String>, prefix: &str) -> String {
    let mut seen = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) {
        if line.starts_with(prefix) {
            return line;
        }
        seen.push(line);
    }
    panic!("no line starting with {prefix:?}; saw:\n{}", seen.join("\n"));
}

/// Runs a printed hint (`program arg arg ...  # comment`) in `cwd`, with `extra` arguments.
fn run_hint(hint: &str, cwd: &Path, extra: &[&str]) -> Child {
    let command = hint.split('#').next().expect("a command").trim();
    let mut words = command.split_whitespace();
    let program = words.next().expect("a program");
    Command::new(program)
        .args(words)
        .args(extra)
        .current_dir(cwd)
        .env("FOGPROOF_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"))
}

#[test]
fn the_hints_serve_prints_work_when_pasted() {
    hints_work_when_pasted("127.0.0.1:0");
}

/// A server listening on every address prints hints that reach it from this machine (its
/// loopback address, as its umpire service and house bot connect), not `0.0.0.0`.
#[test]
fn the_hints_of_a_server_on_every_address_name_this_machines_loopback() {
    hints_work_when_pasted("0.0.0.0:0");
}

fn hints_work_when_pasted(listen: &str) {
    let data = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("tempdir");
    let mut server = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--data", data.path().to_str().expect("utf-8"), "--listen"])
        .arg(listen)
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof serve starts");
    let rx = lines_of(&mut server);
    let host = listen.trim_end_matches(":0");
    let listening = wait_for(&rx, &format!("fogproof server listening on http://{host}:"));
    assert!(!listening.ends_with(":0"), "serve prints the port it bound: {listening}");
    let port = listening.rsplit(':').next().expect("a port");
    wait_for(&rx, "play a house bot");
    let hints: Vec<String> = (0..3).map(|_| wait_for(&rx, "  ")).collect();
    for hint in &hints[1..] {
        assert!(hint.contains(&format!(" --server http://127.0.0.1:{port} ")), "{hint}");
    }
    let me = std::fs::canonicalize(env!("CARGO_BIN_EXE_fogproof")).expect("the binary");
    for hint in &hints {
        assert!(
            hint.trim_start().starts_with(&me.display().to_string()),
            "{hint:?} names the binary by its path (it is not on the PATH here)"
        );
    }

    let status = run_hint(&hints[0], home.path(), &[]).wait().expect("keys new exits");
    assert!(status.success(), "{}", hints[0]);
    assert!(home.path().join("me.key").exists(), "the key is where the next hints look for it");

    let mut browser = run_hint(&hints[1], home.path(), &["--no-open"]);
    let said = lines_of(&mut browser);
    let url = wait_for(&said, "Play in your browser: ");
    assert!(url.contains("http://127.0.0.1:"), "{url}");
    let _ = browser.kill();
    let _ = browser.wait();

    // The terminal hint plays the house bot: the match starts (then this test leaves it).
    let mut terminal = run_hint(&hints[2], home.path(), &[]);
    let said = lines_of(&mut terminal);
    let started = wait_for(&said, "Match ");
    assert_eq!(started.len(), "Match ".len() + 64, "a match id: {started}");
    let _ = terminal.kill();
    let _ = terminal.wait();
    let _ = server.kill();
    let _ = server.wait();
}
