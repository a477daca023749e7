//! The umpire's state machine (docs/PROTOCOL.md section 18): checks the players' sealed
//! openings, runs the game through [`AnyGame`], answers each side on its channel with exactly
//! the rules' observation, and claims the result.

use super::public::PublicLog;
use super::{Input, Outbox, Output, Participant, RoleError, open_entry};
use crate::codec::Canonical;
use crate::commitment::{self, Opening};
use crate::coordinator::{Admission, Coordinator};
use crate::flow::{self, FORFEIT, PRIVATE_SEED, TIMEOUT};
use crate::game::{self, GameError, claim_of};
use crate::keys::Identity;
use crate::message::{Author, Claim, Expectation, MessageBody, Owed, Payload, seal_context};
use crate::seal::Inbox;
use crate::seed::setup_seed;
use crate::terms::AgreedTerms;
use crate::{Channel, Color, MessageHash, Party};
use rand_chacha::ChaCha20Rng;
use rules::{AnyGame, ByColor, Variant};

/// Sees (and may change) each observation the umpire is about to seal to a side: a lying
/// umpire. Arguments: the side, the index of this observation among all the umpire sent, the
/// bytes. Adversarial tests only (feature `adversary`).
#[cfg(feature = "adversary")]
pub type ObservationHook = Box<dyn FnMut(Color, usize, &mut Vec<u8>) + Send>;

/// The umpire of an umpired game.
pub struct Umpire {
    terms: AgreedTerms,
    variant: Variant,
    /// Signing, sealing, the hook and the output queue.
    out: Outbox,
    /// Opens what is sealed to this machine (one context per sender and channel).
    seal: Inbox,
    rng: ChaCha20Rng,
    /// The lie of an adversarial test (feature `adversary`).
    #[cfg(feature = "adversary")]
    lie: Option<ObservationHook>,
    log: PublicLog,
    seeds: ByColor<Option<[u8; 32]>>,
    game: Option<AnyGame>,
    observations: usize,
    end: Option<Claim>,
    done: bool,
    /// The match as the relay coordinates it (the umpire reads every channel, so it runs the
    /// same coordinator and ignores what it says is a void race).
    coordinator: Coordinator,
    /// The last Turn the umpire sent.
    turn: Option<Owed>,
    /// Setup actions applied ([`Variant::setup_actions`]: 6x6's).
    setups: u8,
}

impl std::fmt::Debug for Umpire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Umpire")
            .field("key", &self.out.author.key())
            .field("game", &self.game)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

impl Umpire {
    /// The secret of `identity`'s umpire seat in the match `match_id`, derived from its key
    /// (`H(UMPIRE_SECRET; ed25519-seed, match)`, as its seal key is from the seed and its
    /// nonce): any process holding the umpire's key rebuilds the same umpire from the match's
    /// entries and writes the same bytes (docs/SERVER.md, several umpire processes). The match
    /// id hashes the terms, which hold both players' fresh nonces, so no two matches with an
    /// honest player share a secret; the umpire sees every secret it seals anyway.
    pub fn derived_secret(identity: &Identity, match_id: &crate::MatchId) -> [u8; 32] {
        crate::transcript::Transcript::new(crate::tags::UMPIRE_SECRET)
            .append("ed25519-seed", &identity.seed())
            .append("match", &match_id.0)
            .finish()
    }

    /// The umpire of agreed terms; `secret` seeds its seal seeds.
    pub fn new(
        identity: Identity,
        terms: AgreedTerms,
        secret: [u8; 32],
    ) -> Result<Umpire, GameError> {
        // The one gate, as every party calls it (terms built by hand skip `SignedTerms::verify`).
        terms.terms.validate()?;
        let variant = terms.terms.variant();
        let u = terms.terms.umpire.as_ref().filter(|u| u.key == identity.public());
        let seal = super::match_seal(&identity, u.map(|u| u.nonce), u.map(|u| u.seal_key))?;
        Ok(Umpire {
            coordinator: Coordinator::new(terms.clone()),
            turn: None,
            setups: 0,
            variant,
            out: Outbox::new(
                Author::new(identity.clone(), terms.match_id),
                game::sealed_plaintext_bytes(variant, game::SealDirection::FromUmpire),
            ),
            seal: Inbox::new(seal),
            rng: super::match_rng(&secret, &terms.match_id),
            #[cfg(feature = "adversary")]
            lie: None,
            log: PublicLog::new(&terms),
            terms,
            seeds: ByColor::default(),
            game: None,
            observations: 0,
            end: None,
            done: false,
        })
    }

