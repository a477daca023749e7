//! Two-party Kriegspiel umpiring (issue 19): the umpire's answer to one attempt as a boolean
//! circuit over the mover's board and attempt and the opponent's board, so that the two
//! players can compute it between themselves with a secure two-party computation engine and
//! nobody sees both boards. See docs/TWO-PARTY.md.
//!
//! - [`circuit`]: a gate-list builder with constant folding and dead-gate elimination, a
//!   plaintext evaluator, and the split of a circuit into what each party computes alone and
//!   the joint part run under MPC.
//! - [`umpire`]: the circuit itself (R-K1, R-K2 and R-C2's automatic ends that a board-only
//!   computation can know), whole or in the split computation's two halves (legality on every
//!   attempt, the announcement on a legal one).
//! - [`encode`]: each party's input bits from what it alone knows, and the outputs read back
//!   as `rules::kriegspiel::Answer`.

pub mod bits;
pub mod circuit;
pub mod encode;
pub mod umpire;
