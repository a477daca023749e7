//! Polytune (WRK17 authenticated garbling, malicious security) on the Kriegspiel umpire
//! circuit: two parties on two threads in one process over polytune's in-memory channels;
//! wall time and bytes per attempt, outputs checked against the plaintext circuit.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rules::chess::Position;
use rules::{Move, Square};
use std::time::{Duration, Instant};
use twoparty::circuit::{Circuit, Gate};
use twoparty::encode::inputs_from_position;

fn to_garble(c: &Circuit) -> garble_lang::circuit::Circuit {
    use garble_lang::circuit::Gate as G;
    garble_lang::circuit::Circuit {
        input_gates: c.inputs.iter().map(|&n| n as usize).collect(),
        gates: c
            .gates
            .iter()
            .map(|g| match *g {
                Gate::Xor(a, b) => G::Xor(a as usize, b as usize),
                Gate::And(a, b) => G::And(a as usize, b as usize),
                Gate::Not(a) => G::Not(a as usize),
            })
            .collect(),
        output_gates: c.outputs.iter().map(|&o| o as usize).collect(),
    }
}

fn run(c: &garble_lang::register_circuit::Circuit, a: &[bool], b: &[bool]) -> (Vec<bool>, u64) {
    use polytune::channel::SimpleChannel;
    let mut chans = SimpleChannel::channels(2);
    let ch1 = chans.pop().expect("two channels");
    let ch0 = chans.pop().expect("two channels");
    let (c1, b1) = (c.clone(), b.to_vec());
    let t = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        let out = rt.block_on(polytune::mpc(&ch1, &c1, &b1, 0, 1, &[0, 1], None)).expect("mpc");
        (out, ch1.bytes_sent())
    });
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let out0 = rt.block_on(polytune::mpc(&ch0, c, a, 0, 0, &[0, 1], None)).expect("mpc");
    let (out1, sent1) = t.join().expect("party 1");
    assert_eq!(out0, out1, "both parties get the same output");
    (out0, ch0.bytes_sent() + sent1)
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let c = twoparty::umpire::circuit();
    let reg: garble_lang::register_circuit::Circuit = (&to_garble(&c)).into();
    reg.validate().expect("a valid circuit");
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let mut pos = Position::start();
    let mut total = Duration::ZERO;
    let mut bytes = 0u64;
    for i in 0..n {
        let legal = pos.legal_moves();
        let attempt = if i % 2 == 0 {
            legal[rng.next_u32() as usize % legal.len()]
        } else {
            let sq = |x: u32| Square::from_index((x % 64) as u8).expect("on the board");
            Move::new(sq(rng.next_u32()), sq(rng.next_u32()))
        };
        let (m, o) = inputs_from_position(&pos, attempt, (0, 0));
        let (a, b) = (m.bits(), o.bits());
        let t = Instant::now();
        let (out, sent) = run(&reg, &a, &b);
        total += t.elapsed();
        bytes += sent;
        assert_eq!(out, c.eval(&[a, b]), "polytune agrees with the plaintext circuit");
        let mv = legal[rng.next_u32() as usize % legal.len()];
        pos = pos.play(&mv).expect("legal");
    }
    println!(
        "polytune 0.2.0-alpha.4: {:.1} ms per attempt, {:.2} MB per attempt ({n} attempts, {} AND gates)",
        total.as_secs_f64() * 1000.0 / n as f64,
        bytes as f64 / n as f64 / 1e6,
        c.and_gates()
    );
}
