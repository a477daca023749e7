//! The umpire's answers (umpired games): every sealed observation must be, byte for byte, the
//! rules' (R-K1, R-K2, R-S2, R-S8, R-S10, R-G6, R-G7), in order per channel; its public Turn must
//! name whose clock the rules say runs; and it must not answer a refused action as if played.

use super::{Flow, Replayer, text};
use crate::FaultKind;
use crate::envelope::CheckedEntry;
use protocol::game;
use protocol::message::{self, Payload};
use rules::{AnyObservation, Variant};

impl Replayer<'_> {
    pub(super) fn umpire_observation(&mut self, e: &CheckedEntry, bytes: &[u8]) -> Flow {
        let (Some(umpire), Some(side)) = (self.umpire, e.channel().side()) else { return Ok(()) };
        if e.author() != umpire {
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

    /// After a refused action in an umpired game: the umpire must not answer it as if played
    /// (PROTOCOL.md 14.3: it stops and claims the forfeit).
    pub(super) fn umpire_accepted_refused(&mut self, e: &CheckedEntry, shown: &str) {
        let Some(umpire) = self.umpire else { return };
        let next = self.entries.iter().skip(self.at + 1).find(|n| {
            n.author() == umpire && matches!(n.payload, Payload::Observation(_) | Payload::Claim(_))
                || matches!(n.payload, Payload::Action(_))
        });
        if let Some(n) = next
            && n.author() == umpire
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
                    e.index,
                    n.channel()
                ),
                "The umpire accepted a move the rules do not allow.".into(),
            );
        }
    }

    /// The umpire's public Turn must name whose clock the rules say runs: a false one would
    /// let the relay time out a player who owed nothing.
    pub(super) fn turn(&mut self, e: &CheckedEntry, next: message::Owed) -> Flow {
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
}
