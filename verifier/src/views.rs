//! A finished match step by step, as each side knew it: the replay the host's site shows (the
//! server's `/api/match/{id}/replay`). Each frame holds White's and Black's seat views
//! (`rules::seat::SeatView`: built only from what that side was told, so White's view never
//! shows a man White could not know), the full position where the game has one (what the umpire
//! saw), the relay's time and both clocks as the coordinator rebuilds them.

use crate::envelope::Checked;
use protocol::Side;
use protocol::coordinator::{Admission, Coordinator};
use protocol::message::Expectation;
use rules::seat::{SeatView, Seats};
use rules::{ByColor, Color, GameResult, Variant};
use serde::Serialize;

/// Both clocks at one moment, in ms, and whose runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Clocks {
    /// White's time left.
    pub white_ms: u64,
    /// Black's time left.
    pub black_ms: u64,
    /// The side whose clock runs, if one does.
    pub running: Option<Color>,
}

/// One step of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// The record entry of the action.
    pub entry: usize,
    /// The relay's time of that entry, in ms.
    pub time_ms: u64,
    /// Who acted.
    pub actor: Color,
    /// The action as text (UCI for moves; setups and tie-breaks as JSON).
    pub action: String,
    /// What each side knew after it.
    pub views: ByColor<SeatView>,
    /// The full position after it, where the game has one.
    pub full: Option<String>,
    /// The clocks after it.
    pub clocks: Clocks,
}

/// A match's replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replay {
    /// The game.
    pub variant: Variant,
    /// What each side knew before the first action.
    pub start: ByColor<SeatView>,
    /// The full starting position, where the game has one.
    pub start_full: Option<String>,
    /// Every step.
    pub frames: Vec<Frame>,
    /// The result the record reaches, if any.
    pub result: Option<GameResult>,
}

/// Why a record has no replay.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplayError {
    /// The record fails layer 1: run the verifier.
    #[error("the record does not pass the envelope checks ({0}); run `fogproof verify`")]
    Envelope(String),
    /// A step the seats cannot follow (a record whose game the verifier refused).
    #[error("step {step}: {why}")]
    Step {
        /// The step.
        step: usize,
        /// Why.
        why: String,
    },
}

fn clocks(c: &Coordinator, now_ms: u64) -> Clocks {
    let running = c
        .deadlines()
        .into_iter()
        .find(|d| d.expectation == Expectation::Move)
        .and_then(|d| d.party.side().map(|s| (s, d.due_ms)));
    let left = |side: Side| match running {
        Some((s, due)) if s == side => due.saturating_sub(now_ms),
        _ => c.remaining_ms(side),
    };
    Clocks {
        white_ms: left(Side::White),
        black_ms: left(Side::Black),
        running: running.map(|(s, _)| protocol::game::color(s)),
    }
}

/// The replay of a record's bytes.
pub fn replay(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let checked = crate::envelope::check(bytes).map_err(|faults| {
        ReplayError::Envelope(faults.first().map_or_else(String::new, |f| f.evidence.clone()))
    })?;
    replay_checked(&checked)
}

/// The replay of a record that passed layer 1.
pub fn replay_checked(checked: &Checked) -> Result<Replay, ReplayError> {
    let trace = crate::replay::trace(checked);
    let log = &trace.log;
    let variant = checked.variant;
    let options = checked
        .terms
        .terms
        .game_options()
        .map_err(|e| ReplayError::Step { step: 0, why: format!("options: {e}") })?;
    let decode_told = |told: &protocol::game::Told, start: bool| {
        ByColor::new_with(|c| {
            told[c].as_ref().and_then(|b| {
                if start {
                    protocol::game::decode_start_observation(b).ok()
                } else {
                    protocol::game::decode_observation(variant, b).ok()
                }
            })
        })
    };
    let mut seats = Seats::new(&options, &decode_told(&log.start, true));
    let start = ByColor::new_with(|c| seats.seats[c].view());
    // The clocks: the coordinator replayed over the entries, up to each step's.
    let mut coordinator = Coordinator::new(checked.terms.clone());
    let mut applied = 0;
    let mut frames = Vec::with_capacity(log.steps.len());
    for (i, step) in log.steps.iter().enumerate() {
        while applied <= step.entry && applied < checked.entries.len() {
            // Layer 1 judged each entry already: whether it counts or is a void race.
            let e = &checked.entries[applied];
            let admission = if e.void { Admission::Void } else { Admission::Counts };
            coordinator.apply(&e.body, e.hash, admission, e.receipt.time_ms);
            applied += 1;
        }
        let action = protocol::game::decode_action(variant, &step.action)
            .map_err(|e| ReplayError::Step { step: i, why: e.to_string() })?;
        seats
            .follow(step.actor, &action, &decode_told(&step.told, false))
            .map_err(|e| ReplayError::Step { step: i, why: e.to_string() })?;
        frames.push(Frame {
            entry: step.entry,
            time_ms: step.time_ms,
            actor: step.actor,
            action: crate::replay::text::action_text(variant, &step.action),
            views: ByColor::new_with(|c| seats.seats[c].view()),
            full: step.fen.clone(),
            clocks: clocks(&coordinator, step.time_ms),
        });
    }
    Ok(Replay { variant, start, start_full: log.start_fen.clone(), frames, result: log.result })
}
