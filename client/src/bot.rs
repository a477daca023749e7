//! The random bot: a [`Policy`] drawing every choice from a seeded ChaCha20 stream.
//!
//! - moves: a uniformly drawn element of what it is offered (the legal moves, or in Kriegspiel
//!   every attempt its own view allows that was not yet refused this turn, so it always ends
//!   up finding a legal move);
//! - Intrigue setup (R-I1): a hiding square among all 64, an informer among its eight pawns, the
//!   queen on either square;
//! - 6x6 setup (R-G1): a shuffled formation of K Q R B N and one empty square, and 0 to
//!   `max_false_squares` distinct false squares in the enemy territory;
//! - 6x6 tie-break (R-G8): a shuffled formation and a pass (`0000`) for each opponent turn.

use protocol::roles::{Ask, Policy};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rules::intrigue::{Action as IAction, Setup};
use rules::secretchess6::{Action as SixAction, Formation, TurnMove, territory};
use rules::{AnyAction, BoardSize, Color, Move, Role, Square, Variant};

/// A bot that plays uniformly at random among what it is offered.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: ChaCha20Rng,
}

impl RandomBot {
    /// A bot drawing from `ChaCha20Rng::from_seed(seed)`.
    pub fn new(seed: [u8; 32]) -> RandomBot {
        RandomBot { rng: ChaCha20Rng::from_seed(seed) }
    }

    /// A number in `0..n` (`n > 0`); the tiny modulo bias does not matter to a bot.
    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }

    fn formation(&mut self) -> Formation {
        let mut f = [
            Some(Role::King),
            Some(Role::Queen),
            Some(Role::Rook),
            Some(Role::Bishop),
            Some(Role::Knight),
            None,
        ];
        self.shuffle(&mut f);
        Formation::new(f).expect("a shuffle of K Q R B N and one empty file is a formation")
    }
}

impl Policy for RandomBot {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        match ask {
            Ask::Choose(options) => {
                if options.is_empty() {
                    return nothing_offered(variant);
                }
                let i = self.below(options.len());
                options[i].clone()
            }
            Ask::IntrigueSetup => {
                let king = Square::from_index(self.below(64) as u8).expect("below 64");
                let file = self.below(8) as u8;
                let informer = Square::new(file, side.fold(1, 6)).expect("a pawn square");
                let queen_on_king_square = self.below(2) == 1;
                AnyAction::Intrigue(IAction::Setup(Setup { king, informer, queen_on_king_square }))
            }
            Ask::Sc6Setup { max_false_squares } => {
                let formation = self.formation();
                let mut squares: Vec<Square> =
                    territory(!side).filter(|s| BoardSize::Six.contains(*s)).collect();
                self.shuffle(&mut squares);
                let n = self.below(max_false_squares + 1);
                let false_squares = squares.iter().take(n).copied().collect();
                AnyAction::SecretChess6(SixAction::Setup { formation, false_squares })
            }
            Ask::Sc6TieBreak { opponent_turns } => {
                let formation = self.formation();
                let moves = vec![TurnMove::Pass; *opponent_turns as usize];
                AnyAction::SecretChess6(SixAction::TieBreak { formation, moves })
            }
        }
    }
}

/// The answer to an empty list, which a player never asks ([`Ask::Choose`] is never empty): an
/// action of `variant` no position allows (a1 to a1; 6x6's end of turn, refused before a move),
/// so that a bot asked wrongly loses by the rules rather than stopping the machine.
fn nothing_offered(variant: Variant) -> AnyAction {
    Square::new(0, 0)
        .and_then(|a1| AnyAction::of_move(variant, Move::new(a1, a1)))
        .unwrap_or(AnyAction::SecretChess6(SixAction::EndTurn))
}
