//! Writes a log holding a small tournament played with real self-played records, and the
//! tournament's bundle: something to test an independent bundle reader against
//! (docs/LEDGER.md, S10).
//!
//! ```text
//! cargo run -p fogproof-ledger --example spec_bundle -- OUT
//! ```
//!
//! `OUT/log` is the log (its key `OUT/log.key`, its vkey printed), `OUT/bundle` the bundle, which
//! `fogproof tournament verify OUT/bundle --log-key VKEY` accepts. The tournament: a double
//! round-robin of three players (espionage, every tie-break), so each round one player has the
//! pairing-allocated bye: two real games between the self-play cast's players A and B, and the
//! third entrant C never plays (an absence forfeit, a no-show forfeit, a double no-show).
//!
//! `ledger/tests/independent_reader.rs` includes this file and calls [`build`] to give the
//! independent Python reader (`ledger/tests/oracle/ledger_reader.py`) a bundle to check.

use ed25519_dalek::SigningKey;
use ledger::entry::{Absence, NoShowEntry, TournamentRound, sha256};
use ledger::note::{KeyKind, SignerKey};
use ledger::tournament::ByeKind;
use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
use ledger::{Ledger, Submission};
use protocol::PublicKey;
use protocol::codec::Canonical;
use protocol::terms::ColorAssignment;
use rules::Variant;
use std::error::Error;
use std::path::{Path, PathBuf};

#[allow(dead_code, reason = "the test that includes this file calls `build` only")]
fn main() -> Result<(), Box<dyn Error>> {
    let out = PathBuf::from(std::env::args_os().nth(1).ok_or("usage: spec_bundle OUT")?);
    let vkey = build(&out)?;
    println!("log key: {vkey}");
    Ok(())
}

/// Writes `out/log`, `out/log.key` and `out/bundle` (see the module docs), checks the bundle
/// with `ledger::bundle::verify` and returns the log's verifier key (the `--log-key` text).
pub fn build(out: &Path) -> Result<String, Box<dyn Error>> {
    std::fs::create_dir_all(out)?;
    let seed = 3;
    let cast = sim::selfplay::cast(seed);
    let (a, b) = (cast.players[0].public(), cast.players[1].public());
    let c = PublicKey([0xcc; 32]);
    let def = TournamentDefinition {
        name: "Spec Bundle".into(),
        variant: Variant::Espionage,
        ruleset: Variant::Espionage.ruleset().into(),
        system: System::RoundRobin { double: true },
        players: vec![
            Entrant { key: a, name: "A".into(), rating: Some(1800) },
            Entrant { key: b, name: "B".into(), rating: Some(1700) },
            Entrant { key: c, name: "C".into(), rating: None },
        ],
        tie_breaks: vec![
            TieBreak::Buchholz,
            TieBreak::BuchholzCut1,
            TieBreak::MedianBuchholz,
            TieBreak::SonnebornBerger,
            TieBreak::DirectEncounter,
            TieBreak::Wins,
            TieBreak::ProgressiveScore,
        ],
        time_control: "10+5".into(),
    };
    let file = def.sign(&SigningKey::from_bytes(&[0x42; 32]))?.to_canonical();
    let id = sha256(&file);

    let key = SignerKey::from_seed("spec.fogproof.example/log", KeyKind::Ed25519, [0x24; 32])?;
    std::fs::write(out.join("log.key"), key.to_secret_text())?;
    let log = out.join("log");
    let mut ledger = Ledger::create(&log, key)?;

    // An unrelated game first, so the tournament's leaf indices do not start at 0.
    let (other, _) = sim::selfplay(Variant::Chess, 9)?;
    ledger.append(&[Submission::Match { record: other, tournament: None }])?;
    ledger.append(&[Submission::Tournament { definition: file, published_at_ms: 2 }])?;

    let round = |round: u32, absent: Vec<Absence>| Submission::Round {
        tournament: id,
        round,
        absent,
        started_at_ms: 100 * u64::from(round),
    };
    let game = |round: u32, record: Vec<u8>| Submission::Match {
        record,
        tournament: Some(TournamentRound { tournament: id, round }),
    };
    let no_show = |round: u32, white, black, white_absent, black_absent| {
        Submission::NoShow(NoShowEntry {
            tournament: id,
            round,
            white,
            black,
            white_absent,
            black_absent,
            deadline_ms: 100 * u64::from(round) + 10,
        })
    };
    let c_absent = vec![Absence { player: 2, bye: ByeKind::Zero }];

    // The Berger table of 3 (+ a dummy) on pairing numbers A 1, B 2, C 3: round 1 B-C (A has
    // the bye), round 2 A-B (C), round 3 C-A (B); rounds 4 to 6 the same, colors reversed.
    ledger.append(&[round(1, c_absent.clone())])?;
    let mut first = sim::SelfplayConfig::new(Variant::Espionage, seed);
    first.colors = ColorAssignment::FirstIsWhite;
    ledger.append(&[round(2, vec![]), game(2, sim::selfplay_with(first)?.bytes)])?;
    ledger.append(&[round(3, vec![]), no_show(3, c, a, true, false)])?;
    ledger.append(&[round(4, vec![]), no_show(4, c, b, true, true)])?;
    // Round 5 is B-A: a self-played game whose drawn colors make B white, if this seed's
    // draw does; otherwise A did not show.
    ledger.append(&[round(5, vec![])])?;
    let drawn = sim::selfplay_with(sim::SelfplayConfig::new(Variant::Espionage, seed))?;
    let b_white = verifier::verify_match(&drawn.bytes).players.is_some_and(|p| p.white == b);
    if b_white {
        ledger.append(&[game(5, drawn.bytes)])?;
    } else {
        ledger.append(&[no_show(5, b, a, false, true)])?;
    }
    ledger.append(&[round(6, c_absent)])?;

    let bundle = out.join("bundle");
    ledger::bundle::write(&ledger::store::DirReader::new(&log), &id, &bundle)?;
    let policy = ledger::checkpoint::Policy::log_only(ledger.verifier_key().clone());
    match ledger::bundle::verify(&bundle, &policy) {
        Ok(v) => println!(
            "{}: {}, {} rounds, {} records (round 5: {})",
            bundle.display(),
            v.name,
            v.rounds,
            v.records,
            if b_white { "a game" } else { "a no-show" }
        ),
        Err(d) => return Err(format!("the bundle does not verify: {d:?}").into()),
    }
    Ok(ledger.verifier_key().to_string())
}
