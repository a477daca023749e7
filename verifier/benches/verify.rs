//! Records verified per second, per variant, for self-played records (`sim::selfplay`), and
//! in the same run the time to batch-verify only those records' signatures; prints the ratio
//! verify ÷ signature-only per variant (issue 13's bar: <= 1.3 for every variant, goal 1.1,
//! with every disclosure checked). A third column is the cryptographic floor of that check:
//! the signatures, plus per sealing context (one per author and private channel) one check of
//! the disclosed key against its commitment and, where the context's recipient did not
//! countersign, one key derivation from the disclosed seal seed (an X25519 key pair and a
//! Diffie-Hellman; docs/PROTOCOL.md 14.2: none in an honest self-played record, where everyone
//! countersigns), plus per sealed message one XChaCha20-Poly1305 opening at its padded size,
//! timed in the same run; the last column is verify ÷ that floor, the verifier's own overhead.
//!
//! `cargo bench -p fogproof-verifier --bench verify`
//!
//! `FOGPROOF_BENCH_PROFILE=VARIANT[:SECONDS]` loops one variant's verification only, for a
//! profiler. The table's times are the thread's CPU time (see `clock`).
//!
//! `FOGPROOF_BENCH_COUNT=VARIANT:ROUNDS` builds one variant's corpus, then runs `verify_all`
//! ROUNDS times and `signatures_only` ROUNDS times over the same records, and nothing else, for
//! an instruction count: run it under `valgrind --tool=callgrind` and read the inclusive counts
//! of the two functions (`callgrind_annotate --inclusive=yes`); their quotient is verify ÷ batch
//! signature check in instructions, the same whatever the machine's load.
//! `verifier/benches/callgrind.sh` does this for every variant. `FOGPROOF_BENCH_RECORDS=DIR`
//! keeps the self-played records in DIR and reads them back on the next run.
//!
//! Figures: docs/PROTOCOL.md section 12 (protocol v3). Release build, contended 2-core machine
//! (load average 12), thread CPU time, `-- no-criterion-run`: ratio chess 1.08, kriegspiel
//! 1.18, sic 1.69, intrigue 1.36, secretchess6 1.53, espionage 1.27 (the bar is not met for
//! sic, intrigue and secretchess6). Version 2 (release, docs/LOADTEST.md): kriegspiel 3.74 to
//! 4.30, sic 3.58 to 4.11. Stop 17 (docs/PROTOCOL.md section 12, with the commands): verify Ir
//! ÷ signature-check Ir (callgrind) chess 1.17, kriegspiel 1.24, sic 1.20, intrigue 1.20,
//! secretchess6 1.37, espionage 1.18; in time, 3 runs, sic 1.26 to 1.35, secretchess6 1.31 to
//! 1.54. Stop 18 (dev profile, the same section): the variable-time torsion check takes
//! secretchess6 from 1.448 to 1.442 and chess from 1.256 to 1.254 in Ir. Stop 20 (release,
//! the same section, with the commands; `seal::unpad` skips blocks of zeros): Ir chess 1.170,
//! kriegspiel 1.230, sic 1.175 (1.194 before), intrigue 1.201, secretchess6 1.211, espionage
//! 1.178; in time, 3 runs each of the binaries before and after, alternately (load 7 to 8):
//! sic 1.36 to 1.37 before, 1.33 to 1.39 after (over the bar; its floor alone, the openings,
//! is 1.26 times the signature check in time), every other variant 1.12 to 1.32 (Kriegspiel's
//! 1.32 the only other figure over 1.3). Stop 21 (release, the same section, with the
//! commands; SIC's legal-move lists compact, its umpire messages padded to 512 bytes instead of
//! 4096): SIC verify Ir/rec 817M → 505M, sig-check Ir/rec 695M → 402M, Ir ratio 1.176 → 1.257;
//! in time, 5 runs each of the binaries before and after, alternately (load 5 to 11): SIC
//! verify 18% faster (55.7 → 45.4 ms/rec), its signature check 16% (39.7 → 33.2), ratio 1.29 to
//! 1.60 before and 1.23 to 1.55 after (the bar not shown met; chess, unchanged, spread 1.06 to
//! 1.33 over the same runs). Stop 22 (the same section: verify's cost beyond the signature
//! check per component and variant, with the commands; openings into one reused buffer, SIC's
//! legality check from the list its position already has): Ir ratio sic 1.254 → 1.234,
//! kriegspiel 1.232 → 1.226, secretchess6 1.212 → 1.208, the others unchanged (chess 1.164,
//! intrigue 1.198, espionage 1.177). `tools/verify-v2-v3.sh` times `fogproof verify` records/s of
//! version 2 beside version 3 in one run.

use criterion::{Criterion, Throughput};
use protocol::codec::Canonical;
use protocol::game::{self, SealDirection};
use protocol::record::MatchRecord;
use protocol::seal::{self, ChannelKey, SealContext, SealSecret};
use protocol::{Channel, Identity, MatchId};
use rules::Variant;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Self-played records per variant (seeds 1..=RECORDS).
const RECORDS: u64 = 4;

