//! Appends per second with a durable checkpoint per batch, against hashing the same entries
//! alone (their RFC 6962 leaf hashes), in one run; prints the ratio. The bar: 10,000
//! durable appends per second on this machine.
//!
//! `cargo bench -p fogproof-ledger --bench append`

use criterion::{BatchSize, Criterion, Throughput};
use ledger::log::LogWriter;
use ledger::note::{KeyKind, SignerKey};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Entries per measured run.
const ENTRIES: usize = 10_000;
/// A match entry's typical size (bytes, prefix included).
const ENTRY_BYTES: usize = 330;

fn entries() -> Vec<Vec<u8>> {
    (0..ENTRIES)
        .map(|i| {
            let mut e = vec![(i % 251) as u8; ENTRY_BYTES];
            e[..8].copy_from_slice(&(i as u64).to_le_bytes());
            e
        })
        .collect()
}

fn key() -> SignerKey {
    SignerKey::from_seed("bench.fogproof.example", KeyKind::Ed25519, [1; 32]).expect("key")
}

/// Appends every entry in batches of `batch`, one durable checkpoint per batch.
fn append_all(entries: &[Vec<u8>], batch: usize) -> Duration {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = LogWriter::create(dir.path(), key()).expect("create");
    let t = Instant::now();
    for chunk in entries.chunks(batch) {
        black_box(w.append(chunk, &[]).expect("append"));
    }
    t.elapsed()
}

fn hash_all(entries: &[Vec<u8>]) -> Duration {
    let t = Instant::now();
    for e in entries {
        black_box(ledger::merkle::leaf_hash(black_box(e)));
    }
    t.elapsed()
}

fn main() {
    let entries = entries();
    let mut c = Criterion::default().sample_size(10).configure_from_args();
    let mut g = c.benchmark_group("ledger");
    g.throughput(Throughput::Elements(ENTRIES as u64));
    for batch in [64usize, 256, 1024] {
        g.bench_function(format!("append {ENTRIES} entries, checkpoint every {batch}"), |b| {
            b.iter_batched(|| (), |()| append_all(&entries, batch), BatchSize::PerIteration)
        });
    }
    g.bench_function(format!("hash {ENTRIES} entries"), |b| b.iter(|| hash_all(&entries)));
    g.finish();

    // The ratio, measured side by side in this run (median of 5).
    let median = |f: &dyn Fn() -> Duration| {
        let mut v: Vec<Duration> = (0..5).map(|_| f()).collect();
        v.sort();
        v[2]
    };
    let hash = median(&|| hash_all(&entries));
    println!("\nhash alone: {:>12.0} entries/s", ENTRIES as f64 / hash.as_secs_f64());
    for batch in [64usize, 256, 1024] {
        let append = median(&|| append_all(&entries, batch));
        println!(
            "durable append, checkpoint every {batch:>4}: {:>12.0} entries/s ({:.1}x the time of hashing alone)",
            ENTRIES as f64 / append.as_secs_f64(),
            append.as_secs_f64() / hash.as_secs_f64()
        );
    }
}
