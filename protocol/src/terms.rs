//! Match terms: what every party signs before anything else; their hash is the match id.
//!
//! ```text
//! terms_bytes = postcard(MatchTerms)              (canonical, checked by the strict decoder)
//! match_id    = H(fogproof/v2/match-id; ("terms", terms_bytes))
//! signature_i = ed25519(signer_i, signing_input(fogproof/v2/terms, terms_bytes))
//! signers     = players[0], players[1], relay, umpire (umpired games only), in that order
//! ```
//!
//! Every party the terms name signs them, so each proves that it holds its signing key and
//! accepts its seal key, the time control and the limits.
//!
//! **The one gate.** Every rule about which terms are acceptable is in one function,
//! [`MatchTerms::validate`], and every party calls it: the server's lobby before it proposes
//! terms, the relay before it starts ([`crate::relay::Relay`]), the player and umpire machines
//! ([`crate::roles`]), the player agent before it signs, and the verifier before it replays. So
//! a relay never runs terms a verifier calls bad, and an agent never signs them. The gate
//! checks every key where it enters ([`check_signing_key`], [`check_seal_key`]: a party that
//! cannot be sealed to is refused at the terms, never discovered mid-game), one key per role,
//! the umpire the variant needs, the options, and every deadline, cap and budget
//! against its documented range ([`bounds`], docs/PROTOCOL.md 7.1).

use crate::MatchId;
use crate::codec::{self, Canonical, DecodeError};
use crate::keys::{ByColor, Identity, PublicKey, Signature, SignatureError};
use crate::seal::SealPublicKey;
use crate::tags;
use crate::transcript::Transcript;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::scalar::Scalar;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest match record any reader accepts, in bytes; the terms may set a lower limit (also
/// `record::MAX_RECORD_BYTES`).
pub const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// The range every number in the terms must lie in (docs/PROTOCOL.md 7.1). Every party checks
/// them through [`MatchTerms::validate`]; terms outside them are refused before anyone signs,
/// so no host can write a deadline nobody can meet or a cap no honest game fits in.
pub mod bounds {
    use std::ops::RangeInclusive;

    /// `time_control.initial_ms`: one second to one day. (The server's own challenge bounds,
    /// `min_initial_clock_ms` and `max_initial_clock_ms`, lie inside.)
    pub const INITIAL_MS: RangeInclusive<u64> = 1_000..=86_400_000;
    /// `time_control.increment_ms`: none to three minutes.
    pub const INCREMENT_MS: RangeInclusive<u64> = 0..=180_000;
    /// `time_control.reveal_ms`: half a second to ten minutes (the server writes 30 s).
    pub const REVEAL_MS: RangeInclusive<u64> = 500..=600_000;
    /// `time_control.answer_ms`: half a second to ten minutes (the server writes 10 s).
    pub const ANSWER_MS: RangeInclusive<u64> = 500..=600_000;
    /// `limits.max_messages_per_side`: at least 1,000 (a long honest game; the default is
    /// 20,000); the most is what the field holds, since the record budget bounds the bytes.
    pub const MESSAGES_PER_SIDE: RangeInclusive<u64> = 1_000..=u32::MAX as u64;
    /// `limits.max_attempts_per_turn`: at least 256 (no chess position offers a side more
    /// than 218 moves, so an honest Kriegspiel player can try each), at most 65,536.
    pub const ATTEMPTS_PER_TURN: RangeInclusive<u64> = 256..=65_536;
    /// `limits.max_record_bytes`: 256 KiB to the format's maximum
    /// ([`super::MAX_RECORD_BYTES`], the default).
    pub const RECORD_BYTES: RangeInclusive<u64> = 256 * 1024..=super::MAX_RECORD_BYTES;
}

/// Why a public key cannot stand in the terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum KeyProblem {
    /// The bytes are not a point of the curve (ed25519: no point decompresses from them;
    /// X25519: the u-coordinate is on the twist, not on Curve25519).
    #[error("not a point of the curve")]
    NotOnCurve,
    /// A point, but not in its one canonical encoding (a coordinate at or above p, the unused
    /// top bit set, or the sign of x = 0 set).
    #[error("not canonically encoded")]
    NonCanonical,
    /// A point of small order (`8·P` is the identity): signatures under it prove nothing, and
    /// an X25519 key of small order gives every sealer the same all-zero shared secret, which
    /// HPKE refuses, so nothing can be sealed to it.
    #[error("of small order")]
    SmallOrder,
    /// An ed25519 key with a torsion component: batch and single verification may disagree
    /// on its signatures. Honest keys (`a·B`) never have one.
    #[error("not in the prime-order subgroup")]
    MixedOrder,
}