struct Corpus {
    variant: Variant,
    bytes: Vec<Vec<u8>>,
    records: Vec<MatchRecord>,
    /// Sealed messages in the corpus: (from the umpire, to the umpire).
    sealed: (usize, usize),
    /// Sealing contexts in the corpus (an author on a private channel, per record).
    contexts: usize,
    /// Those of them whose recipient did not countersign (their disclosure costs a key
    /// agreement).
    unattested: usize,
}

/// The record self-play gives for `variant` and `seed`; with `FOGPROOF_BENCH_RECORDS=DIR`, read
/// from `DIR/VARIANT-SEED.record` when that file exists and written there when it does not (so
/// that a run under callgrind, which slows self-play as much as the verifier, skips it).
fn self_played(variant: Variant, seed: u64) -> Vec<u8> {
    let file = std::env::var_os("FOGPROOF_BENCH_RECORDS")
        .map(|dir| std::path::PathBuf::from(dir).join(format!("{}-{seed}.record", variant.id())));
    if let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok()) {
        return bytes;
    }
    let bytes = sim::selfplay::selfplay(variant, seed).expect("self-play").0;
    if let Some(f) = file {
        std::fs::write(&f, &bytes).expect("writes the record");
    }
    bytes
}

fn corpus(only: Option<&str>) -> Vec<Corpus> {
    Variant::ALL
        .into_iter()
        .filter(|v| only.is_none_or(|id| v.id() == id))
        .map(|variant| {
            let bytes: Vec<Vec<u8>> =
                (1..=RECORDS).map(|seed| self_played(variant, seed)).collect();
            let records =
                bytes.iter().map(|b| MatchRecord::from_canonical(b).expect("a record")).collect();
            let mut sealed = (0, 0);
            let (mut contexts, mut unattested) = (0, 0);
            for b in &bytes {
                // Every party of an honest umpired record countersigns; if one did not, the
                // record's contexts count as unattested (an upper bound on the key agreements).
                let all_countersigned = verifier::verify_match(b).countersigned.len() == 3;
                let checked = verifier::envelope::check(b).expect("an honest record");
                let mut seen = std::collections::BTreeSet::new();
                for e in checked.entries.iter().filter(|e| e.sealed) {
                    seen.insert((e.author(), e.body.channel));
                    if e.role == verifier::MatchRole::Umpire {
                        sealed.0 += 1;
                    } else {
                        sealed.1 += 1;
                    }
                }
                contexts += seen.len();
                if !all_countersigned {
                    unattested += seen.len();
                }
            }
            Corpus { variant, bytes, records, sealed, contexts, unattested }
        })
        .collect()
}

/// Verifies every record of the corpus (not inlined, so that callgrind counts it by name).
#[inline(never)]
fn verify_all(c: &Corpus) {
    for b in &c.bytes {
        black_box(verifier::verify(black_box(b)));
    }
}

/// Batch-checks every record's signatures, as the verifier's first step does (not inlined, so
/// that callgrind counts it by name).
#[inline(never)]
fn signatures_only(c: &Corpus) {
    for r in &c.records {
        let items = verifier::envelope::signature_items(r);
        assert!(protocol::batch::verify_batch(black_box(&items)).is_ok());
    }
}

fn bench_context() -> (SealContext, seal::SealPublicKey) {
    let recipient = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]).public();
    let context = SealContext {
        match_id: MatchId([7; 32]),
        channel: Channel::WhiteUmpire,
        author: Identity::from_seed(&[1; 32]).public(),
        seq: 4,
    };
    (context, recipient)
}

/// One sealing context derived from a disclosed seed (what the check does once per author and
/// channel): an X25519 key pair and a Diffie-Hellman.
fn one_derivation() -> Duration {
    let (context, recipient) = bench_context();
    let mut seed = [5u8; 32];
    mean(Duration::from_millis(500), || {
        seed[0] = seed[0].wrapping_add(1);
        black_box(ChannelKey::derive(&recipient, &context, &seed).expect("derives"));
    })
}

/// One check of a disclosed key against its setup's commitment (what the check does once per
/// author and channel whose recipient countersigned).
fn one_key_check() -> Duration {
    let (context, recipient) = bench_context();
    let key = ChannelKey::derive(&recipient, &context, &[5; 32]).expect("derives");
    let disclosed =
        seal::Sealer::new(&recipient, &context, &[5; 32]).expect("derives").disclosure();
    mean(Duration::from_millis(500), || {
        black_box(
            seal::check_disclosed_key(context.channel, &key.setup(), black_box(&disclosed.key))
                .expect("the committed key"),
        );
    })
}

/// One opening of a short plaintext padded to `padded_len` (what the check does for every
/// sealed message).
fn one_open(padded_len: usize) -> Duration {
    let (context, recipient) = bench_context();
    let sealed = seal::seal(&recipient, &context, b"e2e4", &[5; 32], padded_len).expect("seals");
    let key = ChannelKey::derive(&recipient, &context, &[5; 32]).expect("derives");
    mean(Duration::from_millis(500), || {
        black_box(key.open(&context, black_box(&sealed), padded_len).expect("opens"));
    })
}

