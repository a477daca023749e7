//! The offline verifier: replays a match record and returns a [`Verdict`].
//!
//! `verify` is a pure function of the record's bytes. It runs in two layers:
//! 1. [`envelope`]: the record decodes canonically; the terms, every signature (batch-verified),
//!    every hash chain and every receipt check out; the relay's rules (who may say what, clocks,
//!    deadlines, races) hold; every disclosure reproduces the sealing setup its author signed
//!    and opens every sealed message of its channel to its committed plaintext;
//!    commitments match their openings.
//! 2. [`replay`]: the game itself, through the `rules` crate: every seed derivation and random
//!    setup, every action against the rules, every announcement, view, legal-move list, red
//!    square, score and informer answer re-derived and compared with what was signed; then the
//!    result.
//!
//! A finding is never a panic: it is a [`Fault`] naming the key that signed the false
//! statement, its role, the message it is in, and the evidence.
#![warn(missing_docs)]

pub mod delivery;
pub mod envelope;
pub mod evidence;
pub mod json;
pub mod pgn;
pub mod replay;
mod verdict;
pub mod views;

pub use delivery::{NoticeFinding, NoticeVerdict, verify_with_notices};
pub use verdict::{Fault, FaultKind, MatchRole, Verdict};

/// Verifies one record given as the exact bytes stored.
#[must_use]
pub fn verify(record_bytes: &[u8]) -> Verdict {
    match envelope::check(record_bytes) {
        Err(faults) => Verdict::Faults(faults),
        Ok(checked) => replay::replay(&checked),
    }
}

/// This verifier's version (`CARGO_PKG_VERSION`), as [`VerifiedMatch::verifier_version`] states it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a ledger records of a verified record: the verdict bound to the exact bytes verified
/// (their SHA-256) and to what the signed terms say the match is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedMatch {
    /// The version of this verifier (`CARGO_PKG_VERSION`).
    pub verifier_version: &'static str,
    /// SHA-256 of the record file, as `sha256sum` prints it.
    pub record_sha256: [u8; 32],
    /// The match id, if the terms can be read.
    pub match_id: Option<protocol::MatchId>,
    /// The terms' variant and ruleset, if readable.
    pub variant: Option<(rules::Variant, String)>,
    /// The players by color (`players` order if the colors were never drawn), if readable.
    pub players: Option<protocol::ByColor<protocol::PublicKey>>,
    /// Whether `players` is by color.
    pub colors_known: bool,
    /// The umpire's and the relay's keys, if the terms can be read.
    pub umpire: Option<protocol::PublicKey>,
    /// The relay's key.
    pub relay: Option<protocol::PublicKey>,
    /// The verdict.
    pub verdict: Verdict,
    /// The result the verdict gives (the game's, or a forfeit; `None`: void).
    pub result: Option<rules::GameResult>,
    /// The parties that countersigned the relay's close of a valid record (empty otherwise):
    /// each is bound by its own signature to the whole log.
    pub countersigned: Vec<protocol::PublicKey>,
}

/// [`verify`], bound to the record's digest and what its terms name.
#[must_use]
pub fn verify_match(record_bytes: &[u8]) -> VerifiedMatch {
    use sha2::{Digest, Sha256};
    // One pass: the envelope is checked once, and both the replay and the countersigners read
    // that checked envelope (the same as `verify`, which is `check` then `replay`).
    let (verdict, countersigned) = match envelope::check(record_bytes) {
        Err(faults) => (Verdict::Faults(faults), Vec::new()),
        Ok(checked) => {
            let verdict = replay::replay(&checked);
            let countersigned = if verdict.is_valid() {
                checked
                    .entries
                    .iter()
                    .filter(|e| !e.void && e.payload == protocol::message::Payload::Countersign)
                    .map(|e| e.author())
                    .collect()
            } else {
                Vec::new()
            };
            (verdict, countersigned)
        }
    };
    let description = envelope::describe(record_bytes);
    let terms = protocol::record::MatchRecord::read_prefix(record_bytes).and_then(|r| {
        protocol::codec::Canonical::from_canonical(&r.terms.terms)
            .ok()
            .map(|t: protocol::terms::MatchTerms| (protocol::terms::match_id(&r.terms.terms), t))
    });
    VerifiedMatch {
        verifier_version: VERSION,
        record_sha256: Sha256::digest(record_bytes).into(),
        match_id: terms.as_ref().map(|(id, _)| *id),
        variant: description.as_ref().map(|d| (d.variant, d.ruleset.clone())),
        players: description.as_ref().map(|d| d.colors),
        colors_known: description.as_ref().is_some_and(|d| d.colors_known),
        umpire: terms.as_ref().and_then(|(_, t)| t.umpire.as_ref().map(|u| u.key)),
        relay: terms.as_ref().map(|(_, t)| t.relay),
        result: verdict.sanctioned_result(),
        countersigned,
        verdict,
    }
}