/// Checks an ed25519 public key strictly: a canonical encoding of a point of the prime-order
/// subgroup (curve25519-dalek's decompression, `is_small_order`, and [`torsion_free`], which
/// agrees with `is_torsion_free` in variable time).
pub fn check_signing_key(key: &PublicKey) -> Result<(), KeyProblem> {
    let point = CompressedEdwardsY(key.0).decompress().ok_or(KeyProblem::NotOnCurve)?;
    if point.compress().0 != key.0 {
        return Err(KeyProblem::NonCanonical);
    }
    if point.is_small_order() {
        return Err(KeyProblem::SmallOrder);
    }
    if !torsion_free(&point) {
        return Err(KeyProblem::MixedOrder);
    }
    Ok(())
}

/// Whether `point` is in the prime-order subgroup (`ℓ·P` is the identity), in variable time:
/// the keys the terms carry are public, so a constant-time check (`is_torsion_free`, a
/// constant-time multiplication by ℓ) buys nothing. `Scalar` holds only reduced scalars, so ℓ
/// itself cannot be one: this computes `(ℓ - 1)·P` with curve25519-dalek's variable-time
/// `vartime_double_scalar_mul_basepoint` (plus `0·B`) and compares it with `-P`. The two are
/// equal exactly when `ℓ·P` is the identity: with `P = Q + T` (`Q` of order ℓ, `T` a torsion
/// point, of order dividing 8), `(ℓ - 1)·P = -Q + 4·T` since `ℓ ≡ 5 (mod 8)`, which is
/// `-Q - T` only when `5·T`, hence `T`, is the identity. Tested against `is_torsion_free` on
/// honest keys and on each of the eight torsion points added to them.
pub fn torsion_free(point: &EdwardsPoint) -> bool {
    let minus_one = -Scalar::ONE;
    EdwardsPoint::vartime_double_scalar_mul_basepoint(&minus_one, point, &Scalar::ZERO) == -point
}

/// Checks an X25519 seal key: the canonical u-coordinate of a point of Curve25519 (not its
/// twist) that is not of small order (curve25519-dalek: the birational map to Edwards form and
/// back, then `mul_by_cofactor` is not the identity). What passes gives a contributory
/// (non-zero) shared secret with every sealer, so HPKE can always seal to it.
pub fn check_seal_key(key: &SealPublicKey) -> Result<(), KeyProblem> {
    let point = MontgomeryPoint(key.0).to_edwards(0).ok_or(KeyProblem::NotOnCurve)?;
    if point.to_montgomery().0 != key.0 {
        return Err(KeyProblem::NonCanonical);
    }
    if point.is_small_order() {
        return Err(KeyProblem::SmallOrder);
    }
    Ok(())
}

/// One player in the terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerTerms {
    /// The player's signing key.
    pub key: PublicKey,
    /// The player's X25519 key, for what the umpire seals to it.
    pub seal_key: SealPublicKey,
    /// A fresh 32-byte nonce, so that no two matches have the same id.
    pub nonce: [u8; 32],
}

