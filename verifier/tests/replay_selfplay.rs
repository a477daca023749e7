//! Layer 2 on honest self-play: every variant, several seeds, verifies as valid with the
//! result the participants agreed on, which the test also recomputes by replaying the
//! actions through `protocol::game::AnyGame` independently of the verifier's replay loop.

use protocol::game::{self, AnyGame};
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
            let mut config = client::SelfplayConfig::new(variant, seed);
            config.options =
                options.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            let played = client::selfplay_with(config)
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
            assert_eq!(independent_result(&checked, &trace.log), result.into(), "{variant} {seed}");
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
    // Seed 0: two informer answers with kings appearing; 15: ends by an R-I4 king capture.
    valid_records(Variant::Intrigue, &[0, 1, 15]);
}

#[test]
fn secretchess6_selfplay_is_valid() {
    // Seed 181: level scores, decided by the R-G8 tie-break (committed, sealed guesses).
    valid_records(Variant::SecretChess6, &[1, 2, 181]);
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

/// Re-applies the logged actions from a fresh game and returns its result: a check that the
/// log is a real game and that its end is the rules' own.
fn independent_result(
    checked: &verifier::envelope::Checked,
    log: &verifier::replay::GameLog,
) -> Option<rules::GameResult> {
    let t = &checked.terms.terms;
    let seeds = (checked.variant == Variant::Sic).then(|| rules::ByColor {
        white: checked.setup_seed(protocol::Side::White).expect("white seed"),
        black: checked.setup_seed(protocol::Side::Black).expect("black seed"),
    });
    let mut g = AnyGame::start(&t.variant, &t.options, seeds.as_ref()).expect("start");
    for step in &log.steps {
        let (next, told) = g.apply(step.actor, &step.action).expect("logged actions are legal");
        assert_eq!(told, step.told);
        g = next;
    }
    g.result().or(log.result)
}
