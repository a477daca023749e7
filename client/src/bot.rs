//! The random bot: a [`Policy`] drawing every choice from a seeded ChaCha20 stream.
//!
//! - moves: a uniformly drawn element of what it is offered (the legal moves, or in Kriegspiel
//!   every attempt its own view allows that was not yet refused this turn, so it always ends
//!   up finding a legal move);
//! - a secret setup or tie-break: [`rules::setup_ask::SetupAsk::random_answer`] from the same
//!   stream (a random answer the rules accept: Intrigue's hiding square, informer and queen
//!   choice; 6x6's shuffled formation and false squares; 6x6's guess of a shuffled formation
//!   and a pass per opponent turn).

use protocol::roles::{Ask, Policy};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rules::secretchess6::Action as SixAction;
use rules::{AnyAction, Color, Move, Square, Variant};

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
            Ask::Setup(setup) => setup.random_answer(side, &mut self.rng),
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
