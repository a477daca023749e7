//! Tournaments as pure functions of the log: definitions, round entries (late entries and
//! withdrawals as absences), matches that must be the round's pairings, standings; and bundles
//! that recompute all of it offline and name every tampered file.

use ed25519_dalek::SigningKey;
use ledger::bundle;
use ledger::checkpoint::Policy;
use ledger::entry::{
    Absence, ENTRY_VERSION, EntryBody, EntryVerdict, LedgerEntry, MatchContext, MatchEntry,
    NoShowEntry, RoundEntry, TournamentEntry, TournamentRound, sha256,
};
use ledger::history::{History, HistoryError};
use ledger::note::{KeyKind, SignerKey};
use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
use ledger::tournament::{ByeKind, GameResult};
use ledger::{Ledger, Submission};
use protocol::PublicKey;
use protocol::codec::Canonical;
use rules::{Color, EndReason, Variant};
use std::path::Path;

fn definition(players: Vec<PublicKey>, system: System) -> TournamentDefinition {
    TournamentDefinition {
        name: "Fog Open".into(),
        variant: Variant::Espionage,
        ruleset: Variant::Espionage.ruleset().into(),
        system,
        players: players
            .into_iter()
            .enumerate()
            .map(|(i, key)| Entrant {
                key,
                name: format!("P{}", i + 1),
                rating: Some(2000 - 10 * i as u16),
            })
            .collect(),
        tie_breaks: vec![TieBreak::Buchholz, TieBreak::SonnebornBerger, TieBreak::Wins],
        time_control: "15+10".into(),
    }
}

fn definition_file(def: &TournamentDefinition) -> Vec<u8> {
    def.sign(&SigningKey::from_bytes(&[77; 32])).unwrap().to_canonical()
}

/// A match entry for a game between players `w` and `b` (no record: `History` does not read
/// records, the ledger and the bundle do).
fn game(
    def: &TournamentDefinition,
    id: u8,
    round: u32,
    w: usize,
    b: usize,
    winner: Option<Color>,
) -> LedgerEntry {
    let tournament = sha256(&definition_file(def));
    LedgerEntry {
        version: ENTRY_VERSION,
        body: EntryBody::Match(MatchEntry {
            match_id: [id; 32],
            record_sha256: [id; 32],
            variant: def.variant.id().into(),
            ruleset: def.ruleset.clone(),
            white: def.players[w].key,
            black: def.players[b].key,
            colors_known: true,
            umpire: None,
            relay: PublicKey([200; 32]),
            verdict: EntryVerdict::Valid,
            result: Some(rules::GameResult {
                winner,
                reason: if winner.is_some() { EndReason::Checkmate } else { EndReason::Agreement },
            }),
            rated: true,
            context: MatchContext {
                tournament: Some(TournamentRound { tournament, round }),
                finished_at_ms: u64::from(id),
            },
            verifier_version: "test".into(),
        }),
    }
}

fn round(def: &TournamentDefinition, round: u32, absent: &[(u32, ByeKind)]) -> LedgerEntry {
    LedgerEntry {
        version: ENTRY_VERSION,
        body: EntryBody::Round(RoundEntry {
            tournament: sha256(&definition_file(def)),
            round,
            absent: absent.iter().map(|&(player, bye)| Absence { player, bye }).collect(),
            started_at_ms: 0,
        }),
    }
}

