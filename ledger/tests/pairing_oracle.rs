//! Differential test of the FIDE Dutch pairings against an independent engine run out of
//! process: `tools/pairing_oracle.py`, which wraps the PyPI package `caissify-pairings` (its
//! Free Pairings Checker re-pairs every round of a TRF-16 file and compares the pairs).
//!
//! Random tournaments (FIDE C.04.A A.7 style: random field of 6–24 players, 3–9 rounds, results
//! drawn by rating) are paired by our engine, written as TRF-16, and checked by the oracle. A
//! tournament with any round paired differently is one discrepancy. A.7 allows 10 in 5,000.
//!
//! `FOGPROOF_ORACLE_TOURNAMENTS` sets how many (default 200) and `FOGPROOF_ORACLE_FIRST_SEED`
//! the first seed (default 1); `FOGPROOF_ORACLE_ABSENCES=1` adds
//! late entries and withdrawals; `FOGPROOF_ORACLE_DUMP=dir` writes each discrepant TRF there.
//! The oracle is required: without python3 or the package this test fails and says how to install
//! it.
//!
//! Measured (no absences): seeds 1–5000, 1 discrepancy (seed 3271, a last round); seeds
//! 5001–10000, 2 (seeds 6543 and 8572, both in round 7). With
//! absences (`FOGPROOF_ORACLE_ABSENCES=1`, 1,000 tournaments) 220 differ, all from one rule:
//! `caissify-pairings` 0.5.0 makes a player who had *any* bye (also a zero- or half-point bye for
//! an absence) ineligible for the pairing-allocated bye, where FIDE C.04.1 and bbpPairings only
//! exclude players who had a PAB or an unplayed win; with that rule switched to caissify's, the
//! same 1,000 tournaments gave 0 discrepancies. Again after C9 and A.4.b for forfeits were
//! applied: seeds 1–200 with absences, 47 differ, and 0 with caissify's bye rule switched in.
//!
//! With forfeits (`dutch_agrees_with_the_oracle_with_forfeits`: about one game in twelve
//! forfeited by one side, one in fifty by both, odd and even fields), the oracle runs with
//! `--fide-a4b`: `caissify-pairings` 0.5.0 gives a forfeit loser and both sides of a double
//! forfeit no float, where C.04.3 A.4.b gives every player who does not play a downfloat; the
//! flag changes only that in the float history it is given. Measured: seeds 1–300, 0
//! discrepancies. Without the flag the same 200 first seeds give 47, all from that rule (with our
//! engine switched to caissify's reading, 0). The PAB assignee's unplayed games (C9) are weighed
//! by both engines: with C9 switched off in ours (and caissify's float reading), 26 of those 200
//! differ. Before C9 and A.4.b for forfeits were applied, seeds 1–100 gave 28.
//!
//! Colors are not part of the A.7 comparison (the checker compares pairs); the wrapper also
//! reports games whose colors differ. About half the tournaments have one: `caissify-pairings`
//! takes the "higher ranked player" of C.04.3 E.4/E.5 by pairing number alone, we take it by
//! score and then pairing number, as C.04.3 A.2 defines ranking and bbpPairings'
//! `choosePlayerColor` does (`acceleratedScoreRankCompare`). With its reading switched in,
//! 300 tournaments gave 0 color differences, so that is the only one; this test does not
//! assert on colors.

use ledger::tournament::definition::{Entrant, System, TournamentDefinition};
use ledger::tournament::trf::Trf;
use ledger::tournament::{ByeKind, Game, GameResult, Round, pair_next_round};
use protocol::PublicKey;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rules::Variant;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const INSTALL: &str = "python3 -m pip install --user caissify-pairings==0.5.0";

fn oracle_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/pairing_oracle.py")
}

fn below(rng: &mut ChaCha8Rng, n: u32) -> u32 {
    rng.next_u32() % n
}

/// One random tournament, paired by us: its TRF text, or our pairing error.
fn tournament(seed: u64, absences: bool, forfeits: bool) -> Result<String, String> {
    let (trf, error) = tournament_partial(seed, absences, forfeits);
    match error {
        None => Ok(trf),
        Some(e) => Err(e),
    }
}

