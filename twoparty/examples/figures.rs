//! Figures for docs/TWO-PARTY.md (a measurement, not a test): the circuit's size per section,
//! and per attempt on this machine, for the same attempts from random games: the ordinary
//! umpire's time, the plaintext circuit's time, and the MPC engine tandem (WRK17 authenticated
//! garbling, malicious security) with the two parties in one process on two threads over
//! in-memory channels (loopback): wall time and bytes both ways. (polytune, the other engine
//! evaluated, does not build in this workspace: docs/TWO-PARTY.md.)
//!
//! Circuits measured: the whole answer, and the split computation's two halves (legality on
//! every attempt, the announcement on legal ones), each with the opponent's MAC tag as it
//! would run with tandem (output to the mover only).
//!
//! `cargo run --release -p fogproof-twoparty --features engines --example figures [RUNS] [all|split|none]`

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rules::kriegspiel::{Options, State};
use rules::{Game, Move, Square};
use std::time::{Duration, Instant};
use twoparty::circuit::{Circuit, Gate};
use twoparty::encode::{answer, inputs_from_position};

/// (position state, attempt, inputs) for `n` attempts from random games, half legal.
fn corpus(n: usize) -> Vec<(State, Move, Vec<bool>, Vec<bool>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let mut out = Vec::new();
    let mut state = State::start(Options::default());
    let mut since = [0u32, 0];
    while out.len() < n {
        if state.result().is_some() || state.position().fullmoves() > 60 {
            state = State::start(Options::default());
            since = [0, 0];
        }
        let pos = state.position().clone();
        let legal = pos.legal_moves();
        let us = pos.turn();
        let attempt = if rng.next_u32() % 2 == 0 {
            legal[rng.next_u32() as usize % legal.len()]
        } else {
            let sq = |x: u32| Square::from_index((x % 64) as u8).expect("on the board");
            Move::new(sq(rng.next_u32()), sq(rng.next_u32()))
        };
        let (m, o) =
            inputs_from_position(&pos, attempt, (since[us.index()], since[1 - us.index()]));
        out.push((state.clone(), attempt, m.bits(), o.bits()));
        let mv = legal[rng.next_u32() as usize % legal.len()];
        let reset = pos.capture_of(&mv).is_some();
        let pawn = pos.board().piece_at(mv.from).is_some_and(|p| p.role == rules::Role::Pawn);
        state = state.apply(us, &mv).expect("legal").state;
        since = if reset { [0, 0] } else { [since[0] + 1, since[1] + 1] };
        if pawn {
            since[us.index()] = 0;
        }
    }
    out
}

/// Tandem's format: party 0 (the mover) is the evaluator (it must learn "illegal"), party 1
/// the contributor.
fn to_tandem(c: &Circuit) -> tandem::Circuit {
    use tandem::Gate as G;
    let mut gates = Vec::with_capacity(c.wires());
    gates.extend((0..c.inputs[0]).map(|_| G::InEval));
    gates.extend((0..c.inputs[1]).map(|_| G::InContrib));
    gates.extend(c.gates.iter().map(|g| match *g {
        Gate::Xor(a, b) => G::Xor(a, b),
        Gate::And(a, b) => G::And(a, b),
        Gate::Not(a) => G::Not(a),
    }));
    tandem::Circuit::new(gates, c.outputs.clone())
}

/// Runs tandem once: the output, the bytes both ways, and per step of the evaluator the time
/// since the start at which the contributor's message arrived and that message's size.
fn tandem_run(
    c: &tandem::Circuit,
    a: &[bool],
    b: &[bool],
    seed: u64,
) -> (Vec<bool>, u64, Vec<(Duration, usize)>) {
    use rand_chacha_03::ChaCha20Rng;
    use rand_chacha_03::rand_core::SeedableRng as _;
    use std::sync::mpsc::channel;
    use tandem::states::{Contributor, Evaluator, Msg};
    let (to_eval, from_contrib) = channel::<Msg>();
    let (to_contrib, from_eval) = channel::<Msg>();
    let (cc, bb) = (c.clone(), b.to_vec());
    let start = Instant::now();
    let mut steps = Vec::new();
    let t = std::thread::spawn(move || {
        let (mut contrib, msg) =
            Contributor::new(&cc, bb.as_slice(), ChaCha20Rng::seed_from_u64(seed))
                .expect("contrib");
        let mut sent = msg.len() as u64;
        to_eval.send(msg).expect("send");
        for _ in 0..contrib.steps() {
            let msg = from_eval.recv().expect("recv");
            let (next, reply) = contrib.run(&msg).expect("contrib step");
            sent += reply.len() as u64;
            to_eval.send(reply).expect("send");
            contrib = next;
        }
        sent
    });
    let mut eval = Evaluator::new(c, a, ChaCha20Rng::seed_from_u64(seed ^ 1)).expect("evaluator");
    let mut sent = 0u64;
    for _ in 0..eval.steps() {
        let msg = from_contrib.recv().expect("recv");
        steps.push((start.elapsed(), msg.len()));
        let (next, reply) = eval.run(&msg).expect("eval step");
        sent += reply.len() as u64;
        to_contrib.send(reply).expect("send");
        eval = next;
    }
    let last = from_contrib.recv().expect("recv");
    steps.push((start.elapsed(), last.len()));
    let out = eval.output(&last).expect("output");
    steps.push((start.elapsed(), 0));
    let sent_c = t.join().expect("contributor");
    (out, sent + sent_c, steps)
}

fn per(d: Duration, n: usize) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0 / n as f64)
}

