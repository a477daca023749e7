//! Commitments: hiding and binding promises to a value, opened later.
//!
//! ```text
//! commit(purpose, match_id, author, value, nonce) = H(fogproof/v2/commitment;
//!     ("purpose", purpose), ("match-id", match_id), ("author", author ed25519 key),
//!     ("value", value), ("nonce", nonce))
//! ```
//!
//! The nonce is 32 fresh random bytes ([`crate::keys::random_32`]); it hides short values such
//! as a king square. The author's key is inside the hash, so a copied commitment can never be
//! opened by the copier; [`check_distinct`] refuses copies outright.

use crate::keys::PublicKey;
use crate::tags;
use crate::transcript::Transcript;
use crate::{Commitment, MatchId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// What a commitment is for. Each party commits at most once per purpose in a match. On the
/// wire it is its name, a string (PROTOCOL.md, commitments); a name nobody defined does not
/// decode, and the name is what the commitment hash binds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Purpose {
    /// `public-contribution`: a player's share of the public coin (colors, shared setups).
    PublicContribution,
    /// `private-seed`: a player's private random seed (its own SIC army).
    PrivateSeed,
    /// `intrigue-setup`: an Intrigue player's secret setup (its king square and informer).
    IntrigueSetup,
    /// `secretchess6-setup`: a 6x6 player's formation and false squares.
    SecretChess6Setup,
    /// `tiebreak`: a 6x6 player's tie-break submission.
    TieBreak,
}

impl Purpose {
    /// Every purpose.
    pub const ALL: [Purpose; 5] = [
        Purpose::PublicContribution,
        Purpose::PrivateSeed,
        Purpose::IntrigueSetup,
        Purpose::SecretChess6Setup,
        Purpose::TieBreak,
    ];

    /// The name on the wire, in the commitment hash and in every output.
    pub const fn name(self) -> &'static str {
        match self {
            Purpose::PublicContribution => "public-contribution",
            Purpose::PrivateSeed => "private-seed",
            Purpose::IntrigueSetup => "intrigue-setup",
            Purpose::SecretChess6Setup => "secretchess6-setup",
            Purpose::TieBreak => "tiebreak",
        }
    }

    /// The purpose named `name`, if any.
    pub fn from_name(name: &str) -> Option<Purpose> {
        Purpose::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl From<Purpose> for String {
    fn from(p: Purpose) -> String {
        p.name().to_owned()
    }
}

impl TryFrom<String> for Purpose {
    type Error = UnknownPurpose;
    fn try_from(name: String) -> Result<Purpose, UnknownPurpose> {
        Purpose::from_name(&name).ok_or(UnknownPurpose(name))
    }
}

impl std::fmt::Display for Purpose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A commitment purpose nobody defined.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown commitment purpose {0:?}")]
pub struct UnknownPurpose(pub String);

/// Purpose of the commitment to a player's private random seed.
pub const PRIVATE_SEED: Purpose = Purpose::PrivateSeed;
/// Purpose of the commitment to a player's public random contribution.
pub const PUBLIC_CONTRIBUTION: Purpose = Purpose::PublicContribution;

/// What opens a commitment: the value and the nonce.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// The committed value (its meaning depends on the purpose).
    pub value: Vec<u8>,
    /// The 32-byte nonce.
    pub nonce: [u8; 32],
}

impl std::fmt::Debug for Opening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Opening({} value bytes)", self.value.len())
    }
}

/// Computes a commitment (formula in the module docs).
pub fn commit(
    purpose: Purpose,
    match_id: &MatchId,
    author: &PublicKey,
    value: &[u8],
    nonce: &[u8; 32],
) -> Commitment {
    Commitment(
        Transcript::new(tags::COMMITMENT)
            .append("purpose", purpose.name().as_bytes())
            .append("match-id", &match_id.0)
            .append("author", &author.0)
            .append("value", value)
            .append("nonce", nonce)
            .finish(),
    )
}

/// Why an opening was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum OpeningError {
    /// The opening does not hash to the commitment.
    #[error(
        "opening of '{purpose}' by {author} does not match its commitment {commitment} \
         (wrong value, nonce, purpose, author or match)"
    )]
    Mismatch {
        /// The purpose checked.
        purpose: Purpose,
        /// The author checked.
        author: PublicKey,
        /// The commitment it should open.
        commitment: Commitment,
    },
}

/// Checks that `opening` opens `commitment` for this purpose, match and author.
pub fn check_opening(
    commitment: &Commitment,
    purpose: Purpose,
    match_id: &MatchId,
    author: &PublicKey,
    opening: &Opening,
) -> Result<(), OpeningError> {
    if commit(purpose, match_id, author, &opening.value, &opening.nonce) == *commitment {
        Ok(())
    } else {
        Err(OpeningError::Mismatch { purpose, author: *author, commitment: *commitment })
    }
}

