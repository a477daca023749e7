//! fogproof's client side: the player agent and the house bots.
//!
//! The agent ([`agent`]) keeps a key and its match secrets on this machine: it signs in to a
//! server ([`net`]), answers challenges and terms, and runs one [`seat::Seat`] per match (a
//! player or umpire machine over a match socket), journaling ([`journal`]) everything it needs
//! to resume after a crash before anything depending on it is sent.
//! Its calls to the server retry on one schedule ([`retry`]); its event stream is read with a
//! bounded line buffer ([`ndjson`]). [`local`] serves it to people and bots (the pages, the
//! lichess-shaped local API).
//!
//! Self-play and the load generator (simulations, not the product) are in the `fogproof-sim`
//! crate (`sim/`).
#![warn(missing_docs)]

pub mod agent;
pub mod api_types;
pub mod bot;
pub mod delivery;
pub mod housebot;
pub mod journal;
pub mod keyfile;
pub mod lichess;
pub mod local;
pub mod ndjson;
pub mod net;
pub mod promise;
pub mod receipt_time;
pub mod retry;
pub mod seat;
pub mod tls;
pub mod uci;
pub mod view;

pub use bot::RandomBot;
pub use housebot::HouseBot;
