//! Protocol v3, issue 13: the red team's classes in the coordinator and the umpire's deadlines
//! (docs/PROTOCOL.md 13, 14, 17). Every test runs the real player, umpire and relay machines
//! (through `sim::selfplay`) with one participant cheating in one way, and asserts the
//! verifier's verdict: the fault kind, the culprit's key and role, and that no honest party is
//! ever named.

use protocol::codec::Canonical;
use protocol::message::{Claim, MessageBody, Outcome, Owed, Payload, SignedMessage};
use protocol::relay::RelayError;
use protocol::terms::ColorAssignment;
use protocol::{Channel, Color, PublicKey};
use rules::Variant;
use sim::selfplay::{Fate, Who};
use sim::{Selfplay, SelfplayConfig};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
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
    match role {
        MatchRole::White | MatchRole::Black => {
            let colors = played.colors.unwrap_or(protocol::keys::ByColor {
                white: played.cast.players[0].public(),
                black: played.cast.players[1].public(),
            });
            if role == MatchRole::White { colors.white } else { colors.black }
        }
        MatchRole::Umpire => played.cast.umpire.public(),
        MatchRole::Relay | MatchRole::Record => played.cast.relay.public(),
    }
}

/// The role `players[i]` played (the players' order when colors were never drawn).
fn role_of_player(played: &Selfplay, i: usize) -> MatchRole {
    let white = played.colors.map_or(played.cast.players[0].public(), |c| c.white);
    if white == played.cast.players[i].public() { MatchRole::White } else { MatchRole::Black }
}

/// The verdict's first fault is exactly `kind`, signed by `role`'s key; no fault names the
/// honest `others`.
fn assert_fault(
    played: &Selfplay,
    kind: FaultKind,
    role: MatchRole,
    honest: &[MatchRole],
) -> verifier::Fault {
    assert_fault_of(played, &[kind], role, honest)
}

/// [`assert_fault`] where the first fault may be any of `kinds` (a party that stops owes its
/// disclosures too: the verifier may name it for those first).
fn assert_fault_of(
    played: &Selfplay,
    kinds: &[FaultKind],
    role: MatchRole,
    honest: &[MatchRole],
) -> verifier::Fault {
    let verdict = verifier::verify(&played.bytes);
    let Verdict::Faults(faults) = &verdict else { panic!("expected {kinds:?}, got {verdict:?}") };
    let first = faults.first().unwrap_or_else(|| panic!("no fault in {verdict:?}")).clone();
    assert!(kinds.contains(&first.kind) && first.role == role, "{kinds:?} by {role:?}: {first:#?}");
    let kind = first.kind;
    assert_eq!(first.culprit, Some(key(played, role)), "{first:#?}");
    for f in faults {
        assert!(!honest.contains(&f.role), "an honest party named: {f:#?}");
    }
    if std::env::var_os("FOGPROOF_SHOW_FAULTS").is_some() {
        eprintln!("{kind:?} by {role:?}\n  evidence: {}\n  {}", first.evidence, first.explanation);
    }
    first
}

fn counter() -> (Arc<AtomicU32>, Arc<AtomicU32>) {
    let c = Arc::new(AtomicU32::new(0));
    (c.clone(), c)
}

