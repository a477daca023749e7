//! One terms gate (issue 13 points 2 and 4, issue 17): every party that meets match terms (the
//! relay, the player and umpire machines, the player agent, the verifier) calls the same
//! function, `MatchTerms::validate`, so they accept exactly the same terms; and what only an
//! agent can check (its player's challenge, the umpires its player trusts) it checks before it
//! signs.
//!
//! - a property test over generated terms drives each real entry point (`Relay::new`,
//!   `SignedTerms::verify`, `Umpire::new`, `Player::asking`, `client::agent::check_terms` and
//!   the verifier on a record holding those terms) and finds them in agreement;
//! - a seat with a small-order seal key: the server's lobby answers an error naming the key,
//!   the relay will not start, and a record carrying such terms is `BadTerms`, nobody's
//!   gameplay;
//! - the agent refuses terms that differ from the challenge it made or accepted (colors,
//!   umpire, clock, options, opponent, variant, rated), terms whose caps are out of range, and an
//!   umpire its player does not trust, both at the terms and before it accepts a challenge.

mod network;

use client::agent::{Accept, check_terms};
use network::{Net, bot};
use proptest::prelude::*;
use protocol::challenge::ChallengeRequest;
use protocol::codec::{Canonical, VERSION};
use protocol::record::MatchRecord;
use protocol::relay::{Relay, RelayError};
use protocol::roles::{Player, Umpire};
use protocol::seal::{SealPublicKey, SealSecret};
use protocol::terms::{
    AgreedTerms, ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TermsError,
    TimeControl, UmpireTerms, bounds, match_id,
};
use protocol::{Identity, PublicKey, Signature};
use rules::{GameOptions, Mode, Variant};
use serde_json::{Value, json};
use std::time::Duration;
use verifier::{FaultKind, MatchRole, Verdict};

struct Cast {
    alice: Identity,
    bob: Identity,
    relay: Identity,
    umpire: Identity,
    mallory: Identity,
}

fn cast() -> Cast {
    Cast {
        alice: Identity::from_seed(&[0xa1; 32]),
        bob: Identity::from_seed(&[0xb0; 32]),
        relay: Identity::from_seed(&[0x7e; 32]),
        umpire: Identity::from_seed(&[0x55; 32]),
        mallory: Identity::from_seed(&[0x66; 32]),
    }
}

fn player(id: &Identity, n: u8) -> PlayerTerms {
    PlayerTerms {
        key: id.public(),
        seal_key: SealSecret::for_match(id, &[n; 32]).public(),
        nonce: [n; 32],
    }
}

fn umpire_terms(id: &Identity) -> UmpireTerms {
    UmpireTerms {
        key: id.public(),
        seal_key: SealSecret::for_match(id, &[0x5a; 32]).public(),
        nonce: [0x5a; 32],
    }
}

/// Terms as the server writes them for `variant`: the challenger (alice) white, the server's
/// deadlines and limits.
fn server_terms(c: &Cast, variant: Variant) -> MatchTerms {
    MatchTerms {
        version: VERSION,
        game: GameOptions::default_for(variant),
        players: [player(&c.alice, 1), player(&c.bob, 2)],
        colors: ColorAssignment::FirstIsWhite,
        rated: false,
        relay: c.relay.public(),
        umpire: (variant.mode() == Mode::Umpire).then(|| umpire_terms(&c.umpire)),
        time_control: TimeControl {
            initial_ms: 600_000,
            increment_ms: 2_000,
            reveal_ms: 30_000,
            answer_ms: 10_000,
        },
        limits: Limits::DEFAULT,
    }
}

/// The terms signed by every signer the cast has a key for (a signer with a key nobody holds
/// gets a signature of zeros).
fn sign(c: &Cast, terms: &MatchTerms) -> SignedTerms {
    let bytes = terms.to_canonical();
    let ids = [&c.alice, &c.bob, &c.relay, &c.umpire, &c.mallory];
    let signatures = terms
        .signers()
        .iter()
        .map(|k| match ids.iter().find(|i| i.public() == *k) {
            Some(id) => id.sign(protocol::tags::TERMS, &bytes),
            None => Signature { r: [0; 32], s: [0; 32] },
        })
        .collect();
    SignedTerms { terms: bytes, signatures }
}

