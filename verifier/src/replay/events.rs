//! The record as the replay reads it: layer 1's authenticated entries, reduced to what the
//! replay looks at, in relay order. Nothing is decoded or verified again here.

use crate::envelope::Checked;
use protocol::keys::ByColour;
use protocol::message::Payload;
use protocol::terms::MatchTerms;
use protocol::{Channel, MatchId, MessageHash, PublicKey};

/// One record entry.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// Its index in the record's entries.
    pub index: usize,
    /// The message hash.
    pub hash: MessageHash,
    /// The channel.
    pub channel: Channel,
    /// The author.
    pub author: PublicKey,
    /// The relay's time of acceptance, in ms.
    pub time_ms: u64,
    /// What it says: for a sealed message, the disclosed inner payload.
    pub payload: &'a Payload,
    /// Whether it travelled sealed on a private channel.
    pub sealed: bool,
    /// The message it answers (`re`), if any.
    pub re: Option<MessageHash>,
}

/// A checked record, as the replay reads it.
#[derive(Clone, Debug)]
pub struct Decoded<'a> {
    /// The terms.
    pub terms: &'a MatchTerms,
    /// The match id.
    pub match_id: MatchId,
    /// The players by colour (fixed, or drawn from both public contributions by layer 1).
    pub colours: ByColour,
    /// The entries that count, in relay order (void races are left out: PROTOCOL.md, the race
    /// rule).
    pub events: Vec<Event<'a>>,
}

/// The replay's reading of a checked record.
#[must_use]
pub fn decode(checked: &Checked) -> Decoded<'_> {
    let events = checked
        .entries
        .iter()
        .filter(|e| !e.void)
        .map(|e| Event {
            index: e.index,
            hash: e.hash,
            channel: e.channel(),
            author: e.author(),
            time_ms: e.time_ms(),
            payload: &e.payload,
            sealed: e.sealed,
            re: e.body.re,
        })
        .collect();
    Decoded {
        terms: &checked.terms.terms,
        match_id: checked.terms.match_id,
        colours: checked.colours,
        events,
    }
}