/// A payload kind a cheat puts where another goes, by name.
type Junk = (&'static str, fn() -> Payload);

fn draw_offer() -> Claim {
    Claim { outcome: Outcome::Draw, reason: rules::EndReason::Agreement.into() }
}

// ------------------------------------------------------------------ 1. sealed non-actions

/// Every payload kind a player may put in a sealed message but an action (and SIC's seed
/// opening, which is what the setup asks for): the sealed junk of PROTOCOL.md 14.3.
fn junks() -> Vec<Junk> {
    fn opening() -> protocol::commitment::Opening {
        protocol::commitment::Opening { value: vec![7], nonce: [7; 32] }
    }
    vec![
        ("observation", || Payload::Observation(vec![1, 2, 3])),
        ("claim", || Payload::Claim(draw_offer())),
        ("ack", || Payload::Ack { message: protocol::MessageHash([9; 32]) }),
        ("turn", || Payload::Turn { next: Owed::Nobody }),
        ("countersign", || Payload::Countersign),
        ("start", || Payload::Start),
        ("disclose", || Payload::Disclose(Vec::new())),
        ("close", || Payload::Close { wall_ms: 1 }),
        ("timeout", || Payload::Timeout {
            party: protocol::Party::Black,
            expectation: protocol::message::Expectation::Move,
            deadline_ms: 1,
        }),
        ("commit", || Payload::Commit {
            purpose: protocol::flow::TIEBREAK,
            commitment: protocol::Commitment([5; 32]),
        }),
        ("reveal", || Payload::Reveal {
            purpose: protocol::commitment::PUBLIC_CONTRIBUTION,
            opening: opening(),
        }),
        ("open", || Payload::Open { purpose: protocol::flow::TIEBREAK, opening: opening() }),
    ]
}

/// Where the junk goes: the player's `nth` sealed message (its setup in SIC and 6x6 is the
/// first; its moves follow).
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// The sealed setup: SIC's private seed opening, 6x6's secret setup.
    Setup,
    /// A move in play (the player's first, or a later one).
    Play(u32),
}

impl Phase {
    fn nth(self, variant: Variant) -> u32 {
        let setup = u32::from(matches!(variant, Variant::Sic | Variant::SecretChess6));
        match self {
            Phase::Setup => 0,
            Phase::Play(k) => setup + k,
        }
    }
}

/// White (players[0]) seals `junk` on its private channel in place of its `nth` sealed
/// message.
fn sealed_junk_at(variant: Variant, nth: u32, junk: fn() -> Payload) -> Selfplay {
    let (fired, hook) = counter();
    let mut c = config(variant, 1);
    c.max_actions = 400;
    c.player_hooks[0] = Some(Box::new(move |channel: Channel, p: &mut Payload| {
        if channel != Channel::Public
            && matches!(p, Payload::Action(_) | Payload::Open { .. })
            && hook.fetch_add(1, Ordering::SeqCst) == nth
        {
            *p = junk();
        }
        true
    }));
    let played = play(c);
    assert!(fired.load(Ordering::SeqCst) > nth, "{variant}: the player never sealed that far");
    played
}

/// Whether `junk` fits the padded size a player seals to in `variant`: what does not can never
/// be sealed (the machine does not send it, and the relay refuses a larger ciphertext,
/// `NotEntitled::SealedSize`).
fn fits(variant: Variant, junk: &Payload) -> bool {
    let padded =
        protocol::game::sealed_plaintext_bytes(variant, protocol::game::SealDirection::ToUmpire);
    // The padding's marker takes one byte (`protocol::seal::pad`).
    junk.to_canonical().len() < padded
}

/// The sealed junk is the player's fault: the honest umpire refuses it in public at once (its
/// complaint names the message) and the verifier names the sender (`NotAllowed`), never the
/// umpire, the relay or the opponent, and never as anyone's timeout.
fn assert_junk_convicts_the_player(played: &Selfplay, context: &str, name: &str) {
    let cheat = role_of_player(played, 0);
    let honest = [
        MatchRole::Umpire,
        MatchRole::Relay,
        if cheat == MatchRole::White { MatchRole::Black } else { MatchRole::White },
    ];
    // NotAllowed; a sealed opening of nothing committed is named as that (BadOpening).
    let f =
        assert_fault_of(played, &[FaultKind::NotAllowed, FaultKind::BadOpening], cheat, &honest);
    assert!(
        f.kind != FaultKind::NotAllowed
            || f.evidence.contains("sealed") && f.evidence.contains(name),
        "{context}: {}",
        f.evidence
    );
    let complained = played.record.entries.iter().any(|e| {
        e.message.verify().is_ok_and(|b| {
            b.author == played.cast.umpire.public()
                && matches!(b.payload, Payload::Claim(_))
                && b.re.is_some()
        })
    });
    assert!(complained, "{context}: no complaint");
    assert!(
        !played.refused.iter().any(|(w, _)| *w == Who::Umpire),
        "{context}: {:?}",
        played.refused
    );
    // The game is the cheat's loss.
    let winner = if cheat == MatchRole::White { rules::Color::Black } else { rules::Color::White };
    let result = verifier::verify(&played.bytes).sanctioned_result();
    assert_eq!(result.and_then(|r| r.winner), Some(winner), "{context}");
}