/// The CPU time this thread has run (`CLOCK_THREAD_CPUTIME_ID`, `sim::measure::thread_cpu_ns`),
/// or the wall clock where that is not available. On a busy machine the wall clock counts the
/// time other processes held the CPU; the thread's own CPU time does not.
fn clock() -> Duration {
    match sim::measure::thread_cpu_ns() {
        Some(ns) => Duration::from_nanos(ns),
        None => {
            static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
            START.get_or_init(Instant::now).elapsed()
        }
    }
}

/// Mean time of `f` (this thread's CPU time, [`clock`]) over enough runs to fill `budget`.
fn mean(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = clock();
    let mut runs = 0u32;
    while clock() - start < budget {
        f();
        runs += 1;
    }
    (clock() - start) / runs.max(1)
}

/// `FOGPROOF_BENCH_PROFILE=VARIANT[:SECONDS]`: only verify that variant's corpus in a loop for
/// SECONDS (default 10), for a profiler (`perf record`), without criterion or the table.
fn profile_loop(spec: &str) {
    let (id, secs) = spec.split_once(':').unwrap_or((spec, "10"));
    let secs: u64 = secs.parse().expect("seconds");
    let c = corpus(Some(id)).pop().expect("a variant id");
    let start = Instant::now();
    let mut runs = 0u64;
    while start.elapsed() < Duration::from_secs(secs) {
        verify_all(&c);
        runs += 1;
    }
    let per = start.elapsed() / u32::try_from(runs * c.bytes.len() as u64).unwrap_or(u32::MAX);
    println!("{id}: {runs} rounds, {:.3} ms/rec", per.as_secs_f64() * 1e3);
}

/// `FOGPROOF_BENCH_COUNT=VARIANT:ROUNDS`: `verify_all` then `signatures_only`, ROUNDS times
/// each over one variant's corpus, for callgrind (see the module documentation). Prints the
/// corpus so that the counts can be read per record.
fn count_loop(spec: &str) {
    let (id, rounds) = spec.split_once(':').unwrap_or((spec, "1"));
    let rounds: u32 = rounds.parse().expect("rounds");
    let c = corpus(Some(id)).pop().expect("a variant id");
    for _ in 0..rounds {
        verify_all(&c);
    }
    for _ in 0..rounds {
        signatures_only(&c);
    }
    let entries: usize = c.records.iter().map(|r| r.entries.len()).sum();
    println!(
        "{id}: {rounds} rounds over {} records, {entries} entries, {} sealed",
        c.bytes.len(),
        c.sealed.0 + c.sealed.1
    );
}

fn main() {
    if let Ok(spec) = std::env::var("FOGPROOF_BENCH_PROFILE") {
        profile_loop(&spec);
        return;
    }
    if let Ok(spec) = std::env::var("FOGPROOF_BENCH_COUNT") {
        count_loop(&spec);
        return;
    }
    let corpus = corpus(None);
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
        "{:<13} {:>7} {:>8} {:>7} {:>9} {:>13} {:>16} {:>6} {:>14} {:>8}",
        "variant",
        "records",
        "entries",
        "sealed",
        "verify/s",
        "verify ms/rec",
        "sigs-only ms/rec",
        "ratio",
        "floor ms/rec",
        "/floor"
    );
    for c in &corpus {
        let n = c.bytes.len() as u32;
        let entries: usize = c.records.iter().map(|r| r.entries.len()).sum();
        let full = mean(Duration::from_secs(2), || verify_all(c)) / n;
        let sigs = mean(Duration::from_secs(2), || signatures_only(c)) / n;
        let open = |count: usize, direction| {
            if count == 0 {
                return Duration::ZERO;
            }
            one_open(game::sealed_plaintext_bytes(c.variant, direction)) * count as u32
        };
        let derive = if c.unattested == 0 { Duration::ZERO } else { one_derivation() };
        let key_check = if c.contexts == 0 { Duration::ZERO } else { one_key_check() };
        let floor = sigs
            + (derive * c.unattested as u32
                + key_check * c.contexts as u32
                + open(c.sealed.0, SealDirection::FromUmpire)
                + open(c.sealed.1, SealDirection::ToUmpire))
                / n;
        let per_second = 1.0 / full.as_secs_f64();
        println!(
            "{:<13} {:>7} {:>8} {:>7} {:>9.1} {:>13.3} {:>16.3} {:>6.2} {:>14.3} {:>8.2}",
            c.variant.id(),
            n,
            entries,
            c.sealed.0 + c.sealed.1,
            per_second,
            full.as_secs_f64() * 1e3,
            sigs.as_secs_f64() * 1e3,
            full.as_secs_f64() / sigs.as_secs_f64(),
            floor.as_secs_f64() * 1e3,
            full.as_secs_f64() / floor.as_secs_f64()
        );
    }
}
