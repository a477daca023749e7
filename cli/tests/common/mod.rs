//! Helpers shared by the tests that run `fogproof serve` as a child process and kill it.
#![allow(dead_code, reason = "each test file uses some of the helpers")]

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// A loopback port free at the time of asking.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// `fogproof serve --no-bot` on `data` and `port`, with `extra` arguments, quiet.
pub fn serve(data: &Path, port: u16, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--data", data.to_str().expect("utf-8"), "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--no-bot")
        .args(extra)
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof serve starts")
}

/// `fogproof serve --no-bot` on `data` with `extra` arguments, listening on a port the system
/// picks (`--listen 127.0.0.1:0`), and that port, read from the line the server prints once it
/// listens: no other process can take the port between its choice and the bind, as one can
/// with [`free_port`]. (A restart on the same port uses [`serve`].)
pub fn serve_any_port(data: &Path, extra: &[&str]) -> (Child, u16) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--data", data.to_str().expect("utf-8"), "--listen", "127.0.0.1:0"])
        .arg("--no-bot")
        .args(extra)
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof serve starts");
    let stdout = child.stdout.take().expect("the server's output");
    let mut lines = std::io::BufReader::new(stdout).lines();
    let port = loop {
        let line = lines.next().expect("the server printed where it listens").expect("a line");
        if let Some(url) = line.strip_prefix("fogproof server listening on ") {
            let port = url.trim().trim_end_matches('/').rsplit(':').next().unwrap_or("");
            break port.parse::<u16>().expect("a port");
        }
    };
    // Keep reading its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, port)
}

/// Waits until the server accepts connections on `port` (10 s at most).
pub async fn up(port: u16) {
    for _ in 0..500 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not come up");
}

/// A running agent named `name` (its key derived from `seed` and the name) playing random
/// moves, its files under `dir/name`.
pub async fn agent(base: &str, dir: &Path, name: &str, seed: u64, accept: Accept) -> Agent {
    paced_agent(base, dir, name, seed, accept, Duration::ZERO).await
}

/// As [`agent`], but taking `pace` over each decision when `pace` is not zero: two bots at full
/// speed over sockets without Nagle's delays play a whole SIC game in well under a second, too
/// fast for a test that must kill a server or an agent while the match is live.
pub async fn paced_agent(
    base: &str,
    dir: &Path,
    name: &str,
    seed: u64,
    accept: Accept,
    pace: Duration,
) -> Agent {
    let a = Agent::connect(AgentConfig {
        server_key: None,
        server: base.to_owned(),
        identity: Identity::from_seed(&sim::selfplay::derive(seed, name)),
        name: Some(name.into()),
        dir: dir.join(name),
        umpire: false,
        accept,
        variants: Vec::new(),
        decider: Arc::new(move |_| {
            let bot = client::RandomBot::new(sim::selfplay::derive(seed, "bot"));
            if pace.is_zero() {
                (Decider::Policy(Box::new(bot)), None)
            } else {
                unhurried(bot, pace)
            }
        }),
    })
    .await
    .expect("sign in");
    let r = a.clone();
    tokio::spawn(async move { r.run().await });
    a
}

pub use sim::pace::unhurried;
