//! Layer 2's checks one by one, on honest self-play records edited at the level layer 2 reads
//! (layer 1's `Checked` entries): the end of a game (truncation, resignation, agreed draws,
//! timeouts, false claims and forfeits), turn order, Intrigue's setup reports and informer
//! answers, and 6x6's sealed setups against their openings. Each edit is one a participant (or
//! a truncating host) could make; each test names the fault it must produce.

use protocol::flow;
use protocol::message::{Claim, Expectation, Outcome, Payload};
use protocol::{Party, PublicKey};
use rules::{Color, EndReason, GameResult, Variant};
use verifier::envelope::{Checked, CheckedEntry};
use verifier::{FaultKind, MatchRole, Verdict};

fn checked(variant: Variant, seed: u64) -> Checked {
    let played = sim::selfplay_with(sim::SelfplayConfig::new(variant, seed)).expect("selfplay");
    verifier::envelope::check(&played.bytes).expect("honest records pass layer 1")
}

fn faults(c: &Checked) -> Vec<verifier::Fault> {
    match verifier::replay::replay(c) {
        Verdict::Valid { result } => panic!("expected a fault, got valid {result:?}"),
        Verdict::Faults(f) => f,
    }
}

fn first(c: &Checked) -> (FaultKind, MatchRole, Option<PublicKey>) {
    let f = faults(c);
    (f[0].kind, f[0].role, f[0].culprit)
}

/// The position of the `n`-th player action in the entries.
fn nth_action(c: &Checked, n: usize) -> usize {
    c.entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.payload, Payload::Action(_)))
        .nth(n)
        .map(|(i, _)| i)
        .expect("enough actions")
}

/// A public entry by `author` saying `payload`, modelled on entry `like`.
/// A new entry at the end of `c`, by `author`, who had seen up to entry `seen` when it wrote it.
fn entry(c: &Checked, seen: usize, author: PublicKey, payload: Payload) -> CheckedEntry {
    let mut e = c.entries[seen].clone();
    e.index = c.entries.len();
    e.body.seen = Some(protocol::message::Seen { order: c.entries[seen].receipt.order() });
    e.seen = Some(seen);
    e.body.author = author;
    e.body.channel = protocol::Channel::Public;
    e.sealed = false;
    e.payload = payload;
    e.role = c.role_of(&author).unwrap_or(MatchRole::Record);
    e
}

/// The record cut right after the umpire's answers to the `n`-th action (open games: right
/// after the action), with nothing after.
fn cut_after_action(c: &mut Checked, n: usize) {
    let at = nth_action(c, n);
    let next = nth_action(c, n + 1);
    // Keep the answers that follow the action, up to the next action.
    c.entries.truncate(next.max(at + 1));
}

fn claim(outcome: Outcome, reason: EndReason) -> Payload {
    Payload::Claim(Claim { outcome, reason: reason.into() })
}

#[test]
fn a_record_that_stops_mid_game_is_truncated() {
    let mut c = checked(Variant::Chess, 1);
    cut_after_action(&mut c, 10);
    let f = faults(&c);
    assert_eq!(
        (f[0].kind, f[0].role, f[0].culprit),
        (FaultKind::TruncatedRecord, MatchRole::Record, None)
    );
    assert!(f[0].evidence.contains("11 plies played"), "{}", f[0].evidence);
}

#[test]
fn an_umpire_answer_missing_at_the_end_is_truncated() {
    let mut c = checked(Variant::Kriegspiel, 1);
    let at = nth_action(&c, 6);
    c.entries.truncate(at + 1);
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].role), (FaultKind::TruncatedRecord, MatchRole::Record));
    assert!(f[0].evidence.contains("the umpire owes"), "{}", f[0].evidence);
}

#[test]
fn resignation_ends_the_game_for_the_resigner() {
    let mut c = checked(Variant::Chess, 1);
    cut_after_action(&mut c, 10);
    let (white, black) = (c.colors.white, c.colors.black);
    let last = c.entries.len() - 1;
    let resign = claim(Outcome::WhiteWins, EndReason::Resignation);
    c.entries.push(entry(&c, last, black, resign.clone()));
    c.entries.push(entry(&c, last, white, resign));
    assert_eq!(
        verifier::replay::replay(&c),
        Verdict::Valid { result: GameResult::win(Color::White, EndReason::Resignation) }
    );
}

