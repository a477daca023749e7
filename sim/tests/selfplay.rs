//! Self-play of every variant through the real protocol: records whose envelope and
//! disclosures check, games that end by the rules, determinism, an umpire that answers exactly
//! the rules' observations, and the cheater hooks doing what they say.
//!
//! `replay` below is an independent, test-only re-derivation of the game from a record (the
//! verifier crate has its own): it applies every action the record proves, in record order,
//! through `AnyGame`, and compares every observation the umpire (or an Intrigue owner) signed
//! with the rules' bytes, and every claim with the rules' result.

use protocol::Channel;
use protocol::codec::Canonical;
use protocol::commitment::Opening;
use protocol::flow::{self, Mode};
use protocol::game::{self, claim_of};
use protocol::message::{Claim, Expectation, Payload};
use protocol::record::MatchRecord;
use protocol::seed::setup_seed;
use protocol::terms::ColorAssignment;
use rules::{AnyAction, AnyGame};
use rules::{ByColor, Color, Variant};
use sim::{Fate, SelfplayConfig, Who, selfplay_with};
use std::collections::{BTreeMap, VecDeque};

/// What `replay` found.
#[derive(Debug, Default)]
struct Replayed {
    result: Option<rules::GameResult>,
    claims: Vec<Claim>,
    /// Observations compared byte for byte with the rules'.
    observations: usize,
    /// The first disagreement, if any.
    mismatch: Option<String>,
    timeouts: Vec<(Color, Expectation)>,
}

