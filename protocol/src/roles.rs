//! Sketch of how player and umpire state machines will plug in (they come later).
//!
//! Like the relay they are sans-IO: the driver (server, client, test or verifier) feeds them
//! delivered entries and the time, and drains their outputs. A machine writes through a
//! [`crate::message::Author`], which numbers and chains its messages, and seals private-channel
//! payloads with [`crate::message::Author::write_sealed`], keeping the [`SealDisclosure`]s for
//! the record.

use crate::message::{Claim, SignedMessage};
use crate::relay::{Entry, RelayEvent};
use crate::seal::SealDisclosure;

/// What a participant is fed.
#[derive(Clone, Debug)]
pub enum Input {
    /// A message the relay accepted, with its receipt (including the participant's own).
    Delivered(Entry),
    /// A relay event (colours known, a timeout).
    Relay(RelayEvent),
    /// The time, in ms, at or after the participant's [`Participant::poll_timeout`].
    Time(u64),
}

/// What a participant asks its driver to do.
#[derive(Clone, Debug)]
pub enum Output {
    /// Send this message to the relay.
    Send(SignedMessage),
    /// Keep this disclosure for the record.
    Disclose(SealDisclosure),
    /// The participant considers the match over with this result.
    Finished(Claim),
}

/// A player or umpire state machine.
pub trait Participant {
    /// Why an input was refused (a fault to report, with the evidence it names).
    type Error: std::error::Error;

    /// Consumes one input.
    fn handle(&mut self, input: Input) -> Result<(), Self::Error>;

    /// The next output, if any.
    fn poll_output(&mut self) -> Option<Output>;

    /// When the participant next wants [`Input::Time`].
    fn poll_timeout(&self) -> Option<u64>;
}
