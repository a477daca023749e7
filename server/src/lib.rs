//! fogproof's server: the relay of many matches over WebSocket, the lobby, umpire seats,
//! durable storage, limits and metrics. See docs/SERVER.md.
//!
//! - [`services`]: what acts on the shared state ([`state`]), per domain:
//!   `services::live::MatchTask`, one task per live match, owning its sans-IO
//!   `protocol::relay::Relay`; the lobby's services; the tournament runner. The domain modules
//!   ([`live`], [`lobby`], [`tournament`], [`ledger`]) hold their data and rules below
//!   [`state`] (ARCHITECTURE.md, the server's layers);
//! - [`socket`]: one WebSocket per participant and match, binary `protocol::wire` frames;
//! - [`http`] (on top: the router, the extractors, the handlers, the sockets and event
//!   streams), [`lobby`], [`auth`]: the HTTP API, challenges and terms, sign-in by signature;
//! - [`admission`], [`error`] (at the bottom): admission of new work and the API's error;
//!   [`finished`]: a finished match's row and record;
//! - [`store`], [`commit`]: durable storage (SQLite embedded) with group commit, so every
//!   receipt names a stored entry;
//! - [`ledger`], [`tournament`]: the public log every finished match is appended to, served
//!   at `/ledger/` (`http::ledger`), and the tournaments the server runs from it;
//! - [`config`], [`clock`], [`metrics`]: limits, the injected clock, Prometheus metrics;
//! - [`conn`], [`dirlock`]: the connection layer (caps, timeouts, slow readers, shutdown's
//!   grace) and the data directory's single owner;
//! - [`web`]: the host's web site (the embedded pages of the `fogproof-web` crate).
#![warn(missing_docs)]

pub mod address;
pub mod admission;
pub mod auth;
pub mod clock;
pub mod cluster;
pub mod commit;
pub mod config;
pub mod conn;
pub mod dirlock;
pub mod error;
pub mod events;
pub mod fault;
pub mod finished;
pub mod forwarding;
pub mod http;
pub mod leader;
pub mod ledger;
pub mod live;
pub mod lobby;
pub mod metrics;
pub mod promise;
pub mod server;
pub mod services;
pub mod state;
pub mod store;
pub mod tournament;
pub mod web;
pub mod witnessing;

pub use config::{Config, Deadlines, LedgerConfig, Limits};
/// Moved under [`http`]; re-exported so that their paths outside the crate stay.
pub use http::{delivering, socket, spectate, stream};
pub use server::{Running, StartError, start};
