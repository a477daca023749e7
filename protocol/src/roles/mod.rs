//! The player and umpire state machines, sans-IO like the relay: the driver (server, client,
//! self-play, test) feeds them delivered entries and the time, and drains their outputs. A
//! machine writes through a [`crate::message::Author`], which numbers and chains its messages
//! and seals private-channel payloads (one sealing context per channel), keeping the
//! [`SealDisclosure`] of each channel it sealed on, owed once the game is over (it sends them
//! then, in a public `Disclose` message).
//!
//! They follow the match flow of docs/PROTOCOL.md section 18 ([`crate::flow`]):
//! - [`Player`]: one player in any mode; holds its identity, secrets, nonces and seal seeds (all
//!   drawn from a ChaCha20 stream of a secret seed it is given, so a driver can make it
//!   deterministic), and decides through a pluggable [`Policy`].
//! - [`Umpire`]: answers the players of an umpired game through [`crate::game::AnyGame`].
//!
//! Neither reads a clock: time only arrives as [`Input::Time`]. For adversarial tests only
//! (feature `adversary`, off in every other build, so a server's machines carry no hook), each
//! machine takes a `Hook` that sees (and may change or suppress) every payload before it is
//! signed or sealed: the machine then signs and discloses the changed payload like an honest
//! one would, which is exactly a participant that lies.

mod player;
mod public;
mod umpire;

pub use player::Player;
#[cfg(feature = "adversary")]
pub use umpire::ObservationHook;
pub use umpire::Umpire;

use crate::message::{Author, Claim, Payload, SignedMessage};
use crate::relay::{Entry, RelayEvent};
use crate::seal::SealDisclosure;
use crate::{Channel, MessageHash, PublicKey};

use rules::{AnyAction, Color, Variant};
use std::collections::VecDeque;
use thiserror::Error;

/// What a participant is fed.
#[derive(Clone, Debug)]
pub enum Input {
    /// A message the relay accepted, with its receipt (including the participant's own).
    Delivered(Entry),
    /// A relay event (colors known, a timeout).
    Relay(RelayEvent),
    /// The time, in ms, at or after the participant's [`Participant::poll_timeout`].
    Time(u64),
    /// The answer to the player's last [`Output::Decide`]: a typed action, as a [`Policy`]
    /// returns it (the player encodes it once, where it signs).
    Decision(AnyAction),
}

/// What a participant asks its driver to do.
#[derive(Clone, Debug)]
pub enum Output {
    /// Send this message to the relay.
    Send(SignedMessage),
    /// A player without a [`Policy`] asks its driver (a human behind a UI, a remote bot) to
    /// decide; the answer comes back as [`Input::Decision`], whenever it is ready. The clock
    /// runs meanwhile.
    Decide(Ask),
    /// The participant considers the match over with this result (and has sent everything
    /// it owes: its claim, its openings and its disclosures).
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

    /// The hash of the last delivered entry's message that the participant opened (its
    /// signature and receipt checked), taken so it is given once: a seat keys what it sent by
    /// it, and need not hash every entry a second time. `None` if nothing was opened since the
    /// last call.
    fn take_opened(&mut self) -> Option<crate::MessageHash> {
        None
    }
}

/// What a player's [`Policy`] is asked to decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Pick one of these actions (typed, as the player's own seat lists them,
    /// [`rules::seat::Seat::legal_actions`]): the legal moves where the player knows them
    /// (chess, espionage, SIC, Intrigue, 6x6 moves and Life Freeze choices), or in Kriegspiel
    /// every attempt its own view allows that was not yet refused this turn (a superset of the
    /// legal moves, so trying them all always finds one). Never empty.
    Choose(Vec<AnyAction>),
    /// A free-form question: a game's secret setup (asked once the player knows its color) or
    /// 6x6's tie-break (R-G8). Return the action that answers it
    /// ([`rules::setup_ask::SetupAsk`] says which, and draws or parses one).
    Setup(rules::setup_ask::SetupAsk),
}