fn replay(record: &MatchRecord) -> Replayed {
    let (agreed, _head) = record.check_envelope().expect("envelope");
    let t = &agreed.terms;
    let variant = t.variant();
    let bodies: Vec<_> = record
        .entries
        .iter()
        .map(|e| (e.message.hash(), e.message.verify().expect("body")))
        .collect();
    // Colors from the reveals, as everyone computes them.
    let mut contributions = BTreeMap::new();
    let mut openings: BTreeMap<(protocol::PublicKey, flow::Purpose), Opening> = BTreeMap::new();
    for (_, b) in &bodies {
        match &b.payload {
            Payload::Reveal { purpose, opening } | Payload::Open { purpose, opening } => {
                if *purpose == flow::PUBLIC_CONTRIBUTION {
                    contributions
                        .insert(b.author, <[u8; 32]>::try_from(opening.value.as_slice()).unwrap());
                }
                openings.insert((b.author, *purpose), opening.clone());
            }
            _ => {}
        }
    }
    let colors: ByColor<protocol::PublicKey> = t.fixed_colors().unwrap_or_else(|| {
        let c = [contributions[&t.players[0].key], contributions[&t.players[1].key]];
        protocol::seed::draw_colors(t, &agreed.match_id, &c)
    });
    // Every disclosure reproduces the setup its author signed on the channel, for the recipient
    // the terms name, and its key opens the sealed message to the disclosed plaintext.
    let umpire_key = t.umpire.as_ref().map(|u| u.key);
    let mut setups = BTreeMap::new();
    for (_, b) in &bodies {
        if let Payload::Sealed(s) = &b.payload
            && let Some(setup) = s.setup
        {
            setups.entry((b.author, b.channel)).or_insert(setup);
        }
    }
    let mut disclosed = BTreeMap::new();
    for (message, (_, d)) in record.disclosures() {
        let body = &bodies.iter().find(|(h, _)| *h == message).expect("a disclosed entry").1;
        let (Payload::Sealed(sealed), Some(side)) = (&body.payload, body.channel.side()) else {
            panic!("disclosure of a message that is not sealed")
        };
        let recipient = protocol::record::recipient_seal_key(&agreed, &colors, side, &body.author)
            .expect("a recipient");
        let context = protocol::message::seal_context(body);
        let direction = if umpire_key == Some(body.author) {
            protocol::game::SealDirection::FromUmpire
        } else {
            protocol::game::SealDirection::ToUmpire
        };
        let setup = setups[&(body.author, body.channel)];
        let key = protocol::seal::check_disclosure(&recipient, &context, &setup, &d.seal_seed)
            .expect("the disclosure reproduces the signed setup");
        let padded = protocol::game::sealed_plaintext_bytes(variant, direction);
        assert_eq!(key.open(&context, sealed, padded).as_ref(), Ok(&d.plaintext));
        disclosed.insert(message, Payload::from_canonical(&d.plaintext).expect("a payload"));
    }
    let sealed = bodies.iter().filter(|(_, b)| matches!(b.payload, Payload::Sealed(_))).count();
    assert_eq!(disclosed.len(), sealed, "every sealed message is disclosed");
    let mut out = Replayed::default();
    let side_of = |k: &protocol::PublicKey| colors.color_of(k);
    let umpire = t.umpire.as_ref().map(|u| u.key);
    let mut expected: ByColor<VecDeque<Vec<u8>>> = ByColor::default();
    let mut game: Option<AnyGame> = None;
    let mut seeds: ByColor<Option<[u8; 32]>> = ByColor::default();
    let mode = variant.mode();
    let mismatch = |out: &mut Replayed, what: String| {
        if out.mismatch.is_none() {
            out.mismatch = Some(what);
        }
    };
    if mode == Mode::Open || variant == Variant::Kriegspiel || variant == Variant::SecretChess6 {
        game = Some(game::start(t, None).unwrap());
    }
    let mut owner_due: Option<Vec<u8>> = None;
    for (i, (hash, b)) in bodies.iter().enumerate() {
        let payload = match &b.payload {
            Payload::Sealed(_) => disclosed[hash].clone(),
            p => p.clone(),
        };
        let author_side = side_of(&b.author);
        match (&payload, b.channel) {
            (Payload::Claim(c), Channel::Public) => out.claims.push(c.clone()),
            (Payload::Timeout { party, expectation, .. }, _) => {
                if let Some(side) = party.side() {
                    out.timeouts.push((side, *expectation));
                }
            }
            (Payload::Open { purpose, opening }, Channel::WhiteUmpire | Channel::BlackUmpire)
                if *purpose == flow::PRIVATE_SEED =>
            {
                let side = author_side.unwrap();
                seeds[side] = Some(opening.value.as_slice().try_into().unwrap());
                if let (Some(w), Some(bl)) = (seeds.white, seeds.black) {
                    let c = |s: Color| contributions[&colors[s]];
                    let s = ByColor {
                        white: setup_seed(&w, &c(Color::Black), &agreed.match_id, Color::White),
                        black: setup_seed(&bl, &c(Color::White), &agreed.match_id, Color::Black),
                    };
                    let g = game::start(t, Some(&s)).unwrap();
                    for c in Color::ALL {
                        if let Some(o) = &g.start_observations()[c] {
                            expected[c].push_back(game::encode_observation(o));
                        }
                    }
                    game = Some(g);
                }
            }
            (Payload::Observation(bytes), Channel::Public) if mode == Mode::Owner => {
                if let Ok(rules::intrigue::Observation::Setup(r)) =
                    rules::intrigue::Observation::from_canonical(bytes)
                {
                    // Apply the setup action from its end-of-game opening (PROTOCOL.md 18.2).
                    let g = game.get_or_insert_with(|| game::start(t, None).unwrap());
                    let o = &openings[&(b.author, flow::INTRIGUE_SETUP)];
                    let (next, told) = game::apply(g, r.side, &o.value).expect("setup applies");
                    if told.white.as_deref() != Some(bytes.as_slice()) {
                        mismatch(&mut out, format!("entry {i}: setup report"));
                    }
                    out.observations += 1;
                    *g = next;
                } else if owner_due.take().as_deref() != Some(bytes.as_slice()) {
                    mismatch(&mut out, format!("entry {i}: owner's answer"));
                } else {
                    out.observations += 1;
                }
            }
            (Payload::Action(bytes), channel) if author_side.is_some() => {
                let side = author_side.unwrap();
                let Some(g) = &game else { panic!("entry {i}: action before the game") };
                match game::apply(g, side, bytes) {
                    Ok((next, told)) => {
                        if channel != Channel::Public {
                            for c in [side, !side] {
                                if let Some(o) = told[c].clone() {
                                    expected[c].push_back(o);
                                }
                            }
                        } else if mode == Mode::Owner {
                            let report = rules::intrigue::Observation::from_canonical(
                                told.white.as_ref().unwrap(),
                            )
                            .unwrap();
                            if let rules::intrigue::Observation::Move(r) = report
                                && r.inspection.is_some()
                            {
                                owner_due = told.white.clone();
                            }
                        }
                        game = Some(next);
                    }
                    Err(e) => mismatch(&mut out, format!("entry {i}: refused action {e}")),
                }
            }
            (Payload::Observation(bytes), channel) if Some(b.author) == umpire => {
                let side = channel.side().expect("private");
                let want = expected[side].pop_front();
                if want.as_deref() != Some(bytes.as_slice()) {
                    mismatch(&mut out, format!("entry {i}: observation to {side}"));
                }
                out.observations += 1;
            }
            _ => {}
        }
    }
    out.result = game.as_ref().and_then(AnyGame::result);
    // Every commitment is opened, and opens.
    for (_, b) in &bodies {
        if let Payload::Commit { purpose, commitment } = &b.payload {
            match openings.get(&(b.author, *purpose)) {
                Some(o) => assert!(
                    protocol::commitment::check_opening(
                        commitment,
                        *purpose,
                        &agreed.match_id,
                        &b.author,
                        o
                    )
                    .is_ok(),
                    "opening of {purpose}"
                ),
                None => mismatch(&mut out, format!("{purpose} of {} never opened", b.author)),
            }
        }
    }
    out
}

