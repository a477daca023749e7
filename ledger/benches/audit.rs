//! `fogproof ledger audit`'s work on a log of self-played records: records per second on every
//! core against one core, and the audit's time per record against verifying the record alone
//! (`verifier::verify`, what `fogproof verify` does per file), in one run.
//!
//! `FOGPROOF_AUDIT_RECORDS=10000 cargo bench -p fogproof-ledger --bench audit` (default 100
//! records). The log is built once (self-play on every core, then verified appends in batches
//! of 256) under `target/ledger-audit-bench/<records>/` and reused by later runs. Variants cycle
//! through chess, intrigue, 6x6 secret chess and espionage (Kriegspiel and Secret Intelligence
//! Chess records are 5 to 30 times larger and slower; `cargo bench -p fogproof-verifier` has
//! per-variant figures).

use ledger::checkpoint::Policy;
use ledger::note::{KeyKind, SignerKey};
use ledger::store::DirReader;
use ledger::{Ledger, Submission};
use rayon::prelude::*;
use rules::Variant;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

const VARIANTS: [Variant; 4] =
    [Variant::Chess, Variant::Intrigue, Variant::SecretChess6, Variant::Espionage];

fn key() -> SignerKey {
    SignerKey::from_seed("bench.fogproof.example/audit", KeyKind::Ed25519, [2; 32]).expect("key")
}

fn build(dir: &std::path::Path, records: u64) -> Ledger {
    if let Ok(l) = Ledger::open(dir, key())
        && l.checkpoint().checkpoint.size == records
    {
        return l;
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut ledger = Ledger::create(dir, key()).expect("create");
    let t = Instant::now();
    for start in (1..=records).step_by(256) {
        let end = (start + 255).min(records);
        let batch: Vec<Submission> = (start..=end)
            .into_par_iter()
            .map(|seed| Submission::Match {
                record: sim::selfplay(VARIANTS[seed as usize % 4], seed).expect("self-play").0,
                tournament: None,
            })
            .collect();
        ledger.append(&batch).expect("append");
        eprintln!("built {end}/{records} ({:.0} s)", t.elapsed().as_secs_f64());
    }
    ledger
}

fn main() {
    let records: u64 =
        std::env::var("FOGPROOF_AUDIT_RECORDS").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../target/ledger-audit-bench/{records}"));
    let ledger = build(&dir, records);
    let policy = Policy::log_only(ledger.verifier_key().clone());
    let reader = DirReader::new(&dir);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);

    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .next()
            .unwrap_or("?")
            .to_string()
    };
    // (wall seconds, CPU seconds of the whole process): the machine is shared, so CPU time says
    // what the work costs when other processes take cores away.
    let timed = |f: &dyn Fn()| {
        let (t, c) = (Instant::now(), cpu_seconds());
        f();
        (t.elapsed().as_secs_f64(), cpu_seconds() - c)
    };
    let audit_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        timed(&|| {
            let report =
                pool.install(|| ledger::audit::audit(&reader, &policy, &|_| {})).expect("audit");
            assert!(report.findings.is_empty(), "{:?}", report.findings);
        })
    };
    let load_before = load();
    let (one, one_cpu) = audit_with(1);
    let (all, all_cpu) = audit_with(cores);

    // Verifying each record alone, one thread: what `fogproof verify` does per file, and what
    // the ledger calls (`verify_match`: the verdict bound to the record's hash and parties).
    let files: Vec<Vec<u8>> = std::fs::read_dir(dir.join("records"))
        .expect("records")
        .map(|e| std::fs::read(e.expect("entry").path()).expect("record"))
        .collect();
    let (verify, _) = timed(&|| {
        for f in &files {
            black_box(verifier::verify(black_box(f)));
        }
    });
    let (verify_match, _) = timed(&|| {
        for f in &files {
            black_box(verifier::verify_match(black_box(f)));
        }
    });
    let n = records as f64;
    println!(
        "audit of {records} self-played records ({:.1} MB); load average {load_before} before, {} after:",
        files.iter().map(Vec::len).sum::<usize>() as f64 / 1e6,
        load()
    );
    println!(
        "  1 thread:  {:>7.1} records/s wall ({:.2} ms per record, {:.2} CPU-ms per record)",
        n / one,
        1e3 * one / n,
        1e3 * one_cpu / n
    );
    println!(
        "  {cores} threads: {:>7.1} records/s wall ({:.2}x one thread; {:.2} CPU-ms per record: {:.2}x on {cores} idle cores)",
        n / all,
        one / all,
        1e3 * all_cpu / n,
        cores as f64 * one_cpu / all_cpu
    );
    println!(
        "  one thread, per record: verify {:.2} ms (the audit {:.2}x), verify_match {:.2} ms (the audit {:.2}x)",
        1e3 * verify / n,
        one / verify,
        1e3 * verify_match / n,
        one / verify_match
    );
}

/// CPU seconds (user and system, every thread) of this process so far, from /proc/self/stat
/// (clock ticks of 1/100 s, Linux's USER_HZ).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (in parentheses, which may hold spaces): utime and
    // stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}
