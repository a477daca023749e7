//! The 6x6 Secret Chess referee (umpire): JSON lines in (options, setups, moves, Life Freeze,
//! tie-break submissions), one JSON answer per line. Shapes in `docs/referee/secretchess6.md`.

use super::Lines;
use anyhow::{Context, Result, anyhow, bail};
use rules::secretchess6::{Action, Options, State};
use rules::{Analysis, Color, Game};
use serde_json::{Value, json};
use std::io::Write;

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
    let action: Action = serde_json::from_value(value).context("bad action")?;
    *started = true;
    let t = state.apply(side, &action).map_err(|e| anyhow!("{side}: {e}"))?;
    *state = t.state;
    Ok(answer(state, Some(&t.told)))
}

fn answer(
    state: &State,
    told: Option<&rules::ByColor<Option<rules::secretchess6::Observation>>>,
) -> Value {
    let told = told.map_or(
        json!({"white": null, "black": null}),
        |t| json!({"white": t.white, "black": t.black}),
    );
    json!({
        "to_act": state.to_act(),
        "told": told,
        "position": state.position().map(Analysis::to_fen),
        "result": state.result(),
    })
}
