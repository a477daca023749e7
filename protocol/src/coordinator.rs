//! The match coordinator: who may say what, on which channel, in which phase; what each party
//! owes and by when; the move clocks. One implementation, run by the relay live and by the
//! verifier over a record, so a timeout the relay issues is exactly one the verifier rebuilds
//! (docs/PROTOCOL.md section 13, "The coordinator").
//!
//! It reads only what the relay can read: the public channel in clear, and on the private
//! channels who sealed something to whom. It knows no game rule beyond each mode's phases; what
//! the rules say is the umpire's (its public [`Payload::Turn`] statements) or the players'
//! (their claims), and the verifier checks those against the rules.
//!
//! ```text
//! phase    who owes what                                   deadline
//! commit   each player: its early commitments                reveal_ms from the start
//! reveal   each player: Reveal(public-contribution)          reveal_ms from both committed
//! setup    open: nothing, White's clock starts
//!          owner: each player Commit(intrigue-setup);        reveal_ms from colors
//!                 then White's report, then Black's          reveal_ms each
//!          umpire: sic: each player one sealed message (its seed opening); 6x6: each player
//!                 Commit(secretchess6-setup) and one sealed message (its setup), reveal_ms
//!                 from colors; then the umpire a Turn        answer_ms
//! play     the side whose clock runs: a move                 its clock
//!          umpire games: after a player's sealed action, the umpire an answer naming it (`re`):
//!          a Turn if the turn changed hands, else a sealed answer to the actor   answer_ms
//!          6x6 tie-break (Turn Both): each player Commit(tiebreak) and one sealed message,
//!          reveal_ms; then the umpire a Turn             answer_ms
//! end      (first Claim, or Turn Nobody) each player: every opening it still owes   reveal_ms
//! ```
//!
//! Clocks: only an action that hands the turn over earns the increment (an open or owner move;
//! in umpired games the action a Turn naming the other side answers), so illegal Kriegspiel
//! attempts, claims and junk buy no time. While the umpire owes an answer, no player's clock
//! runs. A deadline is missed when `now_ms > deadline_ms`.
//!
//! The race rule: an action is judged against the last entry its author had seen (its signed
//! `seen`). If its author was entitled to act there but no longer is where the relay placed it
//! (the opponent resigned, a claim or an answer was in flight), the action is void: recorded,
//! ignored, nobody's fault. An action its author was not entitled to even by what it had seen
//! is refused by the relay, and is its author's fault in a record.

use crate::codec::Canonical;
use crate::commitment::{self, Committed, DuplicateCommitmentError, OpeningError};
use crate::flow;
use crate::game::{self, SealDirection};
use crate::keys::{ByColor, PublicKey};
use crate::message::{Expectation, MessageBody, Owed, Payload, seal_context};
use crate::seal::{self, SealContext, SealDisclosure, SealPublicKey, SealSetup, Sealed};
use crate::seed::draw_colors;
use crate::terms::AgreedTerms;
use crate::{Channel, Color, MessageHash, Party};
use rules::Mode;
use rules::Variant;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

fn name_of(re: Option<MessageHash>) -> String {
    re.map_or_else(|| "nothing".to_owned(), |h| format!("message {h}"))
}

/// Why a message is outside what its author may say at this point of the match.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum NotEntitled {
    /// The author is not a party of these terms.
    #[error("{author} is not a party of this match")]
    Stranger {
        /// The author.
        author: PublicKey,
    },
    /// A payload this author may never send on this channel.
    #[error("{who} may not send a {kind} payload on the {channel} channel")]
    Never {
        /// The author's role.
        who: &'static str,
        /// The payload kind.
        kind: &'static str,
        /// The channel.
        channel: Channel,
    },
    /// A payload this author may send, but not now.
    #[error("{who} may not send a {kind} payload now: {why}")]
    NotNow {
        /// The author's role.
        who: &'static str,
        /// The payload kind.
        kind: &'static str,
        /// Why not.
        why: String,
    },
    /// A second commitment for the same purpose by the same author.
    #[error("{author} already committed to '{purpose}'")]
    Recommitted {
        /// The author.
        author: PublicKey,
        /// The purpose.
        purpose: crate::commitment::Purpose,
    },
    /// A commitment equal to one already published (a copy).
    #[error(transparent)]
    DuplicateCommitment(#[from] DuplicateCommitmentError),
    /// A reveal or opening of something never committed, or already opened.
    #[error("{author} opens '{purpose}', which it has not committed to or has already opened")]
    NothingToOpen {
        /// The author.
        author: PublicKey,
        /// The purpose.
        purpose: crate::commitment::Purpose,
    },
    /// A reveal that does not open its commitment.
    #[error(transparent)]
    BadOpening(#[from] OpeningError),
    /// A public contribution that is not 32 bytes.
    #[error("public contribution of {author} is {len} bytes, expected 32")]
    ContributionLength {
        /// The author.
        author: PublicKey,
        /// Its length.
        len: usize,
    },
    /// More Kriegspiel attempts in one turn than the terms allow.
    #[error("{side} has made the {max} attempts one turn allows")]
    TooManyAttempts {
        /// The side.
        side: Color,
        /// The terms' `max_attempts_per_turn`.
        max: u32,
    },
    /// A disclosure of a channel on which its author owes none (no sealed message not yet
    /// disclosed), or whose seal seed does not reproduce the setup its author signed, or under
    /// which a sealed message of the channel does not open to its committed plaintext, or opens
    /// to no payload (docs/PROTOCOL.md 14.2).
    #[error("disclosure of the {channel} channel: {why}")]
    BadDisclosure {
        /// The channel it discloses.
        channel: Channel,
        /// What is wrong.
        why: String,
    },
    /// A sealed message without its context's setup where it must carry one (its author's
    /// first sealed message on the channel), or with another setup than its context's.
    #[error("{who}'s sealed payload on the {channel} channel: {why}")]
    SealSetup {
        /// The author's role.
        who: &'static str,
        /// The channel.
        channel: Channel,
        /// What is wrong.
        why: &'static str,
    },
    /// A sealed payload whose ciphertext is not the size every sealed payload of its variant
    /// and direction has (docs/PROTOCOL.md, padding): its size could tell what it says.
    #[error("{who}'s sealed payload on the {channel} channel: {error}")]
    SealedSize {
        /// The author's role.
        who: &'static str,
        /// The channel.
        channel: Channel,
        /// The size found and the size agreed.
        error: seal::SealError,
    },
    /// A `re` other than the one the rules fix: a Turn names exactly the action (or the
    /// completed setup or tie-break) it adjudicates; an umpire's claim or sealed answer names a
    /// player's sealed message or nothing; a disclosure or countersignature names nothing. Any
    /// other value would be 32 free bytes, a channel the umpire could publish a secret through.
    #[error("{who}'s {kind} names the wrong message: {why}")]
    BadReference {
        /// The author's role.
        who: &'static str,
        /// The payload kind.
        kind: &'static str,
        /// What it should name.
        why: String,
    },
    /// The party has timed out and may not act any more.
    #[error("{party} has timed out and may not act")]
    TimedOut {
        /// The party.
        party: Party,
    },
}

/// How an admitted message counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// It counts.
    Counts,
    /// A race (see the module docs): recorded, ignored, nobody's fault.
    Void,
}

/// A deadline a party has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// Who owes.
    pub party: Party,
    /// What.
    pub expectation: Expectation,
    /// When it was due (missed when `now_ms > due_ms`).
    pub due_ms: u64,
}

