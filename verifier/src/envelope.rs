//! Layer 1: the record's envelope (encoding, terms, signatures, chains, receipts, disclosures,
//! commitments). Placeholder: being written.

use crate::Fault;

/// A record whose envelope checked out, ready for replay.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The decoded record.
    pub record: protocol::record::MatchRecord,
}

/// Checks the envelope of a record given as stored bytes.
pub fn check(_record_bytes: &[u8]) -> Result<Checked, Vec<Fault>> {
    Err(Vec::new())
}