/// The umpire in the terms (umpired games only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UmpireTerms {
    /// The umpire's signing key.
    pub key: PublicKey,
    /// The umpire's X25519 key for this match, for what the players seal to it.
    pub seal_key: SealPublicKey,
    /// A fresh 32-byte nonce of the umpire's, from which its seal key for this match derives.
    pub nonce: [u8; 32],
}

/// How colors are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColorAssignment {
    /// `players[0]` is white.
    FirstIsWhite,
    /// Drawn from both players' public contributions ([`crate::seed::draw_colors`]).
    Drawn,
}

/// Time control, all in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Each side's initial clock.
    pub initial_ms: u64,
    /// Added to a side's clock after each action that moves the game (docs/PROTOCOL.md, clocks).
    pub increment_ms: u64,
    /// Time allowed for everything a side owes outside its move clock: commitments, reveals,
    /// openings, seal disclosures.
    pub reveal_ms: u64,
    /// Time allowed for an owed answer: the umpire's answer to an action, an Intrigue owner's
    /// informer answer.
    pub answer_ms: u64,
}

/// Limits on what one match may consume (TigerBeetle style: named, unit last). The relay and
/// the verifier enforce the same numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Messages one player may send in the whole match.
    pub max_messages_per_side: u32,
    /// Kriegspiel attempts one side may make in one turn (illegal ones included).
    pub max_attempts_per_turn: u32,
    /// Size of the whole match record, in bytes.
    pub max_record_bytes: u64,
}

impl Limits {
    /// Defaults generous enough for any honest game (the bots' longest games stay far below).
    pub const DEFAULT: Limits = Limits {
        max_messages_per_side: 20_000,
        max_attempts_per_turn: 256,
        // The format's maximum: a long SIC game's padded umpire views (4 KiB each while SIC's
        // legal moves were text; 512 bytes since, PROTOCOL.md 19) outgrew a third of 16 MiB in
        // an honest self-played game.
        max_record_bytes: MAX_RECORD_BYTES,
    };
}

/// The match terms (version 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchTerms {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The game and its options, typed ([`rules::GameOptions`]; on the wire the variant's id,
    /// then its option fields, docs/PROTOCOL.md 7). The variant ([`MatchTerms::variant`]) and
    /// the ruleset ([`MatchTerms::ruleset`]) derive from it: one source of truth. An unknown
    /// id, or a value the game does not have (e.g. nine Life Freezes), does not decode.
    pub game: rules::GameOptions,
    /// The two players, in the order they sign.
    pub players: [PlayerTerms; 2],
    /// How colors are assigned.
    pub colors: ColorAssignment,
    /// Whether the game is rated: signed by every party, so nobody can turn a casual game
    /// into a rated one (or back) after the challenge. Only rated games count in ratings, and
    /// even then not a game a player never moved in (docs/LEDGER.md, "How each end is rated").
    pub rated: bool,
    /// The relay's signing key (it signs receipts and timeouts).
    pub relay: PublicKey,
    /// The umpire, for umpired games.
    pub umpire: Option<UmpireTerms>,
    /// Clocks and deadlines.
    pub time_control: TimeControl,
    /// What the match may consume.
    pub limits: Limits,
}

impl Canonical for MatchTerms {
    const NAME: &'static str = "match terms";
    const MAX_BYTES: usize = 4096;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

impl MatchTerms {
    /// The color assignment when it does not depend on a draw.
    pub fn fixed_colors(&self) -> Option<ByColor<PublicKey>> {
        match self.colors {
            ColorAssignment::FirstIsWhite => {
                Some(ByColor { white: self.players[0].key, black: self.players[1].key })
            }
            ColorAssignment::Drawn => None,
        }
    }

    /// The game (derived from [`MatchTerms::game`]).
    pub const fn variant(&self) -> rules::Variant {
        self.game.variant()
    }

    /// The ruleset's name and version (`Variant::ruleset` of [`MatchTerms::variant`]): not a
    /// field of the signed bytes since protocol v3; a change of rules is a new variant id or a
    /// new protocol version.
    pub const fn ruleset(&self) -> &'static str {
        self.game.variant().ruleset()
    }

