//! Adversarial game-level tests: one participant cheats in one precise way, through the
//! `client` crate's hooks, while the real player, umpire and relay state machines run; the
//! verifier must return the exact fault kind, culprit key and role (docs/PROTOCOL.md 17, 18).
//!
//! Colors are fixed (`players[0]` is White) except in SIC, where they are drawn from both
//! players' contributions (so the draw is exercised too) and a cheating player's role is read
//! from the colors the match drew. Each lie is told once, at the first chance; a test whose
//! cheat never got its chance fails.

use protocol::codec::Canonical;
use protocol::message::{Outcome, Payload};
use protocol::terms::ColorAssignment;
use protocol::{Channel, Color, PublicKey};
use rules::kriegspiel::{Answer, CheckKind};
use rules::secretchess6 as sc6;
use rules::{Square, Variant};
use sim::{Selfplay, SelfplayConfig};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use verifier::{FaultKind, MatchRole, Verdict};

fn config(variant: Variant, seed: u64) -> SelfplayConfig {
    let mut c = SelfplayConfig::new(variant, seed);
    if variant != Variant::Sic {
        c.colors = ColorAssignment::FirstIsWhite;
    }
    c
}

fn play(config: SelfplayConfig) -> Selfplay {
    let (v, s) = (config.variant(), config.seed);
    sim::selfplay_with(config).unwrap_or_else(|e| panic!("{v} seed {s}: {e:?}"))
}

fn key(played: &Selfplay, role: MatchRole) -> PublicKey {
    let colors = played.colors.expect("the match got as far as colors");
    match role {
        MatchRole::White => colors.white,
        MatchRole::Black => colors.black,
        MatchRole::Umpire => played.cast.umpire.public(),
        MatchRole::Relay | MatchRole::Record => played.cast.relay.public(),
    }
}

/// The role `players[i]` played.
fn role_of_player(played: &Selfplay, i: usize) -> MatchRole {
    let colors = played.colors.expect("the match got as far as colors");
    if colors.white == played.cast.players[i].public() {
        MatchRole::White
    } else {
        MatchRole::Black
    }
}

/// The verdict's first fault is exactly `kind`, signed by `role`'s key.
fn assert_fault(played: &Selfplay, kind: FaultKind, role: MatchRole) -> verifier::Fault {
    let verdict = verifier::verify(&played.bytes);
    let Verdict::Faults(faults) = &verdict else { panic!("expected {kind:?}, got {verdict:?}") };
    let first = faults.first().unwrap_or_else(|| panic!("no fault in {verdict:?}")).clone();
    assert_eq!((first.kind, first.role), (kind, role), "{first:#?}");
    assert_eq!(first.culprit, Some(key(played, role)), "{first:#?}");
    assert!(first.entry.is_some() && first.message.is_some(), "{first:#?}");
    assert!(!first.evidence.is_empty() && !first.explanation.is_empty());
    if std::env::var_os("FOGPROOF_SHOW_FAULTS").is_some() {
        eprintln!("{kind:?} by {role:?}\n  evidence: {}\n  {}", first.evidence, first.explanation);
    }
    first
}

/// A flag a hook sets when its cheat happened (hooks are `Send`, as the machines are).
#[derive(Clone, Default)]
struct Flag(Arc<AtomicBool>);

impl Flag {
    fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    fn set(&self, v: bool) {
        self.0.store(v, Ordering::SeqCst);
    }
}

fn flag() -> (Flag, Flag) {
    let f = Flag::default();
    (f.clone(), f)
}

/// Plays seeds from 1 until the cheat built by `cheat` got its chance; returns that match.
fn first_cheat(variant: Variant, cheat: impl Fn(&mut SelfplayConfig, Flag)) -> Selfplay {
    for seed in 1..=12 {
        let (fired, hook_flag) = flag();
        let mut c = config(variant, seed);
        cheat(&mut c, hook_flag);
        let played = play(c);
        if fired.get() {
            return played;
        }
    }
    panic!("{variant}: the cheat never had its chance in 12 seeds");
}

/// Player actions after which an umpire-lie match is cut off: the lie comes at the first
/// chance and the replay stops at it, so the rest of the game would only cost time.
const LIE_CAP: u32 = 160;

