//! A player's state machine, for every mode (docs/PROTOCOL.md section 18): commitments,
//! reveal, the game's setup, play through its [`Policy`], answers it owes (Intrigue), the claim
//! and the final openings.

use super::track::{
    IntrigueModel, PublicLog, kriegspiel_candidates, kriegspiel_play_own, sc6_legal_moves,
};
use super::{Ask, Hook, Input, Outbox, Output, Participant, Policy, RoleError, open_entry};
use crate::codec::Canonical;
use crate::commitment::{self, Opening};
use crate::flow::{self, FORFEIT, Mode, PRIVATE_SEED, PUBLIC_CONTRIBUTION, TIMEOUT};
use crate::game::{self, AnyGame, GameError, claim_of, sc6};
use crate::keys::Identity;
use crate::message::{Author, Claim, Expectation, MessageBody, Owed, Payload, seal_context};
use crate::seal::{self, SealSecret};
use crate::terms::AgreedTerms;
use crate::{Channel, MessageHash, Side};
use rand_chacha::ChaCha20Rng;
use rand_core::Rng;
use rules::intrigue::{Action as IAction, Observation as IObs, SetupReport};
use rules::kriegspiel::Answer;
use rules::{Board, BoardSize, Color, GameResult, Move, Variant};
use std::collections::{BTreeMap, BTreeSet};

/// What a player tracks of the game itself, per variant.
#[derive(Debug)]
enum Track {
    /// Before colours are known.
    None,
    /// Chess, espionage: the full game (everything is public).
    Open(AnyGame),
    /// Intrigue: a model that agrees with every public fact (see `IntrigueModel`).
    Intrigue {
        model: Option<Box<IntrigueModel>>,
        report_sent: bool,
        /// White's setup report has been seen.
        white_reported: bool,
        /// After one's own capture of a pawn: the owner's answer (and opening) are due.
        awaiting_answer: bool,
    },
    /// Kriegspiel: one's own men, whose turn, the attempts refused this turn.
    Kriegspiel { own: Board, to_move: Color, refused: Vec<Move>, attempt: Option<Move> },
    /// SIC: the legal moves told, whether it is one's turn, whether the start view came.
    Sic { legal: Vec<Move>, my_turn: bool, started: bool },
    /// 6x6: own pieces after the last board update and what is asked now.
    Sc6 { pieces: Vec<rules::secretchess6::OwnPiece>, freezes: u8, ask: Sc6Ask },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Sc6Ask {
    Idle,
    Move,
    AfterMove,
    TieBreak(u32),
}

/// A player (see the module docs of [`crate::roles`]).
pub struct Player {
    terms: AgreedTerms,
    variant: Variant,
    mode: Mode,
    /// Signing, sealing, the hook and the output queue.
    out: Outbox,
    seal: SealSecret,
    rng: ChaCha20Rng,
    /// Decides at once; without one, the player asks its driver ([`Output::Decide`]).
    policy: Option<Box<dyn Policy>>,
    /// The question asked and not yet answered, and what its answer is for.
    pending: Option<(Ask, Then)>,
    log: PublicLog,
    side: Option<Side>,
    mine: BTreeMap<crate::commitment::Purpose, Opening>,
    opened: BTreeSet<crate::commitment::Purpose>,
    revealed: bool,
    setup_done: bool,
    track: Track,
    /// An action of ours whose effect we have not yet seen.
    waiting: bool,
    end: Option<Claim>,
    done: bool,
    plies: u32,
    /// Umpired games: the umpire's last public Turn (whose clock runs).
    turn: Option<Owed>,
}

/// What a decision is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    IntrigueSetup,
    Sc6Setup { freezes: u8 },
    Action,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("key", &self.out.author.key())
            .field("side", &self.side)
            .field("track", &self.track)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

impl Player {
    /// A player of agreed terms. `secret` seeds every random value it draws (commitment
    /// nonces, private seed, public contribution, seal seeds): fresh OS randomness in real
    /// play, a derived value in deterministic self-play. Sends its step-1 commitments at once.
    pub fn new(
        identity: Identity,
        terms: AgreedTerms,
        secret: [u8; 32],
        policy: Box<dyn Policy>,
    ) -> Result<Player, GameError> {
        Player::build(identity, terms, secret, Some(policy))
    }

