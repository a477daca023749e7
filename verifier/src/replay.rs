//! Layer 2: replays the game through the rules and compares every signed statement.
//!
//! The record's entries are read in relay order (docs/PROTOCOL.md section 18, "Match flow"):
//!
//! - colours from the revealed public contributions (or fixed by the terms);
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

mod events;
pub mod text;

pub use events::{Decoded, Event, decode};

use crate::envelope::Checked;
use crate::{Fault, FaultKind, Role, Verdict};
use protocol::codec::Canonical;
use protocol::commitment::{self, Opening, PRIVATE_SEED, PUBLIC_CONTRIBUTION};
use protocol::flow::{self, Mode};
use protocol::game::{self, Told};
use protocol::keys::ByColour;
use protocol::message::{self, Claim, Expectation, Outcome, Payload};
use protocol::{Channel, Commitment, Party, PublicKey, Side};
use rules::intrigue::{Inspection, MoveReport, SetupReport};
use rules::{AnyAction, AnyGame, AnyObservation, ByColor, Color, EndReason, GameResult, Variant};
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
}

/// The game as the replay rebuilt it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameLog {
    /// The game, once the terms named a known one.
    pub variant: Option<Variant>,
    /// The players by colour, once known.
    pub colours: Option<ByColour>,
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

/// Replays a checked record.
#[must_use]
pub fn replay(checked: &Checked) -> Verdict {
    trace(checked).verdict
}

/// Replays a checked record and returns the rebuilt game too.
#[must_use]
pub fn trace(checked: &Checked) -> Trace {
    Replayer::run(&decode(checked))
}

/// How a game ended, as far as the record shows.
#[derive(Clone, Copy, Debug)]
struct Over {
    result: GameResult,
}

