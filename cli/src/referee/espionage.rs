//! The Espionage Chess referee (`fogproof rules referee --variant espionage`): JSON lines in,
//! one JSON line out per line, as documented in `docs/referee/espionage.md`.
//!
//! Everything is public in Espionage Chess (R-E5), so the referee only judges moves: a
//! well-formed but illegal move is answered `{"legal":false}` and play goes on; anything that
//! is not a valid line of the protocol ends the run with an error (exit status 2).

use super::Lines;
use anyhow::{Context, Result, bail};
use rules::espionage::{ALPHABET, SIZE, State};
use rules::{ActionError, Analysis, Game, GameResult, Move, Role};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// The longest input line accepted, in bytes: far above any position string or move.
const MAX_LINE_BYTES: usize = 4096;

/// One input line: exactly one of the two keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    /// A position string (R-E6) to start from; only on the first line.
    start: Option<String>,
    /// A move in UCI style, `d2d3` or `a5a6s`.
    #[serde(rename = "move")]
    mv: Option<String>,
}

/// The answer to a move.
#[derive(Serialize)]
#[serde(untagged)]
enum Answer {
    Legal { legal: bool, capture: Option<Role>, check: bool, end: Option<GameResult> },
    Illegal { legal: bool },
}

/// The answer to a start line: the position as the engine reads it.
#[derive(Serialize)]
struct Started {
    start: String,
}

/// Runs the referee until the input ends.
pub fn run(input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    let mut state = State::new();
    for (index, line) in input.enumerate() {
        let number = index + 1;
        let line = line.with_context(|| format!("line {number}: cannot read input"))?;
        answer(&mut state, number, &line, out).with_context(|| format!("line {number}"))?;
        out.flush()?;
    }
    Ok(())
}

fn answer(state: &mut State, number: usize, line: &str, out: &mut dyn Write) -> Result<()> {
    if line.len() > MAX_LINE_BYTES {
        bail!("line is {} bytes long, the limit is {MAX_LINE_BYTES}", line.len());
    }
    let input: Input =
        serde_json::from_str(line).context(r#"expected {"start":"POSITION"} or {"move":"UCI"}"#)?;
    match (input.start, input.mv) {
        (Some(fen), None) => {
            if number != 1 {
                bail!("a start position is only allowed on the first line");
            }
            *state = State::from_fen(&fen)?;
            let start = state.position().to_fen();
            writeln!(out, "{}", serde_json::to_string(&Started { start })?)?;
        }
        (None, Some(text)) => {
            let m = Move::parse_uci(&text, SIZE, ALPHABET)?;
            let answer = match state.apply(state.position().turn(), &m) {
                Ok(t) => {
                    let told = t.told.white.context("the mover is always told the move")?;
                    *state = t.state;
                    Answer::Legal {
                        legal: true,
                        capture: told.capture,
                        check: told.check,
                        end: told.end,
                    }
                }
                Err(ActionError::IllegalMove(_)) => Answer::Illegal { legal: false },
                Err(e) => return Err(e).context(format!("move '{text}'")),
            };
            writeln!(out, "{}", serde_json::to_string(&answer)?)?;
        }
        _ => bail!(r#"expected exactly one of the keys "start" and "move""#),
    }
    Ok(())
}
