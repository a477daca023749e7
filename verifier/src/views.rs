//! A finished match step by step, as each side knew it: the replay the host's site shows (the
//! server's `/api/match/{id}/replay`). Each frame holds White's and Black's seat views
//! (`rules::seat::SeatView`: built only from what that side was told, so White's view never
//! shows a man White could not know), the full position where the game has one (what the umpire
//! saw), the relay's time and both clocks as the coordinator rebuilds them.

use crate::envelope::Checked;
use protocol::coordinator::{Admission, Coordinator};
use protocol::message::Expectation;
use rules::seat::{SeatView, Seats};
use rules::{ByColor, Color, GameResult, Variant};
use serde::Serialize;

/// Both clocks at one moment, in ms, and whose runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct Clocks {
    /// White's time left.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub white_ms: u64,
    /// Black's time left.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub black_ms: u64,
    /// The side whose clock runs, if one does.
    pub running: Option<Color>,
}

/// One step of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct Frame {
    /// The record entry of the action.
    pub entry: usize,
    /// The relay's time of that entry, in ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
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
    let left = |side: Color| match running {
        Some((s, due)) if s == side => due.saturating_sub(now_ms),
        _ => c.remaining_ms(side),
    };
    Clocks {
        white_ms: left(Color::White),
        black_ms: left(Color::Black),
        running: running.map(|(s, _)| s),
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
    let options = checked.terms.terms.game;
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

/// The compact replay's format name (`CompactReplay::format`).
pub const COMPACT_FORMAT: &str = "fogproof-replay-delta/1";

/// A replay as the host sends it (`GET /api/match/{id}/replay`): the first step whole, then
/// per step only what changed, as a delta (`delta`) of the step's JSON against the one before.
/// A 300-step game is tens of kilobytes instead of megabytes (a full frame repeats both views,
/// their whole knowledge and their legal actions at every step).
///
/// What it leaves out: the seats' `legal` lists (what a seat could have played, which the rules
/// give from the position; the replay shows what happened). Everything else rebuilds exactly:
/// `expand` gives, per step, `Frame`'s JSON with `views.*.legal` empty.
///
/// A step is `{ "entry", "time_ms", "actor", "action", "views": {"white", "black"}, "full",
/// "clocks" }` as in `Frame`; step 0 is the start (`entry` 0, `time_ms` 0, `actor` and `action`
/// null, `clocks` null).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct CompactReplay {
    /// `COMPACT_FORMAT`.
    pub format: &'static str,
    /// The game.
    pub variant: Variant,
    /// The result the record reaches, if any.
    pub result: Option<GameResult>,
    /// Step 0 (the start), whole: a [`Step`]'s JSON.
    #[cfg_attr(feature = "ts", ts(as = "Step"))]
    pub start: serde_json::Value,
    /// Per later step, its delta against the step before (`delta`).
    pub deltas: Vec<serde_json::Value>,
}

/// One step of a compact replay, as JSON (module docs of `CompactReplay`): a [`Frame`] with
/// its `legal` lists emptied, or the start (`entry` 0, `time_ms` 0, `actor`, `action` and
/// `clocks` null).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct Step {
    /// The record entry of the action (0 at the start).
    pub entry: usize,
    /// The relay's time of that entry, in ms (0 at the start).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub time_ms: u64,
    /// Who acted (`null` at the start).
    pub actor: Option<Color>,
    /// The action as text (`null` at the start).
    pub action: Option<String>,
    /// What each side knew after it (`legal` empty).
    pub views: ByColor<SeatView>,
    /// The full position after it, where the game has one.
    pub full: Option<String>,
    /// The clocks after it (`null` at the start).
    pub clocks: Option<Clocks>,
}

/// A step's JSON (module docs of `CompactReplay`), `legal` lists emptied.
fn step_json(
    views: &ByColor<SeatView>,
    full: &Option<String>,
    frame: Option<&Frame>,
) -> serde_json::Value {
    let views = ByColor::new_with(|c| {
        let mut v = views[c].clone();
        v.legal.clear();
        v
    });
    let step = Step {
        entry: frame.map_or(0, |f| f.entry),
        time_ms: frame.map_or(0, |f| f.time_ms),
        actor: frame.map(|f| f.actor),
        action: frame.map(|f| f.action.clone()),
        views,
        full: full.clone(),
        clocks: frame.map(|f| f.clocks),
    };
    // Plain data: serialising it cannot fail.
    serde_json::to_value(step).unwrap_or_default()
}

/// Every step of a full replay as the compact form rebuilds it (`CompactReplay`): the start,
/// then one per frame.
pub fn steps_json(r: &Replay) -> Vec<serde_json::Value> {
    std::iter::once(step_json(&r.start, &r.start_full, None))
        .chain(r.frames.iter().map(|f| step_json(&f.views, &f.full, Some(f))))
        .collect()
}