/// The phases of a match (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the relay's start notice.
    Created,
    Commit,
    Reveal,
    Setup,
    Play,
    End,
    /// Complete (the relay's `Close`): only countersignatures follow.
    Closed,
}

/// A non-clock obligation: owed since `since_ms`, due at `due_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Owe {
    expectation: Expectation,
    due_ms: u64,
}

/// A sealed message its author still owes a disclosure of (after the end).
#[derive(Clone, Debug)]
struct Undisclosed {
    party: Party,
    recipient: SealPublicKey,
    context: SealContext,
    sealed: Sealed,
}

/// `author`'s sealed messages on `channel` awaiting a disclosure, in the order of their hashes,
/// each hash once with the last value applied under it (as a map keyed by the hash held them):
/// the order a disclosure opens them in, and so which failure it reports first.
fn owed_in_hash_order<'a>(
    undisclosed: &'a [(MessageHash, Undisclosed)],
    author: &PublicKey,
    channel: Channel,
) -> Vec<(&'a MessageHash, &'a Undisclosed)> {
    let mut owed: Vec<(&MessageHash, &Undisclosed)> = undisclosed
        .iter()
        .filter(|(_, u)| u.context.author == *author && u.context.channel == channel)
        .map(|(h, u)| (h, u))
        .collect();
    // Stable: copies of one hash stay in the order applied, and the last replaces the rest.
    owed.sort_by(|a, b| a.0.cmp(b.0));
    owed.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            *kept = *later;
        }
        same
    });
    owed
}

/// The coordinator of one match (see the module docs).
#[derive(Clone, Debug)]
pub struct Coordinator {
    terms: AgreedTerms,
    variant: Variant,
    mode: Mode,
    phase: Phase,
    colors: Option<ByColor<PublicKey>>,
    commitments: Vec<Committed>,
    commitment_set: BTreeMap<crate::Commitment, Committed>,
    opened: BTreeSet<(PublicKey, crate::commitment::Purpose)>,
    contributions: BTreeMap<PublicKey, [u8; 32]>,
    /// Intrigue setup reports seen, by side.
    reports: [bool; 2],
    /// Sealed setup or tie-break messages received, by side.
    sealed_in: [bool; 2],
    /// The side whose move clock runs, and since when.
    clock: Option<(Color, u64)>,
    remaining_ms: [u64; 2],
    /// Other obligations, by party index.
    owe: [Option<Owe>; 3],
    /// The player action the umpire owes an answer to, and its author.
    answer_to: Option<(MessageHash, Color)>,
    /// The umpire owes a Turn for a completed setup or tie-break (`answer_to` covers actions).
    turn_due: bool,
    /// The last player sealed message that counted in a setup or tie-break: the one a Turn
    /// answering the completed setup or tie-break names.
    last_sealed: Option<MessageHash>,
    /// After a Turn: the announcement the umpire still owes each side on its channel, by the
    /// `re` it must carry (the Turn's). The side to move is entitled from the Turn, but its
    /// clock starts only with its announcement (PROTOCOL.md 13.2), so an umpire that withholds
    /// it is timed out, never the player.
    announce: [Option<Option<MessageHash>>; 2],
    /// The side entitled to move whose clock waits for its announcement.
    clock_pending: Option<Color>,
    /// An umpired game ended by two draw offers, and the position of the umpire's claim that
    /// told the players so.
    agreed_end: bool,
    end_told_at: Option<u64>,
    /// Every player sealed message that counted: what an umpire's claim or sealed answer may
    /// name (bounded by `max_messages_per_side`).
    player_sealed: BTreeSet<MessageHash>,
    /// Both sides act at once (6x6 tie-break).
    both: bool,
    /// A standing draw offer (a `Claim` of a draw by agreement) and who made it.
    draw_offer: Option<Color>,
    attempts: u32,
    timed_out: [bool; 3],
    /// Per entry (by seq): which sides were entitled to act after it.
    entitled: Vec<[bool; 2]>,
    /// The position of the entry that ended the game, once it has.
    ended_at: Option<u64>,
    /// The position of the relay's `Close`, once written.
    closed_at: Option<u64>,
    /// The parties that countersigned the close.
    countersigned: BTreeSet<PublicKey>,
    /// Sealed messages not yet disclosed: their author's party, recipient key and context, in
    /// the order they were applied (a push per sealed message, where a map keyed by the random
    /// hash moved its nodes' contents on every insert: docs/LOADTEST.md, stop 25). Read in the
    /// hash's order, the last of any repeated hash only ([`owed_in_hash_order`]).
    undisclosed: Vec<(MessageHash, Undisclosed)>,
    /// How many of them each party owes.
    undisclosed_by: [usize; 3],
    /// The setup of each author's sealing context on each private channel, from its first
    /// sealed message there.
    setups: BTreeMap<(PublicKey, Channel), SealSetup>,
    /// Recipients whose countersignature attests every setup sent to them
    /// ([`Coordinator::attest`]): their channels' disclosures are checked by key only.
    attested: BTreeSet<SealPublicKey>,
    now_ms: u64,
}

impl Coordinator {
    /// The coordinator of agreed terms.
    pub fn new(terms: AgreedTerms) -> Coordinator {
        let variant = terms.terms.variant();
        let initial = terms.terms.time_control.initial_ms;
        Coordinator {
            colors: terms.terms.fixed_colors(),
            mode: variant.mode(),
            variant,
            terms,
            phase: Phase::Created,
            commitments: Vec::new(),
            commitment_set: BTreeMap::new(),
            opened: BTreeSet::new(),
            contributions: BTreeMap::new(),
            reports: [false; 2],
            sealed_in: [false; 2],
            clock: None,
            remaining_ms: [initial; 2],
            owe: [None; 3],
            answer_to: None,
            turn_due: false,
            last_sealed: None,
            announce: [None; 2],
            clock_pending: None,
            player_sealed: BTreeSet::new(),
            agreed_end: false,
            end_told_at: None,
            both: false,
            draw_offer: None,
            attempts: 0,
            timed_out: [false; 3],
            entitled: Vec::new(),
            ended_at: None,
            closed_at: None,
            countersigned: BTreeSet::new(),
            undisclosed: Vec::new(),
            undisclosed_by: [0; 3],
            setups: BTreeMap::new(),
            attested: BTreeSet::new(),
            now_ms: 0,
        }
    }

    /// Takes the recipients (by seal key) whose countersignature a complete record holds: an
    /// honest machine countersigns only when every setup and sealed message sent to it opened
    /// ([`seal::Inbox::opened_all`]), so a countersignature attests that each setup's `enc`
    /// gave it the key its signed commitment commits to. A disclosure on a channel to such a
    /// recipient is then checked by its key alone, with symmetric work only
    /// ([`seal::check_disclosed_key`]); one to any other recipient also re-derives its setup
    /// from the seed (one key agreement, [`seal::check_disclosure`]), which is what convicts an
    /// author whose setup gave its recipient another key (docs/PROTOCOL.md 14.2). The verifier
    /// calls this before replaying; the relay, live, never does (no countersignature exists yet).
    pub fn attest(&mut self, recipients: impl IntoIterator<Item = SealPublicKey>) {
        self.attested.extend(recipients);
    }

    /// The colors, once known.
    pub fn colors(&self) -> Option<ByColor<PublicKey>> {
        self.colors
    }

