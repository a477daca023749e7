//! The Kriegspiel umpire on JSON lines (R-K1..R-K5), also used for `--variant chess`, where it
//! gives the same answers. Shapes documented in `docs/referee/kriegspiel.md`.
//!
//! In: an optional first line `{"start":"FEN"}`, then one `{"try":"e2e4"}` per attempt by
//! the side to move. Out, per attempt: `{"legal":false}` or the announcement of R-K2.

use super::Lines;
use anyhow::{Context, Result, bail};
use rules::kriegspiel::{Answer, Options, State, parse_attempt};
use rules::{Analysis, Game, Variant};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// The longest input line accepted, in bytes (a position string is well under this).
const MAX_LINE_BYTES: usize = 4096;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    start: Option<String>,
    #[serde(rename = "try")]
    attempt: Option<String>,
}

#[derive(Serialize)]
struct CaptureOut {
    square: String,
    kind: &'static str,
    en_passant: bool,
}

#[derive(Serialize)]
struct LegalOut {
    legal: bool,
    capture: Option<CaptureOut>,
    checks: Vec<&'static str>,
    pawn_tries: u32,
    end: Option<&'static str>,
}

/// Runs the umpire until the input ends.
pub fn run(_variant: Variant, input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    let mut state: Option<State> = None;
    for (i, line) in input.enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("line {n}: cannot read input"))?;
        if line.len() > MAX_LINE_BYTES {
            bail!("line {n}: longer than {MAX_LINE_BYTES} bytes");
        }
        let input: Input = serde_json::from_str(&line).with_context(|| {
            format!(r#"line {n}: expected {{"try":"e2e4"}} or a first line {{"start":"FEN"}}"#)
        })?;
        let text = match (input.start, input.attempt) {
            (Some(fen), None) => {
                if n != 1 {
                    bail!("line {n}: \"start\" is only allowed on the first line");
                }
                let pos = rules::chess::Position::from_fen(&fen)
                    .with_context(|| format!("line {n}: bad start"))?;
                state = Some(State::from_position(pos, Options::default()));
                continue;
            }
            (None, Some(text)) => text,
            _ => bail!(r#"line {n}: expected exactly one of "start" or "try""#),
        };
        let s = state.get_or_insert_with(|| State::start(Options::default()));
        if let Some(result) = s.result() {
            bail!("line {n}: the game is over ({})", result.reason.name());
        }
        let attempt = parse_attempt(&text).with_context(|| format!("line {n}"))?;
        let actor = s.position().turn();
        let t = s.apply(actor, &attempt).with_context(|| format!("line {n}"))?;
        let answer = t.told[actor].clone().context("the umpire always answers the mover")?;
        *s = t.state;
        match answer {
            Answer::Illegal => writeln!(out, r#"{{"legal":false}}"#)?,
            Answer::Legal(a) => {
                let o = LegalOut {
                    legal: true,
                    capture: a.capture.map(|c| CaptureOut {
                        square: c.square.to_string(),
                        kind: match c.kind {
                            rules::kriegspiel::CaptureKind::Pawn => "pawn",
                            rules::kriegspiel::CaptureKind::Piece => "piece",
                        },
                        en_passant: c.en_passant,
                    }),
                    checks: a.checks.iter().map(|k| k.name()).collect(),
                    pawn_tries: a.pawn_tries,
                    end: a.end.map(|e| e.name()),
                };
                writeln!(out, "{}", serde_json::to_string(&o)?)?;
            }
        }
    }
    Ok(())
}