/// The small-order X25519 keys with the simplest encodings: u = 0 and u = 1.
fn low_order(which: u8) -> SealPublicKey {
    let mut b = [0u8; 32];
    b[0] = which;
    SealPublicKey(b)
}

/// What each entry point says of `terms`: whether it accepts them.
#[derive(Debug, PartialEq, Eq)]
struct Answers {
    gate: bool,
    verify: bool,
    relay: bool,
    agent: bool,
    verifier: bool,
    umpire_machine: Option<bool>,
    player_machine: bool,
}

fn answers(c: &Cast, terms: &MatchTerms) -> Answers {
    let signed = sign(c, terms);
    let agreed = AgreedTerms {
        match_id: match_id(&signed.terms),
        bytes: signed.terms.clone(),
        terms: terms.clone(),
    };
    // The relay is whoever holds the terms' relay key; nobody holds a small-order one, so no
    // relay can run such terms.
    let ids = [&c.alice, &c.bob, &c.relay, &c.umpire, &c.mallory];
    let relay = ids.iter().find(|i| i.public() == terms.relay).is_some_and(|id| {
        match Relay::new((*id).clone(), agreed.clone(), 0) {
            Ok(_) => true,
            Err(RelayError::Terms(_)) => false,
            Err(e) => panic!("the relay refused for another reason: {e}"),
        }
    });
    let agent =
        check_terms(terms, &c.alice, &terms.relay, &[c.umpire.public()], false, None).is_ok();
    let record = MatchRecord { version: VERSION, terms: signed.clone(), entries: Vec::new() };
    let verdict = verifier::verify(&record.to_canonical());
    let verifier = !verdict.faults().iter().any(|f| f.kind == FaultKind::BadTerms);
    if !verifier {
        // Terms are the record's fault: nobody's gameplay is judged.
        for f in verdict.faults() {
            assert_eq!((f.role, f.culprit), (MatchRole::Record, None), "{f:?}");
        }
    }
    let umpire_machine = terms
        .umpire
        .as_ref()
        .filter(|u| u.key == c.umpire.public())
        .map(|_| Umpire::new(c.umpire.clone(), agreed.clone(), [3; 32]).is_ok());
    let player_machine = Player::asking(c.alice.clone(), agreed, [4; 32]).is_ok();
    Answers {
        gate: terms.validate().is_ok(),
        verify: signed.verify().is_ok(),
        relay,
        agent,
        verifier,
        umpire_machine,
        player_machine,
    }
}

/// A number inside `range` most of the time, else one of its edges or just outside.
fn number(range: std::ops::RangeInclusive<u64>) -> impl Strategy<Value = u64> {
    let (min, max) = (*range.start(), *range.end());
    prop_oneof![
        8 => range,
        1 => Just(min),
        1 => Just(max),
        1 => Just(min.saturating_sub(1)),
        1 => Just(max.saturating_add(1)),
        1 => any::<u64>(),
    ]
}

/// A change to one seat's keys: none (most often), a small-order seal key, a seal key with
/// its top bit set, or the signing key of another role.
fn seat_change() -> impl Strategy<Value = u8> {
    prop_oneof![12 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8), 1 => Just(3u8), 1 => Just(4u8)]
}

#[derive(Debug, Clone)]
struct Spec {
    variant: usize,
    options_set: bool,
    umpire_flipped: bool,
    bad_option: bool,
    drawn: bool,
    seats: [u8; 3],
    relay_change: u8,
    times: [u64; 4],
    limits: [u64; 3],
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (0..Variant::ALL.len(), prop::bool::weighted(0.3), prop::bool::weighted(0.08)),
        (prop::bool::weighted(0.08), any::<bool>()),
        [seat_change(), seat_change(), seat_change()],
        prop_oneof![12 => Just(0u8), 1 => Just(1u8), 1 => Just(3u8)],
        (
            number(bounds::INITIAL_MS),
            number(bounds::INCREMENT_MS),
            number(bounds::REVEAL_MS),
            number(bounds::ANSWER_MS),
        ),
        (
            number(bounds::MESSAGES_PER_SIDE),
            number(bounds::ATTEMPTS_PER_TURN),
            number(bounds::RECORD_BYTES),
        ),
    )
        .prop_map(
            |(
                (variant, options_set, umpire_flipped),
                (bad_option, drawn),
                seats,
                relay_change,
                t,
                l,
            )| Spec {
                variant,
                options_set,
                umpire_flipped,
                bad_option,
                drawn,
                seats,
                relay_change,
                times: [t.0, t.1, t.2, t.3],
                limits: [l.0, l.1, l.2],
            },
        )
}