    /// The player entry with this key.
    pub fn player(&self, key: &PublicKey) -> Option<&PlayerTerms> {
        self.players.iter().find(|p| p.key == *key)
    }

    /// Every party that signs the terms, in signing order: `players[0]`, `players[1]`, the
    /// relay, the umpire (if any).
    pub fn signers(&self) -> Vec<PublicKey> {
        let mut out = vec![self.players[0].key, self.players[1].key, self.relay];
        out.extend(self.umpire.as_ref().map(|u| u.key));
        out
    }

    /// The parties by role name, in signing order: what the gate names a bad key by.
    fn roles(&self) -> Vec<(&'static str, PublicKey, SealPublicKey)> {
        let mut out = vec![
            ("players[0]", self.players[0].key, self.players[0].seal_key),
            ("players[1]", self.players[1].key, self.players[1].seal_key),
        ];
        out.extend(self.umpire.as_ref().map(|u| ("the umpire", u.key, u.seal_key)));
        out
    }

    /// **The one gate** (module docs): every rule about which terms are acceptable, in one
    /// place, called by the lobby, the relay, the machines, the agent and the verifier.
    ///
    /// In order: every signing key strict ([`check_signing_key`]) and every seal key one that
    /// can be sealed to ([`check_seal_key`]); one key per role (a key in two roles could answer
    /// for itself or receipt its own lies) and distinct seal keys; an umpire exactly when the
    /// variant's mode needs one ([`rules::Mode::Umpire`]); options the game has
    /// ([`rules::GameOptions::check`], for terms built in memory: decoded ones passed it); then
    /// each deadline, cap and budget within its range ([`bounds`]).
    pub fn validate(&self) -> Result<(), TermsError> {
        let relay = ("the relay", self.relay);
        let roles = self.roles();
        for (role, key) in roles.iter().map(|r| (r.0, r.1)).chain([relay]) {
            check_signing_key(&key).map_err(|problem| TermsError::Key { role, key, problem })?;
        }
        for &(role, _, key) in &roles {
            check_seal_key(&key).map_err(|problem| TermsError::SealKey { role, key, problem })?;
        }
        let signers = self.signers();
        for (i, a) in signers.iter().enumerate() {
            if signers[..i].contains(a) {
                return Err(TermsError::KeyInTwoRoles { key: *a });
            }
        }
        let seals: Vec<SealPublicKey> = roles.iter().map(|r| r.2).collect();
        for (i, a) in seals.iter().enumerate() {
            if seals[..i].contains(a) {
                return Err(TermsError::SealKeyInTwoRoles);
            }
        }
        let variant = self.variant();
        let umpired = variant.mode() == rules::Mode::Umpire;
        if self.umpire.is_some() != umpired {
            return Err(TermsError::Umpire { variant, named: self.umpire.is_some() });
        }
        self.game.check()?;
        let tc = self.time_control;
        let l = self.limits;
        let numbers = [
            ("time_control.initial_ms", tc.initial_ms, bounds::INITIAL_MS),
            ("time_control.increment_ms", tc.increment_ms, bounds::INCREMENT_MS),
            ("time_control.reveal_ms", tc.reveal_ms, bounds::REVEAL_MS),
            ("time_control.answer_ms", tc.answer_ms, bounds::ANSWER_MS),
            (
                "limits.max_messages_per_side",
                u64::from(l.max_messages_per_side),
                bounds::MESSAGES_PER_SIDE,
            ),
            (
                "limits.max_attempts_per_turn",
                u64::from(l.max_attempts_per_turn),
                bounds::ATTEMPTS_PER_TURN,
            ),
            ("limits.max_record_bytes", l.max_record_bytes, bounds::RECORD_BYTES),
        ];
        for (field, value, range) in numbers {
            if !range.contains(&value) {
                return Err(TermsError::OutOfRange {
                    field,
                    value,
                    min: *range.start(),
                    max: *range.end(),
                });
            }
        }
        Ok(())
    }
}

