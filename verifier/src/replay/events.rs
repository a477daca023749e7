//! The record as the replay reads it: every entry's decoded body, its receipt time, and for a
//! sealed payload the disclosed plaintext. Layer 1 has already checked signatures, chains,
//! receipts and disclosures; this only decodes (cheaply, without re-verifying anything), so the
//! replay can stay a plain loop over events in relay order.

use crate::{Fault, FaultKind, Role};
use protocol::codec::Canonical;
use protocol::message::{MessageBody, Payload, Receipt};
use protocol::record::MatchRecord;
use protocol::terms::MatchTerms;
use protocol::{Channel, MatchId, MessageHash, PublicKey};
use std::collections::BTreeMap;

/// One record entry, decoded.
#[derive(Clone, Debug)]
pub struct Event {
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
    pub payload: Payload,
    /// Whether it travelled sealed on a private channel.
    pub sealed: bool,
    /// For a sealed message: whether the record discloses its plaintext.
    pub disclosed: bool,
}

/// A record, decoded for the replay.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// The terms.
    pub terms: MatchTerms,
    /// The match id.
    pub match_id: MatchId,
    /// The entries, in relay order.
    pub events: Vec<Event>,
}

fn malformed(entry: Option<usize>, message: Option<MessageHash>, what: String) -> Box<Fault> {
    Box::new(Fault {
        kind: FaultKind::MalformedRecord,
        culprit: None,
        role: Role::Record,
        entry,
        message,
        evidence: what.clone(),
        explanation: format!("The record cannot be replayed: {what}."),
    })
}

/// Decodes a record whose envelope has been checked. An error here means layer 1 let through
/// something it should not have; it is reported, never a panic.
pub fn decode(record: &MatchRecord) -> Result<Decoded, Box<Fault>> {
    let terms = MatchTerms::from_canonical(&record.terms.terms)
        .map_err(|e| malformed(None, None, format!("terms: {e}")))?;
    let match_id = protocol::terms::match_id(&record.terms.terms);
    let mut disclosed: BTreeMap<MessageHash, &[u8]> = BTreeMap::new();
    for d in &record.disclosures {
        disclosed.insert(d.message, &d.plaintext);
    }
    let mut events = Vec::with_capacity(record.entries.len());
    for (index, entry) in record.entries.iter().enumerate() {
        let hash = entry.message.hash();
        let body = MessageBody::from_canonical(&entry.message.body)
            .map_err(|e| malformed(Some(index), Some(hash), format!("entry {index}: {e}")))?;
        let receipt = Receipt::from_canonical(&entry.receipt.receipt)
            .map_err(|e| malformed(Some(index), Some(hash), format!("entry {index}: {e}")))?;
        let (payload, sealed, is_disclosed) = match body.payload {
            Payload::Sealed(sealed) => match disclosed.get(&hash) {
                Some(plain) => {
                    let inner = Payload::from_canonical(plain).map_err(|e| {
                        malformed(
                            Some(index),
                            Some(hash),
                            format!("disclosure of entry {index}: {e}"),
                        )
                    })?;
                    (inner, true, true)
                }
                None => (Payload::Sealed(sealed), true, false),
            },
            other => (other, false, false),
        };
        events.push(Event {
            index,
            hash,
            channel: body.channel,
            author: body.author,
            time_ms: receipt.time_ms,
            payload,
            sealed,
            disclosed: is_disclosed,
        });
    }
    Ok(Decoded { terms, match_id, events })
}
