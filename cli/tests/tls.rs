//! TLS end to end, with a private CA made here (rcgen): `fogproof serve --tls-cert --tls-key`
//! terminates TLS itself (its umpire service and house bot speak plain HTTP to it from this
//! machine), and `fogproof play` reaches it at `https://` (requests and the match's `wss://`
//! socket):
//!
//! - with `--ca` naming the CA, a chess game against the house bot is played, resigned, and
//!   verified valid;
//! - without `--ca`, `play` stops at once with an error naming the unknown issuer and `--ca`;
//! - a connection that starts a handshake and says nothing more is closed by the head timeout.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
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

/// A private CA and a server certificate it signed for 127.0.0.1 and localhost, as PEM files
/// in `dir`: `ca.pem`, `cert.pem` (leaf, then the CA), `key.pem`.
fn private_ca(dir: &Path) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "fogproof test CA");
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().expect("server key");
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
        .expect("server params")
        .signed_by(&key, &issuer)
        .expect("server certificate");
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).expect("ca.pem");
    std::fs::write(dir.join("cert.pem"), format!("{}{}", leaf.pem(), ca_cert.pem()))
        .expect("cert.pem");
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).expect("key.pem");
}

/// `fogproof serve` with TLS on 127.0.0.1, port 0; returns it and its `https://` address.
fn serve_tls(dir: &Path) -> (Killed, String) {
    let mut serve = Killed(
        Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["serve", "--listen", "127.0.0.1:0", "--no-ledger"])
            .args(["--request-head-wait-ms", "1000"])
            .arg("--data")
            .arg(dir.join("data"))
            .arg("--tls-cert")
            .arg(dir.join("cert.pem"))
            .arg("--tls-key")
            .arg(dir.join("key.pem"))
            .env("FOGPROOF_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fogproof serve starts"),
    );
    let out = serve.0.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    for line in lines.by_ref() {
        let line = line.expect("a line");
        if let Some(at) = line.find("listening on ") {
            let url = line[at + "listening on ".len()..].trim().to_owned();
            assert!(url.starts_with("https://127.0.0.1:"), "{line}");
            std::thread::spawn(move || for _ in lines {});
            return (serve, url);
        }
    }
    panic!("fogproof serve printed no address");
}

fn setup(name: &str) -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    private_ca(&dir);
    let key = dir.join("me.key");
    let status = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["keys", "new", "--out"])
        .arg(&key)
        .stdout(Stdio::null())
        .status()
        .expect("keys new");
    assert!(status.success());
    (dir, key)
}

fn play(server: &str, key: &Path, dir: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["play", "--terminal", "--server", server, "--key"])
        .arg(key)
        .arg("--dir")
        .arg(dir.join("journals"))
        .args(["--variant", "chess", "--vs", "bot", "--color", "white", "--time", "10+0"])
        .args(extra)
        .env("FOGPROOF_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fogproof play starts")
}

#[test]
fn play_reaches_a_tls_host_through_its_private_ca_and_refuses_it_without() {
    let (dir, key) = setup("play");
    let (_serve, server) = serve_tls(&dir);

    // Without --ca: refused at once, the reason named.
    let started = Instant::now();
    let out = play(&server, &key, &dir, &[]).wait_with_output().expect("play runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("unknown issuer") && err.contains("--ca"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "no retrying a certificate refusal");

    // With --ca: a game, over https and wss, resigned after a few moves; the record verifies.
    let ca = dir.join("ca.pem");
    let mut child = play(&server, &key, &dir, &["--ca", ca.to_str().expect("utf-8")]);
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    let mut answers = 0;
    for line in stdout.lines() {
        let Ok(line) = line else { break };
        if let Some(list) = line.strip_prefix("legal: ") {
            let first = list.split_whitespace().next().expect("a legal move").to_owned();
            if answers == 4 {
                let _ = writeln!(stdin, "resign");
            } else {
                let _ = writeln!(stdin, "{first}");
            }
            answers += 1;
        }
        lines.push(line);
    }
    let status = child.wait().expect("exit");
    let mut err = String::new();
    let _ = child.stderr.take().expect("stderr").read_to_string(&mut err);
    let text = lines.join("\n");
    assert!(status.success(), "{status}\n{text}\n{err}");
    assert!(answers >= 5, "{text}");
    assert!(text.contains("Verified: valid, 0-1 (resignation)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stalled_tls_handshake_is_closed_by_the_head_timeout() {
    let (dir, _) = setup("stall");
    let (_serve, server) = serve_tls(&dir);
    let addr = server.trim_start_matches("https://");
    let mut tcp = std::net::TcpStream::connect(addr).expect("connects");
    tcp.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    let started = Instant::now();
    // The first byte of a TLS record, then nothing.
    tcp.write_all(&[0x16]).expect("writes");
    let mut buf = [0u8; 64];
    let n = tcp.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "closed without an answer");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(800), "closed after {waited:?}, before the head wait");
    assert!(waited < Duration::from_secs(10), "closed after {waited:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
