//! Close times that are not the operator's alone: a match entry's close time is its record's
//! relay-signed wall time (the `Close` notice's `wall_ms`), the log refuses one too far before
//! its latest or too far after its own clock, and ratings follow (close time, match id),
//! whatever order the entries were appended in. A match resumed after an outage longer than
//! the tolerance is logged (issue 15: its receipt times stood still while the server was down).

use ledger::entry::{
    ENTRY_VERSION, EntryBody, EntryError, EntryVerdict, LedgerEntry, MatchContext, MatchEntry,
};
use ledger::history::{CLOSE_TIME_TOLERANCE_MS, History, HistoryError};
use ledger::note::{KeyKind, SignerKey};
use ledger::rating::{Params, Ratings};
use ledger::{AppendError, Ledger, Submission};
use protocol::PublicKey;
use protocol::codec::Canonical;
use protocol::message::Payload;
use protocol::record::MatchRecord;
use protocol::relay::Relay;
use rules::{Color, EndReason, Variant};

/// A rated chess game between two of six players, closing at `close_ms`.
fn entry(id: u8, white: u8, black: u8, winner: Option<Color>, close_ms: u64) -> LedgerEntry {
    LedgerEntry {
        version: ENTRY_VERSION,
        body: EntryBody::Match(MatchEntry {
            match_id: [id; 32],
            record_sha256: [id; 32],
            variant: "chess".into(),
            ruleset: "chess/fide".into(),
            white: PublicKey([white; 32]),
            black: PublicKey([black; 32]),
            colors_known: true,
            umpire: None,
            relay: PublicKey([200; 32]),
            verdict: EntryVerdict::Valid,
            result: Some(rules::GameResult {
                winner,
                reason: if winner.is_some() { EndReason::Checkmate } else { EndReason::Agreement },
            }),
            rated: true,
            context: MatchContext { tournament: None, finished_at_ms: close_ms },
            verifier_version: "test".into(),
        }),
    }
}

fn table(r: &Ratings) -> Vec<(Variant, PublicKey, u64, u64, u64, u32)> {
    r.iter()
        .map(|((v, k), r)| {
            (*v, *k, r.rating.to_bits(), r.deviation.to_bits(), r.volatility.to_bits(), r.games)
        })
        .collect()
}

#[test]
fn a_close_time_further_back_than_the_tolerance_is_refused_and_within_it_accepted() {
    let t0 = 1_700_000_000_000;
    let mut h = History::new();
    h.apply(&entry(1, 1, 2, Some(Color::White), t0), None).unwrap();
    h.apply(&entry(2, 3, 4, None, t0 + 2 * CLOSE_TIME_TOLERANCE_MS), None).unwrap();
    // Exactly the tolerance back: accepted.
    h.apply(&entry(3, 1, 3, None, t0 + CLOSE_TIME_TOLERANCE_MS), None).unwrap();
    assert_eq!(h.latest_close_ms(), Some(t0 + 2 * CLOSE_TIME_TOLERANCE_MS));
    // One millisecond more: refused, naming the times, and nothing changes.
    let before = table(h.ratings());
    let err = h.apply(&entry(4, 2, 4, None, t0 + CLOSE_TIME_TOLERANCE_MS - 1), None).unwrap_err();
    assert_eq!(
        err,
        HistoryError::CloseTimeBackwards {
            id: [4; 32],
            close_ms: t0 + CLOSE_TIME_TOLERANCE_MS - 1,
            latest_ms: t0 + 2 * CLOSE_TIME_TOLERANCE_MS,
        }
    );
    let text = err.to_string();
    assert!(text.contains(&format!("{} ms before", CLOSE_TIME_TOLERANCE_MS + 1)), "{text}");
    assert!(text.contains(&format!("tolerance of {CLOSE_TIME_TOLERANCE_MS} ms")), "{text}");
    assert_eq!(h.size(), 3);
    assert_eq!(h.match_index(&[4; 32]), None);
    assert_eq!(table(h.ratings()), before);
    // A later time is always accepted.
    h.apply(&entry(5, 2, 4, None, t0 + 3 * CLOSE_TIME_TOLERANCE_MS), None).unwrap();
}

