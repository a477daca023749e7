//! fogproof's server: the relay of many matches over WebSocket, the lobby, umpire seats,
//! durable storage, limits and metrics. See docs/SERVER.md.
#![warn(missing_docs)]

pub mod clock;
pub mod commit;
pub mod config;
pub mod metrics;
pub mod store;
