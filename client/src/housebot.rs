//! The house bot: a [`Policy`] better than random in every game, reading only what its player
//! knows (its `rules::seat::Seat`, never hidden truth), deterministic given its seed.
//!
//! Each move is scored ([`rules::heuristic`]) and the best taken, ties drawn from a seeded
//! ChaCha20 stream:
//! - **chess, Espionage** (open): the whole position is known, so each legal move is played on
//!   it and scored one ply deep: material taken, a promotion, mate (taken at once), check, the
//!   worst capture the opponent is then offered (a lost piece, less what recapturing wins back),
//!   the opponent's mobility (so a won game is pushed towards mate), a pawn's progress, and a
//!   draw avoided when ahead;
//! - **Intrigue** (owner-answered): mate taken and stalemate avoided when ahead, as the seat's
//!   own model of the game tells (a hypothesis agreeing with everything told, never the
//!   opponent's secret), otherwise material on the public board of R-I6 less the man left to
//!   the known enemy men, the opponent's secret men (`?`) counted as pawns;
//! - **Kriegspiel** (R-K1..R-K5): pawn captures are tried first when the umpire announced pawn
//!   tries, never otherwise (they would be illegal); a recapture on the square where the
//!   opponent just took; king moves when in check; then short moves, which unseen men are less
//!   likely to block, pawn pushes a little before others;
//! - **SIC** (R-S10): from the umpire's list of legal moves, captures first (an enemy man that
//!   moved `?`, or a square where an unmoved one may stand), the most valuable target by the
//!   least valuable man, then moves whose man then attacks the most possible enemy men;
//! - **6x6** (R-G1..R-G9): the move after which its men threaten the most of the enemy
//!   territory (the first rank, where unmoved men and the king stand, counted thrice), not onto
//!   a red square, not starting a new man's lifespan without need; a Life Freeze on the moved
//!   man closest to dying.
//!
//! Secret setups and the 6x6 tie-break are random but valid ([`RandomBot`]), as is every choice
//! the bot cannot read (no seat yet, or bytes it cannot decode).

use crate::RandomBot;
use protocol::roles::{Ask, Policy};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rules::seat::Seat;
use rules::{AnyAction, Color, Variant};
use sha2::{Digest, Sha256};

/// The house bot (see the module docs).
#[derive(Clone, Debug)]
pub struct HouseBot {
    rng: ChaCha20Rng,
    random: RandomBot,
}

impl HouseBot {
    /// A bot whose every choice derives from `seed`.
    pub fn new(seed: [u8; 32]) -> HouseBot {
        // Two unrelated streams: tie-breaks here, setups and fallbacks in the random bot.
        let mut h = Sha256::new();
        h.update(b"fogproof house bot ties");
        h.update(seed);
        let ties: [u8; 32] = h.finalize().into();
        HouseBot { rng: ChaCha20Rng::from_seed(ties), random: RandomBot::new(seed) }
    }

    /// The index of a best score, ties drawn at random.
    fn best(&mut self, scores: &[i64]) -> Option<usize> {
        let top = *scores.iter().max()?;
        let tied: Vec<usize> = (0..scores.len()).filter(|i| scores[*i] == top).collect();
        let pick = (self.rng.next_u64() % tied.len() as u64) as usize;
        tied.get(pick).copied()
    }

    /// A little noise (`0..n`) so that equal-looking moves vary from game to game.
    fn noise(&mut self, n: u64) -> i64 {
        (self.rng.next_u64() % n.max(1)) as i64
    }

    /// Scores for each offered action, or `None` where the bot cannot read the position
    /// ([`rules::heuristic::scores`], with this bot's noise).
    fn scores(&mut self, seat: &Seat, side: Color, actions: &[AnyAction]) -> Option<Vec<i64>> {
        rules::heuristic::scores(seat, side, actions, &mut |n| self.noise(n))
    }
}

impl Policy for HouseBot {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        self.random.decide(variant, side, ask)
    }

    fn decide_seeing(
        &mut self,
        seat: Option<&Seat>,
        variant: Variant,
        side: Color,
        ask: &Ask,
    ) -> AnyAction {
        if let (Ask::Choose(options), Some(seat)) = (ask, seat)
            && let Some(i) = self.scores(seat, side, options).and_then(|scores| self.best(&scores))
            && let Some(action) = options.get(i)
        {
            return action.clone();
        }
        self.random.decide(variant, side, ask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::kriegspiel::{Announcement, Answer};
    use rules::{Alphabet, AnyObservation, BoardSize, GameOptions, Move};

    fn ask(seat: &Seat) -> Ask {
        Ask::Choose(seat.legal_actions())
    }

    fn decide(seat: &Seat, seed: u8) -> String {
        let mut bot = HouseBot::new([seed; 32]);
        let action = bot.decide_seeing(Some(seat), seat.variant(), seat.side(), &ask(seat));
        action.text().expect("a move")
    }

    fn play(seat: &mut Seat, moves: &str) {
        let mut side = Color::White;
        for text in moves.split_whitespace() {
            let m = Move::parse_uci(text, BoardSize::Eight, Alphabet::ORTHODOX).expect("uci");
            seat.played(side, &AnyAction::Chess(m)).expect("legal");
            side = !side;
        }
    }

    #[test]
    fn in_chess_it_mates_in_one_and_takes_a_free_queen() {
        let mut seat = Seat::new(&GameOptions::Chess, Color::White);
        play(&mut seat, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6");
        for seed in 0..8 {
            assert_eq!(decide(&seat, seed), "h5f7", "scholar's mate, seed {seed}");
        }
        let mut seat = Seat::new(&GameOptions::Chess, Color::White);
        // Black's queen stands en prise on h4 to the knight on f3.
        play(&mut seat, "g1f3 e7e5 b1c3 d8h4");
        for seed in 0..8 {
            assert_eq!(decide(&seat, seed), "f3h4", "seed {seed}");
        }
    }

    #[test]
    fn in_kriegspiel_it_tries_pawn_captures_exactly_when_pawn_tries_are_announced() {
        let told = |tries: u32| {
            let mut seat = Seat::new(&GameOptions::default_for(Variant::Kriegspiel), Color::White);
            // Black's (first) move as announced to White: nothing, or pawn tries for White.
            let a =
                Announcement { capture: None, checks: Vec::new(), pawn_tries: tries, end: None };
            seat.told(&AnyObservation::Kriegspiel(Answer::Legal(a)));
            seat
        };
        let diagonal = |t: &str| {
            let b = t.as_bytes();
            b[1] == b'2' && b[0] != b[2] && b[3] == b'3'
        };
        for seed in 0..16 {
            let with = decide(&told(1), seed);
            assert!(diagonal(&with), "pawn tries announced, seed {seed}: {with}");
            let without = decide(&told(0), seed);
            assert!(!diagonal(&without), "no pawn tries, seed {seed}: {without}");
        }
    }
}