/// Rates the games in (close time, match id) order, independently of `History`.
fn reference(
    games: &[(u8, u8, u8, Option<Color>, u64)],
) -> Vec<(Variant, PublicKey, u64, u64, u64, u32)> {
    let mut sorted = games.to_vec();
    sorted.sort_by_key(|&(id, _, _, _, close)| (close, [id; 32]));
    let mut r = Ratings::new(Params::LICHESS);
    for (id, w, b, winner, close) in sorted {
        let EntryBody::Match(m) = entry(id, w, b, winner, close).body else { unreachable!() };
        r.apply(&ledger::history::rated_game(&m).unwrap()).unwrap();
    }
    table(&r)
}

/// SplitMix64: a small seeded generator, so every run checks the same cases.
struct Rng(u64);

impl Rng {
    fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 32) as u32
    }
}

#[test]
fn ratings_are_the_same_whatever_the_append_order_within_the_tolerance() {
    let mut rng = Rng(7);
    for case in 0..200 {
        // Up to 40 games between six players over up to four tolerances of time, with ties.
        let n = 2 + (rng.next_u32() % 39) as u8;
        let span = 1 + u64::from(rng.next_u32()) % (4 * CLOSE_TIME_TOLERANCE_MS);
        let ties = 1 + u64::from(rng.next_u32() % 8);
        let games: Vec<(u8, u8, u8, Option<Color>, u64)> = (0..n)
            .map(|i| {
                let w = (rng.next_u32() % 6) as u8 + 1;
                let b = (w % 6) + 1 + (rng.next_u32() % 5) as u8;
                let b = if b > 6 { b - 6 } else { b };
                let winner =
                    [Some(Color::White), Some(Color::Black), None][(rng.next_u32() % 3) as usize];
                // Few distinct times when `ties` is small: equal close times, ordered by id.
                let close = 1_000 + (u64::from(rng.next_u32()) % ties) * (span / ties);
                // Ids not in close-time order.
                (n - i, w, b, winner, close)
            })
            .collect();
        // An append order the log accepts: sorted by close time plus a jitter within the
        // tolerance, so no entry closes more than the tolerance before one appended earlier.
        let mut order: Vec<(u64, usize)> = games
            .iter()
            .enumerate()
            .map(|(i, g)| (g.4 + u64::from(rng.next_u32()) % (CLOSE_TIME_TOLERANCE_MS + 1), i))
            .collect();
        order.sort();
        let mut h = History::new();
        for &(_, i) in &order {
            let (id, w, b, winner, close) = games[i];
            h.apply(&entry(id, w, b, winner, close), None).unwrap();
        }
        assert_eq!(h.rated_games(), u64::from(n), "case {case}");
        assert_eq!(table(h.ratings()), reference(&games), "case {case}: {order:?}");
    }
}

#[test]
fn leaf_order_does_not_change_a_rating_but_close_time_order_does() {
    // A beats B, then B beats C: C's rating depends on B's at the time. Closing the games the
    // other way round gives other ratings; appending them the other way round does not.
    let g1 = |t| entry(1, 1, 2, Some(Color::White), t);
    let g2 = |t| entry(2, 2, 3, Some(Color::White), t);
    let ratings = |first: LedgerEntry, second: LedgerEntry| {
        let mut h = History::new();
        h.apply(&first, None).unwrap();
        h.apply(&second, None).unwrap();
        table(h.ratings())
    };
    let ab = ratings(g1(10), g2(20));
    assert_eq!(ratings(g2(20), g1(10)), ab);
    assert_ne!(ratings(g1(20), g2(10)), ab);
}

fn log_key() -> SignerKey {
    SignerKey::from_seed("ledger.fogproof.example/close", KeyKind::Ed25519, [31; 32]).unwrap()
}

