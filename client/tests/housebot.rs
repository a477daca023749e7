//! The house bot against the random bot, through the real protocol (self-play): it wins the
//! open games clearly, and every game of every variant it plays ends validly.

use client::{HouseBot, RandomBot, SelfplayConfig, selfplay_with};
use protocol::message::Outcome;
use protocol::terms::Colours;
use rules::Variant;

/// Plays `games` games of `variant`, the house bot White in even ones and Black in odd ones;
/// returns (house bot points ×2, games) and checks each record verifies valid.
fn score(variant: Variant, games: u64, first_seed: u64) -> (u64, u64, Vec<String>) {
    let mut points = 0;
    let mut lines = Vec::new();
    for g in 0..games {
        let seed = first_seed + g;
        let mut config = SelfplayConfig::new(variant, seed);
        config.colours = Colours::FirstIsWhite;
        let house_white = g % 2 == 0;
        let house: Box<dyn protocol::roles::Policy> =
            Box::new(HouseBot::new(client::selfplay::derive(seed, "house")));
        let random: Box<dyn protocol::roles::Policy> =
            Box::new(RandomBot::new(client::selfplay::derive(seed, "random")));
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

#[test]
fn survey() {
    for v in Variant::ALL {
        let (p, max, lines) = score(v, 6, 300);
        for l in lines {
            eprintln!("{l}");
        }
        eprintln!("{v}: {p}/{max}");
    }
}
