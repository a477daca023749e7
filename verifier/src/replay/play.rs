//! Actions through the rules (every mode): who may act, what the rules refuse, and what each
//! accepted action makes owed (the umpire's answers, an Intrigue owner's answer).

use super::{Flow, Over, Owed, OwedAnswer, Replayer, Step, Stop, claim_text, json, text};
use crate::FaultKind;
use crate::envelope::CheckedEntry;
use protocol::codec::Canonical;
use protocol::game::{self, Told};
use rules::{Color, Mode};

impl<'a> Replayer<'a> {
    pub(super) fn action(&mut self, e: &'a CheckedEntry, bytes: &[u8]) -> Flow {
        let Some(actor) = self.player_color(&e.author()) else {
            // Only players act; anything else is not part of the game (the relay refuses
            // strangers, and an umpire has no actions).
            return Ok(());
        };
        let variant = self.variant();
        // The action's text and its author's name are evidence only: rendered when a fault is
        // found, never for an action the rules accept (most of the replay's time otherwise).
        let shown = || text::action_text(variant, bytes);
        if self.mode == Mode::Umpire && !e.sealed {
            let (who, shown) = (self.who(&e.author()), shown());
            return self.stop(
                FaultKind::IllegalAction,
                e.author(),
                e,
                format!("action {shown} sent in the clear on the public channel"),
                format!("{who} sent an action in the clear; in {variant} actions go sealed to the umpire."),
            );
        }
        if let Some(over) = self.over {
            let (who, shown) = (self.who(&e.author()), shown());
            return self.stop(
                FaultKind::IllegalAction,
                e.author(),
                e,
                format!(
                    "action {shown} after the end ({})",
                    claim_text(&game::claim_of(&over.result))
                ),
                format!("{who} acted after the game had ended."),
            );
        }
        if let Some(owed) = self.owed_answer.clone() {
            let owner = self.key_of(owed.owner).unwrap_or(e.author());
            let whose = self.who(&owner);
            let (who, shown) = (self.who(&e.author()), shown());
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
            let (who, shown) = (self.who(&e.author()), shown());
            return self.stop(
                FaultKind::IllegalAction,
                e.author(),
                e,
                format!("action {shown} before the setup was complete"),
                format!("{who} acted before the game could start."),
            );
        };
        let secret = game::decode_action(variant, bytes).ok().and_then(|a| a.secret());
        let needs = secret.and_then(|k| protocol::flow::purpose_of(variant, k));
        // A sealed setup or tie-break without its author's public commitment before it: the
        // umpire cannot hold its author to it, and forfeits it (`roles::Umpire`, the same rule).
        if let Some(purpose) = needs
            && self.commits.get(&(e.author(), purpose)).is_none_or(|(_, at)| *at >= e.index)
        {
            let (who, shown) = (self.who(&e.author()), shown());
            self.blame(
                FaultKind::IllegalAction,
                e.author(),
                e,
                format!("{who} sealed the {purpose:?} {shown} without its public commitment"),
                format!("{who} sealed a setup it had not committed to publicly, and forfeits."),
            );
            self.umpire_accepted_refused(e, &shown);
            return Err(Stop);
        }
        match secret {
            Some(rules::Secret::Setup) => {
                self.sealed_setup[actor].get_or_insert((bytes.to_vec(), e));
                self.setups = self.setups.saturating_add(1);
            }
            Some(rules::Secret::TieBreak) => {
                self.sealed_tiebreak[actor].get_or_insert((bytes.to_vec(), e));
            }
            None => {}
        }
        if self.keep_log && self.log.start_fen.is_none() {
            self.log.start_fen = game.fen();
        }
        // The state is not cloned per action (SIC's carries its repetition history): `apply`
        // takes it by reference and returns the next one.
        let applied = game::apply(game, actor, bytes).map_err(|err| (err, game.fen()));
        match applied {
            Ok((next, told)) => {
                // Whether the honest umpire sends its Turn before these answers: exactly when
                // its own rule does (`roles::Umpire`): the turn changed hands (or the game
                // ended), except before the setup actions are in (6x6's) and within a tie-break.
                let after = game::turn_of(&next);
                self.turn_first = self.mode == Mode::Umpire
                    && self.setups >= variant.setup_actions()
                    && !(self.last_turn == Some(protocol::message::Owed::Both)
                        && matches!(after, protocol::message::Owed::Side(_)))
                    && self.last_turn != Some(after);
                let fen = if self.keep_log { next.fen() } else { None };
                self.accepted(e, actor, bytes, &told, fen);
                if let Some(result) = next.result() {
                    self.over = Some(Over { result, at: e.index });
                }
                self.game = Some(next);
                Ok(())
            }
            Err((err, position)) => {
                let (who, shown) = (self.who(&e.author()), shown());
                let position = position.map(|f| format!(" in position {f}")).unwrap_or_default();
                self.blame(
                    FaultKind::IllegalAction,
                    e.author(),
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

    pub(super) fn accepted(
        &mut self,
        e: &CheckedEntry,
        actor: Color,
        bytes: &[u8],
        told: &Told,
        fen: Option<String>,
    ) {
        self.plies += 1;
        if self.keep_log {
            self.log.steps.push(Step {
                entry: e.index,
                time_ms: e.time_ms(),
                actor,
                action: bytes.to_vec(),
                told: told.clone(),
                fen,
            });
        }
        match self.mode {
            Mode::Umpire => {
                for c in [actor, !actor] {
                    if let Some(b) = &told[c] {
                        self.owed[c].push_back(Owed {
                            bytes: b.clone(),
                            action_entry: Some(e.index),
                            actor: Some(actor),
                            action: bytes.to_vec(),
                            turn_first: self.turn_first,
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
}