#[test]
fn sealed_junk_names_the_player_never_the_umpire_in_every_umpired_game_and_phase() {
    let cases = [
        (Variant::Kriegspiel, Phase::Play(0)),
        (Variant::Kriegspiel, Phase::Play(2)),
        (Variant::Sic, Phase::Setup),
        (Variant::Sic, Phase::Play(0)),
        (Variant::Sic, Phase::Play(2)),
        (Variant::SecretChess6, Phase::Setup),
        (Variant::SecretChess6, Phase::Play(0)),
        (Variant::SecretChess6, Phase::Play(2)),
    ];
    let mut tried = 0;
    for (variant, phase) in cases {
        for (name, junk) in junks() {
            if !fits(variant, &junk()) {
                continue;
            }
            let played = sealed_junk_at(variant, phase.nth(variant), junk);
            assert_junk_convicts_the_player(&played, &format!("{variant} {phase:?} {name}"), name);
            tried += 1;
        }
    }
    // Every kind fits SIC's and 6x6's padding; Kriegspiel's 16 bytes hold the small ones.
    assert!(tried >= 6 * junks().len(), "{tried}");
}

#[test]
fn junk_too_long_to_seal_leaves_the_player_silent_and_timed_out() {
    // Kriegspiel pads a player's sealed plaintext to 16 bytes: an ack (a 32-byte hash), an
    // opening or a commitment cannot be sealed at all. The relay refuses a larger ciphertext
    // (`SealedSize`), so such junk never reaches the record; the player who writes it in
    // place of its move has sent nothing, and is timed out: its own fault, the umpire never
    // named.
    let mut tried = 0;
    for (name, junk) in junks() {
        if fits(Variant::Kriegspiel, &junk()) {
            continue;
        }
        let played = sealed_junk_at(Variant::Kriegspiel, 0, junk);
        let cheat = role_of_player(&played, 0);
        assert_fault_of(
            &played,
            &[FaultKind::Timeout],
            cheat,
            &[MatchRole::Umpire, MatchRole::Relay, MatchRole::Black],
        );
        let sealed_by_cheat = played.record.entries.iter().any(|e| {
            e.message.verify().is_ok_and(|b| {
                b.author == played.cast.players[0].public()
                    && matches!(b.payload, Payload::Sealed(_))
            })
        });
        assert!(!sealed_by_cheat, "{name}: nothing sealed reached the record");
        tried += 1;
    }
    assert!(tried >= 3, "{tried}");
}

// ------------------------------------------------------------------ 2. the umpire's duties

/// The umpire drops the `n`-th sealed message it would send on `channel`.
fn umpire_drops(
    variant: Variant,
    pick: impl Fn(Channel, &Payload) -> bool + Send + 'static,
) -> Selfplay {
    let (fired, hook) = counter();
    let mut c = config(variant, 1);
    c.max_actions = 400;
    c.umpire_hook = Some(Box::new(move |channel: Channel, p: &mut Payload| {
        if pick(channel, p) && hook.fetch_add(1, Ordering::SeqCst) == 0 {
            return false;
        }
        true
    }));
    let played = play(c);
    assert!(fired.load(Ordering::SeqCst) > 0, "{variant}: the umpire never had the chance");
    played
}