fn sizes(name: &str, c: &Circuit) {
    println!(
        "{name}: {} AND gates, {} gates in all, inputs {:?} bits, {} outputs",
        c.and_gates(),
        c.gates.len(),
        c.inputs,
        c.outputs.len()
    );
    for (name, ands) in &c.sections {
        println!("  {name:40} {ands:>7} AND");
    }
}

/// Runs tandem on the joint part of `c` for each (mover, opponent) input pair, the
/// opponent's MAC key appended, each party's local part evaluated first; prints the time and
/// traffic per run, with the spread; checks the output against the plaintext circuit.
fn tandem_figures(name: &str, c: &Circuit, inputs: &[(Vec<bool>, Vec<bool>)], key_bits: u32) {
    let split = c.split_local();
    let tc = to_tandem(&split.joint);
    tc.validate().expect("a valid circuit for tandem");
    let mut times = Vec::new();
    let mut bytes = 0u64;
    for (i, (a, b)) in inputs.iter().enumerate() {
        let mut b = b.clone();
        b.extend((0..key_bits).map(|k| (k as usize * 7 + i).is_multiple_of(3)));
        let t = Instant::now();
        let a_mid = split.local[0].eval(std::slice::from_ref(a));
        let b_mid = split.local[1].eval(std::slice::from_ref(&b));
        let (out, sent, steps) = tandem_run(&tc, &a_mid, &b_mid, i as u64);
        times.push(t.elapsed());
        if i == 0 {
            println!(
                "{name}: tandem steps of the first run (arrival of the contributor's message, its size):"
            );
            for (k, (at, len)) in steps.iter().enumerate() {
                println!("  step {k}: {:>8.1} ms {:>10} bytes", at.as_secs_f64() * 1000.0, len);
            }
        }
        bytes += sent;
        assert_eq!(out, c.eval(&[a.clone(), b]), "tandem agrees with the plaintext circuit");
    }
    let total: Duration = times.iter().sum();
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let min = times.iter().map(ms).fold(f64::INFINITY, f64::min);
    let max = times.iter().map(ms).fold(0.0, f64::max);
    println!(
        "{name}: tandem 0.3.0: {} per run (min {min:.0} ms, max {max:.0} ms), {:.2} MB per run ({} runs)",
        per(total, inputs.len()),
        bytes as f64 / inputs.len() as f64 / 1e6,
        inputs.len()
    );
}

/// The circuit's sizes, and its joint part's (what runs under MPC once each party has
/// computed what it can alone).
fn sizes_split(name: &str, c: &Circuit) {
    sizes(name, c);
    let s = c.split_local();
    println!(
        "  joint part: {} AND gates, inputs {:?} bits; local parts: {:?} AND gates",
        s.joint.and_gates(),
        s.joint.inputs,
        s.local.iter().map(Circuit::and_gates).collect::<Vec<_>>()
    );
    for (name, ands) in s.joint.sections.iter().filter(|x| x.1 > 0) {
        println!("    {name:38} {ands:>7} AND");
    }
}

fn main() {
    use twoparty::umpire::{Part, circuit_part, tag_key_bits};
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    // Which engine runs: "all" (default), "split" (the two halves only) or "none" (sizes).
    let which = std::env::args().nth(2).unwrap_or_else(|| "all".to_string());
    let c = twoparty::umpire::circuit();
    sizes("whole circuit (no tag)", &c);
    let whole = circuit_part(Part::Whole, true);
    let legality = circuit_part(Part::Legality, true);
    let announcement = circuit_part(Part::Announcement, true);
    sizes_split("whole circuit with tag", &whole);
    sizes_split("legality circuit with tag (every attempt)", &legality);
    sizes_split("announcement circuit with tag (legal attempts)", &announcement);
    let joint = |c: &Circuit| c.split_local().joint.and_gates();
    println!(
        "joint AND gates per illegal attempt: {}; per legal move: {} (whole circuit: {})",
        joint(&legality),
        joint(&legality) + joint(&announcement),
        joint(&whole)
    );
    let attempts = corpus(n.max(200));

    // The ordinary umpire and the plaintext circuit on the same attempts.
    let t = Instant::now();
    let mut expected = Vec::new();
    for (s, m, _, _) in &attempts {
        let tr = s.apply(s.position().turn(), m).expect("applies");
        expected.push(tr.told[s.position().turn()].clone().expect("told"));
    }
    let umpire = t.elapsed();
    let t = Instant::now();
    for ((s, _, a, b), e) in attempts.iter().zip(&expected) {
        let out = c.eval(&[a.clone(), b.clone()]);
        assert_eq!(&answer(&out, s.position().turn()), e);
    }
    let plain = t.elapsed();
    println!(
        "{} attempts: ordinary umpire {} per attempt; plaintext circuit {} per attempt",
        attempts.len(),
        per(umpire, attempts.len()),
        per(plain, attempts.len())
    );
    if which == "none" {
        return;
    }
    let pairs: Vec<(Vec<bool>, Vec<bool>)> =
        attempts.iter().take(n).map(|(_, _, a, b)| (a.clone(), b.clone())).collect();
    let legal_pairs: Vec<(Vec<bool>, Vec<bool>)> = attempts
        .iter()
        .filter(|(_, _, a, b)| c.eval(&[a.clone(), b.clone()])[0])
        .take(n)
        .map(|(_, _, a, b)| (a.clone(), b.clone()))
        .collect();
    tandem_figures("legality", &legality, &pairs, tag_key_bits(Part::Legality.outputs()));
    tandem_figures(
        "announcement",
        &announcement,
        &legal_pairs,
        tag_key_bits(Part::Announcement.outputs()),
    );
    if which == "all" {
        tandem_figures("whole", &whole, &pairs, tag_key_bits(Part::Whole.outputs()));
    }
}