/// One random tournament: the TRF of the rounds paired, and our pairing error if one failed.
fn tournament_partial(seed: u64, absences: bool, forfeits: bool) -> (String, Option<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = 6 + below(&mut rng, 19) as usize;
    // 3 to 9 rounds, at most half the field: more can run out of legal pairings.
    let rounds = (3 + below(&mut rng, 7)).min((n as u32 / 2).max(3));
    let mut ratings: Vec<u16> = Vec::new();
    while ratings.len() < n {
        let r = 1400 + below(&mut rng, 1300) as u16;
        if !ratings.contains(&r) {
            ratings.push(r);
        }
    }
    let def = TournamentDefinition {
        name: format!("Random {seed}"),
        variant: Variant::Chess,
        ruleset: Variant::Chess.ruleset().into(),
        system: System::Swiss { rounds },
        players: (0..n)
            .map(|i| Entrant {
                key: PublicKey([i as u8 + 1; 32]),
                name: format!("Player {i}"),
                rating: Some(ratings[i]),
            })
            .collect(),
        tie_breaks: Vec::new(),
        time_control: "90+30".into(),
    };
    // Late entrants miss the first rounds; withdrawn players miss the last ones.
    let mut late = vec![0u32; n];
    let mut gone = vec![u32::MAX; n];
    if absences {
        for i in 0..n {
            match below(&mut rng, 12) {
                0 => late[i] = 1 + below(&mut rng, 2),
                1 => gone[i] = 2 + below(&mut rng, rounds - 1),
                _ => {}
            }
        }
    }
    let mut played: Vec<Round> = Vec::new();
    for r in 0..rounds {
        let absent: BTreeSet<usize> = (0..n).filter(|&i| r < late[i] || r >= gone[i]).collect();
        let p = match pair_next_round(&def, &played, &absent) {
            Ok(p) => p,
            Err(e) => {
                let trf = Trf::from_tournament(&def, &played).write();
                return (trf, Some(format!("seed {seed}: our engine failed: {e}")));
            }
        };
        let mut round = Round::default();
        for &(w, b) in &p.games {
            let diff = i32::from(ratings[w]) - i32::from(ratings[b]);
            let x = below(&mut rng, 100) as i32;
            let white_win = 40 + diff / 20;
            let mut result = if x < white_win {
                GameResult::WhiteWins
            } else if x < white_win + 30 {
                GameResult::Draw
            } else {
                GameResult::BlackWins
            };
            // About one game in twelve forfeited by one side, one in fifty by both.
            if forfeits {
                result = match below(&mut rng, 100) {
                    0..4 => GameResult::WhiteWinsByForfeit,
                    4..8 => GameResult::BlackWinsByForfeit,
                    8..10 => GameResult::DoubleForfeit,
                    _ => result,
                };
            }
            round.games.push(Game { white: w, black: b, result });
        }
        if let Some(b) = p.bye {
            round.byes.push((b, ByeKind::PairingAllocated));
        }
        for &a in &absent {
            round.byes.push((a, ByeKind::Zero));
        }
        played.push(round);
    }
    (Trf::from_tournament(&def, &played).write(), None)
}

/// What the oracle said about a batch.
struct Verdict {
    /// Tournaments with a round paired differently (pairs or byes).
    discrepancies: u64,
    /// Tournaments whose pairs all agree but where some game's colors differ.
    color_only: u64,
    details: Vec<String>,
}