/// The wall time of the record's `Close` and its receipt's time, read with the protocol crate
/// alone.
fn close_of(record: &[u8]) -> (u64, u64) {
    let r = protocol::record::MatchRecord::from_canonical(record).unwrap();
    let relay = r.terms.verify().unwrap().terms.relay;
    r.entries
        .iter()
        .find_map(|e| match e.message.verify().unwrap().payload {
            Payload::Close { wall_ms } => Some((wall_ms, e.receipt.open(&relay).unwrap().time_ms)),
            _ => None,
        })
        .expect("a closed record")
}

/// The record's close time as the ledger takes it: its `Close`'s wall time.
fn last_receipt_time(record: &[u8]) -> u64 {
    close_of(record).0
}

#[test]
fn the_ledger_takes_the_close_time_from_the_record_and_rates_in_its_order() {
    let records: Vec<Vec<u8>> =
        (1..=6).map(|seed| sim::selfplay(Variant::Chess, seed).unwrap().0).collect();
    let append = |order: &[usize]| {
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
        for &i in order {
            ledger
                .append(&[Submission::Match { record: records[i].clone(), tournament: None }])
                .unwrap();
        }
        let mut closes = Vec::new();
        for leaf in 0..order.len() as u64 {
            let e = LedgerEntry::from_bytes(&ledger.entry_bytes(leaf).unwrap()).unwrap();
            closes.push(e.as_match().unwrap().context.finished_at_ms);
        }
        (ledger.ratings(Variant::Chess), closes)
    };
    let (forward, closes) = append(&[0, 1, 2, 3, 4, 5]);
    // Each entry's close time is its record's relay-signed close time (selfplay's simulated
    // relay clock, which it runs as wall time), not the appender's.
    for (i, close) in closes.iter().enumerate() {
        assert_eq!(*close, last_receipt_time(&records[i]));
        let vm = verifier::verify_match(&records[i]);
        assert_eq!(ledger::entry::close_time_ms(&records[i], &vm).unwrap(), *close);
    }
    assert!(!forward.is_empty());
    let (backward, _) = append(&[5, 4, 3, 2, 1, 0]);
    let (shuffled, _) = append(&[3, 0, 5, 1, 4, 2]);
    let bits = |r: &[(PublicKey, ledger::rating::Rating)]| {
        r.iter()
            .map(|(k, r)| (*k, r.rating.to_bits(), r.deviation.to_bits(), r.games))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&backward), bits(&forward));
    assert_eq!(bits(&shuffled), bits(&forward));
}

#[test]
fn a_stated_close_time_other_than_the_records_is_refused() {
    let record = sim::selfplay(Variant::Chess, 2).unwrap().0;
    let signed = last_receipt_time(&record);
    let context = |finished_at_ms| MatchContext { tournament: None, finished_at_ms };
    assert_eq!(
        MatchEntry::from_record(&record, context(signed)).unwrap().context.finished_at_ms,
        signed
    );
    let err = MatchEntry::from_record(&record, context(signed - 5)).unwrap_err();
    assert!(
        matches!(err, EntryError::CloseTime { stated, signed: s } if stated == signed - 5 && s == signed),
        "{err}"
    );
    assert!(err.to_string().contains("5 ms earlier"), "{err}");
    // A record whose receipts are not its relay's has no close time: the append refuses it.
    let mut r = protocol::record::MatchRecord::from_canonical(&record).unwrap();
    for e in &mut r.entries {
        e.receipt.signature.s[0] ^= 1;
    }
    let forged = r.to_canonical();
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    let refused =
        ledger.append(&[Submission::Match { record: forged, tournament: None }]).unwrap_err();
    assert!(
        matches!(refused, AppendError::Refused { index: 0, source: EntryError::NoCloseTime }),
        "{refused}"
    );
}

