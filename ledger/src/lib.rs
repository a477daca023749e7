//! fogproof's ledger: every finished match in a public append-only log (C2SP tlog-tiles with
//! signed checkpoints and witness cosignatures), and tournaments, standings and Glicko-2 ratings
//! computed as pure functions of that log.
#![warn(missing_docs)]

pub mod audit;
pub mod bundle;
pub mod checkpoint;
pub mod entry;
pub mod history;
pub mod log;
pub mod merkle;
pub mod note;
pub mod promise;
pub mod proof;
pub mod rating;
pub mod service;
pub mod store;
pub mod tournament;
pub mod witness;

pub use service::{AppendError, Ledger, Submission};
