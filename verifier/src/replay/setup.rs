//! The setup seams of the replay: the game's start from the terms, SIC's private seeds (R-S2,
//! PROTOCOL.md section 9), Intrigue's setup reports against the opened setups (R-I1), and 6x6's
//! sealed setups and tie-breaks against what was committed and opened (R-G1, R-G8).

use super::{Flow, Owed, Replayer, Step, Stop, json, text};
use crate::FaultKind;
use crate::envelope::CheckedEntry;
use protocol::Channel;
use protocol::codec::Canonical;
use protocol::commitment::{self, Opening, PRIVATE_SEED};
use protocol::flow;
use protocol::game;
use protocol::message::Payload;
use rules::intrigue::SetupReport;
use rules::{ByColor, Color, Variant};

impl Replayer<'_> {
    pub(super) fn init(&mut self) -> Flow {
        let variant = self.c.variant;
        self.log.variant = Some(variant);
        for cm in &self.c.commitments {
            self.commits.entry((cm.author, cm.purpose)).or_insert((cm.commitment, cm.entry));
        }
        // Public openings, by author and purpose (the relay accepts one per commitment).
        for e in &self.entries {
            if let (false, Payload::Open { purpose, opening }) = (e.sealed, &e.payload) {
                self.opens.entry((e.author(), *purpose)).or_insert((opening.clone(), e.index));
            }
        }
        // The terms passed the one gate (`MatchTerms::validate`, in the envelope), which reads
        // the options with the same parser; so the start cannot fail here, and the `BadTerms`
        // below is a belt for a gate that would let bad options through.
        if variant != Variant::Sic {
            match game::start(&self.c.terms.terms, None) {
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

    /// SIC: a player's private seed, sealed to the umpire, must open its public commitment
    /// (R-S2 via PROTOCOL.md section 9); a seed that does not is a setup the player cannot
    /// have been dealt fairly.
    pub(super) fn sic_seed(&mut self, e: &CheckedEntry, opening: &Opening) -> Flow {
        let Some(c) = self.player_color(&e.author()) else { return Ok(()) };
        if self.variant() != Variant::Sic || e.channel() != Channel::private(c) {
            return Ok(());
        }
        // Layer 1's commitment, published before this entry.
        let committed =
            self.commits.get(&(e.author(), PRIVATE_SEED)).copied().filter(|(_, at)| *at < e.index);
        let who = self.who(&e.author());
        let Some((commitment, at)) = committed else {
            return self.stop(
                FaultKind::BadSetup,
                e.author(),
                e,
                "a private seed sealed to the umpire with no public commitment before it".into(),
                format!("{who} gave the umpire a private seed it had never committed to."),
            );
        };
        if commitment::check_opening(
            &commitment,
            PRIVATE_SEED,
            &self.c.match_id(),
            &e.author(),
            opening,
        )
        .is_err()
        {
            return self.stop(
                FaultKind::BadSetup,
                e.author(),
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
                e.author(),
                e,
                format!("private seed of {} bytes, not 32", opening.value.len()),
                format!("{who}'s private seed is not 32 bytes long."),
            );
        };
        self.sic_private[c] = Some(seed);
        self.maybe_start_sic(e)
    }

    pub(super) fn maybe_start_sic(&mut self, e: &CheckedEntry) -> Flow {
        if self.variant() != Variant::Sic || self.game.is_some() {
            return Ok(());
        }
        let (Some(w), Some(b)) = (self.sic_private.white, self.sic_private.black) else {
            return Ok(());
        };
        // The contributions layer 1 read from both reveals.
        let (Some(cw), Some(cb)) = (
            self.c.contribution(protocol::Color::White),
            self.c.contribution(protocol::Color::Black),
        ) else {
            return Ok(());
        };
        let id = &self.c.match_id();
        let seeds = ByColor {
            white: protocol::seed::setup_seed(&w, &cb, id, Color::White),
            black: protocol::seed::setup_seed(&b, &cw, id, Color::Black),
        };
        match game::start(&self.c.terms.terms, Some(&seeds)) {
            Ok(g) => {
                let start = game::encode_told(&g.start_observations());
                for c in Color::ALL {
                    if let Some(bytes) = &start[c] {
                        self.owed[c].push_back(Owed {
                            bytes: bytes.clone(),
                            action_entry: None,
                            actor: None,
                            action: Vec::new(),
                            turn_first: false,
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

    /// Intrigue step 3: a player's public setup report. Its setup comes from its opening; the
    /// report must be the rules' report of that setup (R-I1).
    pub(super) fn setup_report(
        &mut self,
        e: &CheckedEntry,
        c: Color,
        report: &SetupReport,
    ) -> Flow {
        let who = self.who(&e.author());
        let purpose = flow::INTRIGUE_SETUP;
        let Some((opening, at)) = self.opens.get(&(e.author(), purpose)).cloned() else {
            return self.stop(
                FaultKind::MissingReveal,
                e.author(),
                e,
                format!("no opening of {who}'s '{purpose}' commitment in the record"),
                format!("{who} never opened its secret setup, so its game cannot be checked."),
            );
        };
        let committed =
            self.commits.get(&(e.author(), purpose)).copied().filter(|(_, at)| *at < e.index);
        let opens = committed.is_some_and(|(cm, _)| {
            commitment::check_opening(&cm, purpose, &self.c.match_id(), &e.author(), &opening)
                .is_ok()
        });
        if !opens {
            return self.stop(
                FaultKind::BadOpening,
                e.author(),
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
                e.author(),
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
                        e.author(),
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
                self.plies += 1;
                if self.keep_log {
                    self.log.steps.push(Step {
                        entry: e.index,
                        time_ms: e.time_ms(),
                        actor: c,
                        action: opening.value.clone(),
                        told,
                        fen: next.fen(),
                    });
                }
                self.game = Some(next);
                Ok(())
            }
        }
    }

    /// The games whose secrets are actions (6x6): what a player sealed to the umpire as
    /// `secret` must be exactly what it committed to and opened.
    pub(super) fn sealed_matches_opening(&mut self, secret: rules::Secret, kind: FaultKind) {
        let v = self.variant();
        let Some(purpose) = flow::purpose_of(v, secret) else { return };
        for c in Color::ALL {
            let sealed = match secret {
                rules::Secret::TieBreak => &self.sealed_tiebreak[c],
                rules::Secret::Setup => &self.sealed_setup[c],
            };
            let (Some((bytes, e)), Some(key)) = (sealed.clone(), self.key_of(c)) else { continue };
            let who = self.who(&key);
            match self.opens.get(&(key, purpose)).cloned() {
                None => {
                    let evidence = format!("no opening of {who}'s '{purpose}' commitment");
                    self.blame(
                        FaultKind::MissingReveal,
                        key,
                        e,
                        evidence,
                        format!("{who} never opened its '{purpose}' commitment."),
                    );
                    return;
                }
                Some((opening, open_at)) if opening.value != bytes => {
                    self.blame(
                        kind,
                        key,
                        e,
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