/// One published commitment, as [`check_distinct`] sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// Who published it.
    pub author: PublicKey,
    /// Its purpose.
    pub purpose: Purpose,
    /// The commitment.
    pub commitment: Commitment,
}

/// Two published commitments are equal (boxed: errors stay small).
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "commitment {} appears twice: '{}' by {} and '{}' by {}{}",
    first.commitment, first.purpose, first.author, second.purpose, second.author,
    if first.author != second.author { " (a copied commitment)" } else { "" }
)]
pub struct DuplicateCommitmentError {
    /// The earlier entry.
    pub first: Box<Committed>,
    /// The later entry, with the same commitment.
    pub second: Box<Committed>,
}

/// Refuses any commitment value published twice in a match: above all one player copying the
/// other's commitment (which would let it mirror a value it cannot know), but also one author
/// repeating itself (which can only mean a reused value and nonce).
pub fn check_distinct(entries: &[Committed]) -> Result<(), DuplicateCommitmentError> {
    let mut seen: BTreeMap<Commitment, &Committed> = BTreeMap::new();
    for e in entries {
        if let Some(first) = seen.insert(e.commitment, e) {
            return Err(DuplicateCommitmentError {
                first: Box::new(first.clone()),
                second: Box::new(e.clone()),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Identity;

    fn setup() -> (MatchId, PublicKey, PublicKey) {
        let a = Identity::from_seed(&[1; 32]).public();
        let b = Identity::from_seed(&[2; 32]).public();
        (MatchId([9; 32]), a, b)
    }

    #[test]
    fn opening_checks() {
        let (m, a, _) = setup();
        let c = commit(PRIVATE_SEED, &m, &a, b"seed", &[3; 32]);
        let good = Opening { value: b"seed".to_vec(), nonce: [3; 32] };
        assert_eq!(check_opening(&c, PRIVATE_SEED, &m, &a, &good), Ok(()));
    }

    #[test]
    fn bad_opening_is_refused() {
        let (m, a, b) = setup();
        let c = commit(PRIVATE_SEED, &m, &a, b"seed", &[3; 32]);
        let wrong_value = Opening { value: b"seee".to_vec(), nonce: [3; 32] };
        let wrong_nonce = Opening { value: b"seed".to_vec(), nonce: [4; 32] };
        let good = Opening { value: b"seed".to_vec(), nonce: [3; 32] };
        assert!(check_opening(&c, PRIVATE_SEED, &m, &a, &wrong_value).is_err());
        assert!(check_opening(&c, PRIVATE_SEED, &m, &a, &wrong_nonce).is_err());
        assert!(check_opening(&c, PUBLIC_CONTRIBUTION, &m, &a, &good).is_err());
        assert!(check_opening(&c, PRIVATE_SEED, &MatchId([8; 32]), &a, &good).is_err());
        let e = check_opening(&c, PRIVATE_SEED, &m, &b, &good).unwrap_err();
        assert!(e.to_string().contains("private-seed"), "{e}");
    }

    #[test]
    fn duplicate_commitments_are_refused() {
        let (m, a, b) = setup();
        let ca = commit(PRIVATE_SEED, &m, &a, b"x", &[3; 32]);
        let cb = commit(PRIVATE_SEED, &m, &b, b"x", &[3; 32]);
        assert_ne!(ca, cb, "the author is inside the hash");
        let entry = |author, commitment| Committed { author, purpose: PRIVATE_SEED, commitment };
        assert_eq!(check_distinct(&[entry(a, ca), entry(b, cb)]), Ok(()));
        let e = check_distinct(&[entry(a, ca), entry(b, cb), entry(b, ca)]).unwrap_err();
        assert_eq!(e.first.author, a);
        assert_eq!(e.second.author, b);
        assert!(e.to_string().contains("copied"), "{e}");
        let e = check_distinct(&[entry(a, ca), entry(a, ca)]).unwrap_err();
        assert!(!e.to_string().contains("copied"), "{e}");
    }

    #[test]
    fn purposes_travel_as_their_names_and_unknown_names_do_not_decode() {
        for purpose in Purpose::ALL {
            let wire = postcard::to_allocvec(&purpose).unwrap();
            assert_eq!(wire, postcard::to_allocvec(purpose.name()).unwrap(), "{purpose}");
            assert_eq!(postcard::from_bytes::<Purpose>(&wire).unwrap(), purpose);
            assert_eq!(Purpose::from_name(purpose.name()), Some(purpose));
        }
        let names: std::collections::BTreeSet<_> = Purpose::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), Purpose::ALL.len(), "distinct names");
        for unknown in ["", "private_seed", "Private-seed", "private-seed ", "king-square"] {
            let wire = postcard::to_allocvec(unknown).unwrap();
            assert!(postcard::from_bytes::<Purpose>(&wire).is_err(), "{unknown:?} decoded");
        }
    }
}
