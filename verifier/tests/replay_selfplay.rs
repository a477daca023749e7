//! Layer 2 on honest self-play: every variant, several seeds, verifies as valid with the
//! result the participants agreed on, which the test also recomputes by replaying the
//! actions through `rules::AnyGame` independently of the verifier's replay loop.

use protocol::game;
use rules::Variant;
use verifier::Verdict;

/// Honest matches of `variant` from each seed verify as valid, with the agreed result.
fn valid_records(variant: Variant, seeds: &[u64]) {
    valid_records_with(variant, seeds, &[]);
}

/// The same under the terms' `options`.
fn valid_records_with(variant: Variant, seeds: &[u64], options: &[(&str, &str)]) {
    {
        for &seed in seeds {
            let mut config = sim::SelfplayConfig::new(variant, seed);
            let text = options.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            config.game = rules::GameOptions::parse(variant, &text).expect("the test's options");
            let played = sim::selfplay_with(config)
                .unwrap_or_else(|e| panic!("{variant} seed {seed}: selfplay failed: {e:?}"));
            let verdict = verifier::verify(&played.bytes);
            let Verdict::Valid { result } = verdict else {
                panic!("{variant} seed {seed}: {verdict:#?}");
            };
            let agreed = played.summary.result.clone().expect("honest players agree on a result");
            assert_eq!(game::claim_of(&result), agreed, "{variant} seed {seed}");
            let checked = verifier::envelope::check(&played.bytes).expect("envelope is valid");
            let trace = verifier::replay::trace(&checked);
            assert_eq!(trace.log.result, Some(result));
            assert_eq!(
                independent_claim(&checked, &trace.log),
                game::claim_of(&result),
                "{variant} {seed}"
            );
        }
    }
}

#[test]
fn chess_selfplay_is_valid() {
    valid_records(Variant::Chess, &[1, 2, 3]);
}

#[test]
fn kriegspiel_selfplay_is_valid() {
    valid_records(Variant::Kriegspiel, &[1]);
}

#[test]
fn sic_selfplay_is_valid() {
    valid_records(Variant::Sic, &[1]);
}

#[test]
fn intrigue_selfplay_is_valid() {
    // Seed 24: ends by an R-I4 king capture.
    valid_records(Variant::Intrigue, &[0, 1, 24]);
}

#[test]
fn secretchess6_selfplay_is_valid() {
    // Seed 32: level scores, decided by the R-G8 tie-break (committed, sealed guesses).
    valid_records(Variant::SecretChess6, &[32, 1, 2]);
}

#[test]
fn espionage_selfplay_is_valid() {
    valid_records(Variant::Espionage, &[1, 2, 3]);
}

#[test]
fn kriegspiel_selfplay_with_touch_move_is_valid() {
    // R-K4's option (a second Kriegspiel seed).
    valid_records_with(Variant::Kriegspiel, &[4], &[("touch-move", "true")]);
}

#[test]
fn sic_selfplay_with_the_original_spy_is_valid() {
    // R-S6's option `spy-original` (a second SIC seed).
    valid_records_with(Variant::Sic, &[13], &[("spy", "original")]);
}

#[test]
fn secretchess6_selfplay_with_items_and_hidden_scores_is_valid() {
    // R-G9 items, R-G7 hidden scores.
    valid_records_with(
        Variant::SecretChess6,
        &[5, 6],
        &[
            ("life-freezes-white", "2"),
            ("life-freezes-black", "2"),
            ("false-square-white", "true"),
            ("hidden-scores", "true"),
        ],
    );
}

/// The result, recomputed without the verifier's result logic: the logged actions replayed
/// through `AnyGame` give it when the rules end the game; otherwise (a resignation, a draw
/// agreed, a timeout) it is what the players' own signed claims in the record say, and they must
/// agree.
fn independent_claim(
    checked: &verifier::envelope::Checked,
    log: &verifier::replay::GameLog,
) -> protocol::message::Claim {
    let t = &checked.terms.terms;
    let seeds = (checked.variant == Variant::Sic).then(|| rules::ByColor {
        white: checked.setup_seed(protocol::Color::White).expect("white seed"),
        black: checked.setup_seed(protocol::Color::Black).expect("black seed"),
    });
    let mut g = game::start(t, seeds.as_ref()).expect("start");
    for step in &log.steps {
        let (next, told) =
            game::apply(&g, step.actor, &step.action).expect("logged actions are legal");
        assert_eq!(told, step.told);
        g = next;
    }
    if let Some(r) = g.result() {
        return game::claim_of(&r);
    }
    let players = [checked.colors.white, checked.colors.black];
    let claims: Vec<&protocol::message::Claim> = checked
        .entries
        .iter()
        .filter(|e| !e.void && players.contains(&e.author()))
        .filter_map(|e| match &e.payload {
            protocol::message::Payload::Claim(c)
                if c.reason != rules::EndReason::Agreement.into()
                    || c.outcome == protocol::message::Outcome::Draw =>
            {
                Some(c)
            }
            _ => None,
        })
        .collect();
    let last = claims.last().copied().expect("a game the rules did not end has claims");
    assert!(claims.iter().all(|c| c == &last || c.reason == rules::EndReason::Agreement.into()));
    last.clone()
}
