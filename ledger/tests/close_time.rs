//! Close times that are not the operator's alone: a match entry's close time is its record's
//! relay-signed time, the log refuses one too far before its latest, and ratings follow
//! (close time, match id), whatever order the entries were appended in.

use ledger::entry::{
    ENTRY_VERSION, EntryBody, EntryError, EntryVerdict, LedgerEntry, MatchContext, MatchEntry,
};
use ledger::history::{CLOSE_TIME_TOLERANCE_MS, History, HistoryError};
use ledger::note::{KeyKind, SignerKey};
use ledger::rating::{Params, Ratings};
use ledger::{AppendError, Ledger, Submission};
use protocol::PublicKey;
use protocol::codec::Canonical;
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
            colours_known: true,
            umpire: None,
            relay: PublicKey([200; 32]),
            verdict: EntryVerdict::Valid,
            result: Some(rules::GameResult {
                winner,
                reason: if winner.is_some() { EndReason::Checkmate } else { EndReason::Agreement },
            }),
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

/// The time of the record's last receipt, read with the protocol crate alone.
fn last_receipt_time(record: &[u8]) -> u64 {
    let r = protocol::record::MatchRecord::from_canonical(record).unwrap();
    let relay = r.terms.verify().unwrap().terms.relay;
    r.entries.last().unwrap().receipt.open(&relay).unwrap().time_ms
}

#[test]
fn the_ledger_takes_the_close_time_from_the_record_and_rates_in_its_order() {
    let records: Vec<Vec<u8>> =
        (1..=6).map(|seed| client::selfplay(Variant::Chess, seed).unwrap().0).collect();
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
    // Each entry's close time is its record's last relay-signed time (selfplay's simulated
    // relay clock), not the appender's.
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
    let record = client::selfplay(Variant::Chess, 2).unwrap().0;
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