    /// Installs a hook on every payload before it is signed or sealed (feature `adversary`).
    #[cfg(feature = "adversary")]
    pub fn set_hook(&mut self, hook: super::Hook) {
        self.out.hook = Some(hook);
    }

    /// Installs a hook on every observation before it is sealed (a lying umpire; feature
    /// `adversary`).
    #[cfg(feature = "adversary")]
    pub fn set_observation_hook(&mut self, hook: ObservationHook) {
        self.lie = Some(hook);
    }

    /// Lets an adversarial test's lie change `bytes`, the observation-th one sealed.
    #[cfg(feature = "adversary")]
    fn lie(&mut self, side: Color, bytes: &mut Vec<u8>) {
        if let Some(lie) = &mut self.lie {
            lie(side, self.observations, bytes);
        }
    }

    /// No lies in a build without the `adversary` feature.
    #[cfg(not(feature = "adversary"))]
    fn lie(&mut self, _side: Color, _bytes: &mut Vec<u8>) {}

    /// The game as the umpire holds it.
    pub fn game(&self) -> Option<&AnyGame> {
        self.game.as_ref()
    }

    /// The sides the umpire waits for (for the driver's move clocks).
    pub fn awaiting(&self) -> Vec<Color> {
        if self.end.is_some() {
            return Vec::new();
        }
        self.game.as_ref().map_or_else(Vec::new, |g| g.to_act().into_iter().collect())
    }

    fn send_sealed(&mut self, side: Color, re: Option<MessageHash>, payload: Payload) {
        let Some(colors) = self.log.colors else { return };
        let Some(player) = self.terms.terms.player(&colors[side]) else { return };
        let key = player.seal_key;
        self.out.send_sealed(Channel::private(side), re, payload, &key, &mut self.rng);
    }

    /// Sends what each side is told, `first` side first, answering `re`.
    fn tell(&mut self, first: Color, re: Option<MessageHash>, told: game::Told) {
        for side in [first, first.other()] {
            if let Some(mut bytes) = told[side].clone() {
                self.lie(side, &mut bytes);
                self.observations += 1;
                self.send_sealed(side, re, Payload::Observation(bytes));
            }
        }
    }

    /// Sends a public Turn (answering `re`) when the turn changes hands (PROTOCOL.md: the
    /// umpire's answer is its Turn, sent before its sealed observations).
    fn maybe_turn(&mut self, re: Option<MessageHash>) {
        if self.setups < self.variant.setup_actions() {
            return;
        }
        let Some(next) = self.game.as_ref().map(game::turn_of) else { return };
        // During a tie-break, the Turn waits for both guesses.
        if self.turn == Some(Owed::Both) && matches!(next, Owed::Side(_)) {
            return;
        }
        if self.turn != Some(next) {
            self.turn = Some(next);
            self.out.send_public(re, Payload::Turn { next });
        }
    }

    /// Ends the game with `side`'s forfeit for the sealed message `hash` it could not open.
    fn complain(&mut self, side: Color, hash: MessageHash) {
        if self.end.is_some() {
            return;
        }
        let claim = flow::loss_of(side, FORFEIT);
        self.end = Some(claim.clone());
        self.out.send_public(Some(hash), Payload::Claim(claim.clone()));
        self.done = true;
        self.out.disclose_all();
        self.out.outputs.push_back(Output::Finished(claim));
    }

    fn conclude(&mut self, claim: Claim) {
        if self.end.is_some() {
            return;
        }
        self.end = Some(claim.clone());
        self.out.send_public(None, Payload::Claim(claim.clone()));
        self.done = true;
        self.out.disclose_all();
        self.out.outputs.push_back(Output::Finished(claim));
    }

