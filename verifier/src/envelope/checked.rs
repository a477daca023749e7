//! What layer 1 hands layer 2: the record decoded and authenticated, so the replay never parses
//! or verifies anything again.

use crate::MatchRole;
use protocol::commitment::{self, Opening};
use protocol::keys::ByColor;
use protocol::message::{Expectation, MessageBody, Payload, Receipt};
use protocol::record::MatchRecord;
use protocol::terms::AgreedTerms;
use protocol::{Channel, Color, Commitment, MatchId, MessageHash, PublicKey};
use rules::Variant;

/// A record whose envelope checked out, ready for replay.
///
/// Everything in it is authenticated: the terms by both players, every entry by its author and
/// the relay, every disclosed plaintext by opening it under its disclosed, committed key, every
/// opening against its commitment.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The decoded record, as stored.
    pub record: MatchRecord,
    /// The verified terms (decoded terms, their bytes, the match id).
    pub terms: AgreedTerms,
    /// The game, from the terms' variant id (its ruleset matches `Variant::ruleset`).
    pub variant: Variant,
    /// Who plays which color: fixed by the terms or drawn from both public contributions.
    pub colors: ByColor<PublicKey>,
    /// The players' public contributions in `players` order, when both were revealed.
    pub contributions: Option<[[u8; 32]; 2]>,
    /// Every entry, in record order (which is the relay's acceptance order).
    pub entries: Vec<CheckedEntry>,
    /// Every commitment with its opening, in the order they were published.
    pub commitments: Vec<CheckedCommitment>,
    /// Every relay timeout, each confirmed by the coordinator's clocks: (entry, party,
    /// expectation, deadline).
    pub timeouts: Vec<(usize, protocol::Party, Expectation, u64)>,
}

/// One authenticated record entry.
#[derive(Clone, Debug)]
pub struct CheckedEntry {
    /// Its index in `record.entries`.
    pub index: usize,
    /// The message hash.
    pub hash: MessageHash,
    /// The decoded, signature-checked body.
    pub body: MessageBody,
    /// The decoded, relay-checked receipt.
    pub receipt: Receipt,
    /// The author's role in this match.
    pub role: MatchRole,
    /// What the message says: for a sealed message the disclosed inner payload (never `Sealed`),
    /// otherwise the body's payload.
    pub payload: Payload,
    /// Whether the payload was sealed on a private channel (and is shown through its disclosure).
    pub sealed: bool,
    /// A void race (docs/PROTOCOL.md, the race rule): recorded, ignored, nobody's fault.
    pub void: bool,
    /// The index in `record.entries` of the entry its `seen` names (by its order head), if any.
    pub seen: Option<usize>,
}

impl CheckedEntry {
    /// The author's key.
    pub fn author(&self) -> PublicKey {
        self.body.author
    }

    /// The channel.
    pub fn channel(&self) -> Channel {
        self.body.channel
    }

    /// The relay's time of acceptance, in ms.
    pub fn time_ms(&self) -> u64 {
        self.receipt.time_ms
    }

    /// The author's side, if the author is a player.
    pub fn side(&self) -> Option<Color> {
        side_of_role(self.role)
    }
}

/// A published commitment and where it was opened.
#[derive(Clone, Debug)]
pub struct CheckedCommitment {
    /// Who committed.
    pub author: PublicKey,
    /// The author's role.
    pub role: MatchRole,
    /// What it commits to.
    pub purpose: protocol::commitment::Purpose,
    /// The commitment.
    pub commitment: Commitment,
    /// The entry that published it.
    pub entry: usize,
    /// The first opening that matches it, with the entry that carried it.
    pub opening: Option<(usize, Opening)>,
}

/// The side a role plays, for White and Black.
pub fn side_of_role(role: MatchRole) -> Option<Color> {
    match role {
        MatchRole::White => Some(Color::White),
        MatchRole::Black => Some(Color::Black),
        MatchRole::Umpire | MatchRole::Relay | MatchRole::Record => None,
    }
}

/// The role of a side.
pub fn role_of_side(side: Color) -> MatchRole {
    match side {
        Color::White => MatchRole::White,
        Color::Black => MatchRole::Black,
    }
}

impl Checked {
    /// The match id.
    pub fn match_id(&self) -> MatchId {
        self.terms.match_id
    }

    /// The role of a key in this match (`None` for a key the terms do not name).
    pub fn role_of(&self, key: &PublicKey) -> Option<MatchRole> {
        roles(&self.terms, &self.colors, key)
    }

    /// The key playing a role (`None` for `Record`, and for `Umpire` in games without one).
    pub fn key_of(&self, role: MatchRole) -> Option<PublicKey> {
        match role {
            MatchRole::White => Some(self.colors.white),
            MatchRole::Black => Some(self.colors.black),
            MatchRole::Umpire => self.terms.terms.umpire.as_ref().map(|u| u.key),
            MatchRole::Relay => Some(self.terms.terms.relay),
            MatchRole::Record => None,
        }
    }

    /// The opening of `author`'s commitment to `purpose`, if it was opened.
    pub fn opening(
        &self,
        author: &PublicKey,
        purpose: protocol::commitment::Purpose,
    ) -> Option<&Opening> {
        self.commitments
            .iter()
            .find(|c| c.author == *author && c.purpose == purpose)
            .and_then(|c| c.opening.as_ref().map(|(_, o)| o))
    }

    /// A side's private seed (the opening of its `private-seed` commitment), if 32 bytes.
    pub fn private_seed(&self, side: Color) -> Option<[u8; 32]> {
        let o = self.opening(&self.colors[side], commitment::PRIVATE_SEED)?;
        o.value.as_slice().try_into().ok()
    }

    /// A side's public contribution.
    pub fn contribution(&self, side: Color) -> Option<[u8; 32]> {
        let key = self.colors[side];
        let index = self.terms.terms.players.iter().position(|p| p.key == key)?;
        self.contributions.map(|c| c[index])
    }

    /// A side's setup seed (`protocol::seed::setup_seed`), when its private seed and the
    /// opponent's contribution are both known.
    pub fn setup_seed(&self, side: Color) -> Option<[u8; 32]> {
        let own = self.private_seed(side)?;
        let theirs = self.contribution(side.other())?;
        Some(protocol::seed::setup_seed(&own, &theirs, &self.terms.match_id, side))
    }

    /// The relay's timeout notices, each confirmed by the coordinator: (entry index, party,
    /// expectation, deadline in ms).
    pub fn timeouts(
        &self,
    ) -> impl Iterator<Item = (usize, protocol::Party, Expectation, u64)> + '_ {
        self.timeouts.iter().copied()
    }
}

/// The role of `key` under these terms and colors.
pub(crate) fn roles(
    terms: &AgreedTerms,
    colors: &ByColor<PublicKey>,
    key: &PublicKey,
) -> Option<MatchRole> {
    if let Some(side) = colors.color_of(key) {
        return Some(role_of_side(side));
    }
    if terms.terms.relay == *key {
        return Some(MatchRole::Relay);
    }
    if terms.terms.umpire.as_ref().is_some_and(|u| u.key == *key) {
        return Some(MatchRole::Umpire);
    }
    None
}
