//! Rated means rated (issue 13 point 5; docs/LEDGER.md, "How each end is rated"): `rated` is
//! in the signed terms and in the ledger entry, and only rated games move ratings. Played
//! through the real machines (self-play with a wire that drops what a quitting player sends)
//! and appended to a real ledger:
//!
//! - a casual game moves no rating, the same game rated does;
//! - a forfeit by a key that never moved is not rated (the issue's "a fresh key reached first
//!   place in 40 s"), while the same game with the move made is;
//! - a last revealer who sees the coin toss and quits forfeits a rated game, although the
//!   colors are never known.

use ledger::entry::{LedgerEntry, MatchEntry};
use ledger::note::{KeyKind, SignerKey};
use ledger::rating::Rating;
use ledger::{Ledger, Submission};
use protocol::PublicKey;
use protocol::message::{MessageBody, Payload};
use protocol::terms::ColorAssignment;
use rules::{EndReason, Variant};
use sim::selfplay::{Fate, SelfplayConfig, Who, Wire, selfplay_with};
use std::cell::RefCell;
use std::rc::Rc;

fn log_key() -> SignerKey {
    SignerKey::from_seed("ledger.fogproof.example/rated", KeyKind::Ed25519, [41; 32]).unwrap()
}

/// Appends each record to a fresh ledger: every entry, and the ratings of `variant`.
fn logged(records: &[Vec<u8>], variant: Variant) -> (Vec<MatchEntry>, Vec<(PublicKey, Rating)>) {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    for record in records {
        ledger.append(&[Submission::Match { record: record.clone(), tournament: None }]).unwrap();
    }
    let entries = (0..records.len() as u64)
        .map(|i| {
            let e = LedgerEntry::from_bytes(&ledger.entry_bytes(i).unwrap()).unwrap();
            e.as_match().unwrap().clone()
        })
        .collect();
    (entries, ledger.ratings(variant))
}

fn play(config: SelfplayConfig) -> Vec<u8> {
    selfplay_with(config).expect("self-play").bytes
}

fn body(w: &Wire<'_>) -> Option<MessageBody> {
    w.message()?.verify().ok()
}

#[test]
fn a_casual_game_moves_no_rating() {
    let game = |rated| {
        let mut c = SelfplayConfig::new(Variant::Chess, 3);
        c.rated = rated;
        play(c)
    };
    let (entries, ratings) = logged(&[game(false)], Variant::Chess);
    assert!(entries[0].result.is_some(), "a finished game");
    assert!(!entries[0].rated, "the terms say casual");
    assert!(ratings.is_empty(), "{ratings:?}");
    // The same game, rated: both players rated.
    let (entries, ratings) = logged(&[game(true)], Variant::Chess);
    assert!(entries[0].rated);
    assert_eq!(ratings.len(), 2);
    assert!(ratings.iter().all(|(_, r)| r.games == 1));
}

#[test]
fn a_forfeit_by_a_key_that_never_moved_moves_no_rating() {
    // Fixed colors (no coin toss): Black's every move is lost on the way, so Black never
    // moves and loses on time.
    let mut c = SelfplayConfig::new(Variant::Chess, 5);
    c.colors = ColorAssignment::FirstIsWhite;
    c.wire = Some(Box::new(|w: &mut Wire<'_>| {
        let action = body(w).is_some_and(|b| matches!(b.payload, Payload::Action(_)));
        if w.from == Who::Player(1) && action { Fate::Drop } else { Fate::Send }
    }));
    let (entries, ratings) = logged(&[play(c)], Variant::Chess);
    let e = &entries[0];
    let result = e.result.expect("White wins");
    assert_eq!(result.winner, Some(rules::Color::White), "{e:?}");
    assert!(!e.rated, "Black never moved: an abort, not rated ({e:?})");
    assert!(ratings.is_empty(), "{ratings:?}");
    // Black makes its first move, then nothing reaches the relay: a rated loss on time.
    let mut c = SelfplayConfig::new(Variant::Chess, 5);
    c.colors = ColorAssignment::FirstIsWhite;
    let moved = Rc::new(RefCell::new(false));
    c.wire = Some(Box::new(move |w: &mut Wire<'_>| {
        let action = body(w).is_some_and(|b| matches!(b.payload, Payload::Action(_)));
        if w.from != Who::Player(1) || !action {
            return Fate::Send;
        }
        if *moved.borrow() {
            Fate::Drop
        } else {
            *moved.borrow_mut() = true;
            Fate::Send
        }
    }));
    let (entries, ratings) = logged(&[play(c)], Variant::Chess);
    assert_eq!(entries[0].result.and_then(|r| r.winner), Some(rules::Color::White));
    assert!(entries[0].rated, "both moved: rated ({:?})", entries[0]);
    assert_eq!(ratings.len(), 2);
}

#[test]
fn the_last_revealer_who_quits_after_the_coin_toss_forfeits_a_rated_game() {
    let mut c = SelfplayConfig::new(Variant::Chess, 7);
    c.colors = ColorAssignment::Drawn;
    let quitter: Rc<RefCell<Option<PublicKey>>> = Rc::default();
    let revealed: Rc<RefCell<Option<PublicKey>>> = Rc::default();
    let q = quitter.clone();
    c.wire = Some(Box::new(move |w: &mut Wire<'_>| {
        let Some(b) = body(w) else { return Fate::Send };
        if *q.borrow() == Some(b.author) {
            return Fate::Drop;
        }
        let reveal = matches!(
            b.payload,
            Payload::Reveal { purpose, .. } if purpose == protocol::commitment::PUBLIC_CONTRIBUTION
        );
        if !reveal {
            return Fate::Send;
        }
        let first = *revealed.borrow();
        match first {
            None => {
                *revealed.borrow_mut() = Some(b.author);
                Fate::Send
            }
            // The second revealer has seen the first's contribution, so it knows the colors:
            // it never reveals, and sends nothing more.
            Some(a) if a != b.author => {
                *q.borrow_mut() = Some(b.author);
                Fate::Drop
            }
            Some(_) => Fate::Send,
        }
    }));
    let (entries, ratings) = logged(&[play(c)], Variant::Chess);
    let quitter = quitter.borrow().expect("a second revealer quit");
    let e = &entries[0];
    assert!(!e.colors_known, "the colors were never drawn ({e:?})");
    let result = e.result.expect("a forfeit, not a void");
    assert_eq!(result.reason, EndReason::Forfeit, "{e:?}");
    // White and Black are in the players' order; the winner is the one that did not quit.
    let winner = match result.winner {
        Some(rules::Color::White) => e.white,
        Some(rules::Color::Black) => e.black,
        None => panic!("a forfeit has a winner"),
    };
    assert_ne!(winner, quitter);
    assert!(e.rated, "after the coin toss, the forfeit is rated ({e:?})");
    let rating = |k: PublicKey| ratings.iter().find(|(p, _)| *p == k).map(|(_, r)| *r).unwrap();
    assert!(rating(quitter).rating < 1500.0 && rating(winner).rating > 1500.0, "{ratings:?}");
}

#[test]
fn an_umpired_game_is_rated_by_the_umpires_turns() {
    // Fixed colors: no reveal decides anything, so the rating rests on both players' legal
    // moves as the umpire's `Turn`s answer them.
    let mut c = SelfplayConfig::new(Variant::Kriegspiel, 11);
    c.colors = ColorAssignment::FirstIsWhite;
    let (entries, ratings) = logged(&[play(c)], Variant::Kriegspiel);
    assert!(entries[0].result.is_some());
    assert!(entries[0].rated, "{:?}", entries[0]);
    assert_eq!(ratings.len(), 2);
}
