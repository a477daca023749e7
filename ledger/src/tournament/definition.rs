//! A tournament's definition: what the organiser signs before round 1.
//!
//! Bytes: one version byte ([`DEFINITION_VERSION`]) followed by the postcard encoding of
//! [`TournamentDefinition`]. Decoding re-encodes and insists on the same bytes, so each definition
//! has exactly one accepted encoding (canonical).
//!
//! Signature: ed25519 (`verify_strict`) by the organiser over
//! `len(tag) as u32 big-endian || tag || bytes` with the domain tag
//! [`DEFINITION_SIGNATURE_TAG`], so a definition signature can never be mistaken for any other
//! fogproof signature (whose tags all differ).

use super::PlayerIndex;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use protocol::{PublicKey, Signature};
use rules::Variant;
use serde::{Deserialize, Serialize};

/// The encoding version byte that starts every definition's bytes.
pub const DEFINITION_VERSION: u8 = 1;
/// The domain tag of the organiser's signature.
pub const DEFINITION_SIGNATURE_TAG: &str = "fogproof/v1/tournament-definition";
/// The largest number of players a definition may have.
pub const MAX_PLAYERS: usize = 1000;

/// The pairing system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum System {
    /// Everyone plays everyone by the FIDE Berger tables, once or twice.
    RoundRobin {
        /// Two cycles, colors reversed in the second.
        double: bool,
    },
    /// FIDE Dutch Swiss.
    Swiss {
        /// Number of rounds.
        rounds: u32,
    },
}

/// A tie-break (FIDE C.07 names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TieBreak {
    /// Sum of opponents' scores.
    Buchholz,
    /// Buchholz without the lowest opponent's score.
    BuchholzCut1,
    /// Buchholz without the highest and lowest.
    MedianBuchholz,
    /// Sum of beaten opponents' scores and half of drawn opponents' scores.
    SonnebornBerger,
    /// Points scored against the other players tied with this one.
    DirectEncounter,
    /// Games won over the board.
    Wins,
    /// Sum of the running score after each round.
    ProgressiveScore,
}

/// One entrant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// Their identity.
    pub key: PublicKey,
    /// Display name.
    pub name: String,
    /// Rating used to seed (initial ranking); unrated players rank below rated ones.
    pub rating: Option<u16>,
}

/// What the organiser signs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentDefinition {
    /// The tournament's name.
    pub name: String,
    /// The game played.
    pub variant: Variant,
    /// The ruleset's stable name (e.g. `kriegspiel/1899-icc`).
    pub ruleset: String,
    /// Round-robin or Swiss.
    pub system: System,
    /// The entrants.
    pub players: Vec<Entrant>,
    /// Tie-breaks, in the order they are applied.
    pub tie_breaks: Vec<TieBreak>,
    /// The time control, free text (e.g. `5+3`).
    pub time_control: String,
}

/// Why a definition was refused.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    /// Empty input.
    #[error("tournament definition bytes are empty")]
    Empty,
    /// Unknown version byte.
    #[error("tournament definition version {0} is not supported (expected {DEFINITION_VERSION})")]
    Version(u8),
    /// postcard could not decode or encode it.
    #[error("tournament definition does not decode: {0}")]
    Codec(#[from] postcard::Error),
    /// Decoded, but the bytes are not the canonical encoding.
    #[error("tournament definition bytes are not canonical")]
    NotCanonical,
    /// Fewer than two players.
    #[error("a tournament needs at least 2 players, this one has {0}")]
    TooFewPlayers(usize),
    /// Too many players.
    #[error("a tournament may have at most {MAX_PLAYERS} players, this one has {0}")]
    TooManyPlayers(usize),
    /// The same key twice.
    #[error("player {first} and player {second} have the same key {key}")]
    DuplicateKey {
        /// Index of the first.
        first: usize,
        /// Index of the second.
        second: usize,
        /// The key.
        key: PublicKey,
    },
    /// A Swiss with zero rounds, or more rounds than possible opponents.
    #[error("a Swiss of {players} players cannot have {rounds} rounds")]
    BadRounds {
        /// Rounds asked for.
        rounds: u32,
        /// Players.
        players: usize,
    },
    /// The same tie-break twice.
    #[error("tie-break {0:?} is listed twice")]
    DuplicateTieBreak(TieBreak),
    /// The organiser key is not a valid ed25519 key.
    #[error("organiser key {0} is not a valid ed25519 public key")]
    BadKey(PublicKey),
    /// The signature does not verify.
    #[error("the organiser's signature on the tournament definition does not verify")]
    BadSignature,
}