impl Replay {
    /// The compact form (`CompactReplay`).
    pub fn compact(&self) -> CompactReplay {
        let steps = steps_json(self);
        let deltas = steps.windows(2).map(|w| delta(&w[0], &w[1])).collect();
        CompactReplay {
            format: COMPACT_FORMAT,
            variant: self.variant,
            result: self.result,
            start: steps.into_iter().next().unwrap_or_default(),
            deltas,
        }
    }
}

impl CompactReplay {
    /// Every step rebuilt (what `steps_json` of the full replay gives), or `None` when a delta
    /// does not fit the step before (a malformed compact replay).
    pub fn expand(&self) -> Option<Vec<serde_json::Value>> {
        let mut out = vec![self.start.clone()];
        for d in &self.deltas {
            let next = apply(out.last()?, d)?;
            out.push(next);
        }
        Some(out)
    }
}

/// The compact replay of a record's bytes (what the host serves).
pub fn compact_replay(bytes: &[u8]) -> Result<CompactReplay, ReplayError> {
    replay(bytes).map(|r| r.compact())
}

/// A JSON delta from `old` to `new` (`apply` undoes it):
/// - an object: the same object with only the changed keys, each mapped to its own delta;
/// - `[v]`: the value becomes `v`; `[]` (inside an object): the key is gone;
/// - `["s", at, cut, text]`: a string whose characters from `at` lose `cut` and gain `text`;
/// - `["a", keep, [items]]`: an array that keeps its first `keep` items, then `items`.
///
/// An unchanged value has no delta (its key is left out); `delta` of equal values is `{}`.
pub fn delta(old: &serde_json::Value, new: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let mut out = serde_json::Map::new();
            for (k, nv) in n {
                match o.get(k) {
                    Some(ov) if ov == nv => {}
                    Some(ov) => {
                        out.insert(k.clone(), delta(ov, nv));
                    }
                    None => {
                        out.insert(k.clone(), Value::Array(vec![nv.clone()]));
                    }
                }
            }
            for k in o.keys() {
                if !n.contains_key(k) {
                    out.insert(k.clone(), Value::Array(Vec::new()));
                }
            }
            Value::Object(out)
        }
        // Strings are spliced by characters where both are ASCII (JavaScript counts UTF-16
        // units, Rust bytes: for ASCII both are characters).
        (Value::String(o), Value::String(n)) if o.is_ascii() && n.is_ascii() => {
            let (ob, nb) = (o.as_bytes(), n.as_bytes());
            let pre = ob.iter().zip(nb).take_while(|(a, b)| a == b).count();
            let max_suf = ob.len().min(nb.len()) - pre;
            let suf = ob
                .iter()
                .rev()
                .zip(nb.iter().rev())
                .take(max_suf)
                .take_while(|(a, b)| a == b)
                .count();
            let text = &n[pre..n.len() - suf];
            let splice = serde_json::json!(["s", pre, ob.len() - pre - suf, text]);
            if splice.to_string().len() < new.to_string().len() + 2 {
                splice
            } else {
                Value::Array(vec![new.clone()])
            }
        }
        (Value::Array(o), Value::Array(n)) => {
            let keep = o.iter().zip(n).take_while(|(a, b)| a == b).count();
            if keep == o.len() || keep > 0 {
                serde_json::json!(["a", keep, n[keep..].to_vec()])
            } else {
                Value::Array(vec![new.clone()])
            }
        }
        _ => Value::Array(vec![new.clone()]),
    }
}

/// `old` with `d` applied (`delta`), or `None` when `d` does not fit `old`.
pub fn apply(old: &serde_json::Value, d: &serde_json::Value) -> Option<serde_json::Value> {
    use serde_json::Value;
    match d {
        Value::Object(changes) => {
            let Value::Object(o) = old else { return None };
            let mut out = o.clone();
            for (k, cd) in changes {
                if cd.as_array().is_some_and(Vec::is_empty) {
                    out.remove(k)?;
                } else {
                    let next = match out.get(k) {
                        Some(ov) => apply(ov, cd)?,
                        None => match cd.as_array().map(Vec::as_slice) {
                            Some([v]) => v.clone(),
                            _ => return None,
                        },
                    };
                    out.insert(k.clone(), next);
                }
            }
            Some(Value::Object(out))
        }
        Value::Array(a) => match a.as_slice() {
            [v] => Some(v.clone()),
            [Value::String(tag), at, cut, Value::String(text)] if tag == "s" => {
                let s = old.as_str()?;
                let at = usize::try_from(at.as_u64()?).ok()?;
                let end = at.checked_add(usize::try_from(cut.as_u64()?).ok()?)?;
                let (head, tail) = (s.get(..at)?, s.get(end..)?);
                Some(Value::String(format!("{head}{text}{tail}")))
            }
            [Value::String(tag), keep, Value::Array(items)] if tag == "a" => {
                let o = old.as_array()?;
                let keep = usize::try_from(keep.as_u64()?).ok()?;
                let mut out = o.get(..keep)?.to_vec();
                out.extend(items.iter().cloned());
                Some(Value::Array(out))
            }
            _ => None,
        },
        _ => None,
    }
}