/// How a player decides. Bots, humans behind a UI and cheaters are all policies; the state
/// machine does everything else (commitments, reveals, sealing, answers, claims, openings).
/// A policy answers with a typed action, which may be one the rules refuse (one not offered, or
/// of another game): that is the player's fault (docs/PROTOCOL.md 15.3), which is how tests
/// build a player that plays an illegal move. Bytes that are no action at all are sent only
/// through the `adversary` feature's payload hook (`Hook`).
pub trait Policy: Send {
    /// Decides what `side` does in `variant` when asked `ask`.
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction;

    /// Decides knowing what the player knows: its seat (`None` before it knows its side). A
    /// policy that reads the board (a house bot) overrides this; the default ignores the seat.
    /// The seat is the player's own knowledge, built only from what it was told, never
    /// hidden truth.
    fn decide_seeing(
        &mut self,
        seat: Option<&rules::seat::Seat>,
        variant: Variant,
        side: Color,
        ask: &Ask,
    ) -> AnyAction {
        let _ = seat;
        self.decide(variant, side, ask)
    }
}

/// Sees every payload a machine is about to sign (or seal), with the channel it goes on; may
/// change it, and returns `false` to suppress it (the machine then behaves as if it had been
/// sent: a participant that goes silent). Adversarial tests only (feature `adversary`).
#[cfg(feature = "adversary")]
pub type Hook = Box<dyn FnMut(Channel, &mut Payload) -> bool + Send>;

/// The writing half shared by every machine: the payload hook, signing and sealing through its
/// [`Author`] (which states in each message the last entry the machine had received), and the
/// output queue.
pub(crate) struct Outbox {
    pub(crate) author: Author,
    /// The cheating hook of an adversarial test (feature `adversary`).
    #[cfg(feature = "adversary")]
    pub(crate) hook: Option<Hook>,
    pub(crate) outputs: VecDeque<Output>,
    /// The disclosure of each channel with sealed messages not yet disclosed, owed once the
    /// game is over.
    undisclosed: std::collections::BTreeMap<Channel, SealDisclosure>,
    /// Whether the game is over for this machine: disclosures then go out at once.
    ended: bool,
    /// The size its sealed plaintexts are padded to ([`crate::game::sealed_plaintext_bytes`]
    /// of the variant and this machine's direction).
    padded_len: usize,
    /// The signed hashes of the messages this machine wrote that have not come back in an
    /// entry yet, oldest first, at most [`WRITTEN_KEPT`] ([`open_entry`]).
    written: VecDeque<crate::SignedHash>,
    /// The index among the entries delivered of the entry each order head ends: for a machine
    /// that reads every channel (the umpire, a player of an open or owner game) the index in the
    /// relay's log, which a `seen` names only by its order head.
    orders: std::collections::BTreeMap<crate::LogHead, u64>,
    /// The message hash of the last entry [`open_entry`] opened, until taken
    /// ([`Participant::take_opened`]).
    pub(crate) opened: Option<MessageHash>,
}

/// How many of its own messages not yet delivered a machine remembers. An honest relay
/// delivers each within a few entries; one it refused never comes back, and once forgotten
/// its copy would just be verified like anyone's.
const WRITTEN_KEPT: usize = 64;

impl Outbox {
    /// An outbox writing through `author`, padding what it seals to `padded_len` bytes.
    pub(crate) fn new(author: Author, padded_len: usize) -> Outbox {
        Outbox {
            author,
            #[cfg(feature = "adversary")]
            hook: None,
            outputs: VecDeque::new(),
            undisclosed: std::collections::BTreeMap::new(),
            ended: false,
            padded_len,
            written: VecDeque::new(),
            orders: std::collections::BTreeMap::new(),
            opened: None,
        }
    }

    /// The game is over: sends every disclosure owed (one seal seed per channel, so one small
    /// message), and from now on discloses each sealed message's channel right after it.
    pub(crate) fn disclose_all(&mut self) {
        self.ended = true;
        let owed: Vec<SealDisclosure> =
            std::mem::take(&mut self.undisclosed).into_values().collect();
        if !owed.is_empty() {
            self.send_public(None, Payload::Disclose(owed));
        }
    }