/// R-C2 and each game's end rules: the record ends in the rules' result, claimed by everyone.
fn assert_honest(variant: Variant, seed: u64) -> (usize, sim::Summary) {
    assert_honest_with(SelfplayConfig::new(variant, seed))
}

fn assert_honest_with(config: SelfplayConfig) -> (usize, sim::Summary) {
    let (variant, seed) = (config.variant(), config.seed);
    let s = selfplay_with(config).unwrap();
    assert!(s.refused.is_empty(), "{variant}/{seed}: relay refused {:?}", s.refused);
    assert!(s.faults.is_empty(), "{variant}/{seed}: faults {:?}", s.faults);
    let decoded = MatchRecord::from_canonical(&s.bytes).expect("canonical record");
    assert_eq!(decoded, s.record);
    let r = replay(&s.record);
    assert_eq!(r.mismatch, None, "{variant}/{seed}");
    let result = r.result.unwrap_or_else(|| panic!("{variant}/{seed}: the game did not end"));
    let claim = claim_of(&result);
    let claimants = if variant.mode() == Mode::Umpire { 3 } else { 2 };
    assert_eq!(r.claims.len(), claimants, "{variant}/{seed}: {:?}", r.claims);
    assert!(r.claims.iter().all(|c| *c == claim), "{variant}/{seed}: {:?} vs {claim:?}", r.claims);
    assert_eq!(s.summary.result, Some(claim));
    assert_eq!(s.finished.len(), claimants);
    (r.observations, s.summary)
}

/// Each variant's seeds (a separate test each, so they run in parallel). Kriegspiel and SIC
/// use seeds of shorter games: their records are the largest (hundreds of sealed messages).
macro_rules! honest {
    ($($name:ident: $variant:expr, $seeds:expr;)*) => {$(
        #[test]
        fn $name() {
            for seed in $seeds {
                let (observations, summary) = assert_honest($variant, seed);
                if $variant.mode() != Mode::Open {
                    assert!(observations > 0, "{}: no observation was compared", $variant);
                }
                assert!(summary.actions > 0);
            }
        }
    )*};
}

