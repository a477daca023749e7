//! `fogproof tournament`: write a tournament's self-contained bundle from a log, and recompute a
//! bundle offline, naming every file that differs (format in `docs/LEDGER.md`).

use crate::ledger::{PolicyArgs, parse_id};
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The tournament subcommands.
#[derive(Subcommand)]
pub enum TournamentCommand {
    /// Write tournament ID's bundle (checkpoint, proofs, definition, records, pairings,
    /// standings, ratings) from the log in --log into --out.
    Bundle {
        /// The tournament id (64 hex digits).
        id: String,
        /// The log directory.
        #[arg(long)]
        log: PathBuf,
        /// The bundle directory to create.
        #[arg(long)]
        out: PathBuf,
    },
    /// Recompute a bundle offline: exit 0 if everything checks out, 1 naming every difference.
    Verify {
        /// The bundle directory.
        dir: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
    },
}

/// Runs one `tournament` subcommand.
pub fn run(command: TournamentCommand, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        TournamentCommand::Bundle { id, log, out: dir } => {
            if dir.exists()
                && std::fs::read_dir(&dir).map(|mut d| d.next().is_some()).unwrap_or(true)
            {
                bail!("{} exists and is not empty", dir.display());
            }
            let id = parse_id(&id)?;
            ledger::bundle::write(&ledger::store::DirReader::new(&log), &id, &dir)
                .with_context(|| format!("bundle of {}", protocol::hex::encode(&id)))?;
            writeln!(out, "wrote {}", dir.display())?;
        }
        TournamentCommand::Verify { dir, policy } => {
            match ledger::bundle::verify(&dir, &policy.policy()?) {
                Ok(v) => writeln!(
                    out,
                    "{}: ok: {}, {} round(s), {} record(s) re-verified, checkpoint size {}",
                    dir.display(),
                    v.name,
                    v.rounds,
                    v.records,
                    v.checkpoint_size
                )?,
                Err(differences) => {
                    for d in &differences {
                        writeln!(out, "{}: {d}", dir.display())?;
                    }
                    writeln!(out, "{} difference(s)", differences.len())?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
