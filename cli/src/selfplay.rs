//! `fogproof selfplay`: one complete match in-process through the real protocol (two random
//! bots, the umpire where the game has one, the relay), written as canonical record bytes.

use anyhow::{Context, Result};
use rules::Variant;
use std::io::Write;
use std::path::Path;

/// Plays `variant` from `seed`, writes the record to `path` and prints a one-line summary:
/// `<variant>: <n> plies, <n> actions, <n> entries, <score> (<reason>), <n> bytes -> <file>`.
pub fn run(variant: Variant, seed: u64, path: &Path, out: &mut impl Write) -> Result<()> {
    let (bytes, summary) = sim::selfplay(variant, seed)
        .with_context(|| format!("self-play of {variant} from seed {seed}"))?;
    std::fs::write(path, &bytes)
        .with_context(|| format!("cannot write the record to {}", path.display()))?;
    writeln!(out, "{summary} -> {}", path.display())?;
    Ok(())
}