#[test]
fn an_umpire_withholding_the_announcement_after_its_turn_is_timed_out() {
    // The umpire sends the public Turn naming Black but keeps Black's announcement (the
    // answer to White's move): Black cannot move; before v3 Black's clock ran from the Turn
    // and Black lost on time. Now Black's clock waits for its announcement, which the umpire
    // owes under answer_ms.
    for variant in [Variant::Kriegspiel, Variant::Sic, Variant::SecretChess6] {
        let played = umpire_drops(variant, |channel, p| {
            channel == Channel::BlackUmpire && matches!(p, Payload::Observation(_))
        });
        // Withheld for good: timed out (and then its disclosures missing). In SIC the first
        // message to Black is its start view, and the umpire's next one shows the gap.
        assert_fault_of(
            &played,
            &[
                FaultKind::Timeout,
                FaultKind::MissingReveal,
                FaultKind::BadSetup,
                FaultKind::FalseAnnouncement,
            ],
            MatchRole::Umpire,
            &[MatchRole::White, MatchRole::Black],
        );
        assert_eq!(verifier::verify(&played.bytes).sanctioned_result(), None, "{variant}: void");
    }
}

#[test]
fn an_umpire_answering_a_move_without_its_turn_is_named() {
    // The umpire withholds the Turn that hands the move over, and answers the mover as if
    // its move had been refused would (a sealed answer naming it): the coordinator restarts
    // the mover's clock, and the mover, told its move was played, waits. The verifier names
    // the umpire at that answer, before the mover's timeout.
    for variant in [Variant::Kriegspiel, Variant::Sic] {
        let played = umpire_drops(variant, |_, p| {
            matches!(p, Payload::Turn { next: Owed::Side(Color::Black) })
        });
        let f = assert_fault(
            &played,
            FaultKind::FalseAnnouncement,
            MatchRole::Umpire,
            &[MatchRole::White, MatchRole::Black],
        );
        assert!(f.evidence.contains("without its public Turn"), "{variant}: {}", f.evidence);
    }
}

/// Re-signs a message from the umpire with another `re`.
fn with_re(bytes: &[u8], cast: &sim::selfplay::Cast, re: Option<protocol::MessageHash>) -> Vec<u8> {
    let m = SignedMessage::from_canonical(bytes).expect("a message");
    let mut body: MessageBody = m.verify().expect("signed");
    body.re = re;
    SignedMessage::sign(&body, &cast.umpire).to_canonical()
}

#[test]
fn a_turn_naming_anything_but_its_action_is_refused_and_the_umpire_named() {
    // A Turn's `re` is fixed (the action it adjudicates): 32 free bytes there would be a
    // public channel for the umpire to publish a secret move. The relay refuses it; the
    // umpire, carrying on, answers the mover without its Turn and is named.
    let (fired, hook) = counter();
    let mut c = config(Variant::Kriegspiel, 1);
    c.max_actions = 400;
    c.wire = Some(Box::new(move |w: &mut sim::selfplay::Wire| {
        if w.from == Who::Umpire
            && let Some(m) = w.message()
            && let Ok(b) = m.verify()
            && matches!(b.payload, Payload::Turn { next: Owed::Side(Color::Black) })
            && hook.fetch_add(1, Ordering::SeqCst) == 0
        {
            w.bytes = with_re(&w.bytes, w.cast, Some(protocol::MessageHash([0x5e; 32])));
        }
        Fate::Send
    }));
    let played = play(c);
    assert!(fired.load(Ordering::SeqCst) > 0);
    assert!(
        played.refused.iter().any(|(w, e)| *w == Who::Umpire
            && matches!(
                e,
                RelayError::NotEntitled(protocol::coordinator::NotEntitled::BadReference { .. })
            )),
        "{:?}",
        played.refused
    );
    // What follows the refusal (its answers without the Turn, or its silence) is the umpire's.
    let verdict = verifier::verify(&played.bytes);
    let first = verdict.faults().first().expect("a fault").clone();
    assert_eq!(first.role, MatchRole::Umpire, "{first:#?}");
    assert!(verdict.faults().iter().all(|f| f.role == MatchRole::Umpire), "{verdict:#?}");
}

