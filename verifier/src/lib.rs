//! The offline verifier: replays a match record and returns a [`Verdict`].
//!
//! `verify` is a pure function of the record's bytes. It runs in two layers:
//! 1. [`envelope`]: the record decodes canonically; the terms, every signature (batch-verified),
//!    every hash chain and every receipt check out; the relay's rules (who may say what, clocks,
//!    deadlines, races) hold; every disclosure re-seals to the ciphertext its author signed;
//!    commitments match their openings.
//! 2. [`replay`]: the game itself, through the `rules` crate: every seed derivation and random
//!    setup, every action against the rules, every announcement, view, legal-move list, red
//!    square, score and informer answer re-derived and compared with what was signed; then the
//!    result.
//!
//! A finding is never a panic: it is a [`Fault`] naming the key that signed the false
//! statement, its role, the message it is in, and the evidence.
#![warn(missing_docs)]

pub mod envelope;
pub mod evidence;
pub mod replay;
mod verdict;

pub use verdict::{Fault, FaultKind, Role, Verdict};

/// Verifies one record given as the exact bytes stored.
#[must_use]
pub fn verify(record_bytes: &[u8]) -> Verdict {
    match envelope::check(record_bytes) {
        Err(faults) => Verdict::Faults(faults),
        Ok(checked) => replay::replay(&checked),
    }
}