/// A definition with its organiser's signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedDefinition {
    /// The canonical definition bytes.
    pub bytes: Vec<u8>,
    /// The organiser's key.
    pub organiser: PublicKey,
    /// The signature.
    pub signature: Signature,
}

fn signing_input(bytes: &[u8]) -> Vec<u8> {
    let tag = DEFINITION_SIGNATURE_TAG.as_bytes();
    let mut out = Vec::with_capacity(4 + tag.len() + bytes.len());
    // The tag is a short constant: its length always fits.
    out.extend_from_slice(&(tag.len() as u32).to_be_bytes());
    out.extend_from_slice(tag);
    out.extend_from_slice(bytes);
    out
}

impl TournamentDefinition {
    /// Checks the definition's own consistency.
    pub fn validate(&self) -> Result<(), DefinitionError> {
        let n = self.players.len();
        if n < 2 {
            return Err(DefinitionError::TooFewPlayers(n));
        }
        if n > MAX_PLAYERS {
            return Err(DefinitionError::TooManyPlayers(n));
        }
        let mut keys = std::collections::BTreeMap::new();
        for (i, p) in self.players.iter().enumerate() {
            if let Some(first) = keys.insert(p.key, i) {
                return Err(DefinitionError::DuplicateKey { first, second: i, key: p.key });
            }
        }
        if let System::Swiss { rounds } = self.system
            && (rounds == 0 || rounds as usize >= n)
        {
            return Err(DefinitionError::BadRounds { rounds, players: n });
        }
        let mut seen = std::collections::BTreeSet::new();
        for t in &self.tie_breaks {
            if !seen.insert(*t) {
                return Err(DefinitionError::DuplicateTieBreak(*t));
            }
        }
        Ok(())
    }

    /// The canonical bytes: version byte then postcard.
    pub fn to_bytes(&self) -> Result<Vec<u8>, DefinitionError> {
        let mut out = vec![DEFINITION_VERSION];
        out.extend(postcard::to_allocvec(self)?);
        Ok(out)
    }

    /// Decodes canonical bytes and validates the result.
    pub fn from_bytes(bytes: &[u8]) -> Result<TournamentDefinition, DefinitionError> {
        let (&version, body) = bytes.split_first().ok_or(DefinitionError::Empty)?;
        if version != DEFINITION_VERSION {
            return Err(DefinitionError::Version(version));
        }
        let def: TournamentDefinition = postcard::from_bytes(body)?;
        if def.to_bytes()? != bytes {
            return Err(DefinitionError::NotCanonical);
        }
        def.validate()?;
        Ok(def)
    }

    /// Validates, encodes and signs.
    pub fn sign(&self, organiser: &SigningKey) -> Result<SignedDefinition, DefinitionError> {
        self.validate()?;
        let bytes = self.to_bytes()?;
        let sig = organiser.sign(&signing_input(&bytes));
        Ok(SignedDefinition {
            bytes,
            organiser: PublicKey(organiser.verifying_key().to_bytes()),
            signature: Signature { r: *sig.r_bytes(), s: *sig.s_bytes() },
        })
    }

    /// Number of rounds.
    pub fn rounds(&self) -> u32 {
        let n = self.players.len() as u32;
        match self.system {
            System::RoundRobin { double } => {
                let per_cycle = if n.is_multiple_of(2) { n.saturating_sub(1) } else { n };
                if double { per_cycle * 2 } else { per_cycle }
            }
            System::Swiss { rounds } => rounds,
        }
    }

    /// Players in initial-ranking order (pairing numbers 1, 2, …): rating descending (unrated
    /// last), then definition order.
    pub fn initial_ranking(&self) -> Vec<PlayerIndex> {
        let mut order: Vec<PlayerIndex> = (0..self.players.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.players[i].rating), i));
        order
    }
}

impl SignedDefinition {
    /// Checks the signature and decodes the definition.
    pub fn verify(&self) -> Result<TournamentDefinition, DefinitionError> {
        let key = VerifyingKey::from_bytes(&self.organiser.0)
            .map_err(|_| DefinitionError::BadKey(self.organiser))?;
        let sig = ed25519_dalek::Signature::from_components(self.signature.r, self.signature.s);
        key.verify_strict(&signing_input(&self.bytes), &sig)
            .map_err(|_| DefinitionError::BadSignature)?;
        TournamentDefinition::from_bytes(&self.bytes)
    }
}