/// An umpire that rewrites one Kriegspiel answer (the first `edit` changes).
fn kriegspiel_umpire_lie(edit: fn(&mut Answer) -> bool) -> Selfplay {
    first_cheat(Variant::Kriegspiel, |c, fired| {
        c.max_actions = LIE_CAP;
        c.umpire_lie = Some(Box::new(move |_side: Color, _i: usize, bytes: &mut Vec<u8>| {
            if fired.get() {
                return;
            }
            let Ok(mut answer) = Answer::from_canonical(bytes) else { return };
            if edit(&mut answer) {
                *bytes = answer.to_canonical();
                fired.set(true);
            }
        }));
    })
}

#[test]
fn r_s2_start_view_not_from_the_seeds_is_bad_setup() {
    // The umpire deals White an army other than the one both players' seeds give (R-S2): the
    // revealed seeds do not reproduce the setup it announced.
    let played = sic_umpire_view_lie(|v| {
        let (a, b) = (v.own.first().map(|p| p.role), v.own.last().map(|p| p.role));
        match (a, b, v.own.len()) {
            (Some(a), Some(b), n) if a != b => {
                v.own[0].role = b;
                v.own[n - 1].role = a;
                true
            }
            _ => false,
        }
    });
    let f = assert_fault(&played, FaultKind::BadSetup, MatchRole::Umpire);
    assert!(f.evidence.contains("start"), "{}", f.evidence);
}

#[test]
fn r_s2_sealed_seed_other_than_committed_is_a_bad_opening() {
    // A player gives the umpire a private seed other than the one it committed to, hoping for
    // a better SIC army (R-S2). Layer 1 already refuses the opening; the culprit is the player.
    let played = first_cheat(Variant::Sic, |c, fired| {
        c.player_hooks[0] = Some(Box::new(move |channel: Channel, p: &mut Payload| {
            if let (Channel::WhiteUmpire | Channel::BlackUmpire, Payload::Open { purpose, opening }) =
                (channel, p)
                && *purpose == protocol::commitment::PRIVATE_SEED
                && !fired.get()
            {
                opening.value = vec![0x42; 32];
                fired.set(true);
            }
            true
        }));
    });
    let cheat = role_of_player(&played, 0);
    assert_fault(&played, FaultKind::BadOpening, cheat);
}

/// An umpire that rewrites one SIC start view (the first `edit` changes).
fn sic_umpire_view_lie(edit: fn(&mut rules::sic::View) -> bool) -> Selfplay {
    first_cheat(Variant::Sic, |c, fired| {
        c.max_actions = LIE_CAP;
        c.umpire_lie = Some(Box::new(move |_side: Color, _i: usize, bytes: &mut Vec<u8>| {
            if fired.get() {
                return;
            }
            let Ok(mut view) = rules::sic::View::from_canonical(bytes) else { return };
            if edit(&mut view) {
                *bytes = view.to_canonical();
                fired.set(true);
            }
        }));
    })
}

#[test]
fn r_i2_false_informer_denial_is_caught() {
    // Black's informer pawn is taken; Black answers "not the informer" to keep its king hidden.
    let played = first_cheat(Variant::Intrigue, |c, fired| {
        for i in 0..2 {
            let fired = fired.clone();
            c.player_hooks[i] = Some(Box::new(move |channel: Channel, p: &mut Payload| {
                let (Channel::Public, Payload::Observation(bytes)) = (channel, &mut *p) else {
                    return true;
                };
                let Ok(rules::intrigue::Observation::Move(mut report)) =
                    rules::intrigue::Observation::from_canonical(bytes)
                else {
                    return true;
                };
                if let Some(i) = &mut report.inspection
                    && i.informer
                    && !fired.get()
                {
                    i.informer = false;
                    i.appeared = None;
                    report.result = None;
                    *bytes = rules::intrigue::Observation::Move(report).to_canonical();
                    fired.set(true);
                }
                true
            }));
        }
    });
    let verdict = verifier::verify(&played.bytes);
    let owner = verdict.faults().first().map(|f| f.role).expect("a fault");
    let f = assert_fault(&played, FaultKind::FalseInformerAnswer, owner);
    assert!(f.explanation.contains("denied"), "{}", f.explanation);
    assert!(f.evidence.contains("informer"), "{}", f.evidence);
}