#[test]
fn resigning_for_the_opponent_is_a_false_claim() {
    let mut c = checked(Variant::Chess, 1);
    cut_after_action(&mut c, 10);
    let white = c.colors.white;
    let last = c.entries.len() - 1;
    c.entries.push(entry(&c, last, white, claim(Outcome::WhiteWins, EndReason::Resignation)));
    assert_eq!(first(&c), (FaultKind::FalseClaim, MatchRole::White, Some(white)));
}

#[test]
fn a_draw_needs_both_players_to_agree() {
    let mut c = checked(Variant::Espionage, 1);
    cut_after_action(&mut c, 7);
    let (white, black) = (c.colors.white, c.colors.black);
    let last = c.entries.len() - 1;
    let draw = claim(Outcome::Draw, EndReason::Agreement);
    c.entries.push(entry(&c, last, white, draw.clone()));
    let offer_only = c.clone();
    assert_eq!(first(&offer_only).0, FaultKind::TruncatedRecord);
    c.entries.push(entry(&c, last, black, draw));
    assert_eq!(
        verifier::replay::replay(&c),
        Verdict::Valid { result: GameResult::draw(EndReason::Agreement) }
    );
}

#[test]
fn a_relay_timeout_blames_the_side_and_later_claims_must_agree() {
    let mut c = checked(Variant::Chess, 2);
    cut_after_action(&mut c, 9);
    // After 10 plies White is to move; the relay times it out.
    let (white, black, relay) = (c.colors.white, c.colors.black, c.terms.terms.relay);
    let last = c.entries.len() - 1;
    let timeout =
        Payload::Timeout { party: Party::White, expectation: Expectation::Move, deadline_ms: 5 };
    c.entries.push(entry(&c, last, relay, timeout));
    let notice = c.entries.len() - 1;
    c.entries.push(entry(&c, notice, black, claim(Outcome::BlackWins, EndReason::Timeout)));
    let f = faults(&c);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(
        (f[0].kind, f[0].role, f[0].culprit),
        (FaultKind::Timeout, MatchRole::White, Some(white))
    );
    // White, having seen the timeout, then claims it won on time: a second fault, its own.
    c.entries.push(entry(&c, notice, white, claim(Outcome::WhiteWins, EndReason::Timeout)));
    let f = faults(&c);
    assert_eq!((f[1].kind, f[1].role), (FaultKind::FalseClaim, MatchRole::White));
    // The same claim written before its author saw the timeout is a race: void, no fault.
    c.entries.pop();
    c.entries.push(entry(&c, last, white, claim(Outcome::WhiteWins, EndReason::Timeout)));
    assert_eq!(faults(&c).len(), 1, "only the timeout");
    c.entries.pop();
    c.entries.push(entry(&c, notice, white, claim(Outcome::WhiteWins, EndReason::Timeout)));
    let f = faults(&c);
    assert_eq!((f[1].kind, f[1].role), (FaultKind::FalseClaim, MatchRole::White));
}

#[test]
fn an_umpire_declaring_a_forfeit_for_a_legal_game_is_false_adjudication() {
    let mut c = checked(Variant::Kriegspiel, 1);
    cut_after_action(&mut c, 12);
    let umpire = c.terms.terms.umpire.as_ref().map(|u| u.key).expect("an umpire");
    let last = c.entries.len() - 1;
    let forfeit = Payload::Claim(flow::loss_of(Color::White, flow::FORFEIT));
    c.entries.push(entry(&c, last, umpire, forfeit));
    assert_eq!(first(&c), (FaultKind::FalseAdjudication, MatchRole::Umpire, Some(umpire)));
}

#[test]
fn moving_out_of_turn_is_an_illegal_action() {
    let mut c = checked(Variant::Chess, 1);
    let (a, b) = (nth_action(&c, 4), nth_action(&c, 5));
    c.entries.swap(a, b);
    // The fifth action is now Black's move with White to play.
    let black = c.colors.black;
    assert_eq!(first(&c), (FaultKind::IllegalAction, MatchRole::Black, Some(black)));
}

