//! The umpire service's CPU per answer, in-process, against the cryptography it must do at
//! the least, measured in the same run: issue 14's bar for the umpire (at most its
//! cryptography plus 20%).
//!
//! `cargo bench -p fogproof-server --bench umpire` (`FOGPROOF_UMPIRE_BENCH_SECONDS=S`, default
//! 3 per side). Every entry of a self-played Kriegspiel match (seed 1: the players' sealed
//! attempts, the relay's notices, the umpire's own messages coming back) is delivered in
//! order to a fresh `protocol::roles::Umpire` with the match's umpire key and secret, the
//! machine the umpire service runs for every match (`client::agent`, through its seat); what
//! it writes is taken from it (`poll_output`), and checked to be, byte for byte, the umpire's
//! messages of the record (the umpire is deterministic from its secret).
//!
//! The cryptography it must do, timed on the same entries: `sim::measure::UmpireCrypto`
//! (check, open, seal, sign), the same bound `fogproof loadtest --umpire-process` compares
//! the umpire process with.
//!
//! Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, `sim::measure::thread_cpu_ns`);
//! the two sides alternate.
//! With `FOGPROOF_UMPIRE_BENCH_PHASES=1` the bare side is printed by operation too (timed in
//! passes of their own, which read the clock around every operation).

use protocol::codec::Canonical;
use protocol::message::SignedMessage;
use protocol::roles::{Input, Output, Participant, Umpire};
use sim::measure::{UmpireCrypto, UmpirePhases};
use std::hint::black_box;
use std::time::Instant;

fn thread_cpu_ns() -> u64 {
    sim::measure::thread_cpu_ns().expect("the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)")
}

/// One match through the umpire's machine; returns its messages written.
fn umpire(g: &UmpireCrypto) -> Vec<SignedMessage> {
    let mut u = Umpire::new(g.umpire.clone(), g.agreed.clone(), g.secret).expect("umpire");
    let mut out = Vec::new();
    for e in &g.entries {
        u.handle(Input::Delivered(e.clone())).expect("delivered");
        while let Some(o) = u.poll_output() {
            if let Output::Send(m) = o {
                out.push(m);
            }
        }
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: f64 = std::env::var("FOGPROOF_UMPIRE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let g = UmpireCrypto::new().expect("the self-played match");
    let wrote: Vec<Vec<u8>> = umpire(&g).iter().map(Canonical::to_canonical).collect();
    assert_eq!(wrote, g.written, "the umpire writes the record's messages again");
    g.pass(None).expect("the umpire's cryptography");
    let (mut umpire_ns, mut rounds, mut bare_ns) = (0u64, 0u64, 0u64);
    let mut phases = UmpirePhases::default();
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < 2.0 * seconds {
        let t = thread_cpu_ns();
        black_box(umpire(&g));
        umpire_ns += thread_cpu_ns() - t;
        let t = thread_cpu_ns();
        g.pass(None).expect("the umpire's cryptography");
        bare_ns += thread_cpu_ns() - t;
        rounds += 1;
    }
    // The operations timed apart, in passes of their own (reading the clock around each
    // operation costs time the passes above do not pay).
    let phase_passes = rounds.min(20);
    for _ in 0..phase_passes {
        g.pass(Some(&mut phases)).expect("the umpire's cryptography");
    }
    let per = |ns: u64| ns as f64 / 1e3 / (rounds as f64 * g.written.len() as f64);
    let per_phase = |ns: u64| ns as f64 / 1e3 / (phase_passes as f64 * g.written.len() as f64);
    let players = g.entries.len() - g.written.len();
    println!(
        "umpire: {} entries of a Kriegspiel match (seed 1): {} it writes, {} others'",
        g.entries.len(),
        g.written.len(),
        players
    );
    println!("umpire machine: {:.1} us CPU per message it writes", per(umpire_ns));
    println!(
        "its cryptography (check, open, seal, sign): {:.1} us CPU per message it writes",
        per(bare_ns)
    );
    if std::env::var_os("FOGPROOF_UMPIRE_BENCH_PHASES").is_some() {
        println!(
            "  check {:.1}, open {:.1}, seal {:.1}, sign {:.1} us per message it writes",
            per_phase(phases.check),
            per_phase(phases.open),
            per_phase(phases.seal),
            per_phase(phases.sign)
        );
    }
    println!("ratio: {:.2}x its cryptography", umpire_ns as f64 / bare_ns as f64);
}