    pub(crate) fn wrote(&mut self, m: crate::message::SignedMessage) {
        if self.written.len() == WRITTEN_KEPT {
            self.written.pop_front();
        }
        self.written.push_back(m.signed_hash());
        self.outputs.push_back(Output::Send(m));
    }

    /// Takes in a delivered entry's receipt (the author's `seen` moves on).
    pub(crate) fn delivered(&mut self, receipt: &crate::message::Receipt) {
        let order = receipt.order();
        self.author.saw_at(receipt, order);
        let next = self.orders.len() as u64;
        self.orders.entry(order).or_insert(next);
    }

    /// The index of the entry `body` says it had seen, among those delivered to this machine
    /// (for [`crate::coordinator::Coordinator::admit`]).
    pub(crate) fn seen_index(&self, body: &crate::message::MessageBody) -> Option<u64> {
        body.seen.and_then(|s| self.orders.get(&s.order).copied())
    }

    /// Whether `payload` goes out: an adversarial test's hook may change it or suppress it.
    #[cfg(feature = "adversary")]
    fn hooked(&mut self, channel: Channel, payload: &mut Payload) -> bool {
        self.hook.as_mut().is_none_or(|h| h(channel, payload))
    }

    /// Whether `payload` goes out: always, in a build without the `adversary` feature.
    #[cfg(not(feature = "adversary"))]
    fn hooked(&mut self, _channel: Channel, _payload: &mut Payload) -> bool {
        true
    }

    /// Signs and queues `payload` on the public channel (after the hook), answering `re`.
    pub(crate) fn send_public(&mut self, re: Option<crate::MessageHash>, mut payload: Payload) {
        if !self.hooked(Channel::Public, &mut payload) {
            return;
        }
        let m = self.author.write(Channel::Public, re, payload);
        self.wrote(m);
    }

    /// Seals `payload` to `key` on the private `channel` (after the hook), answering `re`, with
    /// a seal seed drawn from `rng` only once the hook has let it through (used if the message
    /// sets the channel's context up), and owes the channel's disclosure.
    pub(crate) fn send_sealed(
        &mut self,
        channel: Channel,
        re: Option<crate::MessageHash>,
        mut payload: Payload,
        key: &crate::seal::SealPublicKey,
        rng: &mut rand_chacha::ChaCha20Rng,
    ) {
        if !self.hooked(channel, &mut payload) {
            return;
        }
        let mut seed = [0u8; 32];
        rand_core::Rng::fill_bytes(rng, &mut seed);
        match self.author.write_sealed(channel, re, &payload, key, &seed, self.padded_len) {
            Ok((m, d)) => {
                self.wrote(m);
                self.undisclosed.insert(channel, d);
                if self.ended {
                    self.disclose_all();
                }
            }
            // A hook may produce a `Sealed` payload, which cannot be sealed again: send it as is.
            Err(crate::seal::SealError::Nested) => {
                let m = self.author.write(channel, re, payload);
                self.wrote(m);
            }
            // A payload too long for the agreed padded size (only a policy's action or a hook's
            // bytes can be: every honest payload fits, `game::sealed_plaintext_bytes`) is never
            // sent, neither longer nor in clear: the machine stays silent, as its deadline will
            // show.
            Err(_) => {}
        }
    }
}

/// The seal key of `identity` for this match, from its nonce in the terms; an error if the
/// terms carry another seal key (the party signed terms with a key it cannot use).
pub(crate) fn match_seal(
    identity: &crate::Identity,
    nonce: Option<[u8; 32]>,
    expected: Option<crate::seal::SealPublicKey>,
) -> Result<crate::seal::SealSecret, crate::game::GameError> {
    let (Some(nonce), Some(expected)) = (nonce, expected) else {
        return Err(crate::game::GameError::Keys(format!(
            "{} is not this party in the terms",
            identity.public()
        )));
    };
    let seal = crate::seal::SealSecret::for_match(identity, &nonce);
    if seal.public() != expected {
        return Err(crate::game::GameError::Keys(format!(
            "the terms carry seal key {expected}, this identity's for the match is {}",
            seal.public()
        )));
    }
    Ok(seal)
}