/// `H(fogproof/v2/match-id; ("terms", terms_bytes))`.
pub fn match_id(terms_bytes: &[u8]) -> MatchId {
    MatchId(Transcript::new(tags::MATCH_ID).append("terms", terms_bytes).finish())
}

/// The terms as bytes, with every signer's signature (in [`MatchTerms::signers`] order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedTerms {
    /// Canonical [`MatchTerms`] bytes, exactly as signed.
    pub terms: Vec<u8>,
    /// One signature per signer, in [`MatchTerms::signers`] order.
    pub signatures: Vec<Signature>,
}

impl Canonical for SignedTerms {
    const NAME: &'static str = "signed terms";
    const MAX_BYTES: usize = MatchTerms::MAX_BYTES + 4 * 72 + 16;
}

/// Terms whose signatures and checks have passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgreedTerms {
    /// The decoded terms.
    pub terms: MatchTerms,
    /// Their exact bytes.
    pub bytes: Vec<u8>,
    /// Their hash.
    pub match_id: MatchId,
}

/// Why terms were refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TermsError {
    /// The terms bytes are not canonical terms.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A signer's signature does not verify.
    #[error("signature {index} on the terms: {source}")]
    Signature {
        /// Its place in [`MatchTerms::signers`].
        index: usize,
        /// Why.
        source: SignatureError,
    },
    /// One key in two roles (both players, a player and the relay, the relay and the umpire...).
    #[error("the terms name {key} in two roles")]
    KeyInTwoRoles {
        /// The key.
        key: PublicKey,
    },
    /// Two parties with the same seal key.
    #[error("the terms name one seal key for two parties")]
    SealKeyInTwoRoles,
    /// A party's signing key is not a strict ed25519 key ([`check_signing_key`]).
    #[error("{role}'s key {key} is not a usable ed25519 key: {problem}")]
    Key {
        /// `players[0]`, `players[1]`, `the relay` or `the umpire`.
        role: &'static str,
        /// The key.
        key: PublicKey,
        /// What is wrong with it.
        problem: KeyProblem,
    },
    /// A party's seal key cannot be sealed to ([`check_seal_key`]).
    #[error("{role}'s seal key {key} cannot be sealed to: {problem}")]
    SealKey {
        /// `players[0]`, `players[1]` or `the umpire`.
        role: &'static str,
        /// The seal key.
        key: SealPublicKey,
        /// What is wrong with it.
        problem: KeyProblem,
    },
    /// An umpire in a game without one, or none in an umpired game.
    #[error("{variant} {}", if *named { "has no umpire, the terms name one" } else { "needs an umpire, the terms name none" })]
    Umpire {
        /// The variant.
        variant: rules::Variant,
        /// Whether the terms name an umpire.
        named: bool,
    },
    /// A deadline, cap or budget outside its range ([`bounds`]).
    #[error("the terms' {field} is {value}, outside {min}..={max}")]
    OutOfRange {
        /// The field, as `time_control.reveal_ms`.
        field: &'static str,
        /// Its value.
        value: u64,
        /// The least allowed.
        min: u64,
        /// The most allowed.
        max: u64,
    },
    /// Not one signature per signer.
    #[error("the terms carry {found} signatures, their signers are {expected}")]
    SignatureCount {
        /// Signers.
        expected: usize,
        /// Signatures.
        found: usize,
    },
    /// Options the game does not have (a typed value out of the game's range,
    /// [`rules::GameOptions::check`]).
    #[error("the terms' options: {0}")]
    Options(#[from] rules::OptionError),
    /// The would-be signer is not named by the terms.
    #[error("{key} is not a party of these terms")]
    NotAParty {
        /// The would-be signer.
        key: PublicKey,
    },
}