#[test]
fn an_umpire_answer_naming_another_message_is_refused() {
    // The umpire's sealed answers name a player's sealed message (the one they answer):
    // anything else is refused by the relay; the umpire is then timed out, never a player.
    let (fired, hook) = counter();
    let mut c = config(Variant::Kriegspiel, 1);
    c.max_actions = 400;
    c.wire = Some(Box::new(move |w: &mut sim::selfplay::Wire| {
        if w.from == Who::Umpire
            && let Some(m) = w.message()
            && let Ok(b) = m.verify()
            && matches!(b.payload, Payload::Sealed(_))
            && hook.fetch_add(1, Ordering::SeqCst) == 3
        {
            w.bytes = with_re(&w.bytes, w.cast, Some(protocol::MessageHash([0x5e; 32])));
        }
        Fate::Send
    }));
    let played = play(c);
    assert!(fired.load(Ordering::SeqCst) > 3);
    assert!(
        played.refused.iter().any(|(w, e)| *w == Who::Umpire
            && matches!(
                e,
                RelayError::NotEntitled(protocol::coordinator::NotEntitled::BadReference { .. })
            )),
        "{:?}",
        played.refused
    );
    let verdict = verifier::verify(&played.bytes);
    let first = verdict.faults().first().expect("a fault").clone();
    assert_eq!(first.role, MatchRole::Umpire, "{first:#?}");
}

#[test]
fn hidden_information_sealed_in_another_kind_convicts_the_umpire() {
    // The umpire seals to Black, in a payload kind that is not an observation, White's
    // move: nothing checks such a kind against the rules, so it is outside the table. In
    // every umpired game, at its first answer to Black (SIC's start view, 6x6's setup ack,
    // Kriegspiel's announcement) and at a later one.
    let cases = [
        (Variant::Kriegspiel, 0),
        (Variant::Kriegspiel, 3),
        (Variant::Sic, 0),
        (Variant::Sic, 3),
        (Variant::SecretChess6, 0),
        (Variant::SecretChess6, 3),
    ];
    for ((variant, nth), (name, kind)) in cases.into_iter().flat_map(|c| {
        [
            ("action", (|| Payload::Action(vec![12, 28])) as fn() -> Payload),
            ("claim", || Payload::Claim(draw_offer())),
            ("ack", || Payload::Ack { message: protocol::MessageHash([1; 32]) }),
            ("open", || Payload::Open {
                purpose: protocol::commitment::PRIVATE_SEED,
                opening: protocol::commitment::Opening { value: vec![12, 28], nonce: [0; 32] },
            }),
            ("turn", || Payload::Turn { next: Owed::Side(Color::White) }),
        ]
        .map(move |k| (c, k))
    }) {
        let (fired, hook) = counter();
        let mut c = config(variant, 1);
        c.max_actions = 400;
        c.umpire_hook = Some(Box::new(move |channel: Channel, p: &mut Payload| {
            if channel == Channel::BlackUmpire
                && matches!(p, Payload::Observation(_))
                && hook.fetch_add(1, Ordering::SeqCst) == nth
            {
                *p = kind();
            }
            true
        }));
        let played = play(c);
        assert!(fired.load(Ordering::SeqCst) > nth, "{variant} {nth} {name}");
        // Its sealed answer is judged on its disclosure; an umpire that stops instead is named
        // for the disclosures it owes. What is too long to seal (a Kriegspiel ack or opening in
        // 16 bytes) is never sent: the umpire is silent, and timed out for the answer it owes.
        let padded = protocol::game::sealed_plaintext_bytes(
            variant,
            protocol::game::SealDirection::FromUmpire,
        );
        let sealable = kind().to_canonical().len() < padded;
        // (Unsealable, its next answer may be named first: its `re` no longer fits.)
        let kinds: &[FaultKind] = if sealable {
            // A sealed opening of nothing the umpire committed is named as that.
            &[FaultKind::NotAllowed, FaultKind::MissingReveal, FaultKind::BadOpening]
        } else {
            &[FaultKind::Timeout, FaultKind::MissingReveal, FaultKind::NotAllowed]
        };
        let f = assert_fault_of(
            &played,
            kinds,
            MatchRole::Umpire,
            &[MatchRole::White, MatchRole::Black],
        );
        if f.kind == FaultKind::NotAllowed && sealable {
            assert!(f.evidence.contains(name), "{variant} {nth} {name}: {}", f.evidence);
        }
    }
}

// ------------------------------------------------------------------ 3. draw offers

