//! Perft speed of fogproof's chess move generator next to shakmaty's (a dev-dependency only),
//! on the chessprogramming wiki positions at the same depths, in one run so the ratio can be
//! read: `cargo bench -p fogproof-rules --bench perft`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rules::Analysis;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};
use std::hint::black_box;
use std::time::Duration;

/// (name, position, depth, expected count): the count is asserted once so both engines are
/// known to do the same work.
const POSITIONS: [(&str, &str, u32, u64); 6] = [
    ("start", rules::chess::START_FEN, 5, 4_865_609),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    ),
    ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
    ("pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333),
    ("pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487),
    (
        "pos6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        4,
        3_894_594,
    ),
];

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, fen, depth, nodes) in POSITIONS {
        let ours = rules::chess::Position::from_fen(fen).expect("a valid position");
        let theirs: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("a valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("a valid position");
        assert_eq!(ours.perft(depth), nodes, "fogproof {name}");
        assert_eq!(shakmaty::perft(&theirs, depth), nodes, "shakmaty {name}");
        group.bench_with_input(BenchmarkId::new("fogproof", name), &ours, |b, p| {
            b.iter(|| black_box(p).perft(depth));
        });
        group.bench_with_input(BenchmarkId::new("shakmaty", name), &theirs, |b, p| {
            b.iter(|| shakmaty::perft(black_box(p), depth));
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