    /// A player that asks its driver for every decision ([`Output::Decide`], answered by
    /// [`Input::Decision`]): a human, or a bot in another process.
    pub fn asking(
        identity: Identity,
        terms: AgreedTerms,
        secret: [u8; 32],
    ) -> Result<Player, GameError> {
        Player::build(identity, terms, secret, None)
    }

    fn build(
        identity: Identity,
        terms: AgreedTerms,
        secret: [u8; 32],
        policy: Option<Box<dyn Policy>>,
    ) -> Result<Player, GameError> {
        let variant: Variant = terms.terms.variant.parse()?;
        let me = terms.terms.player(&identity.public());
        let seal = super::match_seal(&identity, me.map(|p| p.nonce), me.map(|p| p.seal_key))?;
        let mut p = Player {
            mode: game::mode(variant),
            variant,
            out: Outbox::new(
                Author::new(identity.clone(), terms.match_id),
                game::sealed_plaintext_bytes(variant, game::SealDirection::ToUmpire),
            ),
            seal,
            rng: super::match_rng(&secret, &terms.match_id),
            policy,
            pending: None,
            log: PublicLog::new(&terms),
            terms,
            side: None,
            mine: BTreeMap::new(),
            opened: BTreeSet::new(),
            revealed: false,
            setup_done: false,
            track: Track::None,
            waiting: false,
            end: None,
            done: false,
            plies: 0,
            turn: None,
        };
        for purpose in flow::early_commitments(variant) {
            let value = p.random32().to_vec();
            p.commit(*purpose, value);
        }
        Ok(p)
    }

    /// Installs a hook that sees every payload before it is signed or sealed (a cheater).
    pub fn set_hook(&mut self, hook: Hook) {
        self.out.hook = Some(hook);
    }

    /// The player's side, once colours are known.
    pub fn side(&self) -> Option<Side> {
        self.side
    }

    /// The end as this player knows it.
    pub fn end(&self) -> Option<&Claim> {
        self.end.as_ref()
    }

    /// Resigns (a human's choice, or a driver ending a match early): claims the loss, then
    /// sends its openings and disclosures like any end. Nothing happens before the player knows
    /// its side or once the end is known.
    pub fn resign(&mut self) {
        if self.end.is_some() || self.done {
            return;
        }
        let Some(side) = self.side else { return };
        self.set_end(flow::loss_of(side, rules::EndReason::Resignation.into()));
        self.finish();
    }

    /// How many actions this player has sent (moves, attempts, setup and tie-break actions).
    pub fn actions(&self) -> u32 {
        self.plies
    }

    /// Whether this player is to act and has not yet acted (for the driver's move clock).
    pub fn to_act(&self) -> bool {
        self.end.is_none() && !self.waiting && self.pending.is_none() && self.my_turn()
    }

    /// The side this player is waiting for, in open and owner games, where the turn is
    /// public: the side to move, or an Intrigue owner whose answer is due. `None` in umpired
    /// games (ask the umpire, [`crate::roles::Umpire::awaiting`]) and once the end is known.
    pub fn awaiting(&self) -> Option<Side> {
        if self.end.is_some() {
            return None;
        }
        let me = self.me();
        match &self.track {
            Track::Open(g) => g.to_act().first().map(|c| game::side(*c)),
            Track::Intrigue { awaiting_answer: true, .. } => Some(game::side(!me)),
            Track::Intrigue { model, .. } => model
                .as_ref()
                .and_then(|m| m.game.as_ref())
                .and_then(|g| g.to_act().first().copied())
                .map(game::side),
            _ => None,
        }
    }

    fn random32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.rng.fill_bytes(&mut b);
        b
    }

    fn me(&self) -> Color {
        game::color(self.side.unwrap_or(Side::White))
    }

    /// Seals `payload` to the umpire on this player's channel (after the hook).
    fn send_sealed(&mut self, payload: Payload) {
        let (Some(side), Some(umpire)) = (self.side, self.terms.terms.umpire.as_ref()) else {
            return;
        };
        let key = umpire.seal_key;
        self.out.send_sealed(Channel::private(side), None, payload, &key, &mut self.rng);
    }

    fn commit(&mut self, purpose: crate::commitment::Purpose, value: Vec<u8>) {
        let nonce = self.random32();
        let c = commitment::commit(
            purpose,
            &self.terms.match_id,
            &self.out.author.key(),
            &value,
            &nonce,
        );
        self.mine.insert(purpose, Opening { value, nonce });
        self.out.send_public(None, Payload::Commit { purpose, commitment: c });
    }