#[test]
fn crossing_draw_offers_are_an_agreed_draw() {
    // Both players offer a draw in the same step, neither having seen the other's: the
    // second offer to reach the relay accepts the first (PROTOCOL.md 14.1). Nobody is named,
    // nothing honest is refused.
    for variant in [Variant::Kriegspiel, Variant::Sic, Variant::SecretChess6, Variant::Chess] {
        for (seed, at) in [(1, 6), (2, 11), (3, 3)] {
            let mut c = config(variant, seed);
            c.offer_draws_at = Some(at);
            let played = play(c);
            let verdict = verifier::verify(&played.bytes);
            let context =
                format!("{variant} seed {seed}: {verdict:?} refused {:?}", played.refused);
            let Verdict::Valid { result } = verdict else { panic!("{context}") };
            assert!(played.refused.is_empty(), "{context}");
            if result.reason == rules::EndReason::Agreement {
                assert_eq!(result.winner, None, "{context}");
            }
        }
    }
}

#[test]
fn a_draw_offer_outside_play_is_refused() {
    // The last revealer, having seen from the other contribution which color it would get,
    // offers a draw instead of revealing: the offer is refused (there is no game to agree on
    // yet), so it still owes its reveal, is timed out and forfeits.
    let mut c = SelfplayConfig::new(Variant::Kriegspiel, 1);
    let (fired, hook) = counter();
    c.player_hooks[1] = Some(Box::new(move |_channel: Channel, p: &mut Payload| {
        if matches!(p, Payload::Reveal { .. }) && hook.fetch_add(1, Ordering::SeqCst) == 0 {
            *p = Payload::Claim(draw_offer());
        }
        true
    }));
    let played = play(c);
    assert!(fired.load(Ordering::SeqCst) > 0);
    assert!(
        played.refused.iter().any(|(w, e)| *w == Who::Player(1)
            && e.to_string().contains("a draw offer stands only in play")),
        "{:?}",
        played.refused
    );
    let cheat = role_of_player(&played, 1);
    assert_fault_of(
        &played,
        &[FaultKind::Timeout, FaultKind::MissingReveal],
        cheat,
        &[MatchRole::Umpire, MatchRole::Relay],
    );
    let winner = if cheat == MatchRole::White { rules::Color::Black } else { rules::Color::White };
    assert_eq!(
        verifier::verify(&played.bytes).sanctioned_result().and_then(|r| r.winner),
        Some(winner)
    );
}

// ------------------------------------------------------------------ 4. never committing

fn silent_committer(variant: Variant, silent: &'static [usize]) -> Selfplay {
    let mut c = SelfplayConfig::new(variant, 1);
    // The commitments are written when a player machine starts, before any hook: a silent
    // player is one none of whose messages reaches the relay (dropping its commitment alone
    // would model a relay that drops, which delivery notices answer, not a silent player).
    c.wire = Some(Box::new(move |w: &mut sim::selfplay::Wire| match w.from {
        Who::Player(i) if silent.contains(&i) => Fate::Drop,
        _ => Fate::Send,
    }));
    play(c)
}

#[test]
fn a_player_who_never_commits_forfeits() {
    for variant in [Variant::Chess, Variant::Kriegspiel, Variant::Sic] {
        let played = silent_committer(variant, &[1]);
        let cheat = role_of_player(&played, 1);
        let other = if cheat == MatchRole::White { MatchRole::Black } else { MatchRole::White };
        assert_fault(
            &played,
            FaultKind::Timeout,
            cheat,
            &[MatchRole::Umpire, MatchRole::Relay, other],
        );
        let result = verifier::verify(&played.bytes).sanctioned_result().expect("a result");
        let winner =
            if cheat == MatchRole::White { rules::Color::Black } else { rules::Color::White };
        assert_eq!(result.winner, Some(winner), "{variant}");
    }
}

