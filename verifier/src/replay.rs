//! Layer 2: replays the game through the rules and compares every signed statement.
//!
//! The record's entries are read in relay order (docs/PROTOCOL.md section 18, "Match flow"):
//!
//! - colors (fixed by the terms or drawn from the revealed public contributions), the
//!   contributions themselves and the commitments: as layer 1 read them;
//! - SIC: each player's private seed, sealed to the umpire, must open its public commitment;
//!   the two setup seeds (`protocol::seed::setup_seed`, own private seed and the opponent's
//!   public contribution) start the game, and the umpire's start views must be the rules';
//! - Intrigue: the two setups come from the players' openings and are applied in the order of
//!   their public setup reports, each report compared with the rules' own;
//! - 6x6: setups and tie-breaks are actions sealed to the umpire; each must be the value the
//!   player committed to and opened at the end;
//! - every action goes through [`protocol::game::AnyGame`]: a refusal by the rules is the
//!   actor's fault; in umpired games every observation the umpire seals must equal, byte for
//!   byte, what the rules tell that side, in order per channel; in Intrigue the owner of a
//!   captured pawn must answer exactly the rules' inspection;
//! - claims must state the result the rules give (or a resignation, an agreed draw, the
//!   relay's timeout); a record that ends before the game does is truncated.
//!
//! | what is wrong | fault | culprit |
//! |---|---|---|
//! | an action the rules refuse (illegal move, wrong turn, after the end, bad bytes, an action sent in the clear in an umpired game) | `illegal-action` | the player |
//! | an umpired game's answer to a refused action, or a forfeit claim for a legal game | `false-adjudication` | the umpire |
//! | Kriegspiel `illegal` for a legal attempt, or an announcement for an illegal one (R-K1) | `false-adjudication` | the umpire |
//! | any other umpire observation that is not the rules' (announcements, views, legal-move lists, checks, red squares, scores), or one no action called for | `false-announcement` | the umpire |
//! | a SIC start view other than the one the revealed seeds give (R-S2) | `bad-setup` | the umpire |
//! | a SIC private seed sealed to the umpire that does not open its commitment; a 6x6 sealed setup other than the opened one; an Intrigue setup the rules refuse | `bad-setup` | the player |
//! | an Intrigue setup report unlike the committed setup, or a false move report | `false-announcement` | the player |
//! | an Intrigue informer answer other than the committed setup gives, a missing or unsolicited answer (R-I2) | `false-informer-answer` | the owner |
//! | a claim other than the result (rules, resignation, agreed draw, relay timeout) | `false-claim` | the claimant |
//! | the relay's signed `Timeout` | `timeout` | the side |
//! | the record ends before the result, an umpire's answer or an owner's answer | `truncated-record` | nobody (`record`) |
//! | a needed opening missing (Intrigue setup, 6x6 setup or tie-break) | `missing-reveal` | the player |
//!
//! The replay stops at the first fault of the game itself (what follows a false statement is
//! no longer a game anyone can judge), except that an umpire's reaction to a player's refused
//! action is still judged. Deterministic; never panics on any input.
//!
//! The replay reads layer 1's [`Checked`] record directly: its entries (void races left out),
//! the game, the colors, the contributions and the commitments are layer 1's. Its seams are
//! submodules: `setup` (SIC seeds, Intrigue setups, 6x6 setups and tie-breaks), `play`
//! (actions through the rules), `umpire` (the umpire's answers and turns), `owner` (an
//! Intrigue owner's statements), `end` (claims, timeouts and what a record owes at its end).

mod end;
mod owner;
mod play;
mod setup;
pub mod text;
mod umpire;

use crate::envelope::{Checked, CheckedEntry};
use crate::{Fault, FaultKind, MatchRole, Verdict};
use protocol::commitment::{Opening, PRIVATE_SEED, Purpose};
use protocol::game::{self, Told};
use protocol::message::{Claim, Outcome, Payload};
use protocol::{Commitment, PublicKey};
use rules::intrigue::{Inspection, MoveReport};
use rules::{AnyGame, ByColor, Color, GameResult, Mode, Variant};
use std::collections::{BTreeMap, VecDeque};

/// One action the rules accepted, as the replay saw it (for PGN and inspection).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The record entry of the action (for Intrigue setups: of the setup report).
    pub entry: usize,
    /// The relay's time of that entry, in ms.
    pub time_ms: u64,
    /// Who acted.
    pub actor: Color,
    /// The canonical action bytes.
    pub action: Vec<u8>,
    /// What the rules tell each side (canonical observation bytes).
    pub told: Told,
    /// The full position string after the action, where the game has one.
    pub fen: Option<String>,
}