    fn maybe_start(&mut self) {
        if self.game.is_some() || self.log.colors.is_none() {
            return;
        }
        let seeds = if self.variant == Variant::Sic {
            let (Some(w), Some(b)) = (self.seeds.white, self.seeds.black) else { return };
            let colors = self.log.colors.expect("checked above");
            let contribution = |side: Color| self.log.contributions.get(&colors[side]).copied();
            let (Some(cw), Some(cb)) = (contribution(Color::White), contribution(Color::Black))
            else {
                return;
            };
            let id = self.terms.match_id;
            Some(ByColor {
                white: setup_seed(&w, &cb, &id, Color::White),
                black: setup_seed(&b, &cw, &id, Color::Black),
            })
        } else {
            None
        };
        match game::start(&self.terms.terms, seeds.as_ref()) {
            Ok(g) => {
                let start = game::encode_told(&g.start_observations());
                self.game = Some(g);
                self.maybe_turn(None);
                self.tell(Color::White, None, start);
            }
            Err(_) => self.conclude(Claim {
                outcome: crate::message::Outcome::NoResult,
                reason: crate::message::ClaimReason::BadTerms,
            }),
        }
    }

    fn on_private(
        &mut self,
        side: Color,
        body: &MessageBody,
        hash: MessageHash,
    ) -> Result<(), RoleError> {
        let fault = |problem: String| RoleError { author: body.author, message: hash, problem };
        let Payload::Sealed(sealed) = &body.payload else { return Ok(()) };
        // A message the umpire cannot open (a setup whose key commitment is not the key its
        // enc gives, a ciphertext that does not open, a wrong commitment or pad), or that opens
        // to no payload, gets the umpire's signed complaint: a forfeit claim naming it (`re`).
        // The sender then owes its channel's disclosure like every sealed message: a true one
        // (its seed reproduces the signed setup and the key opens these very bytes) proves the
        // complaint false; none, and the sender is timed out (PROTOCOL.md, complaints).
        let padded = game::sealed_plaintext_bytes(self.variant, game::SealDirection::ToUmpire);
        let opened = self
            .seal
            .open(&seal_context(body), sealed, padded)
            .map_err(|e| e.to_string())
            .and_then(|plain| {
                Payload::from_canonical(&plain).map_err(|e| format!("sealed payload: {e}"))
            });
        let payload = match opened {
            Ok(p) => p,
            Err(problem) => {
                self.complain(side, hash);
                return Err(fault(problem));
            }
        };
        match payload {
            Payload::Open { purpose, opening } if purpose == PRIVATE_SEED => {
                self.private_seed(side, body, hash, &opening).map_err(fault)?;
                self.maybe_start();
            }
            Payload::Action(bytes) => {
                let Some(g) = &self.game else {
                    // Nothing it could answer: a sealed message that is not what the setup
                    // asks for gets the complaint every unanswerable message gets.
                    self.complain(side, hash);
                    return Err(fault("an action before the game started".into()));
                };
                if self.end.is_some() {
                    return Ok(());
                }
                let secret =
                    game::decode_action(self.variant, &bytes).ok().and_then(|a| a.secret());
                let needs = secret.and_then(|k| flow::purpose_of(self.variant, k));
                if let Some(purpose) = needs
                    && self.log.commitment(&body.author, purpose).is_none()
                {
                    self.conclude(flow::loss_of(side, FORFEIT));
                    return Err(fault(format!("a sealed {purpose} without its public commitment")));
                }
                if secret == Some(rules::Secret::Setup) {
                    self.setups += 1;
                }
                match game::apply(g, side, &bytes) {
                    Ok((next, told)) => {
                        let result = next.result();
                        self.game = Some(next);
                        self.maybe_turn(Some(hash));
                        self.tell(side, Some(hash), told);
                        if let Some(r) = result {
                            self.conclude(claim_of(&r));
                        }
                    }
                    Err(e) => {
                        self.conclude(flow::loss_of(side, FORFEIT));
                        return Err(fault(format!("refused action: {e}")));
                    }
                }
            }
            other => {
                // A player seals only actions (and SIC's private seed): anything else is owed no
                // answer the rules could give, so the umpire refuses it in public, with the
                // complaint (a forfeit claim naming it). The sender's disclosure then shows
                // the verifier what it sealed, which is its own fault (PROTOCOL.md 14.3);
                // silence here would have the umpire timed out for the player's junk.
                self.complain(side, hash);
                return Err(fault(format!("a sealed {} where only actions go", other.kind())));
            }
        }
        Ok(())
    }

