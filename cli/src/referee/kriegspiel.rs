//! The Kriegspiel referee: placeholder, replaced by the umpire of R-K1..R-K5.

use super::Lines;
use anyhow::{Result, bail};
use rules::Variant;
use std::io::Write;

/// Runs the referee.
pub fn run(_variant: Variant, _input: &mut Lines<'_>, _out: &mut dyn Write) -> Result<()> {
    bail!("the kriegspiel referee is not implemented yet")
}
