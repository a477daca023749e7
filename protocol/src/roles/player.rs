//! A player's state machine, for every mode (docs/PROTOCOL.md section 18): commitments,
//! reveal, the game's setup, play through its [`Policy`], answers it owes (Intrigue), the claim
//! and the final openings.

use super::public::PublicLog;
use super::{Ask, Input, Outbox, Output, Participant, Policy, RoleError, open_entry};
use crate::codec::Canonical;
use crate::commitment::{self, Opening};
use crate::flow::{self, FORFEIT, Mode, PRIVATE_SEED, PUBLIC_CONTRIBUTION, TIMEOUT};
use crate::game::{self, GameError, claim_of};
use crate::keys::Identity;
use crate::message::{Author, Claim, Expectation, MessageBody, Owed, Payload, seal_context};
use crate::seal::Inbox;
use crate::terms::AgreedTerms;
use crate::{Channel, MessageHash};
use rand_chacha::ChaCha20Rng;
use rand_core::Rng;
use rules::intrigue::{Action as IAction, Observation as IObs, SetupReport};
use rules::seat::{Seat, SeatView};
use rules::{AnyAction, AnyObservation, Color, GameOptions, GameResult, Variant};
use std::collections::{BTreeMap, BTreeSet};

/// What the match flow of Intrigue asks of a player beyond its seat (PROTOCOL.md 18.2).
#[derive(Clone, Copy, Debug, Default)]
struct OwnerFlow {
    /// Its own secret setup decoded (else it has no game to follow).
    set_up: bool,
    /// Its own public choice (R-I1).
    queen_on_king_square: bool,
    report_sent: bool,
    /// White's setup report has been seen.
    white_reported: bool,
    /// After one's own capture of a pawn: the owner's answer (and opening) are due.
    awaiting_answer: bool,
}

/// A player (see the module docs of [`crate::roles`]).
pub struct Player {
    terms: AgreedTerms,
    variant: Variant,
    mode: Mode,
    /// Signing, sealing, the hook and the output queue.
    out: Outbox,
    /// Opens what is sealed to this machine (one context per sender and channel).
    seal: Inbox,
    rng: ChaCha20Rng,
    /// Decides at once; without one, the player asks its driver ([`Output::Decide`]).
    policy: Option<Box<dyn Policy>>,
    /// The question asked and not yet answered, and what its answer is for.
    pending: Option<(Ask, Then)>,
    log: PublicLog,
    side: Option<Color>,
    /// The game's options, read once from the terms.
    options: GameOptions,
    mine: BTreeMap<crate::commitment::Purpose, Opening>,
    opened: BTreeSet<crate::commitment::Purpose>,
    revealed: bool,
    setup_done: bool,
    /// What this player knows of the game (`rules::seat`), once it knows its side.
    seat: Option<Seat>,
    /// Intrigue's flow of setup reports and answers.
    owner: OwnerFlow,
    /// An action of ours whose effect we have not yet seen.
    waiting: bool,
    /// A resignation waiting for the answers to our actions.
    resign_pending: bool,
    /// Umpired games: our sealed actions the umpire has not yet answered (by message hash; its
    /// answers name them with `re`).
    unanswered: BTreeSet<MessageHash>,
    /// Open and owner games, where a player reads every entry: the relay's coordinator,
    /// replayed, so a void race (a move in flight when the game ended) is ignored as the relay
    /// and the verifier ignore it, never answered.
    coordinator: Option<crate::coordinator::Coordinator>,
    end: Option<Claim>,
    done: bool,
    plies: u32,
    /// Umpired games: the umpire's last public Turn (whose clock runs).
    turn: Option<Owed>,
    /// Umpired games: the standing draw offer as this player can tell (PROTOCOL.md 13.1: it
    /// stands until the offerer's next move or the opponent's reply; a second offer is the
    /// acceptance). Open and owner games ask their coordinator.
    draw_offer: Option<Color>,
}

