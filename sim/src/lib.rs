//! fogproof's simulations: harnesses that drive the product crates, kept out of them. Tests,
//! benches and the CLI's `fogproof selfplay` and `fogproof loadtest` use it; no product code
//! does (the agent, the server and the verifier never depend on it).
//!
//! [`loadtest`] is the load generator behind `fogproof loadtest`: many concurrent matches of
//! real player machines with moves decided in advance; [`measure`] is the measured run around
//! it (the server spawned or named, the signature bound, the window read from `/metrics` and
//! `/proc`, the report) (docs/LOADTEST.md). The CLI parses the flags and calls [`measure::run`].
//!
//! [`pace::unhurried`] is a bot over sockets that takes its time, for tests that act while a
//! match is live.
//!
//! [`selfplay`] plays one complete match in-process: two [`protocol::roles::Player`]s with
//! [`client::RandomBot`] policies, the [`protocol::roles::Umpire`] in umpired games, and the real
//! [`protocol::relay::Relay`], with real signatures, seals and receipts, under simulated time
//! (one message every [`selfplay::STEP_MS`] ms). Keys, nonces, secrets and bot choices all derive
//! from the `u64` seed ([`selfplay::derive`]), so the same seed gives the same record bytes.
//! The bots play until the rules end the game (random chess games end by R-C2's automatic
//! draws; [`SelfplayConfig::max_actions`] is only a safety cap). Clocks: when the match goes
//! idle without a claim, the driver starts the relay's move clock of the side the others wait
//! for (the umpire's view, or each player's view of its opponent) and jumps simulated time to
//! the deadline, so a silent mover is timed out by the relay; after the first claim it starts
//! the reveal deadline of each player that still owes openings, so a player that withholds
//! them is timed out too.
//!
//! # Cheating participants
//!
//! [`selfplay_with`] takes a [`SelfplayConfig`] whose hooks make any participant cheat in one
//! precise way while everything else stays honest. The player and umpire hooks need the
//! feature `adversary` (which turns on `fogproof-protocol/adversary`: without it the machines
//! carry no hook); the relay-side hooks (`wire`, `deliver`) act outside the machines and are
//! always there. From the inside out:
//!
//! | hook | sees | use it for |
//! |---|---|---|
//! | `policies[i]` | a [`protocol::roles::Ask`]; returns a typed action ([`rules::AnyAction`]) | illegal moves, bad setups or tie-breaks, an action of another game |
//! | `player_hooks[i]` | every payload player `i` is about to sign or seal; may change it or return `false` to suppress it | a false Intrigue informer denial, a false claim, an opening that does not match, a missing reveal (suppress the `Open`s), garbage action bytes (non-canonical, trailing bytes: change a `Payload::Action`) |
//! | `umpire_hook` | every payload the umpire is about to sign or seal | a false umpire claim, a missing ack |
//! | `umpire_lie` | each observation (side, running index, bytes) before it is sealed | false Kriegspiel announcements, false SIC legal-move lists or checks, false 6x6 red squares or scores, a false SIC start view |
//! | `wire` | every signed message ([`Wire`]: author, index, bytes, time, the [`Cast`]) before the relay; returns a [`Fate`] | forged signatures (flip a byte), messages from another match, non-canonical or trailing bytes, drops, duplicates, reordering (`Fate::Hold`), a relay that withholds a message (`Fate::Delay`) |
//! | `deliver` | every delivery ([`Delivery`]: recipient, entry) from the relay; `false` withholds it | a relay that shows the two players different histories (re-sign a receipt with `cast.relay`) |
//!
//! With a [`SelfplayConfig::witness`] ([`SimWitness`]), every message the wire drops or delays is
//! offered by its author to a simulated delivery witness once it has waited for its receipt as
//! long as the agent does; the witness signs a notice with its own key ([`Selfplay::notices`]) and
//! forwards the message to the relay, which takes it or drops it too.
//!
//! Payload hooks act before signing and sealing, so the cheater signs and discloses the lie
//! exactly as an honest participant would sign the truth: the record then carries the evidence
//! against it. Wire and delivery hooks act on signed bytes, as an attacker on the network or a
//! dishonest relay would; the real relay refuses what it can (see [`Selfplay::refused`]), and
//! tests that need a record the relay would never write (a truncated record, a forged signature
//! inside it) edit [`Selfplay::record`] afterwards and re-sign with the [`Cast`].
//!
//! With `colors: ColorAssignment::FirstIsWhite`, player 0 is White; by default colors are drawn.
#![warn(missing_docs)]

pub mod loadtest;
pub mod measure;
pub mod pace;
pub mod selfplay;

pub use selfplay::{
    Cast, Delivery, DeliveryHook, Fate, Selfplay, SelfplayConfig, SelfplayError, SimWitness,
    Summary, Who, Wire, WireHook, selfplay, selfplay_with,
};
