//! The 6x6 Secret Chess referee (umpire): JSON lines in (options, setups, moves, Life Freeze,
//! tie-break submissions), one JSON answer per line. Shapes in `docs/referee/secretchess6.md`.
//!
//! The shapes are the CLI's own (an action tagged by an `action` key, each event by an `event`
//! key, squares and moves as text), built here from the rules' typed values; `fogproof record
//! show` uses the same shapes for 6x6 actions and observations.

use super::Lines;
use anyhow::{Context, Result, anyhow, bail};
use rules::secretchess6::{Action, Event, Formation, Observation, Options, State, TurnMove};
use rules::{ActionError, Analysis, Bitboard, BoardSize, Color, Game, Square};
use serde::Deserialize;
use serde_json::{Value, json};
use std::io::Write;

/// An action as the referee reads it (`docs/referee/secretchess6.md`).
#[derive(Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
enum ActionIn {
    Setup { formation: String, false_squares: Vec<String> },
    Move { mv: String },
    LifeFreeze { piece: String },
    EndTurn,
    TieBreak { formation: String, moves: Vec<String> },
}

fn invalid(what: &'static str, problem: impl Into<String>) -> ActionError {
    ActionError::Invalid { what, problem: problem.into() }
}

fn square(what: &'static str, text: &str) -> Result<Square, ActionError> {
    Square::parse(text, BoardSize::Six)
        .ok_or_else(|| invalid(what, format!("'{text}' is not a 6x6 square")))
}

impl ActionIn {
    /// The typed action, or what is wrong with the text, named as the rules name it.
    fn typed(self) -> Result<Action, ActionError> {
        Ok(match self {
            ActionIn::Setup { formation, false_squares } => {
                let formation =
                    Formation::parse(&formation).map_err(|e| invalid("formation", e.0))?;
                let mut set = Bitboard::EMPTY;
                for t in &false_squares {
                    let sq = square("false squares", t)?;
                    if set.contains(sq) {
                        return Err(invalid("false squares", format!("{sq} is given twice")));
                    }
                    set.insert(sq);
                }
                Action::Setup { formation, false_squares: set }
            }
            ActionIn::Move { mv } => Action::Move {
                mv: TurnMove::parse(&mv).map_err(|e| ActionError::IllegalMove(e.to_string()))?,
            },
            ActionIn::LifeFreeze { piece } => {
                Action::LifeFreeze { piece: square("life freeze", &piece)? }
            }
            ActionIn::EndTurn => Action::EndTurn,
            ActionIn::TieBreak { formation, moves } => Action::TieBreak {
                formation: Formation::parse(&formation)
                    .map_err(|e| invalid("tie-break formation", e.0))?,
                moves: moves
                    .iter()
                    .map(|t| {
                        TurnMove::parse(t).map_err(|e| invalid("tie-break moves", e.to_string()))
                    })
                    .collect::<Result<_, _>>()?,
            },
        })
    }
}

/// An action in the referee's input shape (without `side`).
pub(crate) fn action_json(action: &Action) -> Value {
    match action {
        Action::Setup { formation, false_squares } => json!({
            "action": "setup", "formation": formation.to_string(), "false_squares": false_squares,
        }),
        Action::Move { mv } => json!({ "action": "move", "mv": mv.to_string() }),
        Action::LifeFreeze { piece } => json!({ "action": "life-freeze", "piece": piece }),
        Action::EndTurn => json!({ "action": "end-turn" }),
        Action::TieBreak { formation, moves } => json!({
            "action": "tie-break",
            "formation": formation.to_string(),
            "moves": moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }),
    }
}

/// An event in the referee's shape: tagged by `event`, squares and moves as text.
fn event_json(event: &Event) -> Value {
    match event {
        Event::SetupAccepted => json!({ "event": "setup-accepted" }),
        Event::OpponentReady => json!({ "event": "opponent-ready" }),
        Event::Board { turn, your_turn, pieces, red } => json!({
            "event": "board", "turn": turn, "your_turn": your_turn, "pieces": pieces, "red": red,
        }),
        Event::Moved { mv } => json!({ "event": "moved", "mv": mv.to_string() }),
        Event::Passed { reason } => json!({ "event": "passed", "reason": reason }),
        Event::Frozen { piece } => json!({ "event": "frozen", "piece": piece }),
        Event::Scores { turn, scores } => {
            json!({ "event": "scores", "turn": turn, "scores": scores })
        }
        Event::TieBreakNeeded { scores, opponent_turns } => json!({
            "event": "tie-break-needed", "scores": scores, "opponent_turns": opponent_turns,
        }),
        Event::End { result, scores, tie_break } => json!({
            "event": "end", "result": result, "scores": scores, "tie_break": tie_break,
        }),
    }
}

/// What a side is told, in the referee's shape: `{"events": [...]}`.
pub(crate) fn observation_json(observation: &Observation) -> Value {
    json!({ "events": observation.events.iter().map(event_json).collect::<Vec<_>>() })
}

/// The longest input line accepted, in bytes: a limit on what comes from outside.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Runs the referee until the input ends.
pub fn run(input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    let mut state = State::new(Options::default());
    let mut started = false;
    for (i, line) in input.enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("line {n}: cannot read"))?;
        if line.trim().is_empty() {
            continue;
        }
        if line.len() > MAX_LINE_BYTES {
            bail!("line {n}: longer than {MAX_LINE_BYTES} bytes");
        }
        let answer = step(&mut state, &mut started, &line).with_context(|| format!("line {n}"))?;
        writeln!(out, "{answer}")?;
    }
    Ok(())
}

fn step(state: &mut State, started: &mut bool, line: &str) -> Result<Value> {
    let mut value: Value = serde_json::from_str(line).context("not JSON")?;
    let obj = value.as_object_mut().ok_or_else(|| anyhow!("expected a JSON object"))?;
    if let Some(opts) = obj.remove("options") {
        if !obj.is_empty() {
            bail!("an options line has only the \"options\" field");
        }
        if *started {
            bail!("options must come before the first action");
        }
        let options: Options = serde_json::from_value(opts).context("bad options")?;
        *state = State::new(options);
        *started = true;
        return Ok(answer(state, None));
    }
    let side = obj.remove("side").ok_or_else(|| anyhow!("missing \"side\" (white or black)"))?;
    let side = side
        .as_str()
        .and_then(Color::parse)
        .ok_or_else(|| anyhow!("bad side {side}: expected \"white\" or \"black\""))?;
    let action: ActionIn = serde_json::from_value(value).context("bad action")?;
    let action = action.typed().map_err(|e| anyhow!("{side}: {e}"))?;
    *started = true;
    let t = state.apply(side, &action).map_err(|e| anyhow!("{side}: {e}"))?;
    *state = t.state;
    Ok(answer(state, Some(&t.told)))
}

fn answer(
    state: &State,
    told: Option<&rules::ByColor<Option<rules::secretchess6::Observation>>>,
) -> Value {
    let shape = |o: &Option<Observation>| o.as_ref().map_or(Value::Null, observation_json);
    let told = told.map_or(
        json!({"white": null, "black": null}),
        |t| json!({"white": shape(&t.white), "black": shape(&t.black)}),
    );
    json!({
        "to_act": state.to_act(),
        "told": told,
        "position": state.position().map(Analysis::to_fen),
        "result": state.result(),
    })
}