impl SignedTerms {
    /// One party's signature on the terms bytes.
    pub fn sign(terms: &MatchTerms, identity: &Identity) -> Result<Signature, TermsError> {
        if !terms.signers().contains(&identity.public()) {
            return Err(TermsError::NotAParty { key: identity.public() });
        }
        Ok(identity.sign(tags::TERMS, &terms.to_canonical()))
    }

    /// The terms signed by every party among `identities` (each must be a signer; every signer
    /// must be there).
    pub fn sign_all(terms: &MatchTerms, identities: &[&Identity]) -> Result<Self, TermsError> {
        let bytes = terms.to_canonical();
        let mut signatures = Vec::new();
        for key in terms.signers() {
            let id = identities
                .iter()
                .find(|i| i.public() == key)
                .ok_or(TermsError::NotAParty { key })?;
            signatures.push(id.sign(tags::TERMS, &bytes));
        }
        Ok(SignedTerms { terms: bytes, signatures })
    }

    /// Decodes the terms strictly, validates them and checks every signer's signature.
    pub fn verify(&self) -> Result<AgreedTerms, TermsError> {
        let terms = MatchTerms::from_canonical(&self.terms)?;
        terms.validate()?;
        let signers = terms.signers();
        if signers.len() != self.signatures.len() {
            return Err(TermsError::SignatureCount {
                expected: signers.len(),
                found: self.signatures.len(),
            });
        }
        for (index, (key, sig)) in signers.iter().zip(&self.signatures).enumerate() {
            key.verify(tags::TERMS, &self.terms, sig)
                .map_err(|source| TermsError::Signature { index, source })?;
        }
        Ok(AgreedTerms { match_id: match_id(&self.terms), bytes: self.terms.clone(), terms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
    use curve25519_dalek::traits::IsIdentity;

    /// The eight points of the torsion subgroup, from `batch`'s table of small-order encodings.
    fn torsion_points() -> Vec<EdwardsPoint> {
        let mut points: Vec<EdwardsPoint> = Vec::new();
        for enc in crate::batch::SMALL_ORDER {
            let p = CompressedEdwardsY(enc).decompress().expect("a curve point");
            assert!(p.is_small_order());
            if !points.contains(&p) {
                points.push(p);
            }
        }
        assert_eq!(points.len(), 8);
        points
    }

    #[test]
    fn variable_time_torsion_check_agrees_with_is_torsion_free() {
        let torsion = torsion_points();
        let mut keys: Vec<EdwardsPoint> = (1u8..=12)
            .map(|seed| {
                let public = Identity::from_seed(&[seed; 32]).public();
                CompressedEdwardsY(public.0).decompress().expect("an honest key")
            })
            .collect();
        keys.push(ED25519_BASEPOINT_POINT);
        keys.push(-ED25519_BASEPOINT_POINT);
        keys.push(ED25519_BASEPOINT_POINT * Scalar::from(8u8).invert());
        let mut mixed = 0;
        for key in &keys {
            assert!(key.is_torsion_free());
            assert!(torsion_free(key), "an honest key");
            for t in &torsion {
                let p = key + t;
                let expected = p.is_torsion_free();
                assert_eq!(torsion_free(&p), expected, "{:02x?}", p.compress().0);
                assert_eq!(expected, t.is_identity());
                if !expected {
                    mixed += 1;
                    let enc = PublicKey(p.compress().0);
                    assert_eq!(check_signing_key(&enc), Err(KeyProblem::MixedOrder));
                }
            }
            assert_eq!(check_signing_key(&PublicKey(key.compress().0)), Ok(()));
        }
        assert_eq!(mixed, keys.len() * 7);
        // The torsion points themselves: only the identity is in the prime-order subgroup.
        for t in &torsion {
            assert_eq!(torsion_free(t), t.is_torsion_free());
            assert_eq!(torsion_free(t), t.is_identity());
        }
    }
}