    fn private_seed(
        &mut self,
        side: Color,
        body: &MessageBody,
        hash: MessageHash,
        opening: &Opening,
    ) -> Result<(), String> {
        let committed = self.log.commitment(&body.author, PRIVATE_SEED);
        let ok = committed.is_some_and(|c| {
            commitment::check_opening(&c, PRIVATE_SEED, &self.terms.match_id, &body.author, opening)
                .is_ok()
        });
        let seed = <[u8; 32]>::try_from(opening.value.as_slice()).ok();
        match (ok, seed) {
            (true, Some(s)) if self.seeds[side].is_none() => {
                self.seeds[side] = Some(s);
                self.send_sealed(side, Some(hash), Payload::Ack { message: hash });
                Ok(())
            }
            _ => {
                self.conclude(flow::loss_of(side, FORFEIT));
                Err("the sealed private seed does not open its public commitment".into())
            }
        }
    }
}

impl Participant for Umpire {
    type Error = RoleError;

    fn handle(&mut self, input: Input) -> Result<(), RoleError> {
        let Input::Delivered(entry) = input else { return Ok(()) };
        let (body, receipt, hash) = open_entry(&self.terms, &mut self.out, &entry)?;
        self.out.delivered(&receipt);
        // The same coordinator as the relay's: a void race is recorded but ignored.
        let admission = if body.author == self.terms.terms.relay {
            Ok(Admission::Counts)
        } else {
            self.coordinator.admit(&body, self.out.seen_index(&body), &self.terms.terms.relay)
        };
        let Ok(admission) = admission else {
            return Err(RoleError {
                author: body.author,
                message: hash,
                problem: "the relay accepted a message its author may not send".into(),
            });
        };
        self.coordinator.apply(&body, hash, admission, receipt.time_ms);
        if matches!(body.payload, Payload::Close { .. }) && body.author == self.terms.terms.relay {
            // The relay closed the log: countersign its final head (our `seen` is the close),
            // which also attests that every setup a player sealed to us gave the key it
            // committed to; so not after a sealed message that did not open (PROTOCOL.md 14.2).
            if self.seal.opened_all() {
                self.out.send_public(None, Payload::Countersign);
            }
            return Ok(());
        }
        if self.done || admission == Admission::Void {
            // A sealed message not opened may still set its channel's context up.
            if let Payload::Sealed(sealed) = &body.payload {
                self.seal.learn(&seal_context(&body), sealed);
            }
            return Ok(());
        }
        match body.channel {
            Channel::Public => {
                self.log.observe(&self.terms, &body);
                match &body.payload {
                    Payload::Timeout { party, expectation: Expectation::Move, .. } => {
                        if let Some(side) = party.side() {
                            self.conclude(flow::loss_of(side, TIMEOUT));
                        }
                        return Ok(());
                    }
                    Payload::Timeout { party: Party::Umpire, .. } => {
                        self.done = true;
                        return Ok(());
                    }
                    // A player's claim (a resignation, a forfeit) ends the umpire's game too.
                    Payload::Claim(c) if body.author != self.out.author.key() => {
                        if c.reason != rules::EndReason::Agreement.into()
                            || self.coordinator.is_over()
                        {
                            self.conclude(c.clone());
                        }
                        return Ok(());
                    }
                    _ => {}
                }
                // SIC also needs both sealed seeds, which may come before the reveals.
                self.maybe_start();
                Ok(())
            }
            channel => {
                let Some(side) = channel.side() else { return Ok(()) };
                let from_player = self.log.colors.is_some_and(|c| c[side] == body.author);
                if from_player { self.on_private(side, &body, hash) } else { Ok(()) }
            }
        }
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.outputs.pop_front()
    }

    fn poll_timeout(&self) -> Option<u64> {
        None
    }

    fn take_opened(&mut self) -> Option<MessageHash> {
        self.out.opened.take()
    }
}
