//! Durability: a log writer killed (SIGKILL) at random instants, many times, always leaves a log
//! consistent with its last checkpoint, and never loses what a checkpoint covered.
//!
//! This test binary is its own child: with `FOGPROOF_CRASH_CHILD=<dir>` it is the writer, which
//! opens (or creates) the log in `<dir>` and appends batches of 1 to 300 entries (entry `i` is
//! `entry <i>`) until it is killed, printing each checkpoint's size once it is durable. The
//! parent kills it after a random delay, then checks that the log opens, that its checkpoint is
//! at least as large as the last size the child printed and never shrinks, and that every entry
//! up to the checkpoint is exactly `entry <i>`, hashed into tiles that give the checkpoint's
//! root.

use ledger::log::{LogWriter, TileNodes, read_bundle};
use ledger::merkle;
use ledger::note::{KeyKind, SignerKey};
use ledger::store::{DirReader, TILE_WIDTH};
use rand_core::Rng;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// How many times the writer is killed.
const KILLS: u32 = 40;

fn key() -> SignerKey {
    SignerKey::from_seed("crash.fogproof.example", KeyKind::Ed25519, [42; 32]).unwrap()
}

fn entry(i: u64) -> Vec<u8> {
    format!("entry {i}").into_bytes()
}

/// The writer: appends until killed.
fn child(dir: &Path, seed: u64) -> ! {
    let mut w = if dir.join("checkpoint").exists() {
        LogWriter::open(dir, key()).expect("the log opens after a crash")
    } else {
        LogWriter::create(dir, key()).expect("create")
    };
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(seed);
    let stdout = std::io::stdout();
    loop {
        let n = w.size();
        let len = 1 + u64::from(rng.next_u32() % 300);
        let batch: Vec<Vec<u8>> = (n..n + len).map(entry).collect();
        let size = w.append(&batch, &[]).expect("append").checkpoint.size;
        let mut out = stdout.lock();
        writeln!(out, "{size}").and_then(|()| out.flush()).expect("stdout");
    }
}

/// Everything the checkpoint covers is there and exact; returns its size.
fn check(dir: &Path, at_least: u64) -> u64 {
    let w = LogWriter::open(dir, key()).unwrap_or_else(|e| panic!("the log does not open: {e}"));
    let cp = w.checkpoint().checkpoint.clone();
    assert!(
        cp.size >= at_least,
        "checkpoint {} lost entries a checkpoint covered ({at_least})",
        cp.size
    );
    let reader = DirReader::new(dir);
    for b in 0..cp.size.div_ceil(TILE_WIDTH) {
        for (k, e) in read_bundle(&reader, b, cp.size).unwrap().into_iter().enumerate() {
            let i = b * TILE_WIDTH + k as u64;
            assert_eq!(e, entry(i), "entry {i} changed");
        }
    }
    let root = merkle::root(&TileNodes::new(&reader, cp.size), cp.size).unwrap();
    assert_eq!(root, cp.root, "the tiles do not give the checkpoint's root");
    cp.size
}

fn main() {
    if let Ok(dir) = std::env::var("FOGPROOF_CRASH_CHILD") {
        let seed =
            std::env::var("FOGPROOF_CRASH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        child(Path::new(&dir), seed);
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(8);
    let mut size = 0;
    let mut killed_mid_batch = 0;
    for round in 0..KILLS {
        let mut child = Command::new(&exe)
            .env("FOGPROOF_CRASH_CHILD", dir.path())
            .env("FOGPROOF_CRASH_SEED", round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        // Wait for the child to report at least one checkpoint half of the time, so kills land
        // both during start-up and recovery and in the middle of appends.
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut reported = Vec::new();
        if round % 2 == 0 {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            reported.push(line.trim().parse::<u64>().unwrap());
        }
        std::thread::sleep(Duration::from_micros(u64::from(rng.next_u32() % 30_000)));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success(), "the writer is killed, it never exits by itself");
        for line in out.lines() {
            reported.push(line.unwrap().trim().parse::<u64>().unwrap());
        }
        let last = reported.last().copied().unwrap_or(size);
        let now = check(dir.path(), last.max(size));
        if now > last {
            killed_mid_batch += 1;
        }
        size = now;
    }
    // Sanity: the writer really wrote.
    assert!(size > 1_000, "the writer appended only {size} entries");
    println!(
        "crash: {KILLS} kills; every log consistent with its checkpoint, nothing covered lost; {size} entries; {killed_mid_batch} kills between a durable checkpoint and its report"
    );
    println!("test result: ok. 1 passed; 0 failed");
}