/// A participant's random stream for one match: `ChaCha20(H(fogproof/v2/match-rng;
/// ("secret", secret), ("match-id", match_id)))`, so a secret reused by mistake in two
/// matches still draws unrelated nonces, contributions and seal seeds in each.
pub(crate) fn match_rng(secret: &[u8; 32], match_id: &crate::MatchId) -> rand_chacha::ChaCha20Rng {
    let seed = crate::transcript::Transcript::new(crate::tags::MATCH_RNG)
        .append("secret", secret)
        .append("match-id", &match_id.0)
        .finish();
    <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_seed(seed)
}

/// Opens a delivered entry: the message's body (signature and match checked) and the relay's
/// receipt (its signature checked against the terms' relay key, for exactly this message);
/// returns them with the message's hash.
///
/// Each signature is checked once. The author's is not checked again when the message is, byte
/// for byte (body and signature: its [`crate::message::signed_hash`]), one this machine wrote
/// and signed itself: the machine made that signature, and any other bytes (its own body under
/// a changed signature included) have another signed hash and are checked like anyone's. The
/// relay's receipt is always checked. A refused entry changes nothing in `out`.
pub(crate) fn open_entry(
    terms: &crate::terms::AgreedTerms,
    out: &mut Outbox,
    entry: &Entry,
) -> Result<(crate::message::MessageBody, crate::message::Receipt, MessageHash), RoleError> {
    let hash = entry.message.hash();
    let unreadable =
        |problem: String| RoleError { author: crate::PublicKey([0; 32]), message: hash, problem };
    let signed = entry.message.signed_hash();
    let own = out.written.iter().position(|w| *w == signed);
    let body = match own {
        Some(_) => entry.message.decode_own(&terms.match_id),
        None => entry.message.verify_for(&terms.match_id),
    }
    .map_err(|e| unreadable(e.to_string()))?;
    let receipt = entry
        .receipt
        .verify_signed_hash(&terms.terms.relay, &terms.match_id, signed)
        .map_err(|e| unreadable(format!("receipt: {e}")))?;
    if receipt.channel != body.channel {
        return Err(unreadable(format!(
            "receipt names channel {}, the message is on {}",
            receipt.channel, body.channel
        )));
    }
    if let Some(i) = own {
        out.written.remove(i);
    }
    out.opened = Some(hash);
    Ok((body, receipt, hash))
}

/// A fault a machine found in what it was delivered, or a message it could not process.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("message {message} by {author}: {problem}")]
pub struct RoleError {
    /// The author of the offending message.
    pub author: PublicKey,
    /// The offending message.
    pub message: MessageHash,
    /// What is wrong.
    pub problem: String,
}

#[cfg(test)]
mod tests {
    use super::match_rng;
    use rand_core::Rng;

    /// A server moves machines between threads; with or without the `adversary` feature (this
    /// crate's own tests build without it, so the machines carry no hook here).
    #[test]
    fn the_machines_are_send() {
        fn send<T: Send>() {}
        send::<super::Player>();
        send::<super::Umpire>();
    }

    #[test]
    fn one_secret_draws_unrelated_streams_in_two_matches() {
        let secret = [7; 32];
        let draw = |id: u8| {
            let mut rng = match_rng(&secret, &crate::MatchId([id; 32]));
            let mut out = [0u8; 32];
            rng.fill_bytes(&mut out);
            out
        };
        assert_eq!(draw(1), draw(1), "deterministic for one match");
        assert_ne!(draw(1), draw(2), "another match, another stream");
        // And not the secret's own ChaCha20 stream (the v1 derivation).
        let mut plain = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_seed(secret);
        let mut first = [0u8; 32];
        plain.fill_bytes(&mut first);
        assert_ne!(draw(1), first);
    }

    /// The player commits a setup answer under the game's setup commitment: every game whose
    /// players are asked a setup has one, and no other game does.
    #[test]
    fn a_setup_is_asked_exactly_where_the_flow_commits_one() {
        for v in rules::Variant::ALL {
            for side in rules::Color::ALL {
                let asked = rules::GameOptions::default_for(v).setup_ask(side).is_some();
                assert_eq!(asked, crate::flow::setup_commitment(v).is_some(), "{v} {side:?}");
            }
        }
    }
}
