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
//! accepts its seal key, the time control and the limits. One key in two roles is refused here
//! ([`MatchTerms::validate`]), and the relay and the verifier call the same function.

use crate::MatchId;
use crate::codec::{self, Canonical, DecodeError};
use crate::keys::{ByColour, Identity, PublicKey, Signature, SignatureError};
use crate::seal::SealPublicKey;
use crate::tags;
use crate::transcript::Transcript;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

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

/// How colours are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Colours {
    /// `players[0]` is white.
    FirstIsWhite,
    /// Drawn from both players' public contributions ([`crate::seed::draw_colours`]).
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
        // The format's maximum: a long SIC game's padded umpire views (4 KiB each, PROTOCOL.md
        // 19) outgrew a third of 16 MiB in an honest self-played game.
        max_record_bytes: crate::record::MAX_RECORD_BYTES,
    };
}

/// The match terms (version 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchTerms {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The game, travelling as its id (`kriegspiel`, `sic`, ...): an unknown id does not decode.
    pub variant: rules::Variant,
    /// Ruleset name and version (`Variant::ruleset()`).
    pub ruleset: String,
    /// The game's options in their one text form ([`rules::GameOptions::to_map`]: only what
    /// differs from the defaults); code reads them through [`MatchTerms::game_options`].
    pub options: BTreeMap<String, String>,
    /// The two players, in the order they sign.
    pub players: [PlayerTerms; 2],
    /// How colours are assigned.
    pub colours: Colours,
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
    /// The colour assignment when it does not depend on a draw.
    pub fn fixed_colours(&self) -> Option<ByColour> {
        match self.colours {
            Colours::FirstIsWhite => {
                Some(ByColour { white: self.players[0].key, black: self.players[1].key })
            }
            Colours::Drawn => None,
        }
    }

    /// The game's options, read by the one parser the relay, the machines and the verifier
    /// share ([`rules::GameOptions::parse`]); [`MatchTerms::validate`] refuses terms whose
    /// options it refuses.
    pub fn game_options(&self) -> Result<rules::GameOptions, rules::OptionError> {
        rules::GameOptions::parse(self.variant, &self.options)
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

    /// The logical checks the bytes cannot express: one key per role (a key in two roles could
    /// answer for itself or receipt its own lies), seal keys distinct, non-empty names, sane
    /// limits, options the game has. The relay and the verifier both call this.
    pub fn validate(&self) -> Result<(), TermsError> {
        let signers = self.signers();
        for (i, a) in signers.iter().enumerate() {
            if signers[..i].contains(a) {
                return Err(TermsError::KeyInTwoRoles { key: *a });
            }
        }
        let mut seals = vec![self.players[0].seal_key, self.players[1].seal_key];
        seals.extend(self.umpire.as_ref().map(|u| u.seal_key));
        for (i, a) in seals.iter().enumerate() {
            if seals[..i].contains(a) {
                return Err(TermsError::SealKeyInTwoRoles);
            }
        }
        if self.ruleset.is_empty() {
            return Err(TermsError::Empty);
        }
        self.game_options()?;
        let l = self.limits;
        if l.max_messages_per_side == 0
            || l.max_attempts_per_turn == 0
            || l.max_record_bytes > crate::record::MAX_RECORD_BYTES
        {
            return Err(TermsError::Limits(l));
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
    /// Limits of zero, or a record limit above what any reader accepts.
    #[error("the terms' limits are not usable: {0:?}")]
    Limits(Limits),
    /// Not one signature per signer.
    #[error("the terms carry {found} signatures, their signers are {expected}")]
    SignatureCount {
        /// Signers.
        expected: usize,
        /// Signatures.
        found: usize,
    },
    /// An empty ruleset.
    #[error("the terms' ruleset must not be empty")]
    Empty,
    /// Options the game does not have, a bad value, or a default written out.
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