    fn open_public(&mut self, re: Option<MessageHash>, purpose: crate::commitment::Purpose) {
        if let Some(opening) = self.mine.get(&purpose).cloned()
            && self.opened.insert(purpose)
        {
            self.out.send_public(re, Payload::Open { purpose, opening });
        }
    }

    /// The policy's decision at once, or `None` after asking the driver.
    fn decide(&mut self, ask: Ask, then: Then) -> Option<Vec<u8>> {
        let me = self.me();
        match &mut self.policy {
            Some(p) => Some(p.decide(self.variant, me, &ask)),
            None => {
                self.out.outputs.push_back(Output::Decide(ask.clone()));
                self.pending = Some((ask, then));
                None
            }
        }
    }

    /// The driver's answer to the pending question.
    fn decided(&mut self, answer: Vec<u8>) -> Result<(), RoleError> {
        let Some((_, then)) = self.pending.take() else {
            return Err(RoleError {
                author: self.out.author.key(),
                message: MessageHash([0; 32]),
                problem: "a decision nobody asked for".into(),
            });
        };
        if self.end.is_some() {
            return Ok(());
        }
        match then {
            Then::IntrigueSetup => self.intrigue_setup(answer),
            Then::Sc6Setup { freezes } => self.sc6_setup(answer, freezes),
            Then::Action => self.send_action(answer),
        }
        Ok(())
    }

    /// The game ended from outside (a timeout, the opponent's or the umpire's claim): an
    /// Intrigue answer still awaited will never come, so nothing holds the finish back.
    fn ended_by(&mut self, claim: Claim) {
        if let Track::Intrigue { awaiting_answer, .. } = &mut self.track {
            *awaiting_answer = false;
        }
        self.set_end(claim);
    }

    fn set_end(&mut self, claim: Claim) {
        if self.end.is_none() {
            self.end = Some(claim);
        }
    }

    fn set_result(&mut self, result: Option<GameResult>) {
        if let Some(r) = result {
            self.set_end(claim_of(&r));
        }
    }

    fn my_turn(&self) -> bool {
        let me = self.me();
        // In umpired games only the umpire's public Turn starts a player's clock; acting
        // before it would be refused (PROTOCOL.md, the coordinator).
        if self.mode == Mode::Umpire
            && !matches!(self.turn, Some(Owed::Both))
            && self.turn != Some(Owed::Side(game::side(me)))
        {
            return false;
        }
        match &self.track {
            Track::None => false,
            Track::Open(g) => g.to_act().contains(&me),
            Track::Intrigue { model, awaiting_answer, .. } => {
                !awaiting_answer
                    && model
                        .as_ref()
                        .and_then(|m| m.game.as_ref())
                        .is_some_and(|g| g.to_act().contains(&me))
            }
            Track::Kriegspiel { to_move, .. } => *to_move == me,
            Track::Sic { my_turn, .. } => *my_turn,
            Track::Sc6 { ask, .. } => *ask != Sc6Ask::Idle,
        }
    }

    /// Everything that is due now, in order (idempotent).
    fn progress(&mut self) {
        if self.done {
            return;
        }
        let t = &self.terms.terms;
        let both_committed = t.players.iter().all(|p| {
            flow::early_commitments(self.variant)
                .iter()
                .all(|purpose| self.log.commitment(&p.key, *purpose).is_some())
        });
        if !self.revealed && both_committed {
            self.revealed = true;
            if let Some(opening) = self.mine.get(&PUBLIC_CONTRIBUTION).cloned() {
                self.opened.insert(PUBLIC_CONTRIBUTION);
                let purpose = PUBLIC_CONTRIBUTION;
                self.out.send_public(None, Payload::Reveal { purpose, opening });
            }
        }
        if self.side.is_none() {
            self.side = self.log.colours.and_then(|c| c.side_of(&self.out.author.key()));
        }
        if self.side.is_some() && !self.setup_done {
            self.setup_done = true;
            self.setup();
        }
        self.intrigue_report();
        if self.end.is_some() {
            self.finish();
            return;
        }
        if !self.waiting && self.pending.is_none() && self.my_turn() {
            self.act();
        }
    }

