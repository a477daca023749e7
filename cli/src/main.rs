//! The `fogproof` binary: the server and its parties (serve, umpire, bot), a player's agent
//! (play from the terminal, or the local bot API), verification and records, keys, self-play
//! and the rules tools.
//!
//! Every error is one line on stderr naming the problem, with exit status 2.

mod agent_cmd;
mod keys;
mod ledger;
mod loadtest;
mod net;
mod play;
mod record;
mod referee;
mod selfplay;
mod tournament;
mod trust;
mod verify;
mod witness;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use rules::{Color, Variant};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "fogproof", version, about = "Hidden-information chess that anyone can audit")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Rules tools: legal moves, perft, random setups, a referee on JSON lines.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Identity key files: create one, show its public key and fingerprint.
    #[command(subcommand)]
    Keys(keys::KeysCommand),
    /// Verify match records offline: a summary per record; exit 0 all valid, 1 a fault, 2 unreadable.
    Verify(verify::VerifyArgs),
    /// Match records: show one as JSON, or its game as PGN (whole, or as one side knew it).
    #[command(subcommand)]
    Record(record::RecordCommand),
    /// Run the server: relay, lobby, umpire service and house bot (keys created on first start).
    Serve(net::ServeArgs),
    /// Run an umpire as its own party: it umpires every match whose terms name its key.
    Umpire(net::AgentArgs),
    /// Run a house bot: it accepts challenges addressed to its key and open ones, and plays.
    Bot(net::AgentArgs),
    /// The public log of finished matches: create, append, prove, audit (docs/LEDGER.md).
    #[command(subcommand)]
    Ledger(ledger::LedgerCommand),
    /// Tournaments: define one, publish and start it on a server, write its bundle from a log,
    /// recompute a bundle offline.
    #[command(subcommand)]
    Tournament(tournament::TournamentCommand),
    /// A transparency-log witness: cosign checkpoints that extend the last one it cosigned.
    #[command(subcommand)]
    Witness(witness::WitnessCommand),
    /// Play from the terminal: challenge (--vs bot|KEY|open) or accept, then moves in UCI.
    Play(play::PlayArgs),
    /// Run your agent with the local bot API on loopback, for a bot in any language.
    Agent(agent_cmd::AgentCmdArgs),
    /// Drive many concurrent matches against a server; report messages/s, receipt latency,
    /// server CPU and memory per match, and the relay's throughput against ed25519's bound.
    Loadtest(loadtest::LoadtestArgs),
    /// Play one complete match in-process (two random bots, umpire, relay) and write its record.
    Selfplay {
        /// chess, kriegspiel, sic, intrigue, secretchess6 or espionage.
        #[arg(long)]
        variant: String,
        /// Every key, nonce and choice derives from this number.
        #[arg(long)]
        seed: u64,
        /// Where to write the record (canonical bytes).
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

#[derive(Subcommand)]
enum RulesCommand {
    /// Print the legal moves of a position, UCI-style, sorted, one per line.
    Legal {
        /// chess, kriegspiel, sic, intrigue, secretchess6 or espionage.
        #[arg(long)]
        variant: String,
        /// The position string (R-C4 and the game's own fields).
        #[arg(long)]
        fen: String,
    },
    /// Count the leaf nodes of the legal move tree; the count is the last line.
    Perft {
        /// The variant id.
        #[arg(long)]
        variant: String,
        /// The position string.
        #[arg(long)]
        fen: String,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Also print the count below each root move.
        #[arg(long)]
        divide: bool,
    },
    /// Print one side's random Secret Intelligence Chess setup from a 32-byte seed (R-S2).
    Setup {
        /// Only `sic` has random setups.
        #[arg(long)]
        variant: String,
        /// 64 hex digits.
        #[arg(long)]
        seed: String,
        /// white or black.
        #[arg(long)]
        side: String,
    },
    /// Referee a game on standard input: one JSON line per action, one JSON line per answer.
    Referee {
        /// The variant id.
        #[arg(long)]
        variant: String,
    },
    /// A short demonstration: every game's start, its legal moves and a perft count.
    Demo,
}

fn variant(id: &str) -> Result<Variant> {
    Ok(id.parse::<Variant>()?)
}

fn run(cli: Cli) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Rules(RulesCommand::Legal { variant: v, fen }) => {
            for m in rules::analysis::legal_moves(variant(&v)?, &fen)? {
                writeln!(out, "{m}")?;
            }
        }
        Command::Rules(RulesCommand::Perft { variant: v, fen, depth, divide }) => {
            let v = variant(&v)?;
            if divide {
                for (m, n) in rules::analysis::divide(v, &fen, depth)? {
                    writeln!(out, "{m}: {n}")?;
                }
            }
            writeln!(out, "{}", rules::analysis::perft(v, &fen, depth)?)?;
        }
        Command::Rules(RulesCommand::Setup { variant: v, seed, side }) => {
            if variant(&v)? != Variant::Sic {
                bail!("variant '{v}' has no random setup (only sic has)");
            }
            let seed = parse_seed(&seed)?;
            let side = Color::parse(&side)
                .with_context(|| format!("bad side '{side}': expected white or black"))?;
            writeln!(out, "{}", rules::sic::setup_fen(&seed, side))?;
        }
        Command::Rules(RulesCommand::Referee { variant: v }) => {
            let stdin = std::io::stdin();
            referee::run(variant(&v)?, &mut stdin.lock().lines(), &mut out)?;
        }
        Command::Rules(RulesCommand::Demo) => demo(&mut out)?,
        Command::Keys(command) => keys::run(command, &mut out)?,
        Command::Record(command) => record::run(command, &mut out)?,
        Command::Verify(_) => unreachable!("`verify` is dispatched in main for its exit status"),
        Command::Serve(args) => net::serve(args, &mut out)?,
        Command::Umpire(args) => net::agent(args, true)?,
        Command::Bot(args) => net::agent(args, false)?,
        Command::Play(args) => play::run(args, &mut out)?,
        Command::Agent(args) => agent_cmd::run(args, &mut out)?,
        Command::Loadtest(args) => loadtest::run(args, &mut out)?,
        Command::Selfplay { variant: v, seed, out: path } => {
            selfplay::run(variant(&v)?, seed, &path, &mut out)?;
        }
        Command::Ledger(command) => return ledger::run(command, &mut out),
        Command::Tournament(command) => return tournament::run(command, &mut out),
        Command::Witness(command) => return witness::run(command, &mut out),
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_seed(hex: &str) -> Result<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("bad seed: expected 64 hex digits, got {} characters", hex.len());
    }
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).context("bad seed")?;
    }
    Ok(seed)
}

fn demo(out: &mut impl Write) -> Result<()> {
    for v in Variant::ALL {
        let fen = rules::analysis::start_fen(v);
        let legal = rules::analysis::legal_moves(v, &fen)?;
        let nodes = rules::analysis::perft(v, &fen, 3)?;
        writeln!(out, "{:<13} {:<20} {fen}", v.id(), v.ruleset())?;
        writeln!(out, "{:<13} {} legal moves, perft(3) = {nodes}", "", legal.len())?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Verify(args) = &cli.command {
        return verify::main(args);
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fogproof: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::from(2)
        }
    }
}