/// Every option of `variant` away from its default (the most Life Freezes 6x6 allows).
fn options_set(variant: Variant) -> GameOptions {
    match GameOptions::default_for(variant) {
        GameOptions::Kriegspiel(_) => {
            GameOptions::Kriegspiel(rules::kriegspiel::Options { touch_move: true })
        }
        GameOptions::Sic(_) => GameOptions::Sic(rules::sic::SpyRule::Original),
        GameOptions::SecretChess6(_) => GameOptions::SecretChess6(rules::secretchess6::Options {
            life_freezes: rules::ByColor::new_with(|_| rules::secretchess6::MAX_LIFE_FREEZES),
            false_square: rules::ByColor { white: true, black: true },
            hidden_scores: true,
        }),
        none => none,
    }
}

fn build(c: &Cast, s: &Spec) -> MatchTerms {
    // A bad option: a typed value 6x6 does not have (nine Life Freezes), which only the gate
    // (and the terms decoder) can refuse.
    let variant = if s.bad_option { Variant::SecretChess6 } else { Variant::ALL[s.variant] };
    let mut t = server_terms(c, variant);
    if s.options_set {
        t.game = options_set(variant);
    }
    if s.umpire_flipped {
        t.umpire = match t.umpire {
            Some(_) => None,
            None => Some(umpire_terms(&c.umpire)),
        };
    }
    if s.bad_option {
        let GameOptions::SecretChess6(mut six) = t.game else { unreachable!("6x6's options") };
        six.life_freezes.black = rules::secretchess6::MAX_LIFE_FREEZES + 1;
        t.game = GameOptions::SecretChess6(six);
    }
    if s.drawn {
        t.colors = ColorAssignment::Drawn;
    }
    let seal_of = |change: u8, key: SealPublicKey| match change {
        1 => low_order(0),
        2 => low_order(1),
        3 => {
            let mut b = key.0;
            b[31] |= 0x80;
            SealPublicKey(b)
        }
        _ => key,
    };
    for i in 0..2 {
        t.players[i].seal_key = seal_of(s.seats[i], t.players[i].seal_key);
        if s.seats[i] == 4 {
            t.players[i].key = t.players[1 - i].key;
        }
    }
    if let Some(u) = &mut t.umpire {
        u.seal_key = seal_of(s.seats[2], u.seal_key);
        if s.seats[2] == 4 {
            u.key = c.relay.public();
        }
    }
    match s.relay_change {
        // The identity point: a small-order ed25519 key.
        1 => {
            t.relay = PublicKey({
                let mut b = [0u8; 32];
                b[0] = 1;
                b
            })
        }
        3 => t.relay = c.bob.public(),
        _ => {}
    }
    let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    t.time_control = TimeControl {
        initial_ms: s.times[0],
        increment_ms: s.times[1],
        reveal_ms: s.times[2],
        answer_ms: s.times[3],
    };
    t.limits = Limits {
        max_messages_per_side: sat(s.limits[0]),
        max_attempts_per_turn: sat(s.limits[1]),
        max_record_bytes: s.limits[2],
    };
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The relay, `SignedTerms::verify`, the machines, the agent's check and the verifier
    /// accept exactly the same terms: those the one gate accepts.
    #[test]
    fn every_party_accepts_exactly_the_terms_the_gate_accepts(s in spec()) {
        let c = cast();
        let terms = build(&c, &s);
        let a = answers(&c, &terms);
        let g = a.gate;
        prop_assert_eq!(
            (a.verify, a.relay, a.agent, a.verifier, a.player_machine),
            (g, g, g, g, g),
            "{:?} for {:?}", a, terms.validate()
        );
        if let Some(u) = a.umpire_machine {
            prop_assert_eq!(u, g, "the umpire machine: {:?}", terms.validate());
        }
    }
}