    fn setup(&mut self) {
        let me = self.me();
        match self.variant {
            Variant::Chess | Variant::Espionage => {
                let g = AnyGame::start(self.variant.id(), &self.terms.terms.options, None);
                match g {
                    Ok(g) => self.track = Track::Open(g),
                    Err(_) => self.set_end(Claim {
                        outcome: crate::message::Outcome::NoResult,
                        reason: crate::message::ClaimReason::BadTerms,
                    }),
                }
            }
            Variant::Kriegspiel => {
                let state = rules::kriegspiel::State::start(Default::default());
                let mut own = Board::empty(BoardSize::Eight);
                for (sq, role) in state.view(me).men {
                    own.put(sq, role.of(me));
                }
                self.track = Track::Kriegspiel {
                    own,
                    to_move: Color::White,
                    refused: vec![],
                    attempt: None,
                };
            }
            Variant::Sic => {
                self.track = Track::Sic { legal: Vec::new(), my_turn: false, started: false };
                if let Some(opening) = self.mine.get(&PRIVATE_SEED).cloned() {
                    let purpose = PRIVATE_SEED;
                    self.send_sealed(Payload::Open { purpose, opening });
                }
            }
            Variant::Intrigue => {
                if let Some(setup) = self.decide(Ask::IntrigueSetup, Then::IntrigueSetup) {
                    self.intrigue_setup(setup);
                }
            }
            Variant::SecretChess6 => {
                let o = AnyGame::start(self.variant.id(), &self.terms.terms.options, None);
                let (freezes, max_false) = match o {
                    Ok(AnyGame::SecretChess6(s)) => {
                        let opts = *s.options();
                        let extra = usize::from(opts.false_square[me]);
                        (s.freezes_left(me), 2 + extra)
                    }
                    _ => (0, 2),
                };
                let ask = Ask::Sc6Setup { max_false_squares: max_false };
                if let Some(setup) = self.decide(ask, Then::Sc6Setup { freezes }) {
                    self.sc6_setup(setup, freezes);
                }
            }
        }
    }

    /// Intrigue's secret setup, decided: commit to it (R-I1).
    fn intrigue_setup(&mut self, setup: Vec<u8>) {
        let me = self.me();
        let model = match IAction::from_canonical(&setup) {
            Ok(IAction::Setup(s)) => Some(Box::new(IntrigueModel::new(me, s))),
            _ => None,
        };
        self.commit(flow::INTRIGUE_SETUP, setup);
        self.track = Track::Intrigue {
            model,
            report_sent: false,
            white_reported: false,
            awaiting_answer: false,
        };
    }

    /// 6x6's secret setup, decided: commit to it and seal it to the umpire (R-G1).
    fn sc6_setup(&mut self, setup: Vec<u8>, freezes: u8) {
        self.commit(flow::SECRETCHESS6_SETUP, setup.clone());
        self.track = Track::Sc6 { pieces: Vec::new(), freezes, ask: Sc6Ask::Idle };
        self.plies += 1;
        self.send_sealed(Payload::Action(setup));
    }

    /// Intrigue: publish one's setup report once both setups are committed, White first.
    fn intrigue_report(&mut self) {
        let me = self.me();
        let both = self
            .terms
            .terms
            .players
            .iter()
            .all(|p| self.log.commitment(&p.key, flow::INTRIGUE_SETUP).is_some());
        let Track::Intrigue { model, report_sent, white_reported, .. } = &mut self.track else {
            return;
        };
        if *report_sent || !both || (me == Color::Black && !*white_reported) {
            return;
        }
        *report_sent = true;
        let queen = model.as_ref().is_some_and(|m| m.own.queen_on_king_square);
        let report =
            SetupReport { side: me, queen_on_king_square: queen, play_starts: me == Color::Black };
        self.out.send_public(None, Payload::Observation(IObs::Setup(report).to_canonical()));
    }