#[test]
fn a_swiss_with_a_late_entry_and_a_withdrawal_replays_from_its_entries() {
    let def =
        definition((1..=6).map(|i| PublicKey([i; 32])).collect(), System::Swiss { rounds: 3 });
    let file = definition_file(&def);
    let id = sha256(&file);
    let (t_entry, _) = TournamentEntry::from_definition_file(&file, 0).unwrap();
    let mut h = History::new();
    h.apply(
        &LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Tournament(t_entry.clone()) },
        Some(&file),
    )
    .unwrap();
    assert!(matches!(
        h.clone().apply(
            &LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Tournament(t_entry) },
            Some(&file)
        ),
        Err(HistoryError::DuplicateTournament { .. })
    ));

    // Round 1: player 6 enters late (absent, zero bye).
    h.apply(&round(&def, 1, &[(5, ByeKind::Zero)]), None).unwrap();
    let r1 = h.tournament(&id).unwrap().rounds[0].pairings.clone();
    assert_eq!(r1.games.len(), 2);
    assert_eq!(r1.bye, Some(4), "five present players: the lowest ranked gets the bye");
    // A game that is not a pairing, or with the colors swapped, is refused.
    let (w, b) = r1.games[0];
    assert!(matches!(
        h.clone().apply(&game(&def, 1, 1, b, w, None), None),
        Err(HistoryError::NotPaired { .. })
    ));
    assert!(matches!(
        h.clone().apply(&game(&def, 1, 1, w, 5, None), None),
        Err(HistoryError::NotPaired { .. })
    ));
    // Round 2 cannot start before round 1 is complete.
    assert!(matches!(
        h.clone().apply(&round(&def, 2, &[]), None),
        Err(HistoryError::BadRound { .. })
    ));
    h.apply(&game(&def, 1, 1, w, b, Some(Color::White)), None).unwrap();
    assert!(matches!(
        h.clone().apply(&game(&def, 1, 1, w, b, Some(Color::White)), None),
        Err(HistoryError::DuplicateMatch { .. })
    ));
    let (w2, b2) = r1.games[1];
    h.apply(&game(&def, 2, 1, w2, b2, None), None).unwrap();

    // Round 2: everyone plays (the late entrant joins); round 3: player 1 withdrew.
    h.apply(&round(&def, 2, &[]), None).unwrap();
    let r2 = h.tournament(&id).unwrap().rounds[1].pairings.clone();
    assert_eq!(r2.games.len(), 3);
    for (k, &(w, b)) in r2.games.iter().enumerate() {
        h.apply(&game(&def, 10 + k as u8, 2, w, b, Some(Color::Black)), None).unwrap();
    }
    assert!(matches!(
        h.clone().apply(&round(&def, 3, &[(0, ByeKind::PairingAllocated)]), None),
        Err(HistoryError::BadRound { .. })
    ));
    assert!(matches!(
        h.clone().apply(&round(&def, 3, &[(9, ByeKind::Zero)]), None),
        Err(HistoryError::BadRound { .. })
    ));
    h.apply(&round(&def, 3, &[(0, ByeKind::Zero)]), None).unwrap();
    let t = h.tournament(&id).unwrap();
    assert!(t.rounds[2].pairings.games.iter().all(|&(w, b)| w != 0 && b != 0));
    // Standings after the two complete rounds: the pure functions agree with the replay.
    let rounds = t.completed_rounds();
    assert_eq!(rounds.len(), 2);
    assert_eq!(
        t.standings().unwrap(),
        ledger::tournament::standings::standings(&def, &rounds).unwrap()
    );
    assert_eq!(
        t.rounds[2].pairings,
        ledger::tournament::pair_next_round(&def, &rounds, &[0].into_iter().collect()).unwrap()
    );
    // Rated: every game with a result.
    assert_eq!(h.rated_games(), 5);
}

#[test]
fn an_odd_round_robin_refuses_an_absence_for_the_player_with_the_bye() {
    // Three players, a round-robin: each round the schedule gives one of them the
    // pairing-allocated bye. Naming that player absent too would give two byes in one round.
    let def = definition(
        (1..=3).map(|i| PublicKey([i; 32])).collect(),
        System::RoundRobin { double: false },
    );
    let file = definition_file(&def);
    let id = sha256(&file);
    let (t_entry, _) = TournamentEntry::from_definition_file(&file, 0).unwrap();
    let mut h = History::new();
    h.apply(
        &LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Tournament(t_entry) },
        Some(&file),
    )
    .unwrap();
    let mut probe = h.clone();
    probe.apply(&round(&def, 1, &[]), None).unwrap();
    let scheduled = probe.tournament(&id).unwrap().rounds[0].pairings.clone();
    let with_bye = scheduled.bye.expect("three players: someone sits out") as u32;
    let before = h.tournament(&id).cloned();
    let refused = h.apply(&round(&def, 1, &[(with_bye, ByeKind::Zero)]), None);
    match refused {
        Err(HistoryError::BadRound { round: 1, why }) => {
            assert!(why.contains(&format!("player {with_bye}")), "names the player: {why}")
        }
        other => panic!("expected the round to be refused, got {other:?}"),
    }
    assert_eq!(h.tournament(&id).cloned(), before, "a refused entry changes nothing");
    // Naming absent a player who has a game is still fine: that game is a forfeit.
    let (w, b) = scheduled.games[0];
    h.apply(&round(&def, 1, &[(w as u32, ByeKind::Zero)]), None).unwrap();
    let r = &h.tournament(&id).unwrap().rounds[0];
    assert_eq!(r.pairings, scheduled);
    assert_eq!(r.results[0].map(|(g, _)| g), Some(GameResult::BlackWinsByForfeit), "{b} wins");
    assert_eq!(
        r.to_round().byes,
        vec![(with_bye as usize, ByeKind::PairingAllocated)],
        "one bye: the scheduled one (the absent player's game is a forfeit, not a bye)"
    );
}