/// The game as the replay rebuilt it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameLog {
    /// The game, once the terms named a known one.
    pub variant: Option<Variant>,
    /// The players by color, once known.
    pub colors: Option<ByColor<PublicKey>>,
    /// What each side was told before the first action (SIC's start views).
    pub start: Told,
    /// The full position string when play began (after any secret setups), where the game has
    /// one.
    pub start_fen: Option<String>,
    /// Every accepted action in order.
    pub steps: Vec<Step>,
    /// The result, if the record reaches one.
    pub result: Option<GameResult>,
    /// The full position string at the end, where the game has one.
    pub final_fen: Option<String>,
}

/// A replay's verdict with the game it rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The verdict of layer 2.
    pub verdict: Verdict,
    /// The rebuilt game.
    pub log: GameLog,
}

/// Replays a checked record. The same replay as [`trace`], without building the game log
/// (positions and per-step copies), which no check reads.
#[must_use]
pub fn replay(checked: &Checked) -> Verdict {
    Replayer::run(checked, false).verdict
}

/// Replays a checked record and returns the rebuilt game too.
#[must_use]
pub fn trace(checked: &Checked) -> Trace {
    Replayer::run(checked, true)
}

/// How a game ended, as far as the record shows.
#[derive(Clone, Copy, Debug)]
struct Over {
    result: GameResult,
    /// The record entry that ended the game.
    at: usize,
}

/// An observation the umpire owes a side.
#[derive(Clone, Debug)]
struct Owed {
    bytes: Vec<u8>,
    /// The entry of the action it answers (`None`: the start view).
    action_entry: Option<usize>,
    actor: Option<Color>,
    action: Vec<u8>,
    /// The honest umpire sends its public Turn naming the action before this answer (the
    /// action handed the turn over or ended the game): an answer without it would restart the
    /// actor's clock (PROTOCOL.md 13.4).
    turn_first: bool,
}

/// An informer answer the owner owes (R-I2).
#[derive(Clone, Debug)]
struct OwedAnswer {
    owner: Color,
    inspection: Inspection,
    /// The rules' whole report of the move (what the owner must publish).
    report: MoveReport,
    move_entry: usize,
}

/// The replay stopped: a fault of the game was found.
struct Stop;

type Flow = Result<(), Stop>;

struct Replayer<'a> {
    c: &'a Checked,
    /// The entries that count, in relay order (void races are left out: PROTOCOL.md, the race
    /// rule).
    entries: Vec<&'a CheckedEntry>,
    mode: Mode,
    umpire: Option<PublicKey>,
    /// Layer 1's commitments, by author and purpose, with their entries.
    commits: BTreeMap<(PublicKey, Purpose), (Commitment, usize)>,
    /// Public openings, collected up front (Intrigue setups are needed when the setup reports
    /// come, long before the end-of-game openings).
    opens: BTreeMap<(PublicKey, Purpose), (Opening, usize)>,
    sic_private: ByColor<Option<[u8; 32]>>,
    game: Option<AnyGame>,
    owed: ByColor<VecDeque<Owed>>,
    owed_answer: Option<OwedAnswer>,
    sealed_setup: ByColor<Option<(Vec<u8>, &'a CheckedEntry)>>,
    sealed_tiebreak: ByColor<Option<(Vec<u8>, &'a CheckedEntry)>>,
    /// The position in `entries` of the entry being replayed.
    at: usize,
    agreed_draw: ByColor<bool>,
    /// The umpire's last public Turn and what it named (`re`).
    last_turn: Option<protocol::message::Owed>,
    last_turn_re: Option<protocol::MessageHash>,
    /// 6x6 setups accepted (the umpire's first Turn answers the second).
    setups: u8,
    /// Whether the action being accepted owes its Turn before its answers.
    turn_first: bool,
    /// SIC: the players' sealed private seeds, by message, with their channel; and those the
    /// umpire acknowledged.
    seed_messages: BTreeMap<protocol::MessageHash, protocol::Channel>,
    acked: std::collections::BTreeSet<protocol::MessageHash>,
    over: Option<Over>,
    faults: Vec<Fault>,
    /// Whether to fill `log` with the steps and positions (only [`trace`] returns it).
    keep_log: bool,
    /// The actions the rules accepted (Intrigue setups included), as `log.steps` counts them.
    plies: usize,
    log: GameLog,
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::WhiteWins => "1-0 (white wins)",
        Outcome::BlackWins => "0-1 (black wins)",
        Outcome::Draw => "1/2-1/2 (draw)",
        Outcome::NoResult => "no result",
    }
}

fn claim_text(c: &Claim) -> String {
    format!("{} by {}", outcome_text(c.outcome), c.reason)
}

fn json<T: serde::Serialize>(value: &T) -> String {
    text::json(value).to_string()
}

