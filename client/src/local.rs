//! The local side of a player's agent: the [`Hub`] that holds each match's seat events, its
//! view and its question for whoever decides (a person at a terminal, `fogproof play`; or a
//! bot in any language over the lichess-shaped local HTTP API of [`router`], `fogproof
//! agent`), and turns their answers into [`SeatCommand`]s.
//!
//! The key stays in the agent's process: the hub only ever sees the seat's view (what the
//! player knows, never hidden truth), the question asked and the texts of the actions offered,
//! and sends back the chosen action's bytes, a resignation or a draw offer. Every answer is
//! checked here against what was offered (a move must be one of the texts offered; a setup or a
//! tie-break must be one the rules accept), so a bot's typo is a 400 naming the problem, never
//! a signed illegal move.
//!
//! The HTTP API (docs/SERVER.md, "The local bot API"; every field in docs/AGENT-API.md), a
//! superset of lichess's Bot and Board API ([`crate::lichess`] names its fields), NDJSON
//! streams:
//!
//! | call | what |
//! |---|---|
//! | `GET /api/account` | this agent's key, its display name (`username`) and the server |
//! | `POST /api/account` | set the display name (`{"name": ...}`; the agent signs it) |
//! | `GET /api/stream/event` | `gameStart`, `gameFinish`, `challenge`, `challengeCanceled`, `challengeDeclined`; current games and challenges first |
//! | `GET /api/bot/game/stream/{id}` | `gameFull`, then a `gameState` at every change |
//! | `GET /api/bot/game/{id}` | the current `gameState` |
//! | `POST /api/bot/game/{id}/move/{text}` | one of the actions offered (UCI text) |
//! | `POST /api/bot/game/{id}/setup` | Intrigue's or 6x6's secret setup (JSON) |
//! | `POST /api/bot/game/{id}/tiebreak` | 6x6's tie-break (JSON) |
//! | `POST /api/bot/game/{id}/resign` | resign |
//! | `POST /api/bot/game/{id}/draw/{yes,no}` | offer or accept a draw; decline |
//! | `/api/board/game/…` | the same routes under lichess's Board API names; `…/abort` resigns |
//! | `POST /api/challenge/{key,open,bot}` | challenge a key, seek, or challenge the server's house bot |
//! | `POST /api/challenge/{id}/{accept,decline,cancel}` | answer a challenge |
//! | `GET /api/lobby` | the server's public lobby: open seeks and live games |
//! | `GET /api/tournament` | the server's tournaments, lichess's `created`/`started`/`finished` |
//! | `GET /api/tournament/{id}` | one tournament: entrants, pairings, standings |
//! | `POST /api/tournament/{id}/{join,withdraw}` | join (then play its pairings) or withdraw |
//!
//! Every display name shown (player objects' `name`, `names` maps) is one its key signed,
//! checked here ([`Hub::vouch`]): a host can withhold a name, never make the agent show one.
//!
//! It also serves the agent's own web pages (`fogproof-web`): `/assets/*` and, at `/` and every
//! other path outside `/api/`, the agent page (the lobby and game pages of `fogproof play`).
//!
//! Only loopback callers are served by default, and never another web page: a request whose
//! `Host` is not a loopback name, or that carries an `Origin` header other than the agent's own
//! (`http://` + its `Host`; browsers add Origin to cross-site requests and set it themselves),
//! is refused, so no other web page can drive the agent (cross-site request forgery, DNS
//! rebinding).
//!
//! The modules, bottom to top (each uses only those above it in this list): [`error`]
//! ([`LocalError`]), [`types`] (the pages' JSON as types; their TypeScript is generated from
//! them), [`snapshot`] (what the decider sees, the pages' JSON), [`setup`] (free-form
//! setups checked by the rules), [`hub`] ([`Hub`]), [`api`] (the handlers), `bridge` (the rest of
//! lichess-bot's calls) and [`router`] (the guard, the routes, the pages, [`serve`]).

pub mod api;
mod bridge;
pub mod error;
pub mod hub;
pub mod router;
pub mod setup;
pub mod snapshot;
/// The API's JSON types, below both `local` and `lichess` ([`crate::api_types`]).
pub use crate::api_types as types;

pub use api::MAX_TOURNAMENTS_LISTED;
pub use error::LocalError;
pub use hub::{Hub, MAX_KNOWN_NAMES};
pub use router::{CSP, router, serve};
pub use setup::setup_action;
pub use snapshot::{Snapshot, Status, final_json, notation, score};