/// A two-player tournament whose one game is a real self-played record.
fn tournament_log(dir: &Path) -> (Ledger, [u8; 32]) {
    let (mut ledger, id, record) = tournament_started(dir);
    ledger
        .append(&[Submission::Match {
            record,
            tournament: Some(TournamentRound { tournament: id, round: 1 }),
        }])
        .unwrap();
    (ledger, id)
}

fn tournament_log_key() -> SignerKey {
    SignerKey::from_seed("ledger.fogproof.example/t", KeyKind::Ed25519, [5; 32]).unwrap()
}

/// A log holding another match, a two-player tournament and its first round started; with the
/// record of that round's one game, not appended yet.
fn tournament_started(dir: &Path) -> (Ledger, [u8; 32], Vec<u8>) {
    let seed = 3;
    let cast = sim::selfplay::cast(seed);
    let def = definition(
        vec![cast.players[0].public(), cast.players[1].public()],
        System::RoundRobin { double: false },
    );
    let file = definition_file(&def);
    let id = sha256(&file);
    let mut config = sim::SelfplayConfig::new(Variant::Espionage, seed);
    config.colors = protocol::terms::ColorAssignment::FirstIsWhite;
    let record = sim::selfplay_with(config).unwrap().bytes;
    let mut ledger = Ledger::create(dir, tournament_log_key()).unwrap();
    // Another match first, so the tournament is not alone in the log.
    ledger
        .append(&[Submission::Match {
            record: sim::selfplay(Variant::Chess, 9).unwrap().0,
            tournament: None,
        }])
        .unwrap();
    ledger.append(&[Submission::Tournament { definition: file, published_at_ms: 2 }]).unwrap();
    ledger
        .append(&[Submission::Round { tournament: id, round: 1, absent: vec![], started_at_ms: 3 }])
        .unwrap();
    (ledger, id, record)
}

#[test]
fn a_close_time_that_is_not_the_records_is_named_by_the_audit_and_the_bundle() {
    let log_dir = tempfile::tempdir().unwrap();
    let (ledger, id, record) = tournament_started(log_dir.path());
    let policy = Policy::log_only(ledger.verifier_key().clone());
    drop(ledger);
    // A writer that states its own close time: the ledger would not, so write the log directly.
    let tournament = Some(TournamentRound { tournament: id, round: 1 });
    let honest = MatchEntry::from_record_in(&record, tournament).unwrap();
    let signed = honest.context.finished_at_ms;
    let mut lying = honest.clone();
    lying.context.finished_at_ms = signed + 60_000;
    let entry = LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Match(lying.clone()) };
    let mut writer = ledger::log::LogWriter::open(log_dir.path(), tournament_log_key()).unwrap();
    writer.append(&[entry.to_bytes().unwrap()], &[&record]).unwrap();
    drop(writer);

    // Re-verifying the record with the entry's context is refused, naming both times.
    let err = MatchEntry::from_record(&record, lying.context).unwrap_err();
    assert!(
        matches!(err, ledger::entry::EntryError::CloseTime { stated, signed: s }
            if stated == signed + 60_000 && s == signed),
        "{err}"
    );
    assert!(err.to_string().contains("60000 ms later"), "{err}");

    // The audit names the entry.
    let reader = ledger::store::DirReader::new(log_dir.path());
    let report = ledger::audit::audit(&reader, &policy, &|_| {}).unwrap();
    assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
    assert_eq!(report.findings[0].index, 3);
    assert!(report.findings[0].what.contains("close time"), "{:?}", report.findings);

    // The bundle's verification names the record.
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bundle");
    bundle::write(&reader, &id, &dir).unwrap();
    let differences = bundle::verify(&dir, &policy).unwrap_err();
    let record_name = ledger::store::record_path(&sha256(&record));
    assert!(
        differences.iter().any(|d| d.file == record_name && d.what.contains("close time")),
        "{differences:?}"
    );
}

