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

/// Runs polytune on the joint part of `c` (after each party's local part) for each input
/// pair: time and traffic per run, with the spread; outputs checked against the plaintext
/// circuit. Polytune gives the output to both parties, so no tag is needed.
fn figures(name: &str, c: &Circuit, inputs: &[(Vec<bool>, Vec<bool>)]) {
    let split = c.split_local();
    let reg: garble_lang::register_circuit::Circuit = (&to_garble(&split.joint)).into();
    reg.validate().expect("a valid circuit");
    let mut times = Vec::new();
    let mut bytes = 0u64;
    for (a, b) in inputs {
        let t = Instant::now();
        let a_mid = split.local[0].eval(std::slice::from_ref(a));
        let b_mid = split.local[1].eval(std::slice::from_ref(b));
        let (out, sent) = run(&reg, &a_mid, &b_mid);
        times.push(t.elapsed());
        bytes += sent;
        assert_eq!(
            out,
            c.eval(&[a.clone(), b.clone()]),
            "polytune agrees with the plaintext circuit"
        );
    }
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let total: f64 = times.iter().map(ms).sum();
    let min = times.iter().map(ms).fold(f64::INFINITY, f64::min);
    let max = times.iter().map(ms).fold(0.0, f64::max);
    let n = inputs.len();
    println!(
        "{name}: polytune 0.2.0-alpha.4: {:.1} ms per run (min {min:.0}, max {max:.0}), {:.2} MB per run ({n} runs, {} joint AND gates)",
        total / n as f64,
        bytes as f64 / n as f64 / 1e6,
        split.joint.and_gates()
    );
}

fn main() {
    use twoparty::umpire::{Part, circuit_part};
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let whole = twoparty::umpire::circuit();
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let mut pos = Position::start();
    let (mut any, mut legal_ones) = (Vec::new(), Vec::new());
    let mut i = 0;
    while any.len() < n || legal_ones.len() < n {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            pos = Position::start();
            continue;
        }
        let attempt = if i % 2 == 0 {
            legal[rng.next_u32() as usize % legal.len()]
        } else {
            let sq = |x: u32| Square::from_index((x % 64) as u8).expect("on the board");
            Move::new(sq(rng.next_u32()), sq(rng.next_u32()))
        };
        i += 1;
        let (m, o) = inputs_from_position(&pos, attempt, (0, 0));
        let (a, b) = (m.bits(), o.bits());
        if whole.eval(&[a.clone(), b.clone()])[0] && legal_ones.len() < n {
            legal_ones.push((a.clone(), b.clone()));
        }
        if any.len() < n {
            any.push((a, b));
        }
        let mv = legal[rng.next_u32() as usize % legal.len()];
        pos = pos.play(&mv).expect("legal");
    }
    figures("legality (every attempt)", &circuit_part(Part::Legality, false), &any);
    figures("announcement (legal attempts)", &circuit_part(Part::Announcement, false), &legal_ones);
    figures("whole", &whole, &any);
}