#[test]
fn an_entry_whose_signature_fails_is_left_out_of_the_close_time_and_the_rest_still_read() {
    // The signatures are checked in one batch; a bad one makes the batch fail and each is
    // checked alone: only the forged entry is left out.
    // Closed an hour after an outage, so the `Close`'s wall time is not its receipt's time;
    // the record ends at the `Close`.
    let game = sim::selfplay_with(sim::SelfplayConfig::new(Variant::Chess, 3)).unwrap();
    let record = resumed_after(&game, 3_600_000);
    let r = protocol::record::MatchRecord::from_canonical(&record).unwrap();
    let relay = r.terms.verify().unwrap().terms.relay;
    let close_at = r.entries.len() - 1;
    assert!(matches!(r.entries[close_at].message.verify().unwrap().payload, Payload::Close { .. }));
    let time_of = |i: usize| r.entries[i].receipt.open(&relay).unwrap().time_ms;
    let (wall, _) = close_of(&record);
    let close_time = |bytes: &[u8]| {
        let vm = verifier::verify_match(bytes);
        ledger::entry::close_time_ms(bytes, &vm).unwrap()
    };
    assert_eq!(close_time(&record), wall);
    // The `Close`'s receipt forged: its entry is not the relay's; the close time is the last
    // receipt that verifies, the entry before it.
    let mut forged = r.clone();
    forged.entries[close_at].receipt.signature.s[0] ^= 1;
    assert_eq!(close_time(&forged.to_canonical()), time_of(close_at - 1));
    // The `Close` message's own signature forged (its receipt intact): its body is not read,
    // so the close time is its receipt's time, not the wall time it states.
    let mut forged = r.clone();
    forged.entries[close_at].message.signature.s[0] ^= 1;
    assert_eq!(close_time(&forged.to_canonical()), time_of(close_at));
    assert_ne!(time_of(close_at), wall, "the test needs the two times to differ");
}

#[test]
fn a_verified_submission_appends_the_match_entry_and_a_verification_of_other_bytes_is_not_used() {
    let records: Vec<Vec<u8>> =
        (4..=5).map(|seed| sim::selfplay(Variant::Chess, seed).unwrap().0).collect();
    // A record with faults (a forged receipt): its signatures are checked, not taken as read.
    let mut forged = MatchRecord::from_canonical(&records[0]).unwrap();
    let last = forged.entries.len() - 2;
    forged.entries[last].receipt.signature.s[0] ^= 1;
    let forged = forged.to_canonical();
    let entry_of = |s: Submission| {
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
        ledger.append(&[s]).unwrap();
        ledger.entry_bytes(0).unwrap()
    };
    let plain = |r: &[u8]| entry_of(Submission::Match { record: r.to_vec(), tournament: None });
    let verified = |r: &[u8], of: &[u8]| {
        entry_of(Submission::Verified {
            record: r.to_vec(),
            tournament: None,
            verified: std::sync::Arc::new(verifier::verify_match(of)),
        })
    };
    for r in [&records[0], &records[1], &forged] {
        assert_eq!(verified(r, r), plain(r));
    }
    let forged_entry = LedgerEntry::from_bytes(&plain(&forged)).unwrap();
    assert!(matches!(forged_entry.as_match().unwrap().verdict, EntryVerdict::Faults { .. }));
    // Another record's verification is not used: the record is verified itself.
    assert_eq!(verified(&records[0], &records[1]), plain(&records[0]));
    assert_eq!(verified(&forged, &records[0]), plain(&forged));
}