/// Changes a file's bytes.
type Tamper<'a> = Box<dyn Fn(&[u8]) -> Vec<u8> + 'a>;

#[test]
fn bundles_recompute_offline_and_name_every_tampered_file() {
    let log_dir = tempfile::tempdir().unwrap();
    let (ledger, id) = tournament_log(log_dir.path());
    let t = ledger.tournament(&id).unwrap();
    assert!(t.rounds[0].is_complete());
    let policy = Policy::log_only(ledger.verifier_key().clone());
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bundle");
    bundle::write(&ledger::store::DirReader::new(log_dir.path()), &id, &dir).unwrap();
    let ok = bundle::verify(&dir, &policy).unwrap();
    assert_eq!((ok.rounds, ok.records), (1, 1));

    let record = std::fs::read_dir(dir.join("records")).unwrap().next().unwrap().unwrap().path();
    let record_name = format!("records/{}", record.file_name().unwrap().to_string_lossy());
    let proof =
        std::fs::read_dir(dir.join("proofs")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
    let proof_name = format!("proofs/{}", proof.file_name().unwrap().to_string_lossy());
    // Each kind of file, changed: the verification names it.
    let flip = |text: &str, from: &str, to: &str| text.replacen(from, to, 1);
    let cases: Vec<(String, Tamper)> = vec![
        (
            "checkpoint".into(),
            Box::new(|b| flip(&String::from_utf8_lossy(b), "\n4\n", "\n5\n").into_bytes()),
        ),
        (
            "definition".into(),
            Box::new(|b| {
                let mut b = b.to_vec();
                let n = b.len();
                b[n - 70] ^= 1;
                b
            }),
        ),
        (record_name.clone(), Box::new(|_| sim::selfplay(Variant::Espionage, 4).unwrap().0)),
        (
            proof_name.clone(),
            Box::new(|b| {
                let s = String::from_utf8_lossy(b).into_owned();
                let i = s.find("\nindex").unwrap() - 5;
                let mut v = s.into_bytes();
                v[i] = if v[i] == b'A' { b'B' } else { b'A' };
                v
            }),
        ),
        (
            "pairings.json".into(),
            Box::new(|b| {
                flip(&String::from_utf8_lossy(b), "\"1-0\"", "\"0-1\"")
                    .replacen("\"1/2-1/2\"", "\"1-0\"", 1)
                    .replacen("\"0-1\"", "\"1/2-1/2\"", 1)
                    .into_bytes()
            }),
        ),
        (
            "standings.json".into(),
            Box::new(|b| {
                flip(&String::from_utf8_lossy(b), "\"rank\": 1", "\"rank\": 2").into_bytes()
            }),
        ),
        (
            "ratings.json".into(),
            Box::new(|b| {
                flip(&String::from_utf8_lossy(b), "\"games\": 1", "\"games\": 2").into_bytes()
            }),
        ),
        (
            "tournament.trf".into(),
            Box::new(|b| flip(&String::from_utf8_lossy(b), "Fog Open", "Fog Opem").into_bytes()),
        ),
    ];
    for (name, tamper) in cases {
        let path = dir.join(&name);
        let original = std::fs::read(&path).unwrap();
        let changed = tamper(&original);
        assert_ne!(changed, original, "{name}: the tampering changed nothing");
        std::fs::write(&path, &changed).unwrap();
        let differences = bundle::verify(&dir, &policy).unwrap_err();
        assert!(
            differences.iter().any(|d| d.file == name),
            "{name} tampered, but the differences name {:?}",
            differences.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
        std::fs::write(&path, &original).unwrap();
    }
    // A missing record, and a bundle checked against another log key.
    std::fs::remove_file(&record).unwrap();
    assert!(bundle::verify(&dir, &policy).unwrap_err().iter().any(|d| d.file == record_name));
    let other =
        SignerKey::from_seed("ledger.fogproof.example/t", KeyKind::Ed25519, [6; 32]).unwrap();
    assert_eq!(
        bundle::verify(&dir, &Policy::log_only(other.verifier().clone())).unwrap_err()[0].file,
        "checkpoint"
    );
}

#[test]
fn appends_refuse_tournament_entries_that_do_not_fit() {
    let log_dir = tempfile::tempdir().unwrap();
    let (mut ledger, id) = tournament_log(log_dir.path());
    let before = std::fs::read(log_dir.path().join("checkpoint")).unwrap();
    // Round 2 of a one-round round-robin cannot be paired; an unknown tournament is refused.
    let err = ledger
        .append(&[Submission::Round { tournament: id, round: 2, absent: vec![], started_at_ms: 5 }])
        .unwrap_err();
    assert!(err.to_string().contains("cannot be paired"), "{err}");
    let err = ledger
        .append(&[Submission::Round {
            tournament: [1; 32],
            round: 1,
            absent: vec![],
            started_at_ms: 5,
        }])
        .unwrap_err();
    assert!(err.to_string().contains("is not in the log"), "{err}");
    // A definition whose signature does not verify.
    let mut bad = definition_file(&definition(
        vec![PublicKey([1; 32]), PublicKey([2; 32])],
        System::Swiss { rounds: 1 },
    ));
    let n = bad.len();
    bad[n - 1] ^= 1;
    assert!(
        ledger.append(&[Submission::Tournament { definition: bad, published_at_ms: 6 }]).is_err()
    );
    assert_eq!(std::fs::read(log_dir.path().join("checkpoint")).unwrap(), before);
}

fn no_show(
    def: &TournamentDefinition,
    round: u32,
    w: usize,
    b: usize,
    who: (bool, bool),
) -> LedgerEntry {
    LedgerEntry {
        version: ENTRY_VERSION,
        body: EntryBody::NoShow(NoShowEntry {
            tournament: sha256(&definition_file(def)),
            round,
            white: def.players[w].key,
            black: def.players[b].key,
            white_absent: who.0,
            black_absent: who.1,
            deadline_ms: 1_000,
        }),
    }
}

#[test]
fn a_no_show_is_a_forfeit_of_the_party_named_and_only_of_a_pending_pairing() {
    let def = definition(
        (1..=4).map(|i| PublicKey([i; 32])).collect(),
        System::RoundRobin { double: false },
    );
    let file = definition_file(&def);
    let id = sha256(&file);
    let (t_entry, _) = TournamentEntry::from_definition_file(&file, 0).unwrap();
    let mut h = History::new();
    h.apply(
        &LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Tournament(t_entry) },
        Some(&file),
    )
    .unwrap();
    // Not before the round starts.
    assert!(matches!(
        h.clone().apply(&no_show(&def, 1, 0, 3, (true, false)), None),
        Err(HistoryError::NoShow { .. })
    ));
    h.apply(&round(&def, 1, &[]), None).unwrap();
    let r1 = h.tournament(&id).unwrap().rounds[0].pairings.clone();
    let (w, b) = r1.games[0];
    let (w2, b2) = r1.games[1];
    // Nobody named, swapped colors, or players who are not paired together: refused.
    for bad in [
        no_show(&def, 1, w, b, (false, false)),
        no_show(&def, 1, b, w, (true, false)),
        no_show(&def, 1, w, w2, (true, false)),
    ] {
        assert!(matches!(h.clone().apply(&bad, None), Err(HistoryError::NoShow { .. })), "{bad:?}");
    }
    // Black did not show: White wins by forfeit; the other game: nobody showed.
    h.apply(&no_show(&def, 1, w, b, (false, true)), None).unwrap();
    assert!(
        matches!(
            h.clone().apply(&game(&def, 1, 1, w, b, Some(Color::White)), None),
            Err(HistoryError::NotPaired { .. })
        ),
        "a game forfeited cannot be played after all"
    );
    assert!(matches!(
        h.clone().apply(&no_show(&def, 1, w, b, (true, false)), None),
        Err(HistoryError::NoShow { .. })
    ));
    h.apply(&no_show(&def, 1, w2, b2, (true, true)), None).unwrap();
    let t = h.tournament(&id).unwrap();
    assert!(t.rounds[0].is_complete(), "no-shows complete the round");
    let results: Vec<_> = t.rounds[0].results.iter().map(|r| r.unwrap().0).collect();
    assert_eq!(
        results,
        vec![
            ledger::tournament::GameResult::WhiteWinsByForfeit,
            ledger::tournament::GameResult::DoubleForfeit
        ]
    );
    let standings = t.standings().unwrap();
    let points: Vec<(usize, u32)> = standings.iter().map(|s| (s.player, s.half_points)).collect();
    assert!(points.contains(&(w, 2)) && points.contains(&(b, 0)));
    assert!(points.contains(&(w2, 0)) && points.contains(&(b2, 0)));
    assert_eq!(h.rated_games(), 0, "a forfeit before the game is not rated");
    // The next round may start.
    h.apply(&round(&def, 2, &[]), None).unwrap();
}

/// The no-show entry's bytes, pinned (docs/LEDGER.md has them): the prefix, then postcard of
/// `{ version 1, body: variant 3 (NoShow) { tournament, round, white, black, white_absent,
/// black_absent, deadline_ms } }`, checked field by field here rather than by a golden file.
#[test]
fn the_no_show_entry_encoding_is_the_documented_one() {
    let e = LedgerEntry {
        version: ENTRY_VERSION,
        body: EntryBody::NoShow(NoShowEntry {
            tournament: [0xaa; 32],
            round: 2,
            white: PublicKey([0x11; 32]),
            black: PublicKey([0x22; 32]),
            white_absent: false,
            black_absent: true,
            deadline_ms: 300,
        }),
    };
    let bytes = e.to_bytes().unwrap();
    let mut expected = b"fogproof/v1/ledger-entry\n".to_vec();
    expected.extend([2, 3]); // version 2 (rated matches), body variant 3
    expected.extend([0xaa; 32]);
    expected.push(2); // round (varint)
    expected.extend([0x11; 32]);
    expected.extend([0x22; 32]);
    expected.extend([0, 1]); // white_absent, black_absent
    expected.extend([0xac, 0x02]); // 300 as a varint
    assert_eq!(bytes, expected);
    assert_eq!(LedgerEntry::from_bytes(&bytes).unwrap(), e);
    // A bool other than 0 or 1 is refused.
    let mut bad = bytes.clone();
    let at = bad.len() - 3;
    bad[at] = 2;
    assert!(LedgerEntry::from_bytes(&bad).is_err());
}

#[test]
fn bundles_name_unexpected_files_and_missing_proofs() {
    let log_dir = tempfile::tempdir().unwrap();
    let (ledger, id) = tournament_log(log_dir.path());
    let policy = Policy::log_only(ledger.verifier_key().clone());
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bundle");
    bundle::write(&ledger::store::DirReader::new(log_dir.path()), &id, &dir).unwrap();
    bundle::verify(&dir, &policy).unwrap();
    let names = |d: &[bundle::Difference]| d.iter().map(ToString::to_string).collect::<Vec<_>>();

    // A file that is not part of the bundle, anywhere in it, is refused by name: (file added,
    // what is named, what to remove afterwards).
    let cases = [
        ("records/extra.rec", "records/extra.rec", "records/extra.rec"),
        ("notes.txt", "notes.txt", "notes.txt"),
        ("proofs/extra/x", "proofs/extra", "proofs/extra"),
        ("more/deep/file", "more", "more"),
    ];
    for (added, named, remove) in cases {
        let path = dir.join(added);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"not part of the bundle").unwrap();
        let d = bundle::verify(&dir, &policy).unwrap_err();
        assert!(
            d.iter().any(|x| x.file == named && x.what.contains("should not be in the bundle")),
            "{added} added, but the differences are {:?}",
            names(&d)
        );
        let remove = dir.join(remove);
        if remove.is_dir() {
            std::fs::remove_dir_all(remove).unwrap();
        } else {
            std::fs::remove_file(remove).unwrap();
        }
        bundle::verify(&dir, &policy).unwrap();
    }

    // A removed proof is named as missing, exactly: the tournament's (leaf 1), the round's (2)
    // and the match's (3).
    for index in [1u64, 2, 3] {
        let name = format!("proofs/{index}.tlog-proof");
        let path = dir.join(&name);
        let original = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let d = bundle::verify(&dir, &policy).unwrap_err();
        assert_eq!(d[0].file, name, "{:?}", names(&d));
        assert!(d[0].what.contains("missing"), "{:?}", names(&d));
        assert!(
            !d.iter().any(|x| x.file.starts_with("proofs/") && x.file != name),
            "only the missing proof is named among the proofs: {:?}",
            names(&d)
        );
        std::fs::write(&path, original).unwrap();
    }
    bundle::verify(&dir, &policy).unwrap();
}

