//! The Secret Intelligence Chess referee (`fogproof rules referee --variant sic`): JSON lines
//! in, one JSON line out per request; the shapes are documented in `docs/referee/sic.md`.

use super::Lines;
use anyhow::{Context, Result, bail};
use rules::sic::{Observation, Position, SpyRule, State, View};
use rules::{ActionError, Alphabet, Analysis, BoardSize, Game, GameResult, Move};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// One request line. Exactly one of `start`, `seeds` or `move`; `spy` only with a start.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    start: Option<String>,
    seeds: Option<Seeds>,
    spy: Option<SpyRule>,
    #[serde(rename = "move")]
    mv: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Seeds {
    white: String,
    black: String,
}

/// The answer to a start request: what each side sees at the start (R-S10).
#[derive(Serialize)]
struct Started {
    white: View,
    black: View,
}

/// The answer to a legal move: what each side is told (R-S8, R-S10), and the result if any.
#[derive(Serialize)]
struct Moved {
    legal: bool,
    white: Observation,
    black: Observation,
    end: Option<GameResult>,
}

/// The answer to an illegal move (R-S11): nothing else.
#[derive(Serialize)]
struct Refused {
    legal: bool,
}

fn seed(hex: &str, side: &str) -> Result<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("bad {side} seed: expected 64 hex digits, got {} characters", hex.len());
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
            .with_context(|| format!("bad {side} seed"))?;
    }
    Ok(out)
}

fn start(req: &Request) -> Result<State> {
    let spy = req.spy.unwrap_or_default();
    Ok(match (&req.start, &req.seeds) {
        (Some(fen), None) => State::from_position(Position::from_fen_with(fen, spy)?),
        (None, Some(s)) => State::new(&seed(&s.white, "white")?, &seed(&s.black, "black")?, spy),
        _ => bail!("a start request has exactly one of 'start' and 'seeds'"),
    })
}

/// Runs the referee until the input ends.
pub fn run(input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    let mut state: Option<State> = None;
    for (i, line) in input.enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("line {n}: cannot read"))?;
        if line.trim().is_empty() {
            continue;
        }
        let req: Request = serde_json::from_str(&line)
            .with_context(|| format!("line {n}: not a sic referee request"))?;
        let answer = match (&req.mv, &state) {
            (None, None) => {
                let s = start(&req).with_context(|| format!("line {n}"))?;
                let answer = serde_json::to_string(&Started {
                    white: s.view(rules::Color::White),
                    black: s.view(rules::Color::Black),
                })?;
                state = Some(s);
                answer
            }
            (None, Some(_)) => bail!("line {n}: the game has already started"),
            (Some(text), _) => {
                if req.start.is_some() || req.seeds.is_some() || req.spy.is_some() {
                    bail!("line {n}: a move request has only 'move'");
                }
                let current = match state.take() {
                    Some(s) => s,
                    None => State::from_position(
                        Position::from_fen(rules::sic::EXAMPLE_FEN).context("example start")?,
                    ),
                };
                let m = Move::parse_uci(text, BoardSize::Eight, Alphabet::SIC)
                    .with_context(|| format!("line {n}"))?;
                let side = current.position().turn();
                match current.apply(side, &m) {
                    Ok(t) => {
                        let answer = serde_json::to_string(&Moved {
                            legal: true,
                            white: t.told.white.context("white is always told")?,
                            black: t.told.black.context("black is always told")?,
                            end: t.state.result(),
                        })?;
                        state = Some(t.state);
                        answer
                    }
                    Err(ActionError::IllegalMove(_)) => {
                        state = Some(current);
                        serde_json::to_string(&Refused { legal: false })?
                    }
                    Err(e) => bail!("line {n}: {e}"),
                }
            }
        };
        writeln!(out, "{answer}")?;
    }
    Ok(())
}