#[test]
fn both_players_never_committing_is_no_result() {
    for variant in [Variant::Chess, Variant::Kriegspiel] {
        let played = silent_committer(variant, &[0, 1]);
        let verdict = verifier::verify(&played.bytes);
        let first = verdict.faults().first().expect("a fault").clone();
        assert_eq!(
            (first.kind, first.role, first.culprit),
            (FaultKind::Timeout, MatchRole::Record, None)
        );
        assert_eq!(verdict.sanctioned_result(), None, "{variant}");
        // The relay timed both out.
        let timeouts = played
            .record
            .entries
            .iter()
            .filter(|e| {
                e.message.verify().is_ok_and(|b| matches!(b.payload, Payload::Timeout { .. }))
            })
            .count();
        assert_eq!(timeouts, 2, "{variant}");
    }
}

// ------------------------------------------------------------------ 5. the record budget

const MIB: u64 = 1024 * 1024;

#[test]
fn an_honest_umpired_match_under_one_mib_terms_verifies() {
    // Under equal thirds, the umpire's third of 1 MiB did not hold its answers in an honest
    // Kriegspiel game that fits 1 MiB: the honest umpire was convicted with no cheat at all.
    // Every honest game whose record fits in 1 MiB (with room for the reserves) verifies under
    // 1 MiB terms.
    let mut checked = 0;
    for seed in 1..=6 {
        let full = play(SelfplayConfig::new(Variant::Kriegspiel, seed));
        if full.bytes.len() as u64 > MIB * 7 / 8 {
            continue;
        }
        let mut c = SelfplayConfig::new(Variant::Kriegspiel, seed);
        c.limits.max_record_bytes = MIB;
        let played = play(c);
        let verdict = verifier::verify(&played.bytes);
        // The honest limit (docs/PROTOCOL.md 20): a player whose attempts and their answers
        // outgrow its own share is refused (`RecordFull`, its own share); the umpire and the
        // other player are never out of budget and never named.
        if !played.refused.is_empty() {
            assert!(
                played.refused.iter().all(|(who, e)| matches!(who, Who::Player(_))
                    && matches!(e, protocol::relay::RelayError::RecordFull(_))),
                "seed {seed}: {:?}",
                played.refused
            );
            for f in verdict.faults() {
                assert_ne!(f.role, MatchRole::Umpire, "seed {seed}: the umpire named: {f:#?}");
            }
            continue;
        }
        assert!(matches!(verdict, Verdict::Valid { .. }), "seed {seed}: {verdict:?}");
        // The umpire said more than a third of the terms' size: the old split refused it.
        let umpire_bytes: usize = played
            .record
            .entries
            .iter()
            .filter(|e| e.message.verify().is_ok_and(|b| b.author == played.cast.umpire.public()))
            .map(|e| {
                e.message.to_canonical().len() + protocol::record::ENTRY_OVERHEAD_BYTES as usize
            })
            .sum();
        if umpire_bytes as u64 > MIB / 3 {
            checked += 1;
        }
    }
    assert!(checked > 0, "no game made the umpire say more than a third of 1 MiB");
}

/// A Kriegspiel player that tries the impossible a1a1 `floods` times before playing on.
struct Flooder {
    bot: client::RandomBot,
    floods: u32,
}

impl protocol::roles::Policy for Flooder {
    fn decide(
        &mut self,
        v: Variant,
        side: rules::Color,
        ask: &protocol::roles::Ask,
    ) -> rules::AnyAction {
        if self.floods > 0 && matches!(ask, protocol::roles::Ask::Choose(_)) {
            self.floods -= 1;
            let a1 = rules::Square::from_index(0).expect("a1");
            return rules::AnyAction::Kriegspiel(rules::Move::new(a1, a1));
        }
        self.bot.decide(v, side, ask)
    }
}

fn flood(floods: u32) -> Selfplay {
    let mut c = config(Variant::Kriegspiel, 1);
    c.limits.max_record_bytes = MIB;
    c.limits.max_attempts_per_turn = 65_536;
    c.max_actions = 20_000;
    c.policies[0] = Some(Box::new(Flooder { bot: client::RandomBot::new([3; 32]), floods }));
    play(c)
}