/// tlog-tiles: entry bundles SHOULD be compressed (`Content-Encoding: gzip`). The writer stores
/// them gzipped; every reader (reopening, audit, proofs, bundles) takes them gzipped or plain
/// (a log written before), and entries hash as their uncompressed bytes.
#[test]
fn entry_bundles_are_stored_gzipped_and_read_gzipped_or_plain() {
    use ledger::store::{GZIP_MAGIC, bundle_path, decode_bundle, parse_bundle, tile_path};
    let log_dir = tempfile::tempdir().unwrap();
    let (ledger, id) = tournament_log(log_dir.path());
    let policy = Policy::log_only(ledger.verifier_key().clone());
    let size = ledger.checkpoint().checkpoint.size;
    drop(ledger);
    let file = log_dir.path().join(bundle_path(0, size));
    let stored = std::fs::read(&file).unwrap();
    assert!(stored.starts_with(&GZIP_MAGIC), "the writer stores entry bundles gzipped");
    let plain = decode_bundle(&stored).unwrap().into_owned();
    assert_ne!(plain, stored);
    // The level-0 tile holds the leaf hashes of the uncompressed entries.
    let tile = std::fs::read(log_dir.path().join(tile_path(0, 0, size))).unwrap();
    let leaves: Vec<u8> =
        parse_bundle(&plain).unwrap().iter().flat_map(|e| ledger::merkle::leaf_hash(e)).collect();
    assert_eq!(leaves, tile);

    let key = SignerKey::from_seed("ledger.fogproof.example/t", KeyKind::Ed25519, [5; 32]).unwrap();
    for (how, bytes) in [("gzip", &stored), ("plain", &plain)] {
        std::fs::write(&file, bytes).unwrap();
        let reader = ledger::store::DirReader::new(log_dir.path());
        let report = ledger::audit::audit(&reader, &policy, &|_| {}).expect(how);
        assert!(report.findings.is_empty(), "{how}: {:?}", report.findings);
        assert_eq!((report.matches, report.tournaments, report.rounds), (2, 1, 1), "{how}");
        let reopened = Ledger::open(log_dir.path(), key.clone()).expect(how);
        assert!(reopened.tournament(&id).is_some(), "{how}");
        drop(reopened);
        let proof = ledger::service::prove_in(&reader, &id).expect(how);
        proof.verify(&policy).expect(how);
        let out = tempfile::tempdir().unwrap();
        bundle::write(&reader, &id, &out.path().join("b")).expect(how);
        bundle::verify(&out.path().join("b"), &policy).expect(how);
    }
    // Gzip that does not inflate is refused, naming the bundle.
    let mut broken = stored.clone();
    broken.truncate(stored.len() - 6);
    std::fs::write(&file, &broken).unwrap();
    let reader = ledger::store::DirReader::new(log_dir.path());
    let err = ledger::audit::audit(&reader, &policy, &|_| {}).unwrap_err().to_string();
    assert!(err.contains(&bundle_path(0, size)) && err.contains("gzip"), "{err}");
}