    /// The revealed public contributions, by key.
    pub fn contributions(&self) -> &BTreeMap<PublicKey, [u8; 32]> {
        &self.contributions
    }

    /// A side's remaining clock time, as of its last completed wait.
    pub fn remaining_ms(&self, side: Color) -> u64 {
        self.remaining_ms[side.index()]
    }

    /// Whether a party has timed out.
    pub fn has_timed_out(&self, party: Party) -> bool {
        self.timed_out[party.index()]
    }

    /// The standing draw offer's author, if any.
    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }

    /// Whether the match is in play: setups done, the game on, no end yet (PROTOCOL.md 13.2).
    pub fn in_play(&self) -> bool {
        self.phase == Phase::Play
    }

    /// Whether the game is over (a claim, a Turn naming nobody, or a timeout ended it).
    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::End | Phase::Closed)
    }

    /// Whether the match is complete and not yet closed: over, and nothing owed by anyone. The
    /// relay then writes its `Close`.
    pub fn ready_to_close(&self) -> bool {
        self.phase == Phase::End && self.owe.iter().all(Option::is_none)
    }

    /// Whether the relay has closed the match.
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    /// The parties that countersigned the close.
    pub fn countersigned(&self) -> &BTreeSet<PublicKey> {
        &self.countersigned
    }

    /// Every deadline now running, earliest first.
    pub fn deadlines(&self) -> Vec<Deadline> {
        let mut out = Vec::new();
        if let Some((side, since)) = self.clock {
            let due_ms = since.saturating_add(self.remaining_ms[side.index()]);
            out.push(Deadline { party: Party::of(side), expectation: Expectation::Move, due_ms });
        }
        for party in Party::ALL {
            if let Some(o) = self.owe[party.index()] {
                out.push(Deadline { party, expectation: o.expectation, due_ms: o.due_ms });
            }
        }
        out.sort_by_key(|d| (d.due_ms, d.party));
        out
    }

    /// The earliest deadline: call [`Coordinator::expire`] after it.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.deadlines().first().map(|d| d.due_ms)
    }

    /// The deadlines missed by `now_ms` (without changing anything): what the relay must time
    /// out, in this order, before it accepts anything at `now_ms`.
    pub fn overdue(&self, now_ms: u64) -> Vec<Deadline> {
        self.deadlines().into_iter().filter(|d| now_ms > d.due_ms).collect()
    }

    fn party_of(&self, key: &PublicKey) -> Option<Party> {
        let t = &self.terms.terms;
        if t.umpire.as_ref().is_some_and(|u| u.key == *key) {
            return Some(Party::Umpire);
        }
        t.player(key)?;
        let colors =
            self.colors.unwrap_or(ByColor { white: t.players[0].key, black: t.players[1].key });
        colors.color_of(key).map(Party::of)
    }

    fn who(party: Option<Party>) -> &'static str {
        match party {
            Some(Party::White) => "White",
            Some(Party::Black) => "Black",
            Some(Party::Umpire) => "the umpire",
            None => "the relay",
        }
    }

    /// Whether `side` may make a move after the entries so far (or after entry `seq`).
    pub fn entitled_at(&self, side: Color, seq: Option<u64>) -> bool {
        match seq {
            None => self.entitled_now(side),
            Some(s) => usize::try_from(s)
                .ok()
                .and_then(|i| self.entitled.get(i))
                .is_some_and(|e| e[side.index()]),
        }
    }

    fn entitled_now(&self, side: Color) -> bool {
        if self.phase != Phase::Play || self.timed_out[side.index()] {
            return false;
        }
        if self.both {
            return !self.sealed_in[side.index()];
        }
        self.clock.is_some_and(|(s, _)| s == side) || self.clock_pending == Some(side)
    }

    /// Decides whether `body` is one its author may send now, by the table of docs/PROTOCOL.md,
    /// and whether it counts or is a void race. `seen` is the index in the log of the entry its
    /// `seen` names (the relay's [`crate::relay::Sequence::check`] maps the order head to it;
    /// `None` if it had seen nothing). Changes nothing: call [`Coordinator::apply`] once the
    /// message is accepted.
    pub fn admit(
        &self,
        body: &MessageBody,
        seen: Option<u64>,
        relay: &PublicKey,
    ) -> Result<Admission, NotEntitled> {
        self.admit_inner(body, seen, relay, None)
    }

    /// [`Coordinator::admit`], and for an admitted `Disclose` the payloads it opens: by sealed
    /// message, what the disclosed key opens it to (each already checked to be a non-sealed
    /// payload). A verifier takes these instead of opening every disclosed message a second
    /// time.
    pub fn admit_opening(
        &self,
        body: &MessageBody,
        seen: Option<u64>,
        relay: &PublicKey,
    ) -> Result<(Admission, Vec<(MessageHash, Payload)>), NotEntitled> {
        let mut opened = Vec::new();
        let admission = self.admit_inner(body, seen, relay, Some(&mut opened))?;
        Ok((admission, opened))
    }

    fn admit_inner(
        &self,
        body: &MessageBody,
        seen: Option<u64>,
        relay: &PublicKey,
        opened: Option<&mut Vec<(MessageHash, Payload)>>,
    ) -> Result<Admission, NotEntitled> {
        let author = body.author;
        let kind = body.payload.kind();
        let channel = body.channel;
        if author == *relay {
            // The relay writes its own notices; it never sends them through `admit`.
            return Err(NotEntitled::Never { who: "the relay", kind, channel });
        }
        let party = self.party_of(&author).ok_or(NotEntitled::Stranger { author })?;
        let who = Self::who(Some(party));
        let never = || NotEntitled::Never { who, kind, channel };
        let not_now = |why: &str| NotEntitled::NotNow { who, kind, why: why.to_owned() };
        let umpired = self.mode == Mode::Umpire;
        // Channels: the public one for everything in clear; a private one only for sealed
        // payloads between its player and the umpire, once colors are known.
        match channel {
            Channel::Public => {
                if matches!(body.payload, Payload::Sealed(_)) {
                    return Err(never());
                }
            }
            Channel::WhiteUmpire | Channel::BlackUmpire => {
                let own = party.side().is_some_and(|s| Channel::private(s) == channel);
                if !umpired || !(own || party == Party::Umpire) {
                    return Err(never());
                }
                let Payload::Sealed(sealed) = &body.payload else {
                    return Err(never());
                };
                let direction = if party == Party::Umpire {
                    SealDirection::FromUmpire
                } else {
                    SealDirection::ToUmpire
                };
                let padded = game::sealed_plaintext_bytes(self.variant, direction);
                seal::check_size(&seal_context(body), sealed, padded)
                    .map_err(|error| NotEntitled::SealedSize { who, channel, error })?;
                // One sealing context per author and channel: its first sealed message sets it
                // up, a later one may repeat that setup but never change it.
                let setup = |why| NotEntitled::SealSetup { who, channel, why };
                match (self.setups.get(&(author, channel)), &sealed.setup) {
                    (None, None) => {
                        return Err(setup(
                            "the author's first sealed message on a channel carries its setup",
                        ));
                    }
                    (Some(known), Some(s)) if known != s => {
                        return Err(setup(
                            "another setup than the author's context on the channel",
                        ));
                    }
                    _ => {}
                }
                if self.colors.is_none() {
                    return Err(not_now("private channels open once colours are known"));
                }
            }
        }
        if self.phase == Phase::Created {
            return Err(not_now("the match has not started"));
        }
        let side = party.side();
        self.check_reference(body, party)?;
        match (&body.payload, party) {
            (Payload::Timeout { .. } | Payload::Start | Payload::Close { .. }, _) => Err(never()),
            (Payload::Countersign, _) => {
                let Some(close) = self.closed_at else {
                    return Err(not_now("the match is not closed"));
                };
                if seen.is_none_or(|s| s < close) {
                    return Err(not_now(
                        "a countersignature comes from a party that saw the close",
                    ));
                }
                if self.countersigned.contains(&author) {
                    return Err(not_now("this party has countersigned already"));
                }
                Ok(Admission::Counts)
            }
            _ if self.phase == Phase::Closed => {
                let acts = matches!(
                    body.payload,
                    Payload::Action(_) | Payload::Sealed(_) | Payload::Observation(_)
                );
                if acts && self.timed_out[party.index()] {
                    return Err(NotEntitled::TimedOut { party });
                }
                // Written before its author saw the close: a race; after: out of the table.
                if seen.is_none_or(|s| self.closed_at.is_some_and(|c| s < c)) {
                    Ok(Admission::Void)
                } else {
                    Err(not_now("the match is closed"))
                }
            }
            (Payload::Disclose(items), _) => {
                if self.phase != Phase::End {
                    return Err(not_now("disclosures come after the end"));
                }
                self.admit_disclosures(&author, items, opened)
            }
            (Payload::Commit { purpose, commitment }, Party::White | Party::Black) => {
                self.admit_commit(&author, *purpose, commitment, side)
            }
            (Payload::Reveal { purpose, opening }, Party::White | Party::Black) => {
                if *purpose != commitment::PUBLIC_CONTRIBUTION {
                    return Err(not_now("only the public contribution is revealed"));
                }
                if self.phase != Phase::Reveal && !self.both_early_committed() {
                    return Err(not_now("reveals wait for both players' commitments"));
                }
                self.check_opening(&author, *purpose, opening)?;
                if opening.value.len() != 32 {
                    return Err(NotEntitled::ContributionLength {
                        author,
                        len: opening.value.len(),
                    });
                }
                Ok(Admission::Counts)
            }
            (Payload::Open { purpose, opening }, Party::White | Party::Black) => {
                // Openings are owed at the end; in play, only an Intrigue owner opens its setup,
                // answering a capture (`re`).
                let informer = self.mode == Mode::Owner
                    && *purpose == flow::INTRIGUE_SETUP
                    && self.phase == Phase::Play
                    && body.re.is_some();
                if self.phase != Phase::End && !informer {
                    return Err(not_now("openings come after the end"));
                }
                self.check_opening(&author, *purpose, opening)?;
                Ok(Admission::Counts)
            }
            (Payload::Claim(c), _) => {
                if self.phase == Phase::Created
                    || self.phase == Phase::Commit && party == Party::Umpire
                {
                    return Err(not_now("nothing to claim yet"));
                }
                // A claim (a resignation, a draw offer) written before its author saw the end
                // of the game (the rules' end, another claim, a timeout): a race, void.
                if self.ended_before(seen) || self.agreement_unseen(seen, party) {
                    return Ok(Admission::Void);
                }
                // A draw offer stands only in play (PROTOCOL.md 14.1): before it there is no
                // game to agree on (a last revealer who dislikes its colors or its SIC army
                // must not end the match with one and escape the forfeit), after the end it is
                // too late.
                let offer = c.outcome == crate::message::Outcome::Draw
                    && c.reason == rules::EndReason::Agreement.into();
                if offer
                    && party != Party::Umpire
                    && matches!(self.phase, Phase::Commit | Phase::Reveal | Phase::Setup)
                {
                    return Err(not_now("a draw offer stands only in play"));
                }
                Ok(Admission::Counts)
            }
            (Payload::Action(_), Party::White | Party::Black) if !umpired => {
                self.admit_action(body, seen, side.unwrap_or(Color::White))
            }
            (Payload::Observation(_), Party::White | Party::Black) if self.mode == Mode::Owner => {
                let s = side.unwrap_or(Color::White);
                match self.phase {
                    // Setup reports: White's first, then Black's (PROTOCOL.md 18.2).
                    Phase::Setup => {
                        let ok = !self.reports[s.index()]
                            && self.both_setup_committed()
                            && (s == Color::White || self.reports[0]);
                        if ok {
                            Ok(Admission::Counts)
                        } else {
                            Err(not_now("not this side's report now"))
                        }
                    }
                    // An informer answer names the capture it answers and comes on the owner's
                    // turn, before its move.
                    Phase::Play if body.re.is_some() => self.admit_action(body, seen, s),
                    // A report or an answer written before its author saw the end: a race,
                    // void.
                    Phase::End if self.ended_before(seen) => Ok(Admission::Void),
                    _ => Err(not_now("owner reports come at setup or answer a capture")),
                }
            }
            (Payload::Sealed(_), Party::White | Party::Black) => {
                let s = side.unwrap_or(Color::White);
                match self.phase {
                    Phase::Setup if self.needs_sealed_setup() => {
                        if self.sealed_in[s.index()] {
                            Err(not_now("this side's setup is already sealed"))
                        } else {
                            Ok(Admission::Counts)
                        }
                    }
                    Phase::Play => self.admit_action(body, seen, s),
                    // Written before its author saw the end (a resignation or a claim in
                    // flight), or before it could tell that crossing draw offers had ended an
                    // umpired game: a race, void; its disclosure is owed like any sealed
                    // message's.
                    Phase::End if self.ended_before(seen) || self.agreement_unseen(seen, party) => {
                        Ok(Admission::Void)
                    }
                    _ => Err(not_now("no sealed message is owed now")),
                }
            }
            (Payload::Sealed(_), Party::Umpire) => {
                // The umpire answers what it was sent: acks in setup, answers in play, and the
                // start views (`re` = nothing) once the setup is in.
                if self.phase == Phase::Commit || self.phase == Phase::Reveal {
                    return Err(not_now("the umpire has nothing to answer yet"));
                }
                Ok(Admission::Counts)
            }
            (Payload::Turn { .. }, Party::Umpire) => {
                // A Turn is the umpire's answer: to a player's action, to the completed setup,
                // to both tie-breaks; it names exactly what it answers (`re`).
                if self.answer_to.is_some() || self.turn_due {
                    let want = self.turn_re();
                    if body.re != want {
                        return Err(NotEntitled::BadReference {
                            who,
                            kind,
                            why: format!(
                                "a Turn names {} (what it adjudicates), not {}",
                                name_of(want),
                                name_of(body.re)
                            ),
                        });
                    }
                    Ok(Admission::Counts)
                } else if self.ended_before(seen) {
                    // Written before the umpire saw the end (a resignation in flight): a race.
                    Ok(Admission::Void)
                } else {
                    Err(not_now("the umpire owes no answer now"))
                }
            }
            _ => Err(never()),
        }
    }

    /// Each disclosure names a private channel on which its author owes disclosures (once per
    /// message), its key is the one the author's signed setup there commits to, its seal seed
    /// reproduces that setup (unless the recipient attested it: [`Coordinator::attest`]), and every sealed
    /// message of the author's on the channel not yet disclosed opens under the key it gives to
    /// its committed plaintext, a payload that is not itself sealed (docs/PROTOCOL.md 14.2).
    /// At most one key agreement per channel; symmetric work per message.
    fn admit_disclosures(
        &self,
        author: &PublicKey,
        items: &[SealDisclosure],
        mut opened: Option<&mut Vec<(MessageHash, Payload)>>,
    ) -> Result<Admission, NotEntitled> {
        let mut named = BTreeSet::new();
        for d in items {
            let channel = d.channel;
            let bad = |why: String| NotEntitled::BadDisclosure { channel, why };
            if !named.insert(channel) {
                return Err(bad("disclosed twice in one message".into()));
            }
            let owed = owed_in_hash_order(&self.undisclosed, author, channel);
            let Some((_, first)) = owed.first() else {
                return Err(bad("no sealed message of its author awaits a disclosure".into()));
            };
            let Some(setup) = self.setups.get(&(*author, channel)) else {
                return Err(bad("the channel has no setup of its author".into()));
            };
            let key = seal::check_disclosed_key(channel, setup, &d.key)
                .map_err(|e| bad(e.to_string()))?;
            if !self.attested.contains(&first.recipient) {
                seal::check_disclosure(&first.recipient, &first.context, setup, &d.seal_seed)
                    .map_err(|e| bad(e.to_string()))?;
            }
            let direction = if first.party == Party::Umpire {
                SealDirection::FromUmpire
            } else {
                SealDirection::ToUmpire
            };
            let padded = game::sealed_plaintext_bytes(self.variant, direction);
            // One buffer for every opening of the channel (`ChannelKey::open_into`).
            let mut buf = Vec::new();
            for &(hash, u) in &owed {
                let plaintext = key
                    .open_into(&u.context, &u.sealed, padded, &mut buf)
                    .map_err(|e| bad(format!("its sealed message {hash}: {e}")))?;
                match Payload::from_canonical(plaintext) {
                    Ok(Payload::Sealed(_)) => {
                        return Err(bad(format!(
                            "its sealed message {hash} holds a sealed payload"
                        )));
                    }
                    Ok(payload) => {
                        if let Some(opened) = opened.as_deref_mut() {
                            opened.push((*hash, payload));
                        }
                    }
                    Err(e) => {
                        return Err(bad(format!(
                            "its sealed message {hash} is not a payload: {e}"
                        )));
                    }
                }
            }
        }
        Ok(Admission::Counts)
    }

    fn admit_commit(
        &self,
        author: &PublicKey,
        purpose: crate::commitment::Purpose,
        c: &crate::Commitment,
        side: Option<Color>,
    ) -> Result<Admission, NotEntitled> {
        let not_now = |why: &str| NotEntitled::NotNow {
            who: Self::who(side.map(Party::of)),
            kind: "commit",
            why: why.to_owned(),
        };
        if self.commitments.iter().any(|x| x.author == *author && x.purpose == purpose) {
            return Err(NotEntitled::Recommitted { author: *author, purpose });
        }
        if let Some(first) = self.commitment_set.get(c) {
            let second = Committed { author: *author, purpose, commitment: *c };
            return Err(NotEntitled::DuplicateCommitment(DuplicateCommitmentError {
                first: Box::new(first.clone()),
                second: Box::new(second),
            }));
        }
        let early = flow::early_commitments(self.variant).contains(&purpose);
        let allowed = if early {
            // A commitment to a private seed after the opponent's contribution is revealed
            // would let its author grind its own random setup.
            self.phase == Phase::Commit && self.contributions.is_empty()
        } else if Some(purpose) == flow::setup_commitment(self.variant) {
            self.phase == Phase::Setup
        } else if purpose == flow::TIEBREAK {
            self.phase == Phase::Play && self.both
        } else {
            false
        };
        if allowed { Ok(Admission::Counts) } else { Err(not_now("no such commitment is due now")) }
    }

    fn check_opening(
        &self,
        author: &PublicKey,
        purpose: crate::commitment::Purpose,
        opening: &commitment::Opening,
    ) -> Result<(), NotEntitled> {
        let nothing = || NotEntitled::NothingToOpen { author: *author, purpose };
        if self.opened.contains(&(*author, purpose)) {
            return Err(nothing());
        }
        let committed = self
            .commitments
            .iter()
            .find(|c| c.author == *author && c.purpose == purpose)
            .ok_or_else(nothing)?;
        commitment::check_opening(
            &committed.commitment,
            purpose,
            &self.terms.match_id,
            author,
            opening,
        )?;
        Ok(())
    }

    /// A move (or owner answer, or sealed action): counts if the side may act now; a void race
    /// if it could by what its author had seen; refused otherwise.
    fn admit_action(
        &self,
        body: &MessageBody,
        seen: Option<u64>,
        side: Color,
    ) -> Result<Admission, NotEntitled> {
        if self.timed_out[side.index()] {
            return Err(NotEntitled::TimedOut { party: Party::of(side) });
        }
        if self.entitled_now(side) {
            if self.mode == Mode::Umpire && self.variant == Variant::Kriegspiel && !self.both {
                let max = self.terms.terms.limits.max_attempts_per_turn;
                if self.attempts >= max {
                    return Err(NotEntitled::TooManyAttempts { side, max });
                }
            }
            return Ok(Admission::Counts);
        }
        let saw_entitled = seen.is_some_and(|s| self.entitled_at(side, Some(s)));
        if saw_entitled {
            Ok(Admission::Void)
        } else {
            Err(NotEntitled::NotNow {
                who: Self::who(Some(Party::of(side))),
                kind: body.payload.kind(),
                why: "it is not this side's turn, by what it had seen".to_owned(),
            })
        }
    }

    /// What a Turn must name now: the action it answers, else (6x6) the sealed message that
    /// completed the setup or the tie-break, else nothing (the start of Kriegspiel and SIC).
    fn turn_re(&self) -> Option<MessageHash> {
        match self.answer_to {
            Some((action, _)) => Some(action),
            None if self.variant.sealed_secrets_are_actions() => self.last_sealed,
            None => None,
        }
    }

    /// Every `re` is fixed by the rules (see [`NotEntitled::BadReference`]): a Turn's is checked
    /// where it is admitted; an umpire's claim or sealed answer names nothing or a player's
    /// sealed message; an Intrigue owner's answer and informer opening name a message; every
    /// other message names nothing.
    fn check_reference(&self, body: &MessageBody, party: Party) -> Result<(), NotEntitled> {
        let Some(re) = body.re else { return Ok(()) };
        let kind = body.payload.kind();
        let who = Self::who(Some(party));
        let bad = |why: &str| NotEntitled::BadReference { who, kind, why: why.to_owned() };
        match (&body.payload, party) {
            (Payload::Turn { .. }, Party::Umpire) => Ok(()),
            (Payload::Claim(_) | Payload::Sealed(_), Party::Umpire) => {
                if self.player_sealed.contains(&re) {
                    Ok(())
                } else {
                    Err(bad("an umpire's answer or complaint names a player's sealed message"))
                }
            }
            (Payload::Observation(_) | Payload::Open { .. }, Party::White | Party::Black)
                if self.mode == Mode::Owner =>
            {
                Ok(())
            }
            _ => Err(bad("this message answers nothing: its re must be empty")),
        }
    }

    /// In an umpired game two draw offers end the game, but a player cannot tell from what it
    /// reads (an opponent's sealed attempt, which it does not see, withdraws that opponent's
    /// offer): it learns of the end from the umpire's claim. A player's message written before
    /// it saw that claim is a race.
    fn agreement_unseen(&self, seen: Option<u64>, party: Party) -> bool {
        self.agreed_end
            && party != Party::Umpire
            && seen.is_none_or(|s| self.end_told_at.is_none_or(|told| s < told))
    }

    /// Whether the game ended at an entry its author had not yet seen (it had seen up to
    /// entry `seen`).
    fn ended_before(&self, seen: Option<u64>) -> bool {
        self.ended_at.is_some_and(|end| seen.is_none_or(|s| s < end))
    }

    fn both_early_committed(&self) -> bool {
        self.terms.terms.players.iter().all(|p| {
            flow::early_commitments(self.variant).iter().all(|purpose| {
                self.commitments.iter().any(|c| c.author == p.key && c.purpose == *purpose)
            })
        })
    }

    fn both_setup_committed(&self) -> bool {
        let Some(purpose) = flow::setup_commitment(self.variant) else { return true };
        self.terms
            .terms
            .players
            .iter()
            .all(|p| self.commitments.iter().any(|c| c.author == p.key && c.purpose == purpose))
    }

    fn needs_sealed_setup(&self) -> bool {
        self.variant.seals_setup()
    }

    /// Everything the players owe in the setup phase is in.
    fn setup_complete(&self) -> bool {
        match self.mode {
            Mode::Open => true,
            Mode::Owner => self.reports == [true, true],
            Mode::Umpire => {
                !self.needs_sealed_setup()
                    || (self.sealed_in == [true, true] && self.both_setup_committed())
            }
        }
    }

    /// Applies a message accepted at position `seq` and time `now_ms` (its admission decided
    /// by [`Coordinator::admit`]; the relay's own notices come here too).
    pub fn apply(
        &mut self,
        body: &MessageBody,
        hash: MessageHash,
        admission: Admission,
        now_ms: u64,
    ) {
        self.now_ms = self.now_ms.max(now_ms);
        let now = self.now_ms;
        if let Payload::Sealed(sealed) = &body.payload {
            self.owe_disclosure(body, hash, sealed.clone(), now);
        }
        if admission == Admission::Counts {
            self.apply_counted(body, hash, now);
        }
        let flags = [self.entitled_now(Color::White), self.entitled_now(Color::Black)];
        self.entitled.push(flags);
    }

    fn apply_counted(&mut self, body: &MessageBody, hash: MessageHash, now: u64) {
        let party = self.party_of(&body.author);
        match &body.payload {
            Payload::Start => {
                self.phase = Phase::Commit;
                for side in Color::ALL {
                    self.owe_reveal(Party::of(side), now);
                }
            }
            Payload::Timeout { party, expectation, .. } => {
                self.timed_out_now(*party, *expectation, now)
            }
            Payload::Commit { purpose, commitment } => {
                let c =
                    Committed { author: body.author, purpose: *purpose, commitment: *commitment };
                self.commitment_set.entry(*commitment).or_insert_with(|| c.clone());
                self.commitments.push(c);
                self.progress(now);
            }
            Payload::Reveal { purpose, opening } | Payload::Open { purpose, opening } => {
                self.opened.insert((body.author, *purpose));
                if *purpose == commitment::PUBLIC_CONTRIBUTION
                    && let Ok(c) = <[u8; 32]>::try_from(opening.value.as_slice())
                {
                    self.contributions.insert(body.author, c);
                    self.maybe_draw_colors();
                }
                self.progress(now);
            }
            Payload::Claim(c) => {
                let offer = c.outcome == crate::message::Outcome::Draw
                    && c.reason == rules::EndReason::Agreement.into();
                match (offer, party.and_then(Party::side)) {
                    // A draw offer stands until the offerer's next move or the opponent's
                    // reply (as on lichess); the opponent's own offer is the acceptance.
                    (true, Some(side)) if self.phase == Phase::Play => {
                        if self.draw_offer == Some(side.other()) {
                            self.agreed_end = self.mode == Mode::Umpire;
                            self.end(now);
                        } else {
                            self.draw_offer = Some(side);
                        }
                    }
                    _ => {
                        if party == Some(Party::Umpire)
                            && self.agreed_end
                            && self.end_told_at.is_none()
                        {
                            self.end_told_at = Some(self.entitled.len() as u64);
                        }
                        self.end(now);
                    }
                }
            }
            Payload::Action(_) => {
                self.draw_offer = None;
                if let Some(Party::White | Party::Black) = party {
                    let side = party.and_then(Party::side).unwrap_or(Color::White);
                    self.hand_over(side, side.other(), now);
                }
            }
            Payload::Observation(_) => {
                if self.phase == Phase::Setup
                    && let Some(side) = party.and_then(Party::side)
                {
                    self.reports[side.index()] = true;
                    self.progress(now);
                }
            }
            Payload::Sealed(_) => match party {
                Some(Party::Umpire) => {
                    let channel_side = body.channel.side();
                    if let Some((action, actor)) = self.answer_to
                        && body.re == Some(action)
                    {
                        // A sealed answer to the actor that is not a Turn: the actor acts again
                        // (a Kriegspiel "illegal", a 6x6 move before its end of turn). Should
                        // the answer say the move was played (its Turn withheld), the verifier
                        // names the umpire at this answer (PROTOCOL.md 13.4).
                        self.answer_to = None;
                        self.owe[Party::Umpire.index()] = None;
                        self.clock = Some((actor, now));
                    } else if let Some(side) = channel_side
                        && self.announce[side.index()] == Some(body.re)
                    {
                        // The announcement a Turn owed this side: its clock starts now (or, in
                        // a tie-break, its reveal deadline).
                        self.announce[side.index()] = None;
                        if self.clock_pending == Some(side) {
                            self.clock_pending = None;
                            self.clock = Some((side, now));
                        }
                        if self.both {
                            self.owe_reveal(Party::of(side), now);
                        }
                        self.settle_umpire();
                    }
                }
                Some(p @ (Party::White | Party::Black)) => {
                    let side = p.side().unwrap_or(Color::White);
                    self.player_sealed.insert(hash);
                    if self.phase == Phase::Setup || self.both {
                        self.sealed_in[side.index()] = true;
                        self.last_sealed = Some(hash);
                        if self.both && self.announce[side.index()].take().is_some() {
                            // It acted without waiting for its announcement: what it owes
                            // runs from now, and the umpire owes it no announcement more.
                            self.owe_reveal(Party::of(side), now);
                            self.settle_umpire();
                        }
                        self.progress(now);
                    } else if self.phase == Phase::Play {
                        self.draw_offer = None;
                        self.stop_clock(side, now, false);
                        if self.clock_pending == Some(side) {
                            self.clock_pending = None;
                        }
                        self.announce[side.index()] = None;
                        self.attempts += 1;
                        self.answer_to = Some((hash, side));
                        self.owe_answer(now);
                    }
                }
                None => {}
            },
            Payload::Turn { next } => {
                let actor = self.answer_to.take().map(|(_, s)| s);
                self.turn_due = false;
                self.owe[Party::Umpire.index()] = None;
                if let Some(a) = actor
                    && *next != Owed::Side(a)
                {
                    self.credit_increment(a);
                }
                self.attempts = 0;
                self.both = false;
                self.sealed_in = [false; 2];
                self.clock_pending = None;
                self.announce = [None; 2];
                // Every Turn but Kriegspiel's first (which starts a game nobody is told
                // anything about) owes the side(s) it names an announcement naming what the
                // Turn names (PROTOCOL.md 13.2); the clock waits for it.
                let announced = self.variant != Variant::Kriegspiel || body.re.is_some();
                match next {
                    Owed::Side(s) => {
                        self.phase = Phase::Play;
                        if announced {
                            self.clock = None;
                            self.clock_pending = Some(*s);
                            self.announce[s.index()] = Some(body.re);
                            self.owe_answer(now);
                        } else {
                            self.clock = Some((*s, now));
                        }
                    }
                    Owed::Both => {
                        self.phase = Phase::Play;
                        self.clock = None;
                        self.both = true;
                        if announced {
                            self.announce = [Some(body.re); 2];
                            self.owe_answer(now);
                        } else {
                            for side in Color::ALL {
                                self.owe_reveal(Party::of(side), now);
                            }
                        }
                    }
                    Owed::Nobody => self.end(now),
                }
            }
            Payload::Ack { .. } => {}
            Payload::Close { .. } => {
                self.phase = Phase::Closed;
                // `apply` records each entry's flags after applying it: this entry's position.
                self.closed_at = Some(self.entitled.len() as u64);
            }
            Payload::Countersign => {
                self.countersigned.insert(body.author);
            }
            Payload::Disclose(items) => {
                // A channel's disclosure covers every sealed message of its author on it so far.
                let by = &mut self.undisclosed_by;
                self.undisclosed.retain(|(_, u)| {
                    let covered = u.context.author == body.author
                        && items.iter().any(|d| d.channel == u.context.channel);
                    if covered {
                        by[u.party.index()] -= 1;
                    }
                    !covered
                });
                self.progress(now);
            }
        }
    }

    /// Notes a sealed message its author will owe a disclosure of; once the game is over, it is
    /// owed at once.
    fn owe_disclosure(&mut self, body: &MessageBody, hash: MessageHash, sealed: Sealed, now: u64) {
        let Some(party) = self.party_of(&body.author) else { return };
        let recipient = match (party, body.channel.side()) {
            (Party::Umpire, Some(side)) => {
                self.key_of(side).and_then(|k| self.terms.terms.player(&k)).map(|p| p.seal_key)
            }
            (Party::White | Party::Black, Some(_)) => {
                self.terms.terms.umpire.as_ref().map(|u| u.seal_key)
            }
            _ => None,
        };
        let Some(recipient) = recipient else { return };
        let context = seal_context(body);
        if let Some(setup) = sealed.setup {
            self.setups.entry((body.author, body.channel)).or_insert(setup);
        }
        // A repeated hash (the same message applied twice) is pushed and counted again: the
        // disclosure that covers it removes and uncounts every copy, and it is read once.
        self.undisclosed.push((hash, Undisclosed { party, recipient, context, sealed }));
        self.undisclosed_by[party.index()] += 1;
        if self.phase == Phase::End && self.owe[party.index()].is_none() {
            self.owe_reveal(party, now);
        }
    }

    /// Whether `party` still owes disclosures of sealed messages it sent.
    fn owes_disclosures(&self, party: Party) -> bool {
        self.undisclosed_by[party.index()] > 0
    }

    fn owe_reveal(&mut self, party: Party, now: u64) {
        let due_ms = now.saturating_add(self.terms.terms.time_control.reveal_ms);
        self.owe[party.index()] = Some(Owe { expectation: Expectation::Reveal, due_ms });
    }

    fn owe_answer(&mut self, now: u64) {
        let due_ms = now.saturating_add(self.terms.terms.time_control.answer_ms);
        self.owe[Party::Umpire.index()] = Some(Owe { expectation: Expectation::Answer, due_ms });
    }

    /// The umpire owes nothing more once every answer, Turn and announcement is in.
    fn settle_umpire(&mut self) {
        if self.answer_to.is_none() && !self.turn_due && self.announce == [None; 2] {
            self.owe[Party::Umpire.index()] = None;
        }
    }

    fn credit_increment(&mut self, side: Color) {
        let i = side.index();
        self.remaining_ms[i] =
            self.remaining_ms[i].saturating_add(self.terms.terms.time_control.increment_ms);
    }

    /// Stops `side`'s clock at `now`, charging the time used (and the increment if the move
    /// handed the turn over).
    fn stop_clock(&mut self, side: Color, now: u64, increment: bool) {
        if let Some((s, since)) = self.clock
            && s == side
        {
            let used = now.saturating_sub(since);
            let i = side.index();
            self.remaining_ms[i] = self.remaining_ms[i].saturating_sub(used);
            self.clock = None;
            if increment {
                self.credit_increment(side);
            }
        }
    }

    /// An open or owner move by `from`: its clock stops with the increment, `to`'s starts.
    fn hand_over(&mut self, from: Color, to: Color, now: u64) {
        if self.phase != Phase::Play {
            return;
        }
        self.stop_clock(from, now, true);
        self.clock = Some((to, now));
    }

    fn end(&mut self, now: u64) {
        if matches!(self.phase, Phase::End | Phase::Closed) {
            return;
        }
        // `apply` records each entry's flags after applying it: this entry's position.
        self.ended_at = Some(self.entitled.len() as u64);
        if let Some((side, _)) = self.clock {
            self.stop_clock(side, now, false);
        }
        self.phase = Phase::End;
        self.clock = None;
        self.both = false;
        self.answer_to = None;
        self.turn_due = false;
        self.announce = [None; 2];
        self.clock_pending = None;
        self.owe = [None; 3];
        for party in Party::ALL {
            if self.owes_at_end(party) {
                self.owe_reveal(party, now);
            }
        }
    }

    /// Whether `party` owes openings or disclosures after the end.
    fn owes_at_end(&self, party: Party) -> bool {
        party.side().is_some_and(|s| self.owes_openings(s)) || self.owes_disclosures(party)
    }

    /// Whether the player of `side` has a commitment it has not opened.
    fn owes_openings(&self, side: Color) -> bool {
        let Some(key) = self.key_of(side) else { return false };
        self.commitments.iter().any(|c| c.author == key && !self.opened.contains(&(key, c.purpose)))
    }

    fn key_of(&self, side: Color) -> Option<PublicKey> {
        let t = &self.terms.terms;
        let colors =
            self.colors.unwrap_or(ByColor { white: t.players[0].key, black: t.players[1].key });
        Some(colors[side])
    }

    fn maybe_draw_colors(&mut self) {
        if self.colors.is_some() {
            return;
        }
        let t = &self.terms.terms;
        let c0 = self.contributions.get(&t.players[0].key);
        let c1 = self.contributions.get(&t.players[1].key);
        if let (Some(c0), Some(c1)) = (c0, c1) {
            self.colors = Some(draw_colors(t, &self.terms.match_id, &[*c0, *c1]));
        }
    }

    /// Moves the phases on as what is owed comes in.
    fn progress(&mut self, now: u64) {
        loop {
            let before = self.phase;
            match self.phase {
                Phase::Commit => {
                    for side in Color::ALL {
                        if self.early_committed(side) && self.owe_is(side, Expectation::Reveal) {
                            self.owe[side.index()] = None;
                        }
                    }
                    if self.both_early_committed() {
                        self.phase = Phase::Reveal;
                        for side in Color::ALL {
                            self.owe_reveal(Party::of(side), now);
                        }
                    }
                }
                Phase::Reveal => {
                    for side in Color::ALL {
                        if let Some(key) = self.key_of_player(side)
                            && self.contributions.contains_key(&key)
                        {
                            self.owe[side.index()] = None;
                        }
                    }
                    if self.contributions.len() == 2 {
                        self.start_setup(now);
                    }
                }
                Phase::Setup => self.progress_setup(now),
                Phase::Play => {
                    if self.both {
                        for side in Color::ALL {
                            if self.sealed_in[side.index()] && self.tiebreak_committed(side) {
                                self.owe[side.index()] = None;
                            }
                        }
                        if self.sealed_in == [true, true]
                            && Color::ALL.iter().all(|s| self.tiebreak_committed(*s))
                            && self.owe[Party::Umpire.index()].is_none()
                        {
                            self.owe_answer(now);
                            self.answer_to = None;
                            self.turn_due = true;
                        }
                    }
                }
                Phase::Created | Phase::Closed => {}
                Phase::End => {
                    for party in Party::ALL {
                        if !self.owes_at_end(party) && self.owe_is_party(party, Expectation::Reveal)
                        {
                            self.owe[party.index()] = None;
                        }
                    }
                }
            }
            if self.phase == before {
                break;
            }
        }
    }

    fn tiebreak_committed(&self, side: Color) -> bool {
        let Some(key) = self.key_of(side) else { return false };
        self.commitments.iter().any(|c| c.author == key && c.purpose == flow::TIEBREAK)
    }

    fn key_of_player(&self, side: Color) -> Option<PublicKey> {
        // Before colors, "sides" are the players' order (see the module docs).
        self.key_of(side)
    }

    fn owe_is(&self, side: Color, e: Expectation) -> bool {
        self.owe_is_party(Party::of(side), e)
    }

    fn owe_is_party(&self, party: Party, e: Expectation) -> bool {
        self.owe[party.index()].is_some_and(|o| o.expectation == e)
    }

    fn early_committed(&self, side: Color) -> bool {
        let Some(key) = self.key_of_player(side) else { return false };
        flow::early_commitments(self.variant)
            .iter()
            .all(|p| self.commitments.iter().any(|c| c.author == key && c.purpose == *p))
    }

    fn start_setup(&mut self, now: u64) {
        self.phase = Phase::Setup;
        self.owe = [None; 3];
        match self.mode {
            Mode::Open => {
                self.phase = Phase::Play;
                self.clock = Some((Color::White, now));
            }
            Mode::Owner => {
                for side in Color::ALL {
                    self.owe_reveal(Party::of(side), now);
                }
            }
            Mode::Umpire => {
                if self.needs_sealed_setup() {
                    for side in Color::ALL {
                        self.owe_reveal(Party::of(side), now);
                    }
                } else {
                    self.owe_answer(now);
                    self.turn_due = true;
                }
            }
        }
    }

    fn progress_setup(&mut self, now: u64) {
        match self.mode {
            Mode::Open => {}
            Mode::Owner => {
                let committed = self.both_setup_committed();
                for side in Color::ALL {
                    let key = self.key_of(side);
                    let own = key.is_some_and(|k| {
                        self.commitments
                            .iter()
                            .any(|c| c.author == k && c.purpose == flow::INTRIGUE_SETUP)
                    });
                    // Committed: now its report is owed, White's first.
                    let report_due = committed && (side == Color::White || self.reports[0]);
                    let done = self.reports[side.index()];
                    let i = side.index();
                    if done || (own && !report_due) {
                        self.owe[i] = None;
                    } else if report_due && !done && self.owe[i].is_none() {
                        self.owe_reveal(Party::of(side), now);
                    }
                }
                if self.reports == [true, true] {
                    self.phase = Phase::Play;
                    self.owe = [None; 3];
                    self.clock = Some((Color::White, now));
                }
            }
            Mode::Umpire => {
                for side in Color::ALL {
                    let i = side.index();
                    let committed = flow::setup_commitment(self.variant).is_none_or(|p| {
                        self.key_of(side).is_some_and(|k| {
                            self.commitments.iter().any(|c| c.author == k && c.purpose == p)
                        })
                    });
                    if self.sealed_in[i] && committed {
                        self.owe[i] = None;
                    }
                }
                if self.setup_complete()
                    && self.owe[Party::Umpire.index()].is_none()
                    && !self.turn_due
                {
                    self.owe_answer(now);
                    self.turn_due = true;
                }
            }
        }
    }

    /// Records that `party` missed its `expectation` deadline at `now` (the relay's Timeout).
    fn timed_out_now(&mut self, party: Party, expectation: Expectation, now: u64) {
        self.timed_out[party.index()] = true;
        match (party.side(), expectation) {
            (Some(side), Expectation::Move) => {
                self.remaining_ms[side.index()] = 0;
                self.clock = None;
                self.end(now);
            }
            // Neither player committed in the commit phase: both deadlines ran out at once,
            // and both are timed out before the match ends, so the record shows that nobody
            // began it (no result) rather than naming whichever the relay wrote first
            // (PROTOCOL.md 13.3).
            (Some(side), Expectation::Reveal)
                if self.phase == Phase::Commit
                    && !self.early_committed(side.other())
                    && !self.timed_out[side.other().index()]
                    && self.owe_is(side.other(), Expectation::Reveal) =>
            {
                self.owe[party.index()] = None;
            }
            // A missed reveal, opening or disclosure, or a missed answer: the party is at fault
            // and owes nothing more (what it still owes stays missing, in its name).
            (_, _) => {
                self.end(now);
                self.owe[party.index()] = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undisclosed(author: u8, channel: Channel, seq: u64) -> Undisclosed {
        Undisclosed {
            party: Party::White,
            recipient: SealPublicKey([9; 32]),
            context: SealContext {
                match_id: crate::MatchId([1; 32]),
                channel,
                author: PublicKey([author; 32]),
                seq,
            },
            sealed: Sealed { setup: None, commitment: [0; 32], ciphertext: vec![author] },
        }
    }

    /// What the map keyed by the hash gave, from a list in the order applied: the hashes in
    /// order, each once with its last value, and only the author's messages on the channel.
    #[test]
    fn owed_messages_are_read_in_hash_order_each_hash_once_with_its_last_value() {
        let h = |b: u8| MessageHash([b; 32]);
        let list = vec![
            (h(3), undisclosed(7, Channel::WhiteUmpire, 0)),
            (h(1), undisclosed(7, Channel::WhiteUmpire, 1)),
            (h(9), undisclosed(8, Channel::WhiteUmpire, 2)),
            (h(3), undisclosed(7, Channel::WhiteUmpire, 3)),
            (h(5), undisclosed(7, Channel::BlackUmpire, 4)),
            (h(2), undisclosed(7, Channel::WhiteUmpire, 5)),
        ];
        let mut map = BTreeMap::new();
        for (hash, u) in &list {
            if u.context.author == PublicKey([7; 32]) && u.context.channel == Channel::WhiteUmpire {
                map.insert(*hash, u.context.seq);
            }
        }
        let owed = owed_in_hash_order(&list, &PublicKey([7; 32]), Channel::WhiteUmpire);
        let got: Vec<(MessageHash, u64)> = owed.iter().map(|(h, u)| (**h, u.context.seq)).collect();
        assert_eq!(got, map.into_iter().collect::<Vec<_>>());
        assert_eq!(got, vec![(h(1), 1), (h(2), 5), (h(3), 3)]);
    }
}