/// The property test's generator reaches both sides of the gate, and each refusal it can make.
#[test]
fn the_generated_terms_reach_both_sides_of_the_gate() {
    let c = cast();
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut good, mut bad) = (0, 0);
    for _ in 0..400 {
        let s = spec().new_tree(&mut runner).expect("a spec").current();
        if build(&c, &s).validate().is_ok() { good += 1 } else { bad += 1 }
    }
    assert!(good >= 20 && bad >= 20, "{good} accepted, {bad} refused");
    for variant in Variant::ALL {
        let a = answers(&c, &server_terms(&c, variant));
        assert!(a.gate && a.relay && a.agent && a.verifier && a.player_machine, "{variant}: {a:?}");
    }
}

/// Issue 13: a player putting a small-order seal key in its seat. The relay refuses the terms
/// and names the seat and the key; the verifier judges a record carrying them (a real
/// self-played Kriegspiel game's entries under terms changed to carry the key, signed by every
/// party) `BadTerms`, the record's fault, naming no player, umpire or relay.
#[test]
fn a_small_order_seal_key_is_refused_by_the_relay_and_judged_bad_terms() {
    let mut config = sim::selfplay::SelfplayConfig::new(Variant::Kriegspiel, 5);
    config.max_actions = 40;
    let played = sim::selfplay::selfplay_with(config).expect("self-play");
    let cast = &played.cast;
    let mut terms =
        MatchTerms::from_canonical(&played.record.terms.terms).expect("self-play's terms");
    let zero = low_order(0);
    terms.players[1].seal_key = zero;
    let expected = || TermsError::SealKey {
        role: "players[1]",
        key: zero,
        problem: protocol::terms::KeyProblem::SmallOrder,
    };
    let signed = SignedTerms::sign_all(
        &terms,
        &[&cast.players[0], &cast.players[1], &cast.relay, &cast.umpire],
    )
    .expect("the cast signs");
    assert_eq!(signed.verify().map(drop), Err(expected()));
    let agreed = AgreedTerms {
        match_id: match_id(&signed.terms),
        bytes: signed.terms.clone(),
        terms: terms.clone(),
    };
    match Relay::new(cast.relay.clone(), agreed, 0) {
        Err(RelayError::Terms(e)) => assert_eq!(e, expected()),
        other => panic!("the relay ran the terms: {other:?}"),
    }
    let record = MatchRecord { terms: signed, ..played.record.clone() };
    assert!(!record.entries.is_empty());
    let Verdict::Faults(faults) = verifier::verify(&record.to_canonical()) else {
        panic!("a record under bad terms is not valid");
    };
    assert_eq!(faults.len(), 1, "{faults:#?}");
    let f = &faults[0];
    assert_eq!((f.kind, f.role, f.culprit), (FaultKind::BadTerms, MatchRole::Record, None));
    assert!(f.evidence.contains(&zero.to_string()), "{}", f.evidence);
    assert!(f.explanation.contains("nobody's gameplay"), "{}", f.explanation);
}

/// A challenge as the server shows it (`Challenge::json`): alice challenges bob.
fn challenge(c: &Cast, variant: Variant, color: &str) -> Value {
    json!({
        "id": "00112233aabbccdd",
        "status": "open",
        "challenger": { "id": c.alice.public().to_string() },
        "destUser": { "id": c.bob.public().to_string() },
        "variant": { "key": variant.id() },
        "rated": false,
        "timeControl": { "type": "clock", "limit": 600, "increment": 2, "show": "10+2" },
        "color": color,
        "options": {},
        "umpire": (variant.mode() == Mode::Umpire).then(|| c.umpire.public().to_string()),
    })
}

/// Bob's agent checks terms of alice's challenge, trusting the server's umpire only.
fn bob_checks(c: &Cast, terms: &MatchTerms, challenge: &Value) -> Result<(), String> {
    let bob = &c.bob;
    check_terms(terms, bob, &c.relay.public(), &[c.umpire.public()], false, Some(challenge))
}

