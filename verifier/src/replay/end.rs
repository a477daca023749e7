//! Claims, the relay's timeouts, and what a record owes at its end: a claim must state the
//! result the rules give (or a resignation, an agreed draw, the relay's timeout); a record that
//! ends before the result or an owed answer is truncated; 6x6 setups and tie-breaks must be
//! opened.

use super::{Flow, Over, Replayer, claim_text, text};
use crate::envelope::CheckedEntry;
use crate::{FaultKind, MatchRole};
use protocol::Party;
use protocol::flow;
use protocol::game;
use protocol::message::{Claim, Expectation, Outcome};
use rules::{Color, EndReason, GameResult};

impl Replayer<'_> {
    pub(super) fn claim(&mut self, e: &CheckedEntry, claim: &Claim) -> Flow {
        let who = self.who(&e.author());
        let claimant = self.role(&e.author());
        if let Some(over) = self.over {
            let due = game::claim_of(&over.result);
            if *claim == due {
                return Ok(());
            }
            // The game had ended by an entry whose effect the claimant had not yet seen (in an
            // umpired game the end of a move shows in the umpire's answer to it): a race, void,
            // nobody's fault; the result stands as the rules gave it.
            if e.seen.is_none_or(|s| s < self.end_shown_at(&over)) {
                return Ok(());
            }
            return self.stop(
                FaultKind::FalseClaim,
                e.author(),
                e,
                format!(
                    "{who} claimed {}; the record gives {}",
                    claim_text(claim),
                    claim_text(&due)
                ),
                format!("{who} claimed a result the game did not have."),
            );
        }
        let player = self.player_color(&e.author());
        if let Some(c) = player {
            // A resignation or an agreed draw ends the game as it stands: an Intrigue owner's
            // answer about a capture is then owed no more (the owner may resign instead of
            // answering; an answer it wrote before it saw the end is a void race).
            if *claim == flow::loss_of(c, EndReason::Resignation.into()) {
                self.over =
                    Some(Over { result: GameResult::win(!c, EndReason::Resignation), at: e.index });
                self.owed_answer = None;
                return Ok(());
            }
            if claim.outcome == Outcome::Draw && claim.reason == EndReason::Agreement.into() {
                self.agreed_draw[c] = true;
                if self.agreed_draw.white && self.agreed_draw.black {
                    self.over =
                        Some(Over { result: GameResult::draw(EndReason::Agreement), at: e.index });
                    self.owed_answer = None;
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
        if claimant == MatchRole::Umpire && claim.reason == flow::FORFEIT {
            return self.stop(
                FaultKind::FalseAdjudication,
                e.author(),
                e,
                format!("the umpire claimed {}; no action was refused: {state}", claim_text(claim)),
                "The umpire declared a forfeit for a move the rules allow.".into(),
            );
        }
        self.stop(
            FaultKind::FalseClaim,
            e.author(),
            e,
            format!("{who} claimed {}; {state}", claim_text(claim)),
            format!("{who} claimed a result the game did not have."),
        )
    }

    /// The first entry that shows the end of `over` to the players: in an umpired game the
    /// umpire's first answer naming the action that ended it (an action's effect is hidden
    /// until then; `usize::MAX` if it never answered), else the ending entry itself.
    fn end_shown_at(&self, over: &Over) -> usize {
        let Some(ending) = self.c.entries.get(over.at) else { return over.at };
        let umpire_answer = self.mode == rules::Mode::Umpire
            && matches!(ending.payload, protocol::message::Payload::Action(_))
            && ending.sealed;
        if !umpire_answer {
            return over.at;
        }
        self.c.entries[over.at..]
            .iter()
            .find(|n| Some(n.author()) == self.umpire && n.body.re == Some(ending.hash))
            .map_or(usize::MAX, |n| n.index)
    }

    pub(super) fn timeout(
        &mut self,
        e: &CheckedEntry,
        party: Party,
        expectation: Expectation,
        deadline_ms: u64,
    ) {
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
        let key = self.c.colors[side];
        let c = side;
        // Neither player committed: the relay timed both out in the commit phase (PROTOCOL.md
        // 13.3), nobody began the match, and there is no result to sanction.
        let committed = |k: protocol::PublicKey| self.c.commitments.iter().any(|m| m.author == k);
        let other = self.c.colors[side.other()];
        let other_timed_out = self.entries.iter().any(|n| {
            n.author() == self.c.terms.terms.relay
                && matches!(n.payload, protocol::message::Payload::Timeout {
                    party, expectation: Expectation::Reveal, ..
                } if party == Party::of(side.other()))
        });
        if expectation == Expectation::Reveal
            && !committed(key)
            && !committed(other)
            && other_timed_out
        {
            if !self.faults.iter().any(|f| f.kind == FaultKind::Timeout && f.culprit.is_none()) {
                self.record_fault(
                    FaultKind::Timeout,
                    Some(e),
                    format!("relay timeouts: neither player committed by {deadline_ms} ms"),
                    "Neither player made its commitments in time: the match never began, and \
                     there is no result."
                        .into(),
                );
            }
            return;
        }
        match expectation {
            Expectation::Move => {
                if self.over.is_some() {
                    return;
                }
                self.over =
                    Some(Over { result: GameResult::win(!c, EndReason::Timeout), at: e.index });
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
            Expectation::Reveal | Expectation::Answer => {
                // The timed-out player forfeits, so the other's forfeit claim is the result
                // (found by tests/tests/interleavings_drops.rs: a 6x6 player timed out in the
                // setup, the honest opponent's claim was called false).
                if self.over.is_none() {
                    self.over =
                        Some(Over { result: GameResult::win(!c, EndReason::Forfeit), at: e.index });
                }
                self.blame(
                    FaultKind::Timeout,
                    key,
                    e,
                    format!(
                        "relay timeout: {side} did not open its commitments by {deadline_ms} ms"
                    ),
                    format!(
                        "{} did not reveal its secrets before the deadline and forfeits; the \
                         relay's signed timeout proves it.",
                        self.who(&key)
                    ),
                );
            }
        }
    }

    pub(super) fn finish(&mut self) {
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
                    format!("{} plies played, {} to act", self.plies, to_act.join(" and "))
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
        if variant.sealed_secrets_are_actions() {
            self.sealed_matches_opening(rules::Secret::Setup, FaultKind::BadSetup);
            self.sealed_matches_opening(rules::Secret::TieBreak, FaultKind::BadOpening);
        }
    }
}