/// An observation the umpire owes a side.
#[derive(Clone, Debug)]
struct Owed {
    bytes: Vec<u8>,
    /// The entry of the action it answers (`None`: the start view).
    action_entry: Option<usize>,
    actor: Option<Color>,
    action: Vec<u8>,
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

/// What an Intrigue player signs publicly (PROTOCOL.md 18.2): the rules' observation of its
/// own setup action, or, as the owner of a captured pawn, the rules' whole observation of that
/// move, whose `inspection` is its answer.
enum OwnerStatement {
    Setup(SetupReport),
    Answer(MoveReport),
}

fn owner_statement(bytes: &[u8]) -> Option<OwnerStatement> {
    use rules::intrigue::Observation as O;
    Some(match O::from_canonical(bytes).ok()? {
        O::Setup(r) => OwnerStatement::Setup(r),
        O::Move(m) => OwnerStatement::Answer(m),
    })
}

fn json<T: serde::Serialize>(value: &T) -> String {
    text::json(value).to_string()
}

/// The replay stopped: a fault of the game was found.
struct Stop;

type Flow = Result<(), Stop>;

struct Replayer<'a> {
    d: &'a Decoded<'a>,
    variant: Option<Variant>,
    mode: Mode,
    colours: Option<ByColour>,
    umpire: Option<PublicKey>,
    contributions: [Option<[u8; 32]>; 2],
    commits: BTreeMap<(PublicKey, protocol::commitment::Purpose), (Commitment, usize)>,
    /// Public end-of-game openings, collected up front (Intrigue setups are needed when the
    /// setup reports come, long before the openings).
    opens: BTreeMap<(PublicKey, protocol::commitment::Purpose), (Opening, usize)>,
    sic_private: ByColor<Option<[u8; 32]>>,
    game: Option<AnyGame>,
    owed: ByColor<VecDeque<Owed>>,
    owed_answer: Option<OwedAnswer>,
    sealed_setup: ByColor<Option<(Vec<u8>, Event<'a>)>>,
    sealed_tiebreak: ByColor<Option<(Vec<u8>, Event<'a>)>>,
    /// The position in `d.events` of the event being replayed.
    at: usize,
    agreed_draw: ByColor<bool>,
    over: Option<Over>,
    faults: Vec<Fault>,
    log: GameLog,
}

fn side_of(c: Color) -> Side {
    game::side(c)
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

/// The full position string of a game, where it has one.
fn fen(game: &AnyGame) -> Option<String> {
    game.fen()
}

impl<'a> Replayer<'a> {
    fn run(d: &'a Decoded<'a>) -> Trace {
        let t = &d.terms;
        let mut r = Replayer {
            d,
            variant: None,
            mode: Mode::Open,
            colours: Some(d.colours),
            umpire: t.umpire.as_ref().map(|u| u.key),
            contributions: [None, None],
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
            over: None,
            faults: Vec::new(),
            log: GameLog::default(),
        };
        if r.init().is_ok() {
            let mut stopped = false;
            for (at, e) in d.events.iter().enumerate() {
                r.at = at;
                if r.step(e).is_err() {
                    stopped = true;
                    break;
                }
            }
            if !stopped {
                r.finish();
            }
        }
        r.log.colours = r.colours;
        r.log.result = r.over.map(|o| o.result);
        r.log.final_fen = r.game.as_ref().and_then(fen);
        let verdict = match (r.faults.is_empty(), r.over) {
            (true, Some(o)) => Verdict::Valid { result: o.result },
            _ => Verdict::Faults(r.faults),
        };
        Trace { verdict, log: r.log }
    }

    // ---------------------------------------------------------------- who is who, faults

    fn role(&self, key: &PublicKey) -> Role {
        if Some(*key) == self.umpire {
            return Role::Umpire;
        }
        if *key == self.d.terms.relay {
            return Role::Relay;
        }
        let colours = self.colours.unwrap_or(ByColour {
            white: self.d.terms.players[0].key,
            black: self.d.terms.players[1].key,
        });
        match colours.side_of(key) {
            Some(Side::White) => Role::White,
            Some(Side::Black) => Role::Black,
            None => Role::Record,
        }
    }

    fn player_color(&self, key: &PublicKey) -> Option<Color> {
        self.colours?.side_of(key).map(game::color)
    }

    fn key_of(&self, c: Color) -> Option<PublicKey> {
        self.colours.map(|k| k.key(side_of(c)))
    }

    fn who(&self, key: &PublicKey) -> String {
        match self.role(key) {
            Role::White => "White".into(),
            Role::Black => "Black".into(),
            Role::Umpire => "The umpire".into(),
            Role::Relay => "The relay".into(),
            Role::Record => format!("Key {key}"),
        }
    }

    fn blame(
        &mut self,
        kind: FaultKind,
        culprit: PublicKey,
        e: &Event,
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
        e: Option<&Event>,
        evidence: String,
        explanation: String,
    ) {
        self.faults.push(Fault {
            kind,
            culprit: None,
            role: Role::Record,
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
        e: &Event,
        evidence: String,
        explanation: String,
    ) -> Flow {
        self.blame(kind, culprit, e, evidence, explanation);
        Err(Stop)
    }

    fn variant(&self) -> Variant {
        self.variant.unwrap_or(Variant::Chess)
    }

    // ---------------------------------------------------------------- setup

    fn init(&mut self) -> Flow {
        let t = &self.d.terms;
        let variant = t.variant;
        self.variant = Some(variant);
        self.log.variant = Some(variant);
        self.mode = variant.mode();
        // Public openings, by author and purpose (the relay accepts one per commitment).
        for e in &self.d.events {
            if let (false, Payload::Open { purpose, opening }) = (e.sealed, &e.payload) {
                self.opens.entry((e.author, *purpose)).or_insert((opening.clone(), e.index));
            }
        }
        if variant != Variant::Sic {
            match game::start(t, None) {
                Ok(g) => self.game = Some(g),
                Err(err) => {
                    self.record_fault(
                        FaultKind::BadTerms,
                        None,
                        format!("terms of {variant}: {err}"),
                        "The terms' options are not valid for this game.".into(),
                    );
                    return Err(Stop);
                }
            }
        }
        Ok(())
    }

    fn contribution(&mut self, e: &Event<'_>, opening: &Opening) -> Flow {
        let Some(i) = self.d.terms.players.iter().position(|p| p.key == e.author) else {
            return Ok(());
        };
        let Ok(c) = <[u8; 32]>::try_from(opening.value.as_slice()) else {
            let n = opening.value.len();
            return self.stop(
                FaultKind::BadOpening,
                e.author,
                e,
                format!("public contribution of {n} bytes, not 32"),
                format!(
                    "{} revealed a public contribution of the wrong length.",
                    self.who(&e.author)
                ),
            );
        };
        self.contributions[i] = Some(c);
        // Colours (fixed or drawn from both contributions) come from layer 1.
        if let [Some(_), Some(_)] = self.contributions {
            self.maybe_start_sic(e)?;
        }
        Ok(())
    }

    /// SIC: a player's private seed, sealed to the umpire, must open its public commitment
    /// (R-S2 via PROTOCOL.md section 9); a seed that does not is a setup the player cannot
    /// have been dealt fairly.
    fn sic_seed(&mut self, e: &Event<'_>, opening: &Opening) -> Flow {
        let Some(c) = self.player_color(&e.author) else { return Ok(()) };
        if self.variant() != Variant::Sic || e.channel != Channel::private(side_of(c)) {
            return Ok(());
        }
        let committed = self.commits.get(&(e.author, PRIVATE_SEED)).copied();
        let who = self.who(&e.author);
        let Some((commitment, at)) = committed else {
            return self.stop(
                FaultKind::BadSetup,
                e.author,
                e,
                "a private seed sealed to the umpire with no public commitment before it".into(),
                format!("{who} gave the umpire a private seed it had never committed to."),
            );
        };
        if commitment::check_opening(
            &commitment,
            PRIVATE_SEED,
            &self.d.match_id,
            &e.author,
            opening,
        )
        .is_err()
        {
            return self.stop(
                FaultKind::BadSetup,
                e.author,
                e,
                format!(
                    "sealed private seed {} (nonce {}) does not open the commitment {commitment} \
                     of entry {at}",
                    protocol::hex::encode(&opening.value),
                    protocol::hex::encode(&opening.nonce)
                ),
                format!(
                    "{who} gave the umpire a private seed other than the one it committed to, so \
                     its random setup is not the one the coin toss gave."
                ),
            );
        }
        let Ok(seed) = <[u8; 32]>::try_from(opening.value.as_slice()) else {
            return self.stop(
                FaultKind::BadSetup,
                e.author,
                e,
                format!("private seed of {} bytes, not 32", opening.value.len()),
                format!("{who}'s private seed is not 32 bytes long."),
            );
        };
        self.sic_private[c] = Some(seed);
        self.maybe_start_sic(e)
    }

    fn maybe_start_sic(&mut self, e: &Event<'_>) -> Flow {
        if self.variant() != Variant::Sic || self.game.is_some() {
            return Ok(());
        }
        let (Some(colours), Some(w), Some(b)) =
            (self.colours, self.sic_private.white, self.sic_private.black)
        else {
            return Ok(());
        };
        let t = &self.d.terms;
        let contribution = |key: PublicKey| {
            t.players.iter().position(|p| p.key == key).and_then(|i| self.contributions[i])
        };
        let (Some(cw), Some(cb)) = (contribution(colours.white), contribution(colours.black))
        else {
            return Ok(());
        };
        let id = &self.d.match_id;
        let seeds = ByColor {
            white: protocol::seed::setup_seed(&w, &cb, id, Side::White),
            black: protocol::seed::setup_seed(&b, &cw, id, Side::Black),
        };
        match game::start(t, Some(&seeds)) {
            Ok(g) => {
                let start = game::encode_told(&g.start_observations());
                for c in Color::ALL {
                    if let Some(bytes) = &start[c] {
                        self.owed[c].push_back(Owed {
                            bytes: bytes.clone(),
                            action_entry: None,
                            actor: None,
                            action: Vec::new(),
                        });
                    }
                }
                self.log.start = start;
                self.game = Some(g);
                Ok(())
            }
            Err(err) => {
                self.record_fault(
                    FaultKind::BadTerms,
                    Some(e),
                    format!("terms of sic: {err}"),
                    "The terms' options are not valid for this game.".into(),
                );
                Err(Stop)
            }
        }
    }

    // ---------------------------------------------------------------- the loop

    fn step(&mut self, e: &Event<'a>) -> Flow {
        match e.payload {
            Payload::Commit { purpose, commitment } if !e.sealed => {
                self.commits.entry((e.author, *purpose)).or_insert((*commitment, e.index));
                Ok(())
            }
            Payload::Reveal { purpose, opening }
                if !e.sealed && *purpose == PUBLIC_CONTRIBUTION =>
            {
                self.contribution(e, opening)
            }
            Payload::Open { purpose, opening } if e.sealed && *purpose == PRIVATE_SEED => {
                self.sic_seed(e, opening)
            }
            Payload::Action(bytes) => self.action(e, bytes),
            Payload::Observation(bytes) => self.observation(e, bytes),
            Payload::Claim(claim) => self.claim(e, claim),
            Payload::Timeout { party, expectation, deadline_ms }
                if e.author == self.d.terms.relay =>
            {
                self.timeout(e, *party, *expectation, *deadline_ms);
                Ok(())
            }
            Payload::Turn { next } if Some(e.author) == self.umpire => self.turn(e, *next),
            _ => Ok(()),
        }
    }

    fn action(&mut self, e: &Event<'a>, bytes: &[u8]) -> Flow {
        let Some(actor) = self.player_color(&e.author) else {
            // Only players act; anything else is not part of the game (the relay refuses
            // strangers, and an umpire has no actions).
            return Ok(());
        };
        let variant = self.variant();
        let shown = text::action_text(variant, bytes);
        let who = self.who(&e.author);
        if self.mode == Mode::Umpire && !e.sealed {
            return self.stop(
                FaultKind::IllegalAction,
                e.author,
                e,
                format!("action {shown} sent in the clear on the public channel"),
                format!("{who} sent an action in the clear; in {variant} actions go sealed to the umpire."),
            );
        }
        if let Some(over) = self.over {
            return self.stop(
                FaultKind::IllegalAction,
                e.author,
                e,
                format!(
                    "action {shown} after the end ({})",
                    claim_text(&game::claim_of(&over.result))
                ),
                format!("{who} acted after the game had ended."),
            );
        }
        if let Some(owed) = self.owed_answer.clone() {
            let owner = self.key_of(owed.owner).unwrap_or(e.author);
            let whose = self.who(&owner);
            return self.stop(
                FaultKind::FalseInformerAnswer,
                owner,
                e,
                format!(
                    "no informer answer after the pawn capture of entry {} (rules: {}); the next \
                     message is {who}'s move {shown}",
                    owed.move_entry,
                    json(&owed.inspection)
                ),
                format!("{whose} did not say whether its captured pawn was the informer (R-I2)."),
            );
        }
        let Some(game) = self.game.as_ref() else {
            return self.stop(
                FaultKind::IllegalAction,
                e.author,
                e,
                format!("action {shown} before the setup was complete"),
                format!("{who} acted before the game could start."),
            );
        };
        match game::decode_action(variant, bytes) {
            Ok(AnyAction::SecretChess6(rules::secretchess6::Action::Setup { .. })) => {
                self.sealed_setup[actor].get_or_insert((bytes.to_vec(), *e));
            }
            Ok(AnyAction::SecretChess6(rules::secretchess6::Action::TieBreak { .. })) => {
                self.sealed_tiebreak[actor].get_or_insert((bytes.to_vec(), *e));
            }
            _ => {}
        }
        if self.log.start_fen.is_none() {
            self.log.start_fen = fen(game);
        }
        // The state is not cloned per action (SIC's carries its repetition history): `apply`
        // takes it by reference and returns the next one.
        let applied = game::apply(game, actor, bytes).map_err(|err| (err, fen(game)));
        match applied {
            Ok((next, told)) => {
                self.accepted(e, actor, bytes, &told);
                if let Some(result) = next.result() {
                    self.over = Some(Over { result });
                }
                self.game = Some(next);
                Ok(())
            }
            Err((err, position)) => {
                let position = position.map(|f| format!(" in position {f}")).unwrap_or_default();
                self.blame(
                    FaultKind::IllegalAction,
                    e.author,
                    e,
                    format!("{who} signed the action {shown}{position}; the rules: {err}"),
                    format!("{who} made a move the rules do not allow, and forfeits."),
                );
                if self.mode == Mode::Umpire {
                    self.umpire_accepted_refused(e, &shown);
                }
                Err(Stop)
            }
        }
    }

    /// After a refused action in an umpired game: the umpire must not answer it as if played
    /// (PROTOCOL.md 14.3: it stops and claims the forfeit).
    fn umpire_accepted_refused(&mut self, e: &Event<'_>, shown: &str) {
        let Some(umpire) = self.umpire else { return };
        let next = self.d.events.iter().skip(self.at + 1).find(|n| {
            n.author == umpire && matches!(n.payload, Payload::Observation(_) | Payload::Claim(_))
                || matches!(n.payload, Payload::Action(_))
        });
        if let Some(n) = next
            && n.author == umpire
            && let Payload::Observation(bytes) = &n.payload
        {
            let obs = text::observation_text(self.variant(), bytes);
            self.blame(
                FaultKind::FalseAdjudication,
                umpire,
                n,
                format!(
                    "the umpire answered the refused action {shown} (entry {}) with {obs} on the \
                     {} channel",
                    e.index, n.channel
                ),
                "The umpire accepted a move the rules do not allow.".into(),
            );
        }
    }

    fn accepted(&mut self, e: &Event<'_>, actor: Color, bytes: &[u8], told: &Told) {
        self.log.steps.push(Step {
            entry: e.index,
            time_ms: e.time_ms,
            actor,
            action: bytes.to_vec(),
            told: told.clone(),
        });
        match self.mode {
            Mode::Umpire => {
                for c in [actor, !actor] {
                    if let Some(b) = &told[c] {
                        self.owed[c].push_back(Owed {
                            bytes: b.clone(),
                            action_entry: Some(e.index),
                            actor: Some(actor),
                            action: bytes.to_vec(),
                        });
                    }
                }
            }
            Mode::Owner => {
                let report = told[actor]
                    .as_deref()
                    .and_then(|b| rules::intrigue::Observation::from_canonical(b).ok());
                if let Some(rules::intrigue::Observation::Move(m)) = report
                    && let Some(i) = m.inspection
                {
                    self.owed_answer = Some(OwedAnswer {
                        owner: i.owner,
                        inspection: i,
                        report: m,
                        move_entry: e.index,
                    });
                }
            }
            Mode::Open => {}
        }
    }

    fn observation(&mut self, e: &Event<'_>, bytes: &[u8]) -> Flow {
        match self.mode {
            Mode::Umpire => self.umpire_observation(e, bytes),
            Mode::Owner => self.owner_observation(e, bytes),
            // Open games: everyone computes the observations; nothing signed to compare.
            Mode::Open => Ok(()),
        }
    }

    fn umpire_observation(&mut self, e: &Event<'_>, bytes: &[u8]) -> Flow {
        let (Some(umpire), Some(side)) = (self.umpire, e.channel.side()) else { return Ok(()) };
        if e.author != umpire {
            return Ok(());
        }
        let c = game::color(side);
        let variant = self.variant();
        let signed = text::observation_json(variant, bytes);
        let Some(owed) = self.owed[c].pop_front() else {
            return self.stop(
                FaultKind::FalseAnnouncement,
                umpire,
                e,
                format!("the umpire told {c} {signed} where the rules tell it nothing"),
                format!("The umpire sent {c} an announcement that no action called for."),
            );
        };
        if owed.bytes == bytes {
            return Ok(());
        }
        let rules_json = text::observation_json(variant, &owed.bytes);
        let fields = text::differing_fields(&signed, &rules_json);
        let context = match (owed.action_entry, owed.actor) {
            (Some(at), Some(actor)) => format!(
                "after {actor}'s action {} (entry {at})",
                text::action_text(variant, &owed.action)
            ),
            _ => "at the start".to_owned(),
        };
        let differs = if fields.is_empty() {
            String::new()
        } else {
            format!("; differs in: {}", fields.join(", "))
        };
        let evidence = format!(
            "{context}, the umpire signed to {c}: {signed}; the rules give: {rules_json}{differs}"
        );
        // Kriegspiel: "illegal" for a legal attempt, or an announcement for an illegal one, is
        // a false verdict on the move itself (R-K1), not a false announcement about it.
        let legality = |b: &[u8]| {
            matches!(
                game::decode_observation(variant, b),
                Ok(AnyObservation::Kriegspiel(rules::kriegspiel::Answer::Illegal))
            )
        };
        let (kind, explanation) = if owed.action_entry.is_none() {
            // R-S2: the start view shows the army the umpire dealt; the revealed seeds give
            // another one.
            (
                FaultKind::BadSetup,
                format!(
                    "The umpire's start view for {c} is not the setup both players' revealed seeds \
                     give (R-S2)."
                ),
            )
        } else if variant == Variant::Kriegspiel && legality(bytes) != legality(&owed.bytes) {
            let what = if legality(bytes) {
                "refused a legal attempt"
            } else {
                "accepted an illegal attempt"
            };
            (FaultKind::FalseAdjudication, format!("The umpire {what} (R-K1)."))
        } else {
            (
                FaultKind::FalseAnnouncement,
                format!("The umpire told {c} something other than what the rules give {context}."),
            )
        };
        self.stop(kind, umpire, e, evidence, explanation)
    }

    fn owner_observation(&mut self, e: &Event<'_>, bytes: &[u8]) -> Flow {
        let Some(c) = self.player_color(&e.author) else { return Ok(()) };
        let who = self.who(&e.author);
        let Some(statement) = owner_statement(bytes) else {
            return self.stop(
                FaultKind::FalseInformerAnswer,
                e.author,
                e,
                format!(
                    "{who} signed an observation that is no Intrigue report: {}",
                    text::hex(bytes)
                ),
                format!("{who} published a statement that is not a setup report or an answer."),
            );
        };
        let in_setup = matches!(&self.game, Some(AnyGame::Intrigue(s)) if s.position().is_none());
        let answer = match statement {
            OwnerStatement::Setup(report) if in_setup => return self.setup_report(e, c, &report),
            OwnerStatement::Setup(report) => {
                return self.stop(
                    FaultKind::FalseAnnouncement,
                    e.author,
                    e,
                    format!("{who} signed the setup report {} after play began", json(&report)),
                    format!("{who} published a setup report when none was due (R-I1)."),
                );
            }
            OwnerStatement::Answer(report) => report,
        };
        let report = answer;
        let answer = report.inspection;
        let Some(owed) = self.owed_answer.clone() else {
            return self.stop(
                FaultKind::FalseInformerAnswer,
                e.author,
                e,
                format!(
                    "{who} signed the answer {} where no pawn was just captured",
                    json(&answer)
                ),
                format!("{who} gave an informer answer no capture called for (R-I2)."),
            );
        };
        if owed.owner != c {
            return self.stop(
                FaultKind::FalseInformerAnswer,
                e.author,
                e,
                format!(
                    "{who} signed {}, but the pawn captured in entry {} was {}'s",
                    json(&answer),
                    owed.move_entry,
                    owed.owner
                ),
                format!("{who} answered for a pawn that was not its own (R-I2)."),
            );
        }
        self.owed_answer = None;
        if answer == Some(owed.inspection) {
            if report == owed.report {
                return Ok(());
            }
            // The answer is right but the rest of the report is not the rules' (the owner can
            // compute it exactly: nothing in it depends on the mover's secrets).
            let (signed, rules_json) = (text::json(&report), text::json(&owed.report));
            let fields = text::differing_fields(&signed, &rules_json);
            return self.stop(
                FaultKind::FalseAnnouncement,
                e.author,
                e,
                format!(
                    "after the move of entry {}, {who} signed the report {signed}; the rules give \
                     {rules_json}; differs in: {}",
                    owed.move_entry,
                    fields.join(", ")
                ),
                format!("{who} published a false report of the move that took its pawn."),
            );
        }
        let (signed, rules_json) = (text::json(&answer), text::json(&owed.inspection));
        let fields = text::differing_fields(&signed, &rules_json);
        let denial = answer.is_some_and(|a| !a.informer) && owed.inspection.informer;
        let explanation = if denial {
            format!(
                "{who} denied that its captured pawn was the informer, but its own committed \
                 setup names that pawn (R-I2); the king it hid should have appeared."
            )
        } else {
            format!(
                "{who} gave a false answer about its captured pawn (R-I2): its own committed \
                 setup says otherwise."
            )
        };
        self.stop(
            FaultKind::FalseInformerAnswer,
            e.author,
            e,
            format!(
                "after the capture of entry {}, {who} signed {signed}; its committed setup gives \
                 {rules_json}; differs in: {}",
                owed.move_entry,
                fields.join(", ")
            ),
            explanation,
        )
    }

    /// Intrigue step 3: a player's public setup report. Its setup comes from its opening; the
    /// report must be the rules' report of that setup (R-I1).
    fn setup_report(&mut self, e: &Event<'_>, c: Color, report: &SetupReport) -> Flow {
        let who = self.who(&e.author);
        let purpose = flow::INTRIGUE_SETUP;
        let Some((opening, at)) = self.opens.get(&(e.author, purpose)).cloned() else {
            return self.stop(
                FaultKind::MissingReveal,
                e.author,
                e,
                format!("no opening of {who}'s '{purpose}' commitment in the record"),
                format!("{who} never opened its secret setup, so its game cannot be checked."),
            );
        };
        let committed = self.commits.get(&(e.author, purpose)).copied();
        let opens = committed.is_some_and(|(cm, _)| {
            commitment::check_opening(&cm, purpose, &self.d.match_id, &e.author, &opening).is_ok()
        });
        if !opens {
            return self.stop(
                FaultKind::BadOpening,
                e.author,
                e,
                format!("the opening of entry {at} does not open {who}'s '{purpose}' commitment"),
                format!("{who}'s revealed setup is not the one it committed to."),
            );
        }
        let Some(game) = self.game.clone() else { return Ok(()) };
        let setup_text = text::action_text(Variant::Intrigue, &opening.value);
        match game::apply(&game, c, &opening.value) {
            Err(err) => self.stop(
                FaultKind::BadSetup,
                e.author,
                e,
                format!("{who}'s committed setup {setup_text}: {err}"),
                format!("{who}'s secret setup breaks the rules (R-I1)."),
            ),
            Ok((next, told)) => {
                let expected = told[c]
                    .as_deref()
                    .and_then(|b| rules::intrigue::Observation::from_canonical(b).ok())
                    .and_then(|o| match o {
                        rules::intrigue::Observation::Setup(r) => Some(r),
                        rules::intrigue::Observation::Move(_) => None,
                    });
                if expected.as_ref() != Some(report) {
                    return self.stop(
                        FaultKind::FalseAnnouncement,
                        e.author,
                        e,
                        format!(
                            "{who} signed the setup report {}; its committed setup gives {}",
                            json(report),
                            json(&expected)
                        ),
                        format!(
                            "{who}'s public setup report does not match its committed setup (R-I1)."
                        ),
                    );
                }
                self.log.steps.push(Step {
                    entry: e.index,
                    time_ms: e.time_ms,
                    actor: c,
                    action: opening.value.clone(),
                    told,
                });
                self.game = Some(next);
                Ok(())
            }
        }
    }

    fn claim(&mut self, e: &Event<'_>, claim: &Claim) -> Flow {
        let who = self.who(&e.author);
        let claimant = self.role(&e.author);
        if let Some(over) = self.over {
            let due = game::claim_of(&over.result);
            if *claim == due {
                return Ok(());
            }
            return self.stop(
                FaultKind::FalseClaim,
                e.author,
                e,
                format!(
                    "{who} claimed {}; the record gives {}",
                    claim_text(claim),
                    claim_text(&due)
                ),
                format!("{who} claimed a result the game did not have."),
            );
        }
        let player = self.player_color(&e.author);
        if let Some(c) = player {
            if *claim == flow::loss_of(side_of(c), EndReason::Resignation.into()) {
                self.over = Some(Over { result: GameResult::win(!c, EndReason::Resignation) });
                return Ok(());
            }
            if claim.outcome == Outcome::Draw && claim.reason == EndReason::Agreement.into() {
                self.agreed_draw[c] = true;
                if self.agreed_draw.white && self.agreed_draw.black {
                    self.over = Some(Over { result: GameResult::draw(EndReason::Agreement) });
                }
                return Ok(());
            }
        }
        let state = self
            .game
            .as_ref()
            .map(|g| {
                let to_act: Vec<String> = g.to_act().iter().map(|c| c.to_string()).collect();
                format!("the game goes on ({} to act)", to_act.join(" and "))
            })
            .unwrap_or_else(|| "the game has not started".to_owned());
        if claimant == Role::Umpire && claim.reason == flow::FORFEIT {
            return self.stop(
                FaultKind::FalseAdjudication,
                e.author,
                e,
                format!("the umpire claimed {}; no action was refused: {state}", claim_text(claim)),
                "The umpire declared a forfeit for a move the rules allow.".into(),
            );
        }
        self.stop(
            FaultKind::FalseClaim,
            e.author,
            e,
            format!("{who} claimed {}; {state}", claim_text(claim)),
            format!("{who} claimed a result the game did not have."),
        )
    }

    /// The umpire's public Turn must name whose clock the rules say runs: a false one would
    /// let the relay time out a player who owed nothing.
    fn turn(&mut self, e: &Event<'_>, next: message::Owed) -> Flow {
        let Some(umpire) = self.umpire else { return Ok(()) };
        let due = match (&self.over, &self.game) {
            (Some(_), _) => message::Owed::Nobody,
            (None, Some(g)) => game::turn_of(g),
            (None, None) => {
                return self.stop(
                    FaultKind::FalseAnnouncement,
                    umpire,
                    e,
                    format!("the umpire said {next:?} is to act before the game started"),
                    "The umpire started a player's clock before the game began.".into(),
                );
            }
        };
        if due == next {
            return Ok(());
        }
        self.stop(
            FaultKind::FalseAnnouncement,
            umpire,
            e,
            format!("the umpire's Turn names {next:?}; the rules give {due:?}"),
            "The umpire said it was another side's turn than the rules give, which would run \
             the wrong clock."
                .into(),
        )
    }

    fn timeout(&mut self, e: &Event<'_>, party: Party, expectation: Expectation, deadline_ms: u64) {
        let Some(side) = party.side() else {
            // The umpire missed its answer deadline: the game is void, the umpire named.
            if let Some(umpire) = self.umpire {
                self.blame(
                    FaultKind::Timeout,
                    umpire,
                    e,
                    format!("relay timeout: the umpire did not answer by {deadline_ms} ms"),
                    "The umpire did not answer within the terms' answer time; the relay's signed \
                     timeout and the clocks rebuilt from the receipts prove it."
                        .into(),
                );
            }
            return;
        };
        let Some(key) = self.colours.map(|k| k.key(side)) else { return };
        let c = game::color(side);
        match expectation {
            Expectation::Move => {
                if self.over.is_some() {
                    return;
                }
                self.over = Some(Over { result: GameResult::win(!c, EndReason::Timeout) });
                self.blame(
                    FaultKind::Timeout,
                    key,
                    e,
                    format!("relay timeout: {side} did not move by {deadline_ms} ms"),
                    format!(
                        "{} ran out of time; the relay's signed timeout proves it.",
                        self.who(&key)
                    ),
                );
            }
            Expectation::Reveal | Expectation::Answer => self.blame(
                FaultKind::Timeout,
                key,
                e,
                format!("relay timeout: {side} did not open its commitments by {deadline_ms} ms"),
                format!(
                    "{} did not reveal its secrets before the deadline and forfeits; the relay's \
                     signed timeout proves it.",
                    self.who(&key)
                ),
            ),
        }
    }

    // ---------------------------------------------------------------- the end

    fn finish(&mut self) {
        let variant = self.variant();
        for c in Color::ALL {
            if let Some(owed) = self.owed[c].front() {
                let what = match (owed.action_entry, owed.actor) {
                    (Some(at), Some(actor)) => format!(
                        "its answer to {c} for {actor}'s action {} (entry {at})",
                        text::action_text(variant, &owed.action)
                    ),
                    _ => format!("{c}'s start view"),
                };
                self.record_fault(
                    FaultKind::TruncatedRecord,
                    None,
                    format!(
                        "the umpire owes {what}: {}",
                        text::observation_text(variant, &owed.bytes)
                    ),
                    "The record ends before the umpire's answer, so the game cannot be judged."
                        .into(),
                );
                return;
            }
        }
        if let Some(owed) = &self.owed_answer {
            let evidence = format!(
                "{}'s informer answer for the capture of entry {} is missing",
                owed.owner, owed.move_entry
            );
            self.record_fault(
                FaultKind::TruncatedRecord,
                None,
                evidence,
                "The record ends before the owner's informer answer (R-I2).".into(),
            );
            return;
        }
        if self.over.is_none() {
            let state = match &self.game {
                None => "the game never started".to_owned(),
                Some(g) => {
                    let to_act: Vec<String> = g.to_act().iter().map(|c| c.to_string()).collect();
                    format!(
                        "{} plies played, {} to act",
                        self.log.steps.len(),
                        to_act.join(" and ")
                    )
                }
            };
            self.record_fault(
                FaultKind::TruncatedRecord,
                None,
                format!("no result: {state}"),
                "The record ends before the game does.".into(),
            );
            return;
        }
        if variant == Variant::SecretChess6 {
            self.sealed_matches_opening(flow::SECRETCHESS6_SETUP, FaultKind::BadSetup);
            self.sealed_matches_opening(flow::TIEBREAK, FaultKind::BadOpening);
        }
    }

    /// 6x6: what a player sealed to the umpire must be exactly what it committed to and opened.
    fn sealed_matches_opening(&mut self, purpose: protocol::commitment::Purpose, kind: FaultKind) {
        for c in Color::ALL {
            let sealed = if purpose == flow::TIEBREAK {
                &self.sealed_tiebreak[c]
            } else {
                &self.sealed_setup[c]
            };
            let (Some((bytes, e)), Some(key)) = (sealed.clone(), self.key_of(c)) else { continue };
            let who = self.who(&key);
            match self.opens.get(&(key, purpose)).cloned() {
                None => {
                    let evidence = format!("no opening of {who}'s '{purpose}' commitment");
                    self.blame(
                        FaultKind::MissingReveal,
                        key,
                        &e,
                        evidence,
                        format!("{who} never opened its '{purpose}' commitment."),
                    );
                    return;
                }
                Some((opening, open_at)) if opening.value != bytes => {
                    let v = Variant::SecretChess6;
                    self.blame(
                        kind,
                        key,
                        &e,
                        format!(
                            "{who} sealed {} to the umpire but committed to and opened {} (entry {open_at})",
                            text::action_text(v, &bytes),
                            text::action_text(v, &opening.value)
                        ),
                        format!("{who} played with a '{purpose}' other than the one it committed to."),
                    );
                    return;
                }
                Some(_) => {}
            }
        }
    }
}