/// The agent signs only what its player asked for: the terms of the challenge it made or
/// accepted, field by field, with an umpire its player trusts and every cap in range.
#[test]
fn the_agent_refuses_terms_that_are_not_its_challenges() {
    let c = cast();
    let k = Variant::Kriegspiel;
    let good = server_terms(&c, k);
    let white = challenge(&c, k, "white");
    assert_eq!(bob_checks(&c, &good, &white), Ok(()));
    // The colors: "white" is the challenger first with fixed colors; "black" the challenger
    // second; "random" drawn, the challenger first.
    let swapped =
        MatchTerms { players: [good.players[1].clone(), good.players[0].clone()], ..good.clone() };
    let drawn = MatchTerms { colors: ColorAssignment::Drawn, ..good.clone() };
    assert!(bob_checks(&c, &drawn, &white).unwrap_err().contains("colours"));
    assert!(bob_checks(&c, &swapped, &white).unwrap_err().contains("colours"));
    assert_eq!(bob_checks(&c, &swapped, &challenge(&c, k, "black")), Ok(()));
    assert!(bob_checks(&c, &good, &challenge(&c, k, "black")).unwrap_err().contains("colours"));
    assert_eq!(bob_checks(&c, &drawn, &challenge(&c, k, "random")), Ok(()));
    assert!(bob_checks(&c, &good, &challenge(&c, k, "random")).unwrap_err().contains("colours"));
    // Rated or casual (issue 13 point 5): part of the signed terms, so flipping it gives
    // another match id, and the agent refuses terms that say other than its challenge.
    let rated = MatchTerms { rated: true, ..good.clone() };
    assert_ne!(
        protocol::terms::match_id(&rated.to_canonical()),
        protocol::terms::match_id(&good.to_canonical())
    );
    let e = bob_checks(&c, &rated, &white).unwrap_err();
    assert!(e.contains("say rated") && e.contains("casual"), "{e}");
    let mut rated_challenge = white.clone();
    rated_challenge["rated"] = json!(true);
    assert_eq!(bob_checks(&c, &rated, &rated_challenge), Ok(()));
    let e = bob_checks(&c, &good, &rated_challenge).unwrap_err();
    assert!(e.contains("say casual") && e.contains("rated"), "{e}");
    let mut silent = white.clone();
    silent.as_object_mut().expect("an object").remove("rated");
    let e = bob_checks(&c, &good, &silent).unwrap_err();
    assert!(e.contains("neither rated nor casual"), "{e}");
    // The clock, to the millisecond (600 s is 600,000 ms, not 600,999).
    for tc in [
        TimeControl { initial_ms: 600_999, ..good.time_control },
        TimeControl { initial_ms: 300_000, ..good.time_control },
        TimeControl { increment_ms: 0, ..good.time_control },
    ] {
        let t = MatchTerms { time_control: tc, ..good.clone() };
        assert!(bob_checks(&c, &t, &white).unwrap_err().contains("clock"), "{tc:?}");
    }
    // The options and the variant.
    let t = MatchTerms { game: options_set(good.variant()), ..good.clone() };
    assert!(bob_checks(&c, &t, &white).unwrap_err().contains("options"));
    let sic = MatchTerms { game: GameOptions::default_for(Variant::Sic), ..good.clone() };
    assert!(bob_checks(&c, &sic, &white).unwrap_err().contains("variant"));
    // The opponent a challenge names.
    let mut for_mallory = white.clone();
    for_mallory["destUser"]["id"] = json!(c.mallory.public().to_string());
    assert!(bob_checks(&c, &good, &for_mallory).unwrap_err().contains("opponent"));
    // An umpire other than the challenge's, even a trusted one.
    let mut other = good.clone();
    other.umpire = Some(umpire_terms(&c.mallory));
    let e = check_terms(
        &other,
        &c.bob,
        &c.relay.public(),
        &[c.umpire.public(), c.mallory.public()],
        false,
        Some(&white),
    )
    .unwrap_err();
    assert!(e.contains("not the challenge's"), "{e}");
    // An umpire the player does not trust, though the challenge names it: refused.
    let mut mallorys = white.clone();
    mallorys["umpire"] = json!(c.mallory.public().to_string());
    let e = bob_checks(&c, &other, &mallorys).unwrap_err();
    assert!(
        e.contains("not one this player trusts") && e.contains(&c.mallory.public().to_string()),
        "{e}"
    );
    // Caps and deadlines out of range: the gate, whatever the challenge.
    for limits in [
        Limits { max_messages_per_side: 3, ..Limits::DEFAULT },
        Limits { max_attempts_per_turn: 1, ..Limits::DEFAULT },
        Limits { max_record_bytes: 20_000, ..Limits::DEFAULT },
    ] {
        let t = MatchTerms { limits, ..good.clone() };
        assert!(bob_checks(&c, &t, &white).unwrap_err().contains("outside"), "{limits:?}");
    }
    let t = MatchTerms {
        time_control: TimeControl { reveal_ms: 0, ..good.time_control },
        ..good.clone()
    };
    assert!(bob_checks(&c, &t, &white).unwrap_err().contains("reveal_ms"));
    let t = MatchTerms {
        time_control: TimeControl { answer_ms: 1 << 62, ..good.time_control },
        ..good
    };
    assert!(bob_checks(&c, &t, &white).unwrap_err().contains("answer_ms"));
}