/// What a decision is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    /// The secret setup ([`Player::secret_setup`]).
    Setup,
    /// An action, a tie-break included ([`Player::send_action`]).
    Action,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player")
            .field("key", &self.out.author.key())
            .field("side", &self.side)
            .field("seat", &self.seat)
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
        // The one gate, as every party calls it (terms built by hand skip `SignedTerms::verify`).
        terms.terms.validate()?;
        let variant = terms.terms.variant();
        let options = terms.terms.game;
        let me = terms.terms.player(&identity.public());
        let seal = super::match_seal(&identity, me.map(|p| p.nonce), me.map(|p| p.seal_key))?;
        let coordinator = (variant.mode() != Mode::Umpire)
            .then(|| crate::coordinator::Coordinator::new(terms.clone()));
        let mut p = Player {
            mode: variant.mode(),
            variant,
            options,
            out: Outbox::new(
                Author::new(identity.clone(), terms.match_id),
                game::sealed_plaintext_bytes(variant, game::SealDirection::ToUmpire),
            ),
            seal: Inbox::new(seal),
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
            seat: None,
            owner: OwnerFlow::default(),
            waiting: false,
            resign_pending: false,
            unanswered: BTreeSet::new(),
            coordinator,
            end: None,
            done: false,
            plies: 0,
            turn: None,
            draw_offer: None,
        };
        for purpose in flow::early_commitments(variant) {
            let value = p.random32().to_vec();
            p.commit(*purpose, value);
        }
        Ok(p)
    }

    /// Installs a hook that sees every payload before it is signed or sealed (a cheater; feature
    /// `adversary`).
    #[cfg(feature = "adversary")]
    pub fn set_hook(&mut self, hook: super::Hook) {
        self.out.hook = Some(hook);
    }

    /// The player's side, once colors are known.
    pub fn side(&self) -> Option<Color> {
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
        // Over already, even if this player has not yet been told how: the umpire's public
        // `Turn { Nobody }` says the rules ended the game, and a resignation now would be a
        // claim of a result the game did not have.
        let over = self.turn == Some(crate::message::Owed::Nobody);
        if self.end.is_some() || self.done || over {
            return;
        }
        // An action of ours is still unanswered: its answer may end the game (a hidden mate,
        // a 6x6 score), which a resignation sent now would contradict. The resignation waits
        // for the answer, and is dropped if the game ended by it.
        if self.awaits_answer() {
            self.resign_pending = true;
            return;
        }
        let Some(side) = self.side else { return };
        self.set_end(flow::loss_of(side, rules::EndReason::Resignation.into()));
        self.finish();
    }

    /// What this player knows of the game (`rules::seat`), once it knows its side.
    pub fn seat(&self) -> Option<&Seat> {
        self.seat.as_ref()
    }

    /// The snapshot of what this player knows ([`Seat::view`]), once it knows its side: what a
    /// UI or a bot API shows, never hidden truth.
    pub fn view(&self) -> Option<SeatView> {
        self.seat.as_ref().map(Seat::view)
    }

    /// The standing draw offer as this player can tell, by side: in open and owner games the
    /// coordinator's, exactly. In umpired games the opponent's sealed attempts (which withdraw
    /// its offer) are not shown to this player, so an offer shown may have lapsed; the
    /// umpire's claim says whether a draw was agreed.
    pub fn draw_offer(&self) -> Option<Color> {
        if self.end.is_some() {
            return None;
        }
        match &self.coordinator {
            Some(c) => c.draw_offer(),
            None => self.draw_offer,
        }
    }

    /// Whether play has begun as this player can tell (PROTOCOL.md 13.2): the coordinator's
    /// phase in open and owner games, the umpire's first `Turn` in umpired games.
    fn in_play(&self) -> bool {
        self.side.is_some()
            && match &self.coordinator {
                Some(c) => c.in_play(),
                None => self.turn.is_some(),
            }
    }

    /// Offers a draw, or accepts the opponent's standing offer (PROTOCOL.md 13.1: a `Claim` of
    /// a draw by agreement; the second offer is the acceptance and ends the game). Only during
    /// play and before the end; returns whether the offer was sent. The game ends when the
    /// log shows two offers standing: this player then claims and opens like at any end (in
    /// umpired games on the umpire's claim, since an opponent's unseen attempt withdraws its
    /// offer).
    pub fn offer_draw(&mut self) -> bool {
        if self.end.is_some() || self.done || !self.in_play() {
            return false;
        }
        let claim = Claim {
            outcome: crate::message::Outcome::Draw,
            reason: rules::EndReason::Agreement.into(),
        };
        self.out.send_public(None, Payload::Claim(claim));
        true
    }

    /// Whether an action of ours still waits for its answer (the umpire's, or an Intrigue
    /// owner's about a captured pawn).
    fn awaits_answer(&self) -> bool {
        self.waiting || self.owner.awaiting_answer || !self.unanswered.is_empty()
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
    pub fn awaiting(&self) -> Option<Color> {
        if self.end.is_some() {
            return None;
        }
        if self.mode == Mode::Umpire {
            return None;
        }
        if self.owner.awaiting_answer {
            return Some(!self.me());
        }
        self.seat.as_ref().and_then(|s| s.to_act().first().copied())
    }

    fn random32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.rng.fill_bytes(&mut b);
        b
    }

    fn me(&self) -> Color {
        self.side.unwrap_or(Color::White)
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
    fn decide(&mut self, ask: Ask, then: Then) -> Option<AnyAction> {
        let me = self.me();
        match &mut self.policy {
            Some(p) => Some(p.decide_seeing(self.seat.as_ref(), self.variant, me, &ask)),
            None => {
                self.out.outputs.push_back(Output::Decide(ask.clone()));
                self.pending = Some((ask, then));
                None
            }
        }
    }

    /// The driver's answer to the pending question.
    fn decided(&mut self, answer: AnyAction) -> Result<(), RoleError> {
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
            Then::Setup => self.secret_setup(answer),
            Then::Action => self.send_action(answer),
        }
        Ok(())
    }

    /// The game ended from outside (a timeout, the opponent's or the umpire's claim): an
    /// Intrigue answer still awaited will never come, so nothing holds the finish back.
    fn ended_by(&mut self, claim: Claim) {
        self.owner.awaiting_answer = false;
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
            && self.turn != Some(Owed::Side(me))
        {
            return false;
        }
        let Some(seat) = &self.seat else { return false };
        match self.variant {
            // R-I2: the owner answers before anything else happens.
            Variant::Intrigue => !self.owner.awaiting_answer && seat.my_turn(),
            _ => seat.my_turn(),
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
            self.side = self.log.colors.and_then(|c| c.color_of(&self.out.author.key()));
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
        self.seat = Some(Seat::new(&self.options, me));
        if matches!(self.options, GameOptions::Sic(_))
            && let Some(opening) = self.mine.get(&PRIVATE_SEED).cloned()
        {
            let purpose = PRIVATE_SEED;
            self.send_sealed(Payload::Open { purpose, opening });
        }
        if let Some(ask) = self.options.setup_ask(me)
            && let Some(setup) = self.decide(Ask::Setup(ask), Then::Setup)
        {
            self.secret_setup(setup);
        }
    }

    /// The secret setup, decided: committed (R-I1, R-G1) and, in an umpired game, sealed to
    /// the umpire, encoded once, the same bytes committed and sealed. An answer that is no setup
    /// of the game is committed all the same (its bytes are what the opening will show): the
    /// rules' refusal is this player's fault.
    fn secret_setup(&mut self, setup: AnyAction) {
        let Some(purpose) = flow::setup_commitment(self.variant) else { return };
        if self.mode == Mode::Owner {
            self.owner_setup(&setup);
        } else if let Some(seat) = &mut self.seat
            && setup.variant() == self.variant
        {
            seat.acted(&setup);
        }
        let bytes = game::encode_action(&setup);
        self.commit(purpose, bytes.clone());
        if self.mode == Mode::Umpire {
            self.plies += 1;
            self.send_sealed(Payload::Action(bytes));
        }
    }

    /// An owner game's own setup (Intrigue's, R-I1): its seat and its public choice, for the
    /// setup report; only a setup of the game counts.
    fn owner_setup(&mut self, setup: &AnyAction) {
        self.owner = OwnerFlow::default();
        if let AnyAction::Intrigue(IAction::Setup(s)) = setup
            && let Some(seat) = &mut self.seat
        {
            seat.acted(setup);
            self.owner.set_up = true;
            self.owner.queen_on_king_square = s.queen_on_king_square;
        }
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
        let o = &mut self.owner;
        if self.variant != Variant::Intrigue
            || o.report_sent
            || !both
            || (me == Color::Black && !o.white_reported)
        {
            return;
        }
        o.report_sent = true;
        let queen = o.set_up && o.queen_on_king_square;
        let report =
            SetupReport { side: me, queen_on_king_square: queen, play_starts: me == Color::Black };
        self.out.send_public(None, Payload::Observation(IObs::Setup(report).to_canonical()));
    }

    /// Asks the policy for the next action and sends it.
    fn act(&mut self) {
        let Some(seat) = &self.seat else { return };
        let ask = match seat.free_form_ask() {
            Some(a) => Ask::Setup(a),
            None => Ask::Choose(seat.legal_actions()),
        };
        if matches!(&ask, Ask::Choose(v) if v.is_empty()) {
            return;
        }
        if let Some(action) = self.decide(ask, Then::Action) {
            self.send_action(action);
        }
    }

    /// Sends the action decided on: in public in open and owner games, sealed to the umpire
    /// otherwise, encoded here once (the game's canonical action bytes,
    /// [`game::encode_action`]). An action of another game (a policy's mistake) still goes out
    /// as those bytes, and the player waits for nothing more: the rules' refusal is its fault.
    fn send_action(&mut self, typed: AnyAction) {
        self.plies += 1;
        // One's own move withdraws a standing offer (PROTOCOL.md 13.1; umpired games, where
        // this player tracks offers itself).
        self.draw_offer = None;
        let tie_break = self.seat.as_ref().is_some_and(|s| s.tie_break_turns().is_some());
        let action = game::encode_action(&typed);
        match &mut self.seat {
            Some(seat) if typed.variant() == self.variant => seat.acted(&typed),
            _ => self.waiting = true,
        }
        match self.mode {
            Mode::Open | Mode::Owner => {
                self.waiting = true;
                self.out.send_public(None, Payload::Action(action));
            }
            Mode::Umpire => {
                if tie_break {
                    self.commit(flow::TIEBREAK, action.clone());
                }
                // Kriegspiel and SIC wait for the answer to their move; 6x6 is told what comes
                // next by its board updates.
                if self.variant != Variant::SecretChess6 {
                    self.waiting = true;
                }
                let before = self.out.outputs.len();
                self.send_sealed(Payload::Action(action));
                if self.out.outputs.len() > before
                    && let Some(Output::Send(m)) = self.out.outputs.back()
                {
                    self.unanswered.insert(m.hash());
                }
            }
        }
    }

    /// The end is known: claim, open every commitment not yet opened, report.
    fn finish(&mut self) {
        if self.owner.awaiting_answer {
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
            self.side = self.log.colors.and_then(|c| c.color_of(&self.out.author.key()));
        }
        let colors = self.log.colors;
        let actor = colors.and_then(|c| c.color_of(&body.author));
        let me_key = self.out.author.key();
        let is_umpire = self.terms.terms.umpire.as_ref().is_some_and(|u| u.key == body.author);
        match &body.payload {
            // The relay closed the log: countersign its final head (our `seen` is the close),
            // which also attests that every setup the umpire sealed to us gave the key it
            // committed to; so not after a sealed message that did not open (PROTOCOL.md 14.2).
            Payload::Close { .. }
                if body.author == self.terms.terms.relay && self.seal.opened_all() =>
            {
                self.out.send_public(None, Payload::Countersign);
            }
            Payload::Close { .. } if body.author == self.terms.terms.relay => {}
            Payload::Timeout { party, expectation, .. } => match (party.side(), expectation) {
                (Some(side), Expectation::Move) => self.ended_by(flow::loss_of(side, TIMEOUT)),
                (Some(side), _) => self.ended_by(flow::loss_of(side, FORFEIT)),
                (None, _) => self.ended_by(Claim {
                    outcome: crate::message::Outcome::NoResult,
                    reason: crate::message::ClaimReason::UmpireTimeout,
                }),
            },
            Payload::Turn { next } if is_umpire => {
                // A Turn answers an action, which withdrew any standing offer.
                if self.turn.is_some() {
                    self.draw_offer = None;
                }
                self.turn = Some(*next);
            }
            // A draw offer by a player (PROTOCOL.md 13.1): the second one standing is the
            // acceptance. Open and owner games replay the coordinator, which says when that
            // ends the game; umpired games wait for the umpire's claim.
            Payload::Claim(c)
                if !is_umpire
                    && c.outcome == crate::message::Outcome::Draw
                    && c.reason == rules::EndReason::Agreement.into() =>
            {
                match &self.coordinator {
                    Some(k) if k.is_over() => self.ended_by(c.clone()),
                    Some(_) => {}
                    None => self.draw_offer = colors.and_then(|k| k.color_of(&body.author)),
                }
            }
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
                if let IObs::Setup(r) = &obs
                    && r.side == Color::White
                {
                    self.owner.white_reported = true;
                }
                if !self.owner.set_up {
                    return Ok(());
                }
                let inspection = match &obs {
                    IObs::Move(r) => r.inspection,
                    IObs::Setup(_) => None,
                };
                if let Some(seat) = &mut self.seat {
                    seat.told(&AnyObservation::Intrigue(obs));
                }
                if let Some(i) = inspection {
                    // An informer answer is followed by the opening.
                    self.owner.awaiting_answer = i.informer;
                    if !i.informer {
                        self.set_result_from_seat();
                    }
                }
            }
            Payload::Open { purpose, opening }
                if *purpose == flow::INTRIGUE_SETUP
                    && body.author != me_key
                    && self.owner.set_up =>
            {
                if let (Ok(IAction::Setup(s)), Some(seat)) =
                    (IAction::from_canonical(&opening.value), &mut self.seat)
                {
                    seat.revealed(&s);
                }
                self.owner.awaiting_answer = false;
                self.set_result_from_seat();
            }
            _ => {}
        }
        Ok(())
    }

    fn set_result_from_seat(&mut self) {
        let r = self.seat.as_ref().and_then(Seat::result);
        self.set_result(r);
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
        // An Intrigue player whose own setup is unreadable has no game to follow.
        if self.variant == Variant::Intrigue && !self.owner.set_up {
            return Ok(());
        }
        let Some(seat) = &mut self.seat else { return Ok(()) };
        let played = game::decode_action(self.variant, bytes)
            .map_err(GameError::from)
            .and_then(|a| Ok(seat.played(actor, &a)?));
        let told = match played {
            Ok(told) => told,
            Err(e) => {
                self.set_end(flow::loss_of(actor, FORFEIT));
                return Err(fault(body, hash, format!("refused action: {e}")));
            }
        };
        let AnyObservation::Intrigue(IObs::Move(report)) = told else {
            self.set_result_from_seat();
            return Ok(());
        };
        match report.inspection {
            // R-I2: the owner answers before anything else happens.
            _ if actor == me => {
                self.owner.awaiting_answer = report.inspection.is_some();
                if report.inspection.is_none() {
                    self.set_result_from_seat();
                }
            }
            Some(i) => {
                let r = self.seat.as_ref().and_then(Seat::result);
                // The answer names the capture it answers (PROTOCOL.md 18.2): the rules' whole
                // report of the move, whose inspection this player knows.
                let obs = IObs::Move(report).to_canonical();
                self.out.send_public(Some(hash), Payload::Observation(obs));
                if i.informer {
                    self.open_public(Some(hash), flow::INTRIGUE_SETUP);
                }
                self.set_result(r);
            }
            None => self.set_result_from_seat(),
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
        let plain = self
            .seal
            .open(&seal_context(body), sealed, padded)
            .map_err(|e| fault(body, hash, e.to_string()))?;
        let payload = Payload::from_canonical(&plain)
            .map_err(|e| fault(body, hash, format!("sealed payload: {e}")))?;
        let Payload::Observation(bytes) = payload else { return Ok(()) };
        let Some(seat) = &mut self.seat else { return Ok(()) };
        let decoded = if seat.expects_start() {
            // The first SIC observation is the start view (PROTOCOL.md 18.2 step 3).
            game::decode_start_observation(&bytes)
        } else {
            game::decode_observation(self.variant, &bytes)
        };
        let obs = decoded.map_err(|e| fault(body, hash, format!("observation: {e}")))?;
        seat.told(&obs);
        match &obs {
            AnyObservation::Kriegspiel(_) => self.waiting = false,
            AnyObservation::Sic(rules::sic::Observation::YouMoved(_)) => self.waiting = false,
            _ => {}
        }
        self.set_result_from_seat();
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
                let (body, receipt, hash) = open_entry(&self.terms, &mut self.out, &entry)?;
                self.out.delivered(&receipt);
                if let Some(re) = body.re
                    && self.terms.terms.umpire.as_ref().is_some_and(|u| u.key == body.author)
                {
                    self.unanswered.remove(&re);
                }
                if let Some(c) = &mut self.coordinator {
                    let relay = self.terms.terms.relay;
                    let admission = if body.author == relay {
                        Ok(crate::coordinator::Admission::Counts)
                    } else {
                        c.admit(&body, self.out.seen_index(&body), &relay)
                    };
                    let Ok(admission) = admission else {
                        return Err(RoleError {
                            author: body.author,
                            message: hash,
                            problem: "the relay accepted a message its author may not send".into(),
                        });
                    };
                    c.apply(&body, hash, admission, receipt.time_ms);
                    if admission == crate::coordinator::Admission::Void {
                        // A void sealed message may still set its channel's context up.
                        if let Payload::Sealed(sealed) = &body.payload {
                            self.seal.learn(&seal_context(&body), sealed);
                        }
                        return Ok(());
                    }
                }
                match body.channel {
                    Channel::Public => self.on_public(&body, hash),
                    c if c.side() == self.side => self.on_private(&body, hash),
                    _ => Ok(()),
                }
            }
            Input::Decision(answer) => self.decided(answer),
            Input::Relay(_) | Input::Time(_) => Ok(()),
        };
        if self.resign_pending && !self.awaits_answer() {
            self.resign_pending = false;
            self.resign();
        }
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

    fn take_opened(&mut self) -> Option<MessageHash> {
        self.out.opened.take()
    }
}
