//! The server's services, per domain: what acts on the shared state ([`crate::state::Shared`]).
//!
//! The layers (ARCHITECTURE.md, the server's modules): each domain module (`crate::lobby`,
//! ...) holds its data and rules below `state`, given what it needs as arguments; `state` holds
//! that data; the services here act on it; `crate::http` (the router, the handlers) is on top
//! and calls them.

pub mod live;
pub mod lobby;
pub mod tournament;