/// Over real sockets: the lobby refuses a seat nothing can be sealed to, at the challenge and
/// at the acceptance, with an error naming the key; an agent trusts the server's umpire by
/// default, refuses to make or accept a challenge naming another, and its auto-accept leaves
/// such a seek alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_and_the_agent_refuse_at_the_terms() {
    let net = Net::start("terms-gate").await;
    let alice = net.agent("alice", bot(1), Accept::Nothing).await;
    let bob = net.agent("bob", bot(2), Accept::Everything).await;
    let server_umpire = net.umpire.session().key;
    assert_eq!(alice.trusted_umpires(), vec![server_umpire]);
    let nonce = protocol::hex::encode(&[7; 32]);
    for which in [0u8, 1] {
        let bad = low_order(which);
        let e = alice
            .session()
            .post(
                "/api/challenge",
                &json!({
                    "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
                    "seat": { "seal_key": bad.to_string(), "nonce": nonce },
                }),
            )
            .await
            .expect_err("a small-order seat is refused");
        let text = e.to_string();
        assert!(text.contains(&bad.to_string()) && text.contains("small order"), "{text}");
    }
    // Accepting with such a seat: refused too, and the challenge stays open.
    let mallory = Identity::from_seed(&[0x66; 32]).public();
    let seat = |key: SealPublicKey| json!({ "seal_key": key.to_string(), "nonce": nonce });
    let good_seal = SealSecret::for_match(&network::identity("alice"), &[7; 32]).public();
    let made = alice
        .session()
        .post(
            "/api/challenge",
            &json!({
                "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
                "umpire": mallory.to_string(), "seat": seat(good_seal),
            }),
        )
        .await
        .expect("the server takes a seek naming any umpire");
    let id = made["challenge"]["id"].as_str().expect("an id").to_owned();
    assert_eq!(made["challenge"]["umpire"], json!(mallory.to_string()), "the umpire is shown");
    let e = bob
        .session()
        .post(&format!("/api/challenge/{id}/accept"), &seat(low_order(0)))
        .await
        .expect_err("a small-order seat is refused");
    assert!(e.to_string().contains(&low_order(0).to_string()), "{e}");
    // Bob accepts every seek, but not one naming an umpire he does not trust.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let lobby = alice.session().get("/api/lobby").await.expect("the lobby");
    let open = lobby["seeks"].as_array().expect("seeks");
    let shown = open.iter().find(|c| c["id"] == json!(id)).expect("the seek is still open");
    assert_eq!(shown["umpire"], json!(mallory.to_string()), "the lobby shows the umpire");
    let e = bob.accept(shown).await.expect_err("an untrusted umpire");
    assert!(e.to_string().contains("not one this player trusts"), "{e}");
    let e = bob
        .challenge(&ChallengeRequest {
            umpire: Some(mallory),
            ..ChallengeRequest::new(GameOptions::default_for(Variant::Kriegspiel), 600, 0)
        })
        .await
        .expect_err("an untrusted umpire");
    assert!(e.to_string().contains("not one this player trusts"), "{e}");
    // A player may trust more umpires.
    bob.trust_umpire(mallory);
    assert_eq!(bob.trusted_umpires(), vec![server_umpire, mallory]);
}
