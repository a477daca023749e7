//! The house bot against the random bot, through the real protocol (self-play): it wins the
//! open games clearly, and every game of every variant it plays ends validly.

use client::{HouseBot, RandomBot};
use protocol::message::Outcome;
use protocol::terms::ColorAssignment;
use rules::Variant;
use sim::{SelfplayConfig, selfplay_with};

/// Plays `games` games of `variant`, the house bot White in even ones and Black in odd ones;
/// checks each record verifies valid; returns the house bot's half-points, the most it could
/// have scored, and a line per game.
fn score(variant: Variant, games: u64, first_seed: u64) -> (u64, u64, Vec<String>) {
    let mut points = 0;
    let mut lines = Vec::new();
    for g in 0..games {
        let seed = first_seed + g;
        let mut config = SelfplayConfig::new(variant, seed);
        config.colors = ColorAssignment::FirstIsWhite;
        let house_white = g % 2 == 0;
        let house: Box<dyn protocol::roles::Policy> =
            Box::new(HouseBot::new(sim::selfplay::derive(seed, "house")));
        let random: Box<dyn protocol::roles::Policy> =
            Box::new(RandomBot::new(sim::selfplay::derive(seed, "random")));
        config.policies =
            if house_white { [Some(house), Some(random)] } else { [Some(random), Some(house)] };
        let t = std::time::Instant::now();
        let played = selfplay_with(config).expect("the match completes");
        let verdict = verifier::verify(&played.bytes);
        assert!(verdict.is_valid(), "{variant} seed {seed}: {verdict:?}");
        let claim = played.summary.result.clone().expect("a result");
        points += match (claim.outcome, house_white) {
            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 2,
            (Outcome::Draw, _) => 1,
            _ => 0,
        };
        lines.push(format!(
            "{} house {} {:?}",
            played.summary,
            if house_white { "white" } else { "black" },
            t.elapsed()
        ));
    }
    (points, 2 * games, lines)
}

/// Open games: the house bot plays a dozen games of each color and scores at least 85%.
#[test]
fn the_house_bot_beats_the_random_bot_clearly_in_open_games() {
    for variant in [Variant::Chess, Variant::Espionage] {
        let (points, max, lines) = score(variant, 24, 1_000);
        assert!(
            points * 100 >= max * 85,
            "{variant}: the house bot scored {points}/{max} half-points against random:\n{}",
            lines.join("\n")
        );
    }
}

/// Every variant: games end validly (the verifier confirms each record), and the house bot does
/// not lose more than it wins.
#[test]
fn the_house_bot_finishes_every_variant_validly() {
    for variant in Variant::ALL {
        // Kriegspiel and SIC games are long (attempts, big records): fewer of them.
        let games = match variant {
            Variant::Kriegspiel | Variant::Sic => 2,
            _ => 4,
        };
        let (points, max, lines) = score(variant, games, 2_000);
        assert!(points * 2 >= max, "{variant}: {points}/{max}:\n{}", lines.join("\n"));
    }
}

/// The same seeds give the same game, byte for byte.
#[test]
fn the_house_bot_is_deterministic_given_its_seed() {
    let play = || {
        let mut config = SelfplayConfig::new(Variant::Intrigue, 7);
        config.policies = [
            Some(Box::new(HouseBot::new([1; 32])) as Box<dyn protocol::roles::Policy>),
            Some(Box::new(HouseBot::new([2; 32]))),
        ];
        selfplay_with(config).expect("the match completes").bytes
    };
    assert_eq!(play(), play());
}
