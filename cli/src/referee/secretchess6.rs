//! The secretchess6 referee: placeholder, replaced by the game's own JSON protocol.

use super::Lines;
use anyhow::{Result, bail};
use std::io::Write;

/// Runs the referee.
pub fn run(_input: &mut Lines<'_>, _out: &mut dyn Write) -> Result<()> {
    bail!("the secretchess6 referee is not implemented yet")
}
