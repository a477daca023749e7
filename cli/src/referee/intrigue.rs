//! The Intrigue referee (`--variant intrigue`): JSON lines in, one JSON line out per input line.
//! The shapes are documented in `docs/referee/intrigue.md`. The referee holds the full state,
//! so it answers for both owners (R-I2) and prints full position strings.

use super::Lines;
use anyhow::{Context, Result, bail};
use rules::intrigue::{Action, Observation, Position, Setup, State};
use rules::{
    ActionError, Alphabet, Analysis, BoardSize, Color, Game, GameResult, Move, Piece, Square,
};
use serde::{Deserialize, Serialize};
use std::io::Write;

const ALPHABET: Alphabet = Alphabet::ORTHODOX;

/// One input line.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum Input {
    /// Start (or restart) play from a full position string (R-I6).
    Start(String),
    /// One or both sides' secret setups (R-I1); the sides present are applied White first.
    Setup(SetupInput),
    /// A move of the side to move, UCI-style.
    Move(String),
    /// A side's view (R-I6): `"white"` or `"black"`.
    View(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetupInput {
    white: Option<SideSetup>,
    black: Option<SideSetup>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SideSetup {
    king: String,
    informer: String,
    #[serde(default)]
    queen_on_king_square: bool,
}

#[derive(Serialize)]
struct StartOut {
    start: String,
    to_move: Color,
    end: Option<EndOut>,
}

#[derive(Serialize)]
struct SetupOut {
    setup: Vec<SetupToldOut>,
    play_starts: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
}

#[derive(Serialize)]
struct SetupToldOut {
    side: Color,
    queen_on_king_square: bool,
}

#[derive(Serialize)]
struct MoveOut {
    #[serde(rename = "move")]
    mv: String,
    legal: bool,
    #[serde(flatten)]
    played: Option<PlayedOut>,
}

#[derive(Serialize)]
struct PlayedOut {
    side: Color,
    capture: Option<CaptureOut>,
    inspection: Option<InspectionOut>,
    check: Vec<Color>,
    end: Option<EndOut>,
    fen: String,
}

#[derive(Serialize)]
struct CaptureOut {
    square: String,
    piece: char,
    en_passant: bool,
}

#[derive(Serialize)]
struct InspectionOut {
    owner: Color,
    informer: bool,
    king: Option<String>,
    removed: Option<char>,
}

#[derive(Serialize)]
struct EndOut {
    result: &'static str,
    winner: Option<Color>,
    reason: &'static str,
}

#[derive(Serialize)]
struct ViewOut {
    view: Color,
    fen: String,
}

fn end_out(r: Option<GameResult>) -> Option<EndOut> {
    r.map(|r| EndOut { result: r.score(), winner: r.winner, reason: r.reason.name() })
}

fn letter(p: Piece) -> char {
    ALPHABET.piece_char(p).unwrap_or('?')
}

fn square(what: &str, s: &str) -> Result<Square> {
    Square::parse(s, BoardSize::Eight).with_context(|| format!("bad {what} '{s}': not a square"))
}

fn color(s: &str) -> Result<Color> {
    Color::parse(s).with_context(|| format!("bad side '{s}': expected white or black"))
}

fn playing(state: Option<&State>) -> Result<&State> {
    match state {
        Some(s) if s.position().is_some() => Ok(s),
        _ => bail!("no game in play: send {{\"start\":...}} or both setups first"),
    }
}

fn setup(state: Option<State>, input: SetupInput) -> Result<(State, String)> {
    let mut state = match state {
        Some(s) if s.position().is_some() => bail!("setup after play has begun"),
        Some(s) => s,
        None => State::new(),
    };
    if input.white.is_none() && input.black.is_none() {
        bail!("setup names neither white nor black");
    }
    let mut told = Vec::new();
    let mut play_starts = false;
    for (side, choice) in [(Color::White, input.white), (Color::Black, input.black)] {
        let Some(c) = choice else { continue };
        let action = Action::Setup(Setup {
            king: square("king square", &c.king)?,
            informer: square("informer square", &c.informer)?,
            queen_on_king_square: c.queen_on_king_square,
        });
        let t = state.apply(side, &action).with_context(|| format!("{side}'s setup"))?;
        if let Some(Observation::Setup(r)) = t.told[side] {
            told.push(SetupToldOut { side, queen_on_king_square: r.queen_on_king_square });
            play_starts = r.play_starts;
        }
        state = t.state;
    }
    let fen = state.position().map(Analysis::to_fen);
    let out = serde_json::to_string(&SetupOut { setup: told, play_starts, fen })?;
    Ok((state, out))
}

fn play(state: &State, text: &str) -> Result<(Option<State>, String)> {
    let m = Move::parse_uci(text, BoardSize::Eight, ALPHABET)?;
    let turn = state.to_act().first().copied().context("the game is over")?;
    let t = match state.apply(turn, &Action::Move(m)) {
        Ok(t) => t,
        Err(ActionError::IllegalMove(_)) => {
            let out = MoveOut { mv: text.to_string(), legal: false, played: None };
            return Ok((None, serde_json::to_string(&out)?));
        }
        Err(e) => return Err(e.into()),
    };
    let Some(Observation::Move(r)) = t.told[turn].clone() else {
        bail!("internal: a move was not reported as a move");
    };
    let played = PlayedOut {
        side: r.side,
        capture: r.capture.map(|c| CaptureOut {
            square: c.square.to_string(),
            piece: letter(c.piece),
            en_passant: c.en_passant,
        }),
        inspection: r.inspection.map(|i| InspectionOut {
            owner: i.owner,
            informer: i.informer,
            king: i.appeared.map(|a| a.square.to_string()),
            removed: i.appeared.and_then(|a| a.removed).map(letter),
        }),
        check: r.check,
        end: end_out(r.result),
        fen: t.state.position().map(Analysis::to_fen).unwrap_or_default(),
    };
    let out = MoveOut { mv: m.uci(ALPHABET), legal: true, played: Some(played) };
    Ok((Some(t.state), serde_json::to_string(&out)?))
}

/// Runs the referee until the input ends.
pub fn run(input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    let mut state: Option<State> = None;
    for (n, line) in input.enumerate() {
        let line = line.context("reading standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = (|| -> Result<String> {
            let parsed: Input = serde_json::from_str(&line).context(
                "expected one of {\"start\":FEN}, {\"setup\":{...}}, {\"move\":UCI}, {\"view\":SIDE}",
            )?;
            Ok(match parsed {
                Input::Start(fen) => {
                    let position = Position::from_fen(&fen)?;
                    let s = State::from_position(position);
                    let p = s.position().context("a started game has a position")?;
                    let o = StartOut { start: p.to_fen(), to_move: p.turn(), end: end_out(s.result()) };
                    state = Some(s);
                    serde_json::to_string(&o)?
                }
                Input::Setup(input) => {
                    let (s, o) = setup(state.take(), input)?;
                    state = Some(s);
                    o
                }
                Input::Move(text) => {
                    let (next, o) = play(playing(state.as_ref())?, &text)?;
                    if let Some(next) = next {
                        state = Some(next);
                    }
                    o
                }
                Input::View(side) => {
                    let side = color(&side)?;
                    let view = playing(state.as_ref())?.view(side).context("no view yet")?;
                    serde_json::to_string(&ViewOut { view: side, fen: view.fen })?
                }
            })
        })()
        .with_context(|| format!("line {}", n + 1))?;
        writeln!(out, "{answer}")?;
    }
    Ok(())
}