fn run(count: u64, absences: bool, forfeits: bool, first_seed: u64) -> Verdict {
    let probe = Command::new("python3").arg(oracle_script()).arg("--probe").output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "the pairing oracle is missing: {}\ninstall it with: {INSTALL}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!("python3 is needed for the pairing oracle ({e}); then: {INSTALL}"),
    }
    let mut ours_failed = Vec::new();
    let mut texts = Vec::new();
    let mut seeds = Vec::new();
    for seed in first_seed..first_seed + count {
        match tournament(seed, absences, forfeits) {
            Ok(t) => {
                texts.push(t);
                seeds.push(seed);
            }
            Err(e) => ours_failed.push(e),
        }
    }
    let mut child = Command::new("python3")
        .arg(oracle_script())
        .args(forfeits.then_some("--fide-a4b"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start python3");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for t in &texts {
            stdin.write_all(t.as_bytes()).expect("write to oracle");
            stdin.write_all(b"%%END%%\n").expect("write to oracle");
        }
    }
    let out = child.wait_with_output().expect("oracle output");
    assert!(out.status.success(), "oracle failed");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), texts.len(), "one oracle answer per tournament");
    let dump = std::env::var("FOGPROOF_ORACLE_DUMP").ok();
    let mut discrepancies = ours_failed.len() as u64;
    let mut color_only = 0;
    let mut details = ours_failed;
    for ((line, seed), trf) in lines.iter().zip(&seeds).zip(&texts) {
        let v: serde_json::Value = serde_json::from_str(line).expect("oracle JSON");
        let mismatched = v["mismatched"].as_array().map_or(0, Vec::len);
        let colors = v["colours"].as_array().map_or(0, Vec::len);
        if mismatched > 0 {
            discrepancies += 1;
        } else if colors > 0 {
            color_only += 1;
        }
        if mismatched + colors > 0 {
            details.push(format!("seed {seed}: {}", v["details"]));
            if let Some(dir) = &dump {
                std::fs::write(format!("{dir}/seed-{seed}.trf"), trf).expect("dump");
            }
        }
    }
    Verdict { discrepancies, color_only, details }
}

fn count() -> u64 {
    std::env::var("FOGPROOF_ORACLE_TOURNAMENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

#[test]
fn dutch_agrees_with_the_oracle() {
    let n = count();
    let absences = std::env::var("FOGPROOF_ORACLE_ABSENCES").is_ok_and(|v| v == "1");
    let first =
        std::env::var("FOGPROOF_ORACLE_FIRST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    check(n, absences, false, first);
}

/// Odd and even fields with forfeits and double forfeits (about one game in twelve forfeited by
/// one side, one in fifty by both): C9 and A.4.b at work. The oracle runs with `--fide-a4b`
/// (`tools/pairing_oracle.py`): `caissify-pairings` 0.5.0 gives a forfeit loser and both sides of
/// a double forfeit no float, FIDE A.4.b a downfloat. `FOGPROOF_ORACLE_FORFEIT_TOURNAMENTS` sets
/// how many (default 100).
#[test]
fn dutch_agrees_with_the_oracle_with_forfeits() {
    let n = std::env::var("FOGPROOF_ORACLE_FORFEIT_TOURNAMENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let first =
        std::env::var("FOGPROOF_ORACLE_FIRST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    check(n, false, true, first);
}

fn check(n: u64, absences: bool, forfeits: bool, first: u64) {
    let Verdict { discrepancies: d, color_only, details } = run(n, absences, forfeits, first);
    println!(
        "pairing oracle: {d} discrepancies in {n} tournaments (absences: {absences}, forfeits: \
         {forfeits}); {color_only} more with the same pairs but some colors different"
    );
    for line in details.iter().take(20) {
        println!("  {line}");
    }
    // FIDE A.7: at most 10 in 5,000, proportionally (rounded up).
    let allowed = (10 * n).div_ceil(5000);
    assert!(d <= allowed, "{d} discrepancies in {n} tournaments; at most {allowed} allowed");
}

/// Debug aid: `FOGPROOF_TRF_SEED=n` prints the TRF of one random tournament (with the rounds our
/// engine managed to pair; `FOGPROOF_TRF_FORFEITS=1`: as the forfeit test draws them).
#[test]
fn print_one_tournament_on_request() {
    if let Some(seed) = std::env::var("FOGPROOF_TRF_SEED").ok().and_then(|s| s.parse().ok()) {
        let forfeits = std::env::var("FOGPROOF_TRF_FORFEITS").is_ok_and(|v| v == "1");
        let (trf, error) = tournament_partial(seed, false, forfeits);
        println!("{trf}{}", error.unwrap_or_default());
    }
}