#[test]
fn r_k1_umpire_refusing_a_legal_attempt_is_false_adjudication() {
    let played = kriegspiel_umpire_lie(|a| {
        let legal = matches!(a, Answer::Legal(_));
        *a = Answer::Illegal;
        legal
    });
    let f = assert_fault(&played, FaultKind::FalseAdjudication, MatchRole::Umpire);
    assert!(f.explanation.contains("refused a legal attempt"), "{}", f.explanation);
}

#[test]
fn r_k1_umpire_accepting_an_illegal_attempt_is_false_adjudication() {
    let played = kriegspiel_umpire_lie(|a| {
        let illegal = matches!(a, Answer::Illegal);
        *a = Answer::Legal(rules::kriegspiel::Announcement {
            capture: None,
            checks: Vec::new(),
            pawn_tries: 0,
            end: None,
        });
        illegal
    });
    let f = assert_fault(&played, FaultKind::FalseAdjudication, MatchRole::Umpire);
    assert!(f.explanation.contains("accepted an illegal attempt"), "{}", f.explanation);
}

#[test]
fn r_k2_false_capture_square_is_a_false_announcement() {
    let played = kriegspiel_umpire_lie(|a| match a {
        Answer::Legal(ann) => match &mut ann.capture {
            Some(cap) => {
                let other = if cap.square.index() == 0 { 1 } else { 0 };
                cap.square = Square::from_index(other).expect("a square");
                true
            }
            None => false,
        },
        Answer::Illegal => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("differs in: capture"), "{}", f.evidence);
}

#[test]
fn r_k2_false_check_kind_is_a_false_announcement() {
    let played = kriegspiel_umpire_lie(|a| match a {
        Answer::Legal(ann) if !ann.checks.is_empty() => {
            ann.checks[0] = if ann.checks[0] == CheckKind::Knight {
                CheckKind::Rank
            } else {
                CheckKind::Knight
            };
            true
        }
        _ => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("differs in: checks"), "{}", f.evidence);
}

#[test]
fn r_k2_false_pawn_tries_is_a_false_announcement() {
    let played = kriegspiel_umpire_lie(|a| match a {
        Answer::Legal(ann) => {
            ann.pawn_tries += 1;
            true
        }
        Answer::Illegal => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("differs in: pawn_tries"), "{}", f.evidence);
}

/// An umpire that rewrites one SIC observation (the first `edit` changes).
fn sic_umpire_lie(edit: fn(&mut rules::sic::Observation) -> bool) -> Selfplay {
    first_cheat(Variant::Sic, |c, fired| {
        c.max_actions = LIE_CAP;
        c.umpire_lie = Some(Box::new(move |_side: Color, _i: usize, bytes: &mut Vec<u8>| {
            if fired.get() {
                return;
            }
            let Ok(mut obs) = rules::sic::Observation::from_canonical(bytes) else { return };
            if edit(&mut obs) {
                *bytes = obs.to_canonical();
                fired.set(true);
            }
        }));
    })
}

#[test]
fn r_s10_false_legal_move_list_is_a_false_announcement() {
    // The umpire hides one of the side to move's legal moves.
    let played = sic_umpire_lie(|o| match o {
        rules::sic::Observation::OpponentMoved(r) if r.legal.len() > 1 => {
            r.legal.pop();
            true
        }
        _ => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("differs in: legal"), "{}", f.evidence);
}

#[test]
fn r_s8_false_check_report_is_a_false_announcement() {
    // The umpire tells the mover "check" when its move attacks neither king nor decoy.
    let played = sic_umpire_lie(|o| match o {
        rules::sic::Observation::YouMoved(r) if !r.check => {
            r.check = true;
            true
        }
        _ => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("differs in: check"), "{}", f.evidence);
}

/// An umpire that rewrites one 6x6 event (the first `edit` changes).
fn sc6_umpire_lie(edit: fn(&mut sc6::Event) -> bool) -> Selfplay {
    first_cheat(Variant::SecretChess6, |c, fired| {
        c.umpire_lie = Some(Box::new(move |_side: Color, _i: usize, bytes: &mut Vec<u8>| {
            if fired.get() {
                return;
            }
            let Ok(mut obs) = sc6::Observation::from_canonical(bytes) else { return };
            if obs.events.iter_mut().any(edit) {
                *bytes = obs.to_canonical();
                fired.set(true);
            }
        }));
    })
}

#[test]
fn r_g6_false_red_squares_are_a_false_announcement() {
    let played = sc6_umpire_lie(|e| match e {
        sc6::Event::Board { red, .. } if rules::Bitboard::is_empty(*red) => {
            red.insert(rules::Square::from_index(0).expect("a1"));
            true
        }
        sc6::Event::Board { red, .. } => {
            let last = red.last().expect("a red square");
            red.remove(last);
            true
        }
        _ => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("red"), "{}", f.evidence);
}

#[test]
fn r_g7_false_scores_are_a_false_announcement() {
    let played = sc6_umpire_lie(|e| match e {
        sc6::Event::Scores { scores, .. } => {
            scores.white += 1;
            true
        }
        _ => false,
    });
    let f = assert_fault(&played, FaultKind::FalseAnnouncement, MatchRole::Umpire);
    assert!(f.evidence.contains("scores"), "{}", f.evidence);
}

#[test]
fn false_result_claim_is_caught() {
    // Both players claim a win by checkmate, for their own side, in a game the rules end
    // otherwise. The first claim ends the game and is false: its author is at fault. (The
    // other, sent before its author saw the close of the log, is a void race.)
    let played = first_cheat(Variant::Chess, |c, fired| {
        for (i, side) in [(0, Outcome::WhiteWins), (1, Outcome::BlackWins)] {
            let fired = fired.clone();
            c.player_hooks[i] = Some(Box::new(move |_channel: Channel, p: &mut Payload| {
                if let Payload::Claim(claim) = p
                    && claim.outcome != side
                {
                    claim.outcome = side;
                    claim.reason = rules::EndReason::Checkmate.into();
                    fired.set(true);
                }
                true
            }));
        }
    });
    let first = played
        .record
        .entries
        .iter()
        .filter_map(|e| e.message.verify().ok())
        .find(|b| matches!(b.payload, Payload::Claim(_)))
        .expect("a claim");
    let role = if Some(first.author) == played.colors.map(|c| c.white) {
        MatchRole::White
    } else {
        MatchRole::Black
    };
    let f = assert_fault(&played, FaultKind::FalseClaim, role);
    assert!(f.evidence.contains("by checkmate"), "{}", f.evidence);
}

#[test]
fn r_s11_illegal_sic_move_forfeits_the_mover() {
    // A player submits a move that is not in its legal-move list (R-S11): its own fault.
    struct Illegal(client::RandomBot);
    impl protocol::roles::Policy for Illegal {
        fn decide(
            &mut self,
            v: Variant,
            side: rules::Color,
            ask: &protocol::roles::Ask,
        ) -> rules::AnyAction {
            match ask {
                protocol::roles::Ask::Choose(_) => {
                    let a1 = Square::from_index(0).expect("a1");
                    rules::AnyAction::Sic(rules::Move::new(a1, a1))
                }
                _ => self.0.decide(v, side, ask),
            }
        }
    }
    let mut c = config(Variant::Sic, 1);
    c.policies[0] = Some(Box::new(Illegal(client::RandomBot::new([7; 32]))));
    let played = play(c);
    let cheat = role_of_player(&played, 0);
    let f = assert_fault(&played, FaultKind::IllegalAction, cheat);
    assert!(f.evidence.contains("a1a1"), "{}", f.evidence);
}

#[test]
fn a_silent_player_is_timed_out_and_the_timeout_is_its_fault() {
    // Black stops moving after its second Kriegspiel attempt (and still discloses at the end:
    // one gone for good is tested in adversarial_envelope); the relay's move clock runs out and
    // its signed Timeout proves it.
    let mut c = config(Variant::Kriegspiel, 1);
    let mut actions = 0;
    c.player_hooks[1] = Some(Box::new(move |_channel: Channel, p: &mut Payload| {
        if matches!(p, Payload::Action(_)) {
            actions += 1;
        }
        actions < 3 || !matches!(p, Payload::Action(_))
    }));
    let played = play(c);
    let f = assert_fault(&played, FaultKind::Timeout, MatchRole::Black);
    assert!(f.evidence.contains("did not move"), "{}", f.evidence);
    assert_eq!(verifier::verify(&played.bytes).faults().len(), 1, "the claims agree");
}