impl<'a> Replayer<'a> {
    fn run(c: &'a Checked, keep_log: bool) -> Trace {
        let mut r = Replayer {
            c,
            entries: c.entries.iter().filter(|e| !e.void).collect(),
            mode: c.variant.mode(),
            umpire: c.terms.terms.umpire.as_ref().map(|u| u.key),
            commits: BTreeMap::new(),
            opens: BTreeMap::new(),
            sic_private: ByColor::default(),
            game: None,
            owed: ByColor::default(),
            owed_answer: None,
            sealed_setup: ByColor::default(),
            sealed_tiebreak: ByColor::default(),
            at: 0,
            agreed_draw: ByColor::default(),
            last_turn: None,
            last_turn_re: None,
            setups: 0,
            turn_first: false,
            seed_messages: BTreeMap::new(),
            acked: std::collections::BTreeSet::new(),
            over: None,
            faults: Vec::new(),
            keep_log,
            plies: 0,
            log: GameLog::default(),
        };
        if r.init().is_ok() {
            let mut stopped = false;
            for at in 0..r.entries.len() {
                r.at = at;
                if r.step(r.entries[at]).is_err() {
                    stopped = true;
                    break;
                }
            }
            if !stopped {
                r.finish();
            }
        }
        r.log.colors = Some(c.colors);
        r.log.result = r.over.map(|o| o.result);
        if keep_log {
            r.log.final_fen = r.game.as_ref().and_then(AnyGame::fen);
        }
        let verdict = match (r.faults.is_empty(), r.over) {
            (true, Some(o)) => Verdict::Valid { result: o.result },
            _ => Verdict::Faults(r.faults),
        };
        Trace { verdict, log: r.log }
    }

    // ---------------------------------------------------------------- who is who, faults

    fn role(&self, key: &PublicKey) -> MatchRole {
        self.c.role_of(key).unwrap_or(MatchRole::Record)
    }

    fn player_color(&self, key: &PublicKey) -> Option<Color> {
        self.c.colors.color_of(key)
    }

    fn key_of(&self, c: Color) -> Option<PublicKey> {
        Some(self.c.colors[c])
    }

    fn who(&self, key: &PublicKey) -> String {
        match self.role(key) {
            MatchRole::White => "White".into(),
            MatchRole::Black => "Black".into(),
            MatchRole::Umpire => "The umpire".into(),
            MatchRole::Relay => "The relay".into(),
            MatchRole::Record => format!("Key {key}"),
        }
    }

    fn blame(
        &mut self,
        kind: FaultKind,
        culprit: PublicKey,
        e: &CheckedEntry,
        evidence: String,
        explanation: String,
    ) {
        let role = self.role(&culprit);
        self.faults.push(Fault {
            kind,
            culprit: Some(culprit),
            role,
            entry: Some(e.index),
            message: Some(e.hash),
            evidence,
            explanation,
        });
    }

    fn record_fault(
        &mut self,
        kind: FaultKind,
        e: Option<&CheckedEntry>,
        evidence: String,
        explanation: String,
    ) {
        self.faults.push(Fault {
            kind,
            culprit: None,
            role: MatchRole::Record,
            entry: e.map(|e| e.index),
            message: e.map(|e| e.hash),
            evidence,
            explanation,
        });
    }

    fn stop(
        &mut self,
        kind: FaultKind,
        culprit: PublicKey,
        e: &CheckedEntry,
        evidence: String,
        explanation: String,
    ) -> Flow {
        self.blame(kind, culprit, e, evidence, explanation);
        Err(Stop)
    }

    fn variant(&self) -> Variant {
        self.c.variant
    }

    // ---------------------------------------------------------------- the loop

    fn step(&mut self, e: &'a CheckedEntry) -> Flow {
        if e.sealed {
            self.sealed_kind(e)?;
        }
        match &e.payload {
            Payload::Open { purpose, opening } if e.sealed && *purpose == PRIVATE_SEED => {
                self.sic_seed(e, opening)
            }
            Payload::Action(bytes) => {
                // A move withdraws every standing draw offer, as the coordinator rules
                // (PROTOCOL.md 13.1): an offer stands until the offerer's next move or the
                // opponent's reply. Secret setups and 6x6 tie-breaks are not moves.
                let setup =
                    game::decode_action(self.variant(), bytes).is_ok_and(|a| a.secret().is_some());
                if !setup {
                    self.agreed_draw = ByColor::default();
                }
                self.action(e, bytes)
            }
            Payload::Observation(bytes) => match self.mode {
                Mode::Umpire => self.umpire_observation(e, bytes),
                Mode::Owner => self.owner_observation(e, bytes),
                // Open games: everyone computes the observations; nothing signed to compare.
                Mode::Open => Ok(()),
            },
            Payload::Claim(claim) => self.claim(e, claim),
            Payload::Timeout { party, expectation, deadline_ms }
                if e.author() == self.c.terms.terms.relay =>
            {
                self.timeout(e, *party, *expectation, *deadline_ms);
                Ok(())
            }
            Payload::Turn { next } if Some(e.author()) == self.umpire => self.turn(e, *next),
            _ => Ok(()),
        }
    }
}
