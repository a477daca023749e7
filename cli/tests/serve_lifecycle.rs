//! `fogproof serve`'s lifecycle as a real process (docs/SERVER.md, operations and limits):
//! SIGTERM ends it within `--shutdown-grace-ms` even while a client holds half a request, and
//! a second `serve` on the same data directory refuses to start, naming the first one's pid.

#![cfg(unix)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

mod common;
use common::{free_port, serve, up};

fn dir(name: &str) -> PathBuf {
    let d =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Waits for `child` to exit, `within` at most; its status, or `None`.
fn exited(child: &mut std::process::Child, within: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_serve_within_its_grace_while_a_client_holds_half_a_request() {
    let dir = dir("serve-sigterm");
    let port = free_port();
    // The head timeouts are long: only the shutdown's grace can end the half request in time.
    let mut child = serve(
        &dir.join("data"),
        port,
        &[
            "--shutdown-grace-ms",
            "1000",
            "--request-head-wait-ms",
            "600000",
            "--keep-alive-idle-ms",
            "600000",
        ],
    );
    up(port).await;
    let mut half = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    half.write_all(b"POST /api/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        .await
        .expect("half a request");
    let mut head = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    head.write_all(b"GET /healthz HTTP/1.1\r\nHo").await.expect("half a head");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let killed =
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    let status = tokio::task::spawn_blocking(move || {
        let s = exited(&mut child, Duration::from_secs(15));
        if s.is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
        s
    })
    .await
    .expect("wait task");
    let status = status.expect("serve exits within its grace (1 s) and a margin");
    assert!(status.success(), "a clean exit: {status:?}");
    drop((half, head));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_serve_on_the_same_data_directory_refuses_naming_the_first() {
    let dir = dir("serve-owner");
    let data = dir.join("data");
    let port = free_port();
    let mut first = serve(&data, port, &[]);
    up(port).await;
    let second = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--data", data.to_str().expect("utf-8"), "--listen"])
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--no-bot")
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("a second serve starts");
    let out = tokio::task::spawn_blocking(move || second.wait_with_output())
        .await
        .expect("wait task")
        .expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use by another fogproof server"), "{stderr}");
    assert!(stderr.contains(&format!("pid {}", first.id())), "{stderr}");
    // The first one goes on serving.
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut s, &mut answer).await.expect("read");
    assert!(String::from_utf8_lossy(&answer).ends_with("ok\n"));
    let _ = first.kill();
    let _ = first.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