#[test]
fn r_i1_a_setup_report_unlike_the_committed_setup_is_false() {
    let mut c = checked(Variant::Intrigue, 1);
    let (at, author) = c
        .entries
        .iter()
        .enumerate()
        .find_map(|(i, e)| match &e.payload {
            Payload::Observation(b) => {
                use protocol::codec::Canonical;
                match rules::intrigue::Observation::from_canonical(b) {
                    Ok(rules::intrigue::Observation::Setup(_)) => Some((i, e.author())),
                    _ => None,
                }
            }
            _ => None,
        })
        .expect("a setup report");
    if let Payload::Observation(b) = &mut c.entries[at].payload {
        use protocol::codec::Canonical;
        if let Ok(rules::intrigue::Observation::Setup(mut r)) =
            rules::intrigue::Observation::from_canonical(b)
        {
            r.queen_on_king_square = !r.queen_on_king_square;
            *b = rules::intrigue::Observation::Setup(r).to_canonical();
        }
    }
    let role = c.role_of(&author).expect("a player");
    assert_eq!(first(&c), (FaultKind::FalseAnnouncement, role, Some(author)));
}

#[test]
fn r_i2_a_missing_informer_answer_is_the_owners_fault() {
    // Find a seed whose game has an informer answer, then drop that answer.
    for seed in 1..=8 {
        let mut c = checked(Variant::Intrigue, seed);
        let answer = c.entries.iter().position(|e| {
            use protocol::codec::Canonical;
            matches!(&e.payload, Payload::Observation(b)
                if matches!(rules::intrigue::Observation::from_canonical(b),
                    Ok(rules::intrigue::Observation::Move(_))))
        });
        let Some(at) = answer else { continue };
        let owner = c.entries[at].author();
        c.entries.remove(at);
        let role = c.role_of(&owner).expect("a player");
        let (kind, r, culprit) = first(&c);
        assert_eq!((kind, r, culprit), (FaultKind::FalseInformerAnswer, role, Some(owner)));
        return;
    }
    panic!("no informer answer in 8 intrigue games");
}

#[test]
fn r_g1_a_sealed_setup_other_than_the_opened_one_is_bad_setup() {
    let mut c = checked(Variant::SecretChess6, 1);
    let opened = c
        .entries
        .iter()
        .position(|e| matches!(&e.payload, Payload::Open { purpose, .. } if *purpose == flow::SECRETCHESS6_SETUP))
        .expect("an opened setup");
    let author = c.entries[opened].author();
    if let Payload::Open { opening, .. } = &mut c.entries[opened].payload {
        use protocol::codec::Canonical;
        let other = rules::secretchess6::Action::Setup {
            formation: rules::secretchess6::Formation::parse("KQRBN1").expect("a formation"),
            false_squares: rules::Bitboard::EMPTY,
        };
        opening.value = other.to_canonical();
    }
    let role = c.role_of(&author).expect("a player");
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].role, f[0].culprit), (FaultKind::BadSetup, role, Some(author)));
    assert!(f[0].evidence.contains("KQRBN1"), "{}", f[0].evidence);
}

#[test]
fn r_s11_an_umpire_answering_an_illegal_move_shares_the_fault() {
    // A SIC player's sealed move is replaced by one that is not legal (a1a1); the umpire's
    // answers that follow treat it as played: the player's fault first, then the umpire's.
    use protocol::codec::Canonical;
    let mut c = checked(Variant::Sic, 1);
    let at = nth_action(&c, 3);
    let mover = c.entries[at].author();
    let a1 = rules::Square::from_index(0).expect("a1");
    c.entries[at].payload = Payload::Action(rules::Move::new(a1, a1).to_canonical());
    let umpire = c.terms.terms.umpire.as_ref().map(|u| u.key).expect("an umpire");
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].culprit), (FaultKind::IllegalAction, Some(mover)));
    assert_eq!(
        (f[1].kind, f[1].role, f[1].culprit),
        (FaultKind::FalseAdjudication, MatchRole::Umpire, Some(umpire))
    );
}

