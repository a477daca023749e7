//! Figures for docs/TWO-PARTY.md (a measurement, not a test): the circuit's size per section,
//! and per attempt on this machine, for the same attempts from random games: the ordinary
//! umpire's time, the plaintext circuit's time, and the MPC engine tandem (WRK17 authenticated
//! garbling, malicious security) with the two parties in one process on two threads over
//! in-memory channels (loopback): wall time and bytes both ways. (polytune, the other engine
//! evaluated, does not build in this workspace: docs/TWO-PARTY.md.)
//!
//! `cargo run --release -p fogproof-twoparty --example figures [ATTEMPTS]`

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

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let c = twoparty::umpire::circuit();
    println!(
        "circuit: {} AND gates, {} gates in all, inputs {:?} bits, {} outputs",
        c.and_gates(),
        c.gates.len(),
        c.inputs,
        c.outputs.len()
    );
    for (name, ands) in &c.sections {
        println!("  {name:40} {ands:>7} AND");
    }
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

    let attempts = &attempts[..n];
    let tc = to_tandem(&c);
    tc.validate().expect("a valid circuit for tandem");
    let mut total = Duration::ZERO;
    let mut bytes = 0u64;
    for (i, (_, m, a, b)) in attempts.iter().enumerate() {
        let t = Instant::now();
        let (out, sent, steps) = tandem_run(&tc, a, b, i as u64);
        if i == 0 {
            println!(
                "tandem steps of the first attempt (arrival of the contributor's message, its size):"
            );
            for (k, (at, len)) in steps.iter().enumerate() {
                println!("  step {k}: {:>8.1} ms {:>10} bytes", at.as_secs_f64() * 1000.0, len);
            }
        }
        total += t.elapsed();
        bytes += sent;
        let want = c.eval(&[a.clone(), b.clone()]);
        assert_eq!(out, want, "tandem agrees with the plaintext circuit on {m:?}");
    }
    println!(
        "tandem 0.3.0: {} per attempt, {:.2} MB per attempt ({} attempts)",
        per(total, n),
        bytes as f64 / n as f64 / 1e6,
        n
    );
}