    /// Asks the policy for the next action and sends it.
    fn act(&mut self) {
        let me = self.me();
        let ask = match &self.track {
            Track::Open(g) => Ask::Choose(g.legal_actions()),
            Track::Intrigue { model, .. } => Ask::Choose(
                model
                    .as_ref()
                    .and_then(|m| m.game.as_ref())
                    .map_or_else(Vec::new, AnyGame::legal_actions),
            ),
            Track::Kriegspiel { own, refused, .. } => Ask::Choose(
                kriegspiel_candidates(own, me)
                    .into_iter()
                    .filter(|m| !refused.contains(m))
                    .map(|m| m.to_canonical())
                    .collect(),
            ),
            Track::Sic { legal, .. } => {
                Ask::Choose(legal.iter().map(Canonical::to_canonical).collect())
            }
            Track::Sc6 { pieces, ask, .. } => match ask {
                Sc6Ask::Move => Ask::Choose(
                    sc6_legal_moves(me, pieces)
                        .into_iter()
                        .map(|mv| sc6::Action::Move { mv }.to_canonical())
                        .collect(),
                ),
                Sc6Ask::AfterMove => {
                    let mut v = vec![sc6::Action::EndTurn.to_canonical()];
                    for p in pieces {
                        if p.role != rules::Role::King {
                            v.push(
                                sc6::Action::LifeFreeze { piece: p.square.clone() }.to_canonical(),
                            );
                        }
                    }
                    Ask::Choose(v)
                }
                Sc6Ask::TieBreak(n) => Ask::Sc6TieBreak { opponent_turns: *n },
                Sc6Ask::Idle => return,
            },
            Track::None => return,
        };
        if matches!(&ask, Ask::Choose(v) if v.is_empty()) {
            return;
        }
        if let Some(action) = self.decide(ask, Then::Action) {
            self.send_action(action);
        }
    }

    /// Sends the action decided on.
    fn send_action(&mut self, action: Vec<u8>) {
        self.plies += 1;
        match &mut self.track {
            Track::Open(_) | Track::Intrigue { .. } => {
                self.waiting = true;
                self.out.send_public(None, Payload::Action(action));
            }
            Track::Kriegspiel { attempt, .. } => {
                *attempt = Move::from_canonical(&action).ok();
                self.waiting = true;
                self.send_sealed(Payload::Action(action));
            }
            Track::Sic { my_turn, .. } => {
                *my_turn = false;
                self.waiting = true;
                self.send_sealed(Payload::Action(action));
            }
            Track::Sc6 { ask, .. } => {
                if let Sc6Ask::TieBreak(_) = ask {
                    self.commit(flow::TIEBREAK, action.clone());
                }
                if let Track::Sc6 { ask, .. } = &mut self.track {
                    *ask = Sc6Ask::Idle;
                }
                self.send_sealed(Payload::Action(action));
            }
            Track::None => {}
        }
    }

    /// The end is known: claim, open every commitment not yet opened, report.
    fn finish(&mut self) {
        if let Track::Intrigue { awaiting_answer: true, .. } = self.track {
            return;
        }
        let Some(claim) = self.end.clone() else { return };
        self.done = true;
        self.out.send_public(None, Payload::Claim(claim.clone()));
        let purposes: Vec<crate::commitment::Purpose> = self.mine.keys().copied().collect();
        for p in purposes {
            self.open_public(None, p);
        }
        self.out.disclose_all();
        self.out.outputs.push_back(Output::Finished(claim));
    }