/// `game` as a server would have written it had it gone down just before the message that
/// completed the match and come back `outage_ms` later: its stored entries replayed into a
/// resumed relay, whose time stands still across the outage (nobody is charged the downtime),
/// then that message accepted at its old relay time while the wall clock reads `outage_ms`
/// later. The record ends at the relay's `Close` (the countersignatures are not replayed).
fn resumed_after(game: &sim::selfplay::Selfplay, outage_ms: u64) -> Vec<u8> {
    let r = &game.record;
    let agreed = r.terms.verify().unwrap();
    let relay_key = agreed.terms.relay;
    let close = r
        .entries
        .iter()
        .position(|e| matches!(e.message.verify().unwrap().payload, Payload::Close { .. }))
        .expect("a closed record");
    let last = &r.entries[close - 1];
    assert_ne!(last.message.verify().unwrap().author, relay_key, "a party's message closed it");
    let at = last.receipt.open(&relay_key).unwrap().time_ms;
    let mut relay = Relay::resume(game.cast.relay.clone(), agreed, &r.entries[..close - 1])
        .expect("the stored entries replay");
    relay.set_wall_ms(at + outage_ms);
    relay.accept(&last.message.to_canonical(), at).expect("the message is accepted again");
    MatchRecord { version: r.version, terms: r.terms.clone(), entries: relay.entries().to_vec() }
        .to_canonical()
}

#[test]
fn a_match_resumed_after_a_long_outage_is_logged_by_its_wall_close_time() {
    let hour = 3_600_000;
    let play = |seed| sim::selfplay_with(sim::SelfplayConfig::new(Variant::Chess, seed));
    let (a, b) = (play(1).unwrap(), play(2).unwrap());
    // Match A closed two hours of wall time after the outage began; match B, resumed after the
    // same outage, closes a minute later. B's receipts (its relay time) stood still.
    let a = resumed_after(&a, 2 * hour);
    let b = resumed_after(&b, 2 * hour + 60_000);
    let (a_wall, _) = close_of(&a);
    let (b_wall, b_receipt) = close_of(&b);
    assert!(b_wall > a_wall);
    assert!(b_receipt + CLOSE_TIME_TOLERANCE_MS < a_wall, "B's relay time lags the calendar");
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    ledger.set_clock(Box::new(move || b_wall + 1_000));
    ledger.append(&[Submission::Match { record: a.clone(), tournament: None }]).unwrap();
    ledger.append(&[Submission::Match { record: b.clone(), tournament: None }]).unwrap();
    let close = |leaf| {
        let e = LedgerEntry::from_bytes(&ledger.entry_bytes(leaf).unwrap()).unwrap();
        e.as_match().unwrap().context.finished_at_ms
    };
    assert_eq!(
        (close(0), close(1)),
        (a_wall, b_wall),
        "the close times are the Close's wall times"
    );
    // Had B's close time been its relay time (before this fix), the log would refuse it.
    let EntryBody::Match(mut by_receipt) = entry(9, 1, 2, None, b_receipt).body else {
        unreachable!()
    };
    by_receipt.match_id = [9; 32];
    let mut h = History::new();
    h.apply(&entry(8, 3, 4, None, a_wall), None).unwrap();
    let stale = LedgerEntry { version: ENTRY_VERSION, body: EntryBody::Match(by_receipt) };
    assert!(matches!(h.apply(&stale, None), Err(HistoryError::CloseTimeBackwards { .. })));
}

#[test]
fn a_close_time_far_ahead_of_the_logs_clock_is_refused() {
    let game = sim::selfplay_with(sim::SelfplayConfig::new(Variant::Chess, 3)).unwrap();
    // A relay whose wall clock is a day ahead of the log's.
    let day = 86_400_000;
    let record = resumed_after(&game, day);
    let (wall, _) = close_of(&record);
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    ledger.set_clock(Box::new(move || wall - day));
    let err = ledger
        .append(&[Submission::Match { record: record.clone(), tournament: None }])
        .unwrap_err();
    assert!(
        matches!(
            err,
            AppendError::Refused {
                index: 0,
                source: EntryError::CloseInFuture { close_ms, log_ms, tolerance_ms }
            } if close_ms == wall && log_ms == wall - day && tolerance_ms == CLOSE_TIME_TOLERANCE_MS
        ),
        "{err}"
    );
    assert_eq!(ledger.checkpoint().checkpoint.size, 0, "nothing appended");
    // Within the tolerance of the log's clock: appended.
    ledger.set_clock(Box::new(move || wall - CLOSE_TIME_TOLERANCE_MS));
    ledger.append(&[Submission::Match { record, tournament: None }]).unwrap();
}
