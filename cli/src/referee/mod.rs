//! `fogproof rules referee`: one JSON line in per action, one JSON line out per answer.
//! Each game has its own module and its own JSON shapes, documented in `docs/referee/<game>.md`.

use anyhow::Result;
use rules::Variant;
use std::io::Write;

mod espionage;
mod intrigue;
mod kriegspiel;
pub(crate) mod secretchess6;
mod sic;

/// Input lines, as read from standard input.
pub type Lines<'a> = dyn Iterator<Item = std::io::Result<String>> + 'a;

/// Runs the referee of `variant` until the input ends.
pub fn run(variant: Variant, input: &mut Lines<'_>, out: &mut dyn Write) -> Result<()> {
    match variant {
        Variant::Chess | Variant::Kriegspiel => kriegspiel::run(variant, input, out),
        Variant::Sic => sic::run(input, out),
        Variant::Intrigue => intrigue::run(input, out),
        Variant::SecretChess6 => secretchess6::run(input, out),
        Variant::Espionage => espionage::run(input, out),
    }
}
