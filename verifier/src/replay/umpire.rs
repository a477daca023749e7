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
        let c = side;
        let variant = self.variant();
        let Some(owed) = self.owed[c].pop_front() else {
            // Rendered only for evidence: an honest umpire's views are never turned into JSON.
            let signed = text::observation_json(variant, bytes);
            return self.stop(
                FaultKind::FalseAnnouncement,
                umpire,
                e,
                format!("the umpire told {c} {signed} where the rules tell it nothing"),
                format!("The umpire sent {c} an announcement that no action called for."),
            );
        };
        if owed.bytes == bytes {
            // Its `re` is fixed: the action it answers (nothing for a start view); any other
            // value would be 32 free bytes.
            let want = owed.action_entry.and_then(|i| self.c.entries.get(i)).map(|a| a.hash);
            if e.body.re != want {
                let name = |r: Option<protocol::MessageHash>| {
                    r.map_or_else(|| "nothing".to_owned(), |h| format!("message {h}"))
                };
                return self.stop(
                    FaultKind::NotAllowed,
                    umpire,
                    e,
                    format!(
                        "the umpire's answer to {c} names {} (re); it answers {}",
                        name(e.body.re),
                        name(want)
                    ),
                    "The umpire's answer names another message than the one it answers.".into(),
                );
            }
            // An answer to an action that handed the turn over, sent before the Turn naming
            // that action: the coordinator restarts the actor's clock at such an answer, so
            // the actor would be timed out for the umpire's silence (PROTOCOL.md 13.4).
            // (Once a claim or agreement ended the game, no Turn is owed and no clock runs.)
            let ended_since = self.over.is_some_and(|o| Some(o.at) != owed.action_entry)
                || owed.action_entry.is_some_and(|a| {
                    self.c.entries.get(a + 1..e.index).is_some_and(|between| {
                        between.iter().any(|n| {
                            !n.void
                                && matches!(n.payload, Payload::Claim(_) | Payload::Timeout { .. })
                        })
                    })
                });
            if owed.turn_first && !ended_since && owed.actor == Some(c) && self.last_turn_re != want
            {
                return self.stop(
                    FaultKind::FalseAnnouncement,
                    umpire,
                    e,
                    format!(
                        "the umpire answered {c}'s action {} (entry {}) without its public Turn",
                        text::action_text(variant, &owed.action),
                        owed.action_entry.unwrap_or_default()
                    ),
                    "The umpire answered a move that handed the turn over without announcing \
                     the Turn first, which would have run the mover's clock."
                        .into(),
                );
            }
            return Ok(());
        }
        let signed = text::observation_json(variant, bytes);
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
            self.last_turn = Some(next);
            self.last_turn_re = e.body.re;
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

impl Replayer<'_> {
    /// What a sealed payload may be (PROTOCOL.md 13.1): a player seals only actions (and SIC's
    /// private seed opening); the umpire seals only observations (checked against the rules)
    /// and SIC's acknowledgements of a seed (naming exactly that seed, on its sender's
    /// channel, once). Anything else is outside the table, its signer's fault: a player's
    /// junk the honest umpire can only refuse, or hidden information the umpire sealed in a
    /// kind nobody checks.
    pub(super) fn sealed_kind(&mut self, e: &CheckedEntry) -> Flow {
        let variant = self.variant();
        let is_umpire = Some(e.author()) == self.umpire;
        let ok = match (&e.payload, is_umpire) {
            (Payload::Action(_) | Payload::Observation(_), _) => {
                matches!(e.payload, Payload::Action(_)) != is_umpire
            }
            (Payload::Open { purpose, .. }, false) => {
                let seed =
                    variant == Variant::Sic && *purpose == protocol::commitment::PRIVATE_SEED;
                if seed {
                    self.seed_messages.insert(e.hash, e.channel());
                }
                seed
            }
            (Payload::Ack { message }, true) => {
                variant == Variant::Sic
                    && e.body.re == Some(*message)
                    && self.seed_messages.get(message) == Some(&e.channel())
                    && self.acked.insert(*message)
            }
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let who = self.who(&e.author());
        let kind = e.payload.kind();
        let explanation = if is_umpire {
            format!(
                "The umpire sealed a {kind} to a player: it seals only the rules' observations \
                 (and SIC's seed acknowledgements), so nothing else can carry what the rules hide."
            )
        } else {
            format!(
                "{who} sealed a {kind} to the umpire, where only actions go: there is nothing the \
                 umpire could answer, and it is {who}'s fault."
            )
        };
        self.stop(
            FaultKind::NotAllowed,
            e.author(),
            e,
            format!("{who} sealed a {kind} on the {} channel (entry {})", e.channel(), e.index),
            explanation,
        )
    }
}
