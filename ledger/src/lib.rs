//! fogproof's ledger: every finished match in a public append-only log (C2SP tlog-tiles with
//! signed checkpoints and witness cosignatures), and tournaments, standings and Glicko-2 ratings
//! computed as pure functions of that log.
#![warn(missing_docs)]

pub mod checkpoint;
pub mod entry;
pub mod log;
pub mod merkle;
pub mod note;
pub mod rating;
pub mod store;
pub mod tournament;