honest! {
    r_c2_chess_self_plays_to_the_rules_end: Variant::Chess, [0, 1, 2];
    r_k1_kriegspiel_self_plays_to_the_rules_end: Variant::Kriegspiel, [1, 4];
    r_s2_sic_self_plays_to_the_rules_end: Variant::Sic, [4, 5];
    // Seed 12: ends by R-I4 king capture (the match ids of protocol version 3 drew other
    // colors and setups than version 2's, and the typed terms of issue 17 others again, so
    // the seeds that show each case moved).
    r_i2_intrigue_self_plays_to_the_rules_end: Variant::Intrigue, [0, 10, 21, 12];
    // Seed 32: level scores, decided by the R-G8 tie-break (commitments, sealed guesses; the
    // typed terms of issue 17 gave other match ids, so the tie-break seed moved from 0).
    r_g8_secretchess6_self_plays_to_the_rules_end: Variant::SecretChess6, [32, 1, 2, 3];
    r_e5_espionage_self_plays_to_the_rules_end: Variant::Espionage, [0, 1, 2];
}

#[test]
fn r_g9_secretchess6_with_life_freezes_and_hidden_scores() {
    for seed in [0, 1] {
        let mut c = SelfplayConfig::new(Variant::SecretChess6, seed);
        c.game = rules::GameOptions::SecretChess6(rules::secretchess6::Options {
            life_freezes: rules::ByColor { white: 2, black: 2 },
            false_square: rules::ByColor { white: false, black: true },
            hidden_scores: true,
        });
        let (observations, _) = assert_honest_with(c);
        assert!(observations > 0);
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    for v in [Variant::Chess, Variant::SecretChess6, Variant::Intrigue] {
        let a = sim::selfplay(v, 7).unwrap();
        let b = sim::selfplay(v, 7).unwrap();
        assert_eq!(a.0, b.0, "{v}");
        assert_ne!(a.0, sim::selfplay(v, 8).unwrap().0, "{v}");
    }
}

fn first_is_white(variant: Variant, seed: u64) -> SelfplayConfig {
    let mut c = SelfplayConfig::new(variant, seed);
    c.colors = ColorAssignment::FirstIsWhite;
    c
}

#[test]
fn a_lying_umpire_signs_its_lie_and_the_replay_sees_it() {
    let mut c = first_is_white(Variant::SecretChess6, 3);
    c.umpire_lie = Some(Box::new(|_side, index, bytes| {
        if index == 5 {
            bytes.push(0); // any change: here trailing bytes in one observation
        }
    }));
    let s = selfplay_with(c).unwrap();
    let r = replay(&s.record);
    assert!(r.mismatch.as_deref().is_some_and(|m| m.contains("observation")), "{:?}", r.mismatch);
}

#[test]
fn a_player_that_plays_an_illegal_move_forfeits_to_the_umpire() {
    struct Illegal;
    impl protocol::roles::Policy for Illegal {
        fn decide(&mut self, v: Variant, s: Color, ask: &protocol::roles::Ask) -> AnyAction {
            match ask {
                // a1a1 is never a legal SIC move.
                protocol::roles::Ask::Choose(_) => AnyAction::Sic(rules::Move::new(
                    rules::Square::new(0, 0).unwrap(),
                    rules::Square::new(0, 0).unwrap(),
                )),
                other => client::RandomBot::new([0; 32]).decide(v, s, other),
            }
        }
    }
    let mut c = first_is_white(Variant::Sic, 2);
    c.policies[0] = Some(Box::new(Illegal));
    let s = selfplay_with(c).unwrap();
    let forfeit = flow::loss_of(Color::White, flow::FORFEIT);
    assert_eq!(s.finished.get(&Who::Umpire), Some(&forfeit));
    assert_eq!(s.finished.get(&Who::Player(1)), Some(&forfeit));
    let r = replay(&s.record);
    assert!(r.mismatch.as_deref().is_some_and(|m| m.ends_with("illegal move a1a1")), "{r:?}");
    assert_eq!(r.claims, vec![forfeit.clone(), forfeit.clone(), forfeit]);
}

#[test]
fn a_player_that_withholds_its_openings_is_timed_out_by_the_relay() {
    let mut c = first_is_white(Variant::SecretChess6, 1);
    c.player_hooks[1] = Some(Box::new(|_, p| !matches!(p, Payload::Open { .. })));
    let s = selfplay_with(c).unwrap();
    let r = replay(&s.record);
    assert_eq!(r.timeouts, vec![(Color::Black, Expectation::Reveal)]);
    assert!(r.mismatch.is_some_and(|m| m.contains("never opened")));
}

#[test]
fn a_silent_umpired_player_loses_on_time() {
    let mut c = first_is_white(Variant::Kriegspiel, 1);
    let mut actions = 0;
    c.player_hooks[1] = Some(Box::new(move |_, p| {
        if matches!(p, Payload::Action(_)) {
            actions += 1;
        }
        // Black sends two attempts, then no more; it still claims and discloses at the end.
        actions < 3 || !matches!(p, Payload::Action(_))
    }));
    let s = selfplay_with(c).unwrap();
    assert_eq!(replay(&s.record).timeouts, vec![(Color::Black, Expectation::Move)]);
    let lost = flow::loss_of(Color::Black, flow::TIMEOUT);
    assert_eq!(s.finished.get(&Who::Umpire), Some(&lost));
    assert_eq!(s.finished.get(&Who::Player(0)), Some(&lost));
}

#[test]
fn wire_hooks_drop_duplicate_and_forge_and_the_relay_refuses() {
    let mut c = first_is_white(Variant::Chess, 0);
    c.wire = Some(Box::new(|w| match w.index {
        3 => Fate::Twice,
        5 => {
            let last = w.bytes.len() - 1;
            w.bytes[last] ^= 1; // breaks the signature
            Fate::Send
        }
        _ => Fate::Send,
    }));
    let s = selfplay_with(c).unwrap();
    use protocol::relay::{ChainError, RelayError};
    // Play starts once both contributions are revealed. Index 3 is Black's reveal (sent twice:
    // the copy is a replay), index 5 Black's first move, forged: refused, White waits for a
    // move that never came in, and Black's clock runs out: a move timeout, proven by the clocks
    // the verifier rebuilds. Since version 3 Black's later messages (its claim, its
    // countersignature of the close) are not refused: the refused move's number stays unused.
    assert_eq!(s.refused.len(), 2, "{:?}", s.refused);
    assert!(matches!(
        s.refused[0].1,
        RelayError::Chain(ChainError::Replayed { channel: protocol::Channel::Public, seq: 1 })
    ));
    assert!(matches!(s.refused[1].1, RelayError::Message(_)));
    let r = replay(&s.record);
    assert_eq!(r.timeouts, vec![(Color::Black, Expectation::Move)]);

    assert_eq!(s.summary.result, Some(flow::loss_of(Color::Black, flow::TIMEOUT)));
}

#[test]
fn the_machines_can_move_between_threads() {
    fn send<T: Send>() {}
    send::<protocol::roles::Player>();
    send::<protocol::roles::Umpire>();
    send::<protocol::relay::Relay>();
    send::<protocol::coordinator::Coordinator>();
}

#[test]
fn players_that_ask_their_driver_play_the_same_games() {
    // A player without a policy asks through `Output::Decide`; the driver answers later, when
    // nothing else is in flight (as a server does for a human). Same bots, same decisions: the
    // same games, to the same results, every one verifying on its own.
    for variant in Variant::ALL {
        let direct = selfplay_with(SelfplayConfig::new(variant, 2)).unwrap();
        let mut config = SelfplayConfig::new(variant, 2);
        config.asking = [true, true];
        let asked = selfplay_with(config).unwrap();
        assert!(asked.refused.is_empty() && asked.faults.is_empty(), "{variant}");
        assert_eq!(asked.summary.result, direct.summary.result, "{variant}");
        assert_eq!(asked.summary.plies, direct.summary.plies, "{variant}");
        assert_eq!(replay(&asked.record).mismatch, None, "{variant}");
    }
}

#[test]
fn r_g8_seed_32_is_decided_by_the_tie_break() {
    // Other tests use this seed for a tie-break game: keep it one.
    let s = selfplay_with(SelfplayConfig::new(Variant::SecretChess6, 32)).unwrap();
    let claim = s.summary.result.expect("a result");
    assert_eq!(claim.reason, rules::EndReason::TieBreak.into());
}
