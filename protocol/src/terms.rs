//! Match terms: what both players sign before anything else; their hash is the match id.
//!
//! ```text
//! terms_bytes = postcard(MatchTerms)              (canonical, checked by the strict decoder)
//! match_id    = H(fogproof/v1/match-id; ("terms", terms_bytes))
//! signature_i = ed25519(players[i].key, signing_input(fogproof/v1/terms, terms_bytes))
//! ```

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
    /// The umpire's X25519 key, for what the players seal to it.
    pub seal_key: SealPublicKey,
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
    /// Added to a side's clock after each move it makes.
    pub increment_ms: u64,
    /// Time allowed for each reveal (setup and end-of-game openings).
    pub reveal_ms: u64,
}

/// The match terms (version 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchTerms {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// Variant id as the rules crate names it (`kriegspiel`, `sic`, ...).
    pub variant: String,
    /// Ruleset name and version (`Variant::ruleset()`).
    pub ruleset: String,
    /// Variant options, by name.
    pub options: BTreeMap<String, String>,
    /// The two players, in the order they sign.
    pub players: [PlayerTerms; 2],
    /// How colours are assigned.
    pub colours: Colours,
    /// The relay's signing key (it signs receipts and timeouts).
    pub relay: PublicKey,
    /// The umpire, for umpired games.
    pub umpire: Option<UmpireTerms>,
    /// Clocks and reveal deadlines.
    pub time_control: TimeControl,
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

    /// The player entry with this key.
    pub fn player(&self, key: &PublicKey) -> Option<&PlayerTerms> {
        self.players.iter().find(|p| p.key == *key)
    }

    /// The logical checks the bytes cannot express.
    pub fn validate(&self) -> Result<(), TermsError> {
        let [a, b] = [self.players[0].key, self.players[1].key];
        if a == b {
            return Err(TermsError::SamePlayerTwice { key: a });
        }
        let others = [Some(self.relay), self.umpire.as_ref().map(|u| u.key)];
        for key in others.into_iter().flatten() {
            if key == a || key == b {
                return Err(TermsError::PlayerAlsoOfficial { key });
            }
        }
        if self.variant.is_empty() || self.ruleset.is_empty() {
            return Err(TermsError::Empty);
        }
        Ok(())
    }
}

/// `H(fogproof/v1/match-id; ("terms", terms_bytes))`.
pub fn match_id(terms_bytes: &[u8]) -> MatchId {
    MatchId(Transcript::new(tags::MATCH_ID).append("terms", terms_bytes).finish())
}

/// The terms as bytes, with both players' signatures (in `players` order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedTerms {
    /// Canonical [`MatchTerms`] bytes, exactly as signed.
    pub terms: Vec<u8>,
    /// `players[0]`'s then `players[1]`'s signature.
    pub signatures: [Signature; 2],
}

impl Canonical for SignedTerms {
    const NAME: &'static str = "signed terms";
    const MAX_BYTES: usize = MatchTerms::MAX_BYTES + 256;
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
    /// A player's signature does not verify.
    #[error("signature of player {index} on the terms: {source}")]
    Signature {
        /// 0 or 1.
        index: usize,
        /// Why.
        source: SignatureError,
    },
    /// Both players have the same key.
    #[error("the terms name {key} as both players")]
    SamePlayerTwice {
        /// The key.
        key: PublicKey,
    },
    /// A player is also the relay or the umpire.
    #[error("player {key} is also the relay or the umpire")]
    PlayerAlsoOfficial {
        /// The key.
        key: PublicKey,
    },
    /// Empty variant or ruleset.
    #[error("the terms' variant and ruleset must not be empty")]
    Empty,
    /// The signer is not `players[index]`.
    #[error("{key} is not player {index} of these terms")]
    NotThePlayer {
        /// 0 or 1.
        index: usize,
        /// The would-be signer.
        key: PublicKey,
    },
}

impl SignedTerms {
    /// One player's signature on the terms bytes (`index` is its place in `players`).
    pub fn sign(
        terms: &MatchTerms,
        index: usize,
        identity: &Identity,
    ) -> Result<Signature, TermsError> {
        if terms.players.get(index).map(|p| p.key) != Some(identity.public()) {
            return Err(TermsError::NotThePlayer { index, key: identity.public() });
        }
        Ok(identity.sign(tags::TERMS, &terms.to_canonical()))
    }

    /// Decodes the terms strictly, validates them and checks both signatures.
    pub fn verify(&self) -> Result<AgreedTerms, TermsError> {
        let terms = MatchTerms::from_canonical(&self.terms)?;
        terms.validate()?;
        for (index, (player, sig)) in terms.players.iter().zip(&self.signatures).enumerate() {
            player
                .key
                .verify(tags::TERMS, &self.terms, sig)
                .map_err(|source| TermsError::Signature { index, source })?;
        }
        Ok(AgreedTerms { match_id: match_id(&self.terms), bytes: self.terms.clone(), terms })
    }
}
