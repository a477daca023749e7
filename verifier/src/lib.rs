//! The offline verifier: replays a match record and returns a [`Verdict`].
//!
//! `verify` is a pure function of the record's bytes. It runs in two layers:
//! 1. [`envelope`]: the record decodes canonically; the terms, every signature (batch-verified),
//!    every hash chain and every receipt check out; disclosures match the plaintext commitments
//!    their authors signed (and, with [`VerifyOptions::deep_seal_check`], re-seal to the signed
//!    ciphertexts);
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
pub mod replay;
mod verdict;

pub use verdict::{Fault, FaultKind, Role, Verdict};

/// How thoroughly to check. The default checks what the signed messages say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Also re-seal every disclosure (an X25519 ladder each) and compare the ciphertext, not only
    /// the signed plaintext commitment. The recipient already checked the ciphertext against the
    /// commitment when it opened it; this proves such a mismatch from the record alone.
    pub deep_seal_check: bool,
}

/// Verifies one record given as the exact bytes stored, with the default [`VerifyOptions`].
#[must_use]
pub fn verify(record_bytes: &[u8]) -> Verdict {
    verify_with(record_bytes, &VerifyOptions::default())
}

/// Verifies one record given as the exact bytes stored, with `options`.
#[must_use]
pub fn verify_with(record_bytes: &[u8], options: &VerifyOptions) -> Verdict {
    match envelope::check_with(record_bytes, options) {
        Err(faults) => Verdict::Faults(faults),
        Ok(checked) => replay::replay(&checked),
    }
}