#[test]
fn seven_hundred_illegal_attempts_never_exhaust_the_umpire() {
    // Within the limits, 700 illegal attempts: under equal thirds they used up the umpire's
    // share and the honest umpire was convicted. Now each attempt pays for its answer.
    let played = flood(700);
    assert!(!played.refused.iter().any(|(w, _)| *w == Who::Umpire), "{:?}", played.refused);
    for f in verifier::verify(&played.bytes).faults() {
        assert_ne!(f.role, MatchRole::Umpire, "{f:#?}");
        assert_ne!(f.role, MatchRole::Black, "{f:#?}");
    }
}

#[test]
fn a_flood_exhausts_only_the_flooder() {
    // Without end: the flooder's share runs out, its next attempt is refused, it can only
    // stop, and it is timed out; the umpire and the opponent are never short.
    let played = flood(u32::MAX);
    assert!(
        played
            .refused
            .iter()
            .any(|(w, e)| *w == Who::Player(0) && matches!(e, RelayError::RecordFull(_))),
        "{:?}",
        played.refused
    );
    assert!(!played.refused.iter().any(|(w, _)| *w != Who::Player(0)), "{:?}", played.refused);
    assert_fault_of(
        &played,
        &[FaultKind::Timeout, FaultKind::MissingReveal],
        MatchRole::White,
        &[MatchRole::Umpire, MatchRole::Black],
    );
}

#[test]
fn an_umpire_setup_giving_another_key_than_it_commits_to_convicts_the_umpire_and_the_player_never_attests_it()
 {
    // The umpire's first sealed message to White carries the enc of another context (the
    // same recipient, another seed) beside the commitment to its true key: White's inbox
    // decapsulates another key and cannot open it. White must not countersign the closed
    // record (its countersignature would attest the setup and spare the verifier the key
    // agreement that convicts the umpire, docs/PROTOCOL.md 14.2), and the umpire, whose seed
    // reproduces no such setup, cannot disclose: it is named, White never.
    let (fired, hook) = counter();
    let mut c = config(Variant::Kriegspiel, 3);
    c.max_actions = 400;
    c.wire = Some(Box::new(move |w: &mut sim::selfplay::Wire| {
        if w.from == Who::Umpire
            && let Some(m) = w.message()
            && let Ok(mut b) = m.verify()
            && b.channel == Channel::WhiteUmpire
            && let Payload::Sealed(sealed) = &mut b.payload
            && let Some(setup) = &mut sealed.setup
            && hook.fetch_add(1, Ordering::SeqCst) == 0
        {
            let context = protocol::seal::SealContext {
                match_id: b.match_id,
                channel: b.channel,
                author: b.author,
                seq: b.seq,
            };
            // An enc is the ephemeral key of its seed, whatever the recipient.
            let anyone = protocol::seal::SealSecret::for_match(&w.cast.relay, &[0; 32]).public();
            let other = protocol::seal::Sealer::new(&anyone, &context, &[0x0e; 32])
                .expect("another context");
            setup.enc = other.setup().enc;
            w.bytes = SignedMessage::sign(&b, &w.cast.umpire).to_canonical();
        }
        Fate::Send
    }));
    let played = play(c);
    assert_eq!(fired.load(Ordering::SeqCst), 1, "the umpire sealed to White");
    let white = key(&played, MatchRole::White);
    let record = protocol::record::MatchRecord::from_canonical(&played.bytes).expect("a record");
    let countersigners: Vec<PublicKey> = record
        .entries
        .iter()
        .filter_map(|e| e.message.verify().ok())
        .filter(|b| b.payload == Payload::Countersign)
        .map(|b| b.author)
        .collect();
    assert!(!countersigners.contains(&white), "White attested a setup it could not open");
    assert_eq!(countersigners.len(), 2, "Black and the umpire countersign as ever");
    let verdict = verifier::verify(&played.bytes);
    let first = verdict.faults().first().expect("a fault").clone();
    assert_eq!(first.role, MatchRole::Umpire, "{first:#?}");
    // The relay refused each disclosure it tried (no seed reproduces the setup): it owes one.
    assert_eq!(first.kind, FaultKind::MissingReveal, "{first:#?}");
    assert!(verdict.faults().iter().all(|f| f.role != MatchRole::White), "{verdict:#?}");
}
