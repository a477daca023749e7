//! An Intrigue owner's public statements (R-I1, R-I2): its setup report, and its answer about
//! a captured pawn, which must be the rules' whole report of that move with the inspection its
//! committed setup gives.

use super::{Flow, Replayer, json, text};
use crate::FaultKind;
use crate::envelope::CheckedEntry;
use protocol::codec::Canonical;
use rules::AnyGame;
use rules::intrigue::{MoveReport, SetupReport};

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

impl Replayer<'_> {
    pub(super) fn owner_observation(&mut self, e: &CheckedEntry, bytes: &[u8]) -> Flow {
        let Some(c) = self.player_color(&e.author()) else { return Ok(()) };
        let who = self.who(&e.author());
        let Some(statement) = owner_statement(bytes) else {
            return self.stop(
                FaultKind::FalseInformerAnswer,
                e.author(),
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
                    e.author(),
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
                e.author(),
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
                e.author(),
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
                e.author(),
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
            e.author(),
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
}