    fn on_public(&mut self, body: &MessageBody, hash: MessageHash) -> Result<(), RoleError> {
        self.log.observe(&self.terms, body);
        if self.side.is_none() {
            self.side = self.log.colours.and_then(|c| c.side_of(&self.out.author.key()));
        }
        let colours = self.log.colours;
        let actor = colours.and_then(|c| c.side_of(&body.author)).map(game::color);
        let me_key = self.out.author.key();
        let is_umpire = self.terms.terms.umpire.as_ref().is_some_and(|u| u.key == body.author);
        match &body.payload {
            // The relay closed the log: countersign its final head (our `seen` is the close).
            Payload::Close if body.author == self.terms.terms.relay => {
                self.out.send_public(None, Payload::Countersign);
            }
            Payload::Timeout { party, expectation, .. } => match (party.side(), expectation) {
                (Some(side), Expectation::Move) => self.ended_by(flow::loss_of(side, TIMEOUT)),
                (Some(side), _) => self.ended_by(flow::loss_of(side, FORFEIT)),
                (None, _) => self.ended_by(Claim {
                    outcome: crate::message::Outcome::NoResult,
                    reason: crate::message::ClaimReason::UmpireTimeout,
                }),
            },
            Payload::Turn { next } if is_umpire => self.turn = Some(*next),
            // The opponent resigned or claimed: the game is over for this player too.
            Payload::Claim(c)
                if body.author != me_key
                    && !is_umpire
                    && c.reason != rules::EndReason::Agreement.into() =>
            {
                self.ended_by(c.clone());
            }
            Payload::Claim(c) if is_umpire => self.ended_by(c.clone()),
            Payload::Action(bytes) if self.mode != Mode::Umpire => {
                let Some(actor) = actor else { return Ok(()) };
                self.on_public_action(actor, bytes, body.author == me_key, body, hash)?;
            }
            Payload::Observation(bytes) if self.mode == Mode::Owner && body.author != me_key => {
                let obs = IObs::from_canonical(bytes)
                    .map_err(|e| fault(body, hash, format!("owner observation: {e}")))?;
                if let Track::Intrigue { model, white_reported, awaiting_answer, .. } =
                    &mut self.track
                {
                    match obs {
                        IObs::Setup(r) => {
                            if r.side == Color::White {
                                *white_reported = true;
                            }
                            if let Some(m) = model {
                                m.opponent_queen = Some(r.queen_on_king_square);
                                m.rebuild();
                            }
                        }
                        IObs::Move(r) => {
                            if let (Some(m), Some(i)) = (model, r.inspection) {
                                m.answered(i);
                                // An informer answer is followed by the opening.
                                *awaiting_answer = i.informer;
                                if !i.informer {
                                    self.set_result_from_model();
                                }
                            }
                        }
                    }
                }
            }
            Payload::Open { purpose, opening } if *purpose == flow::INTRIGUE_SETUP => {
                if body.author != me_key
                    && let Track::Intrigue { model: Some(m), awaiting_answer, .. } = &mut self.track
                {
                    m.opened(opening);
                    *awaiting_answer = false;
                    self.set_result_from_model();
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn set_result_from_model(&mut self) {
        if let Track::Intrigue { model: Some(m), .. } = &self.track {
            let r = m.game.as_ref().and_then(AnyGame::result);
            self.set_result(r);
        }
    }

    fn on_public_action(
        &mut self,
        actor: Color,
        bytes: &[u8],
        mine: bool,
        body: &MessageBody,
        hash: MessageHash,
    ) -> Result<(), RoleError> {
        let me = self.me();
        if mine {
            self.waiting = false;
        }
        match &mut self.track {
            Track::Open(g) => match g.apply(actor, bytes) {
                Ok((next, _)) => {
                    *g = next;
                    let r = g.result();
                    self.set_result(r);
                }
                Err(e) => {
                    self.set_end(flow::loss_of(game::side(actor), FORFEIT));
                    return Err(fault(body, hash, format!("refused action: {e}")));
                }
            },
            Track::Intrigue { model: Some(m), awaiting_answer, .. } => {
                m.played(actor, bytes.to_vec());
                if m.game.is_none() {
                    self.set_end(flow::loss_of(game::side(actor), FORFEIT));
                    return Err(fault(body, hash, "refused intrigue move".into()));
                }
                let inspection = m.last_inspection();
                if actor == me {
                    // R-I2: the owner answers before anything else happens.
                    *awaiting_answer = inspection.is_some();
                    if inspection.is_none() {
                        self.set_result_from_model();
                    }
                } else if let Some(i) = inspection {
                    let obs = m.last.clone().expect("an inspection comes with its report");
                    let r = m.game.as_ref().and_then(AnyGame::result);
                    // The answer names the capture it answers (PROTOCOL.md 18.2).
                    self.out.send_public(Some(hash), Payload::Observation(obs.to_canonical()));
                    if i.informer {
                        self.open_public(Some(hash), flow::INTRIGUE_SETUP);
                    }
                    self.set_result(r);
                } else {
                    self.set_result_from_model();
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn on_private(&mut self, body: &MessageBody, hash: MessageHash) -> Result<(), RoleError> {
        let is_umpire = self.terms.terms.umpire.as_ref().is_some_and(|u| u.key == body.author);
        if !is_umpire {
            return Ok(());
        }
        let Payload::Sealed(sealed) = &body.payload else { return Ok(()) };
        let padded = game::sealed_plaintext_bytes(self.variant, game::SealDirection::FromUmpire);
        let plain = seal::open(&self.seal, &seal_context(body), sealed, padded)
            .map_err(|e| fault(body, hash, e.to_string()))?;
        let payload = Payload::from_canonical(&plain)
            .map_err(|e| fault(body, hash, format!("sealed payload: {e}")))?;
        let Payload::Observation(bytes) = payload else { return Ok(()) };
        let me = self.me();
        let bad = |e: crate::codec::DecodeError| format!("observation: {e}");
        match &mut self.track {
            Track::Kriegspiel { own, to_move, refused, attempt } => {
                let answer =
                    Answer::from_canonical(&bytes).map_err(|e| fault(body, hash, bad(e)))?;
                let mut end = None;
                if self.waiting {
                    self.waiting = false;
                    let tried = attempt.take();
                    match (&answer, tried) {
                        (Answer::Illegal, Some(m)) => refused.push(m),
                        (Answer::Legal(a), Some(m)) => {
                            kriegspiel_play_own(own, &m);
                            refused.clear();
                            *to_move = !me;
                            end = a.end.map(|e| (e, me));
                        }
                        _ => {}
                    }
                } else if let Answer::Legal(a) = &answer {
                    if let Some(c) = a.capture {
                        own.remove(c.square);
                    }
                    *to_move = me;
                    end = a.end.map(|e| (e, !me));
                }
                if let Some((e, mover)) = end {
                    let winner = (e == rules::kriegspiel::End::Checkmate).then_some(mover);
                    self.set_result(Some(GameResult { winner, reason: e.reason() }));
                }
            }
            Track::Sic { legal, my_turn, started } => {
                if !*started {
                    // The first observation is the start view (PROTOCOL.md 18.2 step 3).
                    *started = true;
                    let view = rules::sic::View::from_canonical(&bytes)
                        .map_err(|e| fault(body, hash, bad(e)))?;
                    *my_turn = view.to_move == me && !view.legal.is_empty();
                    *legal = view.legal;
                    let r = view.result;
                    self.set_result(r);
                    return Ok(());
                }
                let obs = rules::sic::Observation::from_canonical(&bytes)
                    .map_err(|e| fault(body, hash, bad(e)))?;
                match obs {
                    rules::sic::Observation::YouMoved(r) => {
                        self.waiting = false;
                        self.set_result(r.end);
                    }
                    rules::sic::Observation::OpponentMoved(r) => {
                        *my_turn = r.end.is_none() && !r.legal.is_empty();
                        *legal = r.legal;
                        self.set_result(r.end);
                    }
                }
            }
            Track::Sc6 { pieces, freezes, ask } => {
                let obs = sc6::Observation::from_canonical(&bytes)
                    .map_err(|e| fault(body, hash, bad(e)))?;
                let mut result = None;
                for ev in obs.events {
                    match ev {
                        sc6::Event::Board { your_turn, pieces: p, .. } => {
                            *pieces = p;
                            if your_turn {
                                *ask = Sc6Ask::Move;
                            }
                        }
                        sc6::Event::Moved { mv } => {
                            if let Ok(rules::secretchess6::TurnMove::Move { from, to, .. }) =
                                rules::secretchess6::TurnMove::parse(&mv)
                            {
                                for p in pieces.iter_mut() {
                                    if p.square == from.name() {
                                        p.square = to.name();
                                    }
                                }
                            }
                            *ask = if *freezes > 0 { Sc6Ask::AfterMove } else { Sc6Ask::Idle };
                        }
                        sc6::Event::Frozen { .. } => *freezes = freezes.saturating_sub(1),
                        sc6::Event::TieBreakNeeded { opponent_turns, .. } => {
                            *ask = Sc6Ask::TieBreak(opponent_turns);
                        }
                        sc6::Event::End { result: r, .. } => {
                            *ask = Sc6Ask::Idle;
                            result = Some(r);
                        }
                        _ => {}
                    }
                }
                self.set_result(result);
            }
            _ => {}
        }
        Ok(())
    }
}

fn fault(body: &MessageBody, hash: MessageHash, problem: String) -> RoleError {
    RoleError { author: body.author, message: hash, problem }
}

impl Participant for Player {
    type Error = RoleError;

    fn handle(&mut self, input: Input) -> Result<(), RoleError> {
        let result = match input {
            Input::Delivered(entry) => {
                let (body, receipt) = open_entry(&self.terms, &entry)?;
                let hash = entry.message.hash();
                self.out.delivered(&receipt);
                match body.channel {
                    Channel::Public => self.on_public(&body, hash),
                    c if c.side() == self.side => self.on_private(&body, hash),
                    _ => Ok(()),
                }
            }
            Input::Decision(answer) => self.decided(answer),
            Input::Relay(_) | Input::Time(_) => Ok(()),
        };
        self.progress();
        result
    }

    fn poll_output(&mut self) -> Option<Output> {
        if self.out.outputs.is_empty() {
            self.progress();
        }
        self.out.outputs.pop_front()
    }

    fn poll_timeout(&self) -> Option<u64> {
        None
    }
}