#[test]
fn an_umpire_observation_no_action_called_for_is_false() {
    let mut c = checked(Variant::Kriegspiel, 2);
    let umpire = c.terms.terms.umpire.as_ref().map(|u| u.key).expect("an umpire");
    let at = c
        .entries
        .iter()
        .rposition(|e| e.author() == umpire && matches!(e.payload, Payload::Observation(_)))
        .expect("an umpire observation");
    let again = c.entries[at].clone();
    c.entries.insert(at + 1, again);
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].role), (FaultKind::FalseAnnouncement, MatchRole::Umpire));
    assert!(f[0].evidence.contains("tell it nothing"), "{}", f[0].evidence);
}

#[test]
fn r_i2_a_true_answer_in_a_false_move_report_is_still_false() {
    use protocol::codec::Canonical;
    for seed in 1..=8 {
        let mut c = checked(Variant::Intrigue, seed);
        let at = c.entries.iter().position(|e| {
            matches!(&e.payload, Payload::Observation(b)
                if matches!(rules::intrigue::Observation::from_canonical(b),
                    Ok(rules::intrigue::Observation::Move(_))))
        });
        let Some(at) = at else { continue };
        let owner = c.entries[at].author();
        if let Payload::Observation(b) = &mut c.entries[at].payload
            && let Ok(rules::intrigue::Observation::Move(mut r)) =
                rules::intrigue::Observation::from_canonical(b)
        {
            r.check = if r.check.is_empty() { vec![Color::White] } else { Vec::new() };
            *b = rules::intrigue::Observation::Move(r).to_canonical();
        }
        let role = c.role_of(&owner).expect("a player");
        let f = faults(&c);
        assert_eq!(
            (f[0].kind, f[0].role, f[0].culprit),
            (FaultKind::FalseAnnouncement, role, Some(owner))
        );
        assert!(f[0].evidence.contains("differs in: check"), "{}", f[0].evidence);
        return;
    }
    panic!("no informer answer in 8 intrigue games");
}

#[test]
fn r_s2_a_sealed_private_seed_that_opens_nothing_is_the_players_bad_setup() {
    // Layer 1 refuses such an opening (bad-opening); layer 2 stands on its own and pins the
    // setup on the player too.
    let mut c = checked(Variant::Sic, 2);
    let at = c
        .entries
        .iter()
        .position(|e| {
            e.sealed
                && matches!(&e.payload, Payload::Open { purpose, .. }
                    if *purpose == protocol::commitment::PRIVATE_SEED)
        })
        .expect("a sealed private seed");
    let author = c.entries[at].author();
    if let Payload::Open { opening, .. } = &mut c.entries[at].payload {
        opening.value = vec![0x42; 32];
    }
    let role = c.role_of(&author).expect("a player");
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].role, f[0].culprit), (FaultKind::BadSetup, role, Some(author)));
    assert!(f[0].evidence.contains("does not open the commitment"), "{}", f[0].evidence);
}

#[test]
fn r_g8_a_sealed_tie_break_other_than_the_committed_one_is_a_bad_opening() {
    use protocol::codec::Canonical;
    // Seed 32 ends level and goes to the tie-break (as sim's own tests pin).
    let mut c = checked(Variant::SecretChess6, 32);
    let opened = c
        .entries
        .iter()
        .position(
            |e| matches!(&e.payload, Payload::Open { purpose, .. } if *purpose == flow::TIEBREAK),
        )
        .expect("an opened tie-break");
    let author = c.entries[opened].author();
    if let Payload::Open { opening, .. } = &mut c.entries[opened].payload {
        let other = rules::secretchess6::Action::TieBreak {
            formation: rules::secretchess6::Formation::parse("KQRBN1").expect("a formation"),
            moves: Vec::new(),
        };
        opening.value = other.to_canonical();
    }
    let role = c.role_of(&author).expect("a player");
    let f = faults(&c);
    assert_eq!((f[0].kind, f[0].role, f[0].culprit), (FaultKind::BadOpening, role, Some(author)));
    assert!(
        f[0].evidence.contains("tie_break") || f[0].evidence.contains("tie-break"),
        "{}",
        f[0].evidence
    );
}
