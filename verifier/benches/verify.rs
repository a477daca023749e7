//! Records verified per second, per variant, for self-played records (`client::selfplay`), and
//! in the same run the time to batch-verify only those records' signatures; prints the ratio
//! verify ÷ signature-only per variant (the bar: ≤ 2.0, goal ≤ 1.2).
//!
//! `cargo bench -p fogproof-verifier --bench verify`

use criterion::{Criterion, Throughput};
use protocol::codec::Canonical;
use protocol::record::MatchRecord;
use rules::Variant;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Self-played records per variant (seeds 1..=RECORDS).
const RECORDS: u64 = 4;

struct Corpus {
    variant: Variant,
    bytes: Vec<Vec<u8>>,
    records: Vec<MatchRecord>,
}

fn corpus() -> Vec<Corpus> {
    Variant::ALL
        .into_iter()
        .map(|variant| {
            let bytes: Vec<Vec<u8>> = (1..=RECORDS)
                .map(|seed| client::selfplay::selfplay(variant, seed).expect("self-play").0)
                .collect();
            let records =
                bytes.iter().map(|b| MatchRecord::from_canonical(b).expect("a record")).collect();
            Corpus { variant, bytes, records }
        })
        .collect()
}

fn verify_all(c: &Corpus) {
    for b in &c.bytes {
        black_box(verifier::verify(black_box(b)));
    }
}

fn signatures_only(c: &Corpus) {
    for r in &c.records {
        let items = verifier::envelope::signature_items(r);
        assert!(protocol::batch::verify_batch(black_box(&items)).is_ok());
    }
}

/// Mean time of `f` over enough runs to fill `budget`.
fn mean(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < budget {
        f();
        runs += 1;
    }
    start.elapsed() / runs.max(1)
}

fn main() {
    let corpus = corpus();
    let mut criterion = Criterion::default().configure_from_args();
    for c in &corpus {
        let mut group = criterion.benchmark_group(format!("verify/{}", c.variant));
        group.throughput(Throughput::Elements(c.bytes.len() as u64));
        group.sample_size(20);
        group.bench_function("full", |b| b.iter(|| verify_all(c)));
        group.bench_function("signatures-only", |b| b.iter(|| signatures_only(c)));
        group.finish();
    }
    criterion.final_summary();

    println!();
    println!(
        "{:<13} {:>8} {:>9} {:>12} {:>14} {:>16} {:>7}",
        "variant", "records", "entries", "verify/s", "verify ms/rec", "sigs-only ms/rec", "ratio"
    );
    for c in &corpus {
        let n = c.bytes.len() as u32;
        let entries: usize = c.records.iter().map(|r| r.entries.len()).sum();
        let full = mean(Duration::from_secs(2), || verify_all(c)) / n;
        let sigs = mean(Duration::from_secs(2), || signatures_only(c)) / n;
        let per_second = 1.0 / full.as_secs_f64();
        println!(
            "{:<13} {:>8} {:>9} {:>12.1} {:>14.3} {:>16.3} {:>7.2}",
            c.variant.id(),
            n,
            entries,
            per_second,
            full.as_secs_f64() * 1e3,
            sigs.as_secs_f64() * 1e3,
            full.as_secs_f64() / sigs.as_secs_f64()
        );
    }
}
