//! The server's CPU per accepted message on the relay path, in-process, against the
//! cryptography it must do at the least (one `SignedMessage::verify` and one
//! `SignedReceipt::sign` of the same bytes), measured in the same run: issue 14's ratio.
//!
//! `cargo bench -p fogproof-server --bench relay` (`FOGPROOF_RELAY_BENCH_SECONDS=S`, default 3
//! per side). Every player's and umpire's message of a self-played Kriegspiel match (seed 1)
//! is pushed, at its recorded time, through what `live.rs` does per message up to storage:
//! `Relay::accept_by` (the author check against the signed-in key, the relay's
//! decoding, signature check, sequencing, coordinator, budget and signed receipt), then the
//! entry's encoding and its `Entry` frame wrapped once for multiplexed sockets. Storage
//! (SQLite), the sockets and tokio are not in it: `fogproof loadtest` measures those.
//! Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, `sim::measure::thread_cpu_ns`),
//! so other processes on a shared core do not count; the two sides alternate so both see the
//! same machine.
//! Allocations are counted by a counting global allocator (`stats_alloc`).

use protocol::codec::Canonical;
use protocol::message::{Receipt, SignedMessage, SignedReceipt};
use protocol::relay::Relay;
use protocol::wire::ServerFrame;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::hint::black_box;
use std::time::Instant;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn thread_cpu_ns() -> u64 {
    sim::measure::thread_cpu_ns().expect("the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)")
}

struct Game {
    relay: protocol::Identity,
    agreed: protocol::terms::AgreedTerms,
    start_ms: u64,
    /// (author, bytes as sent, receipt time) of every player's and umpire's message.
    messages: Vec<(protocol::PublicKey, Vec<u8>, u64)>,
    /// The same messages and their receipts, for the bound.
    pairs: Vec<(SignedMessage, Receipt)>,
}

fn game() -> Game {
    let played = sim::selfplay_with(sim::SelfplayConfig::new(rules::Variant::Kriegspiel, 1))
        .expect("self-play");
    let relay = sim::selfplay::cast(1).relay;
    let agreed = played.record.terms.verify().expect("terms");
    let mut messages = Vec::new();
    let mut pairs = Vec::new();
    let mut start_ms = None;
    for e in &played.record.entries {
        let body = e.message.verify().expect("message");
        let receipt = Receipt::from_canonical(&e.receipt.receipt).expect("receipt");
        if body.author == relay.public() {
            start_ms.get_or_insert(receipt.time_ms);
            continue;
        }
        messages.push((body.author, e.message.to_canonical(), receipt.time_ms));
        pairs.push((e.message.clone(), receipt));
    }
    Game { relay, agreed, start_ms: start_ms.expect("a start notice"), messages, pairs }
}

/// One match through the relay path; returns the messages accepted.
fn relay_path(g: &Game) -> u64 {
    let mut relay = Relay::new(g.relay.clone(), g.agreed.clone(), g.start_ms).expect("relay");
    let match_id = g.agreed.match_id;
    let mut done = 0;
    let mut stored = 0;
    for (author, bytes, time_ms) in &g.messages {
        relay.accept_by(author, bytes, *time_ms).expect("accepted");
        done += 1;
        // What `flush` does for each new entry (the relay's own notices included).
        for e in &relay.entries()[stored..] {
            let bytes = e.to_canonical();
            let frame = ServerFrame::entry(&bytes);
            black_box(ServerFrame::wrap(&match_id, &frame));
            black_box(bytes);
        }
        stored = relay.entries().len();
    }
    done
}

/// The bound: verify and sign of the same messages.
fn bound(g: &Game) -> u64 {
    for (message, receipt) in &g.pairs {
        black_box(message.verify().expect("verify"));
        black_box(SignedReceipt::sign(receipt, &g.relay));
    }
    g.pairs.len() as u64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: f64 = std::env::var("FOGPROOF_RELAY_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let g = game();
    assert_eq!(relay_path(&g), g.messages.len() as u64, "every message accepted");
    let region = Region::new(GLOBAL);
    relay_path(&g);
    let relay_allocs = region.change().allocations;
    let region = Region::new(GLOBAL);
    bound(&g);
    let bound_allocs = region.change().allocations;
    let (mut relay_ns, mut relay_n, mut bound_ns, mut bound_n) = (0u64, 0u64, 0u64, 0u64);
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < 2.0 * seconds {
        let t = thread_cpu_ns();
        relay_n += relay_path(&g);
        relay_ns += thread_cpu_ns() - t;
        let t = thread_cpu_ns();
        bound_n += bound(&g);
        bound_ns += thread_cpu_ns() - t;
    }
    let relay_us = relay_ns as f64 / 1e3 / relay_n as f64;
    let bound_us = bound_ns as f64 / 1e3 / bound_n as f64;
    let n = g.messages.len() as f64;
    println!("relay path: {} messages of a Kriegspiel match (seed 1)", g.messages.len());
    println!(
        "relay path: {relay_us:.1} us CPU per message, {:.1} allocations per message",
        relay_allocs as f64 / n
    );
    println!(
        "verify + sign: {bound_us:.1} us CPU per message, {:.1} allocations per message",
        bound_allocs as f64 / n
    );
    println!("ratio: {:.2}x verify + sign", relay_us / bound_us);
}
