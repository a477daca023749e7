//! `fogproof loadtest`: its flags, parsed here into [`sim::measure::Options`] and run by
//! [`sim::measure::run`] (the load generator is [`sim::loadtest`]): many concurrent matches
//! against a server, and a report of what the relay sustained (docs/LOADTEST.md).

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;

/// Arguments of `fogproof loadtest`.
#[derive(Args)]
pub struct LoadtestArgs {
    /// The server, `http://host:port` (or `--spawn-server`); once per node for several nodes
    /// of one host.
    #[arg(long, required_unless_present = "spawn_server", conflicts_with = "spawn_server")]
    server: Vec<String>,
    /// Start `fogproof serve` as a child process on a fresh data directory, and measure its
    /// CPU and memory.
    #[arg(long)]
    spawn_server: bool,
    /// With `--spawn-server`: run the umpire as its own process (`fogproof serve
    /// --external-umpire` and `fogproof umpire` beside it), so the server's CPU is the relay's
    /// alone (with its storage and sockets); the umpire's CPU is measured apart.
    #[arg(long, requires = "spawn_server", conflicts_with = "nodes")]
    umpire_process: bool,
    /// With `--spawn-server`: start this many `fogproof serve --cluster` nodes on the
    /// PostgreSQL server `--database` names (each with its umpire service in its process).
    #[arg(long, requires_all = ["spawn_server", "database"])]
    nodes: Option<usize>,
    /// The PostgreSQL server of `--nodes` (`postgres://user@host:port/db`): the nodes get a
    /// fresh database of their own on it, dropped after the run.
    #[arg(long, requires = "nodes")]
    database: Option<String>,
    /// The process id of the server at `--server`, to measure its CPU and memory.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Matches played at once.
    #[arg(long, default_value_t = 100)]
    matches: usize,
    /// The game.
    #[arg(long, default_value = "kriegspiel")]
    variant: String,
    /// The measurement window, seconds.
    #[arg(long, default_value_t = 30.0)]
    duration: f64,
    /// Time between every match playing and the window opening, seconds.
    #[arg(long, default_value_t = 5.0)]
    warmup: f64,
    /// How long each player waits before each move (0: at once, the saturation throughput).
    #[arg(long, default_value_t = 1000)]
    move_interval_ms: u64,
    /// Matches started per second while ramping up.
    #[arg(long, default_value_t = 50)]
    ramp: u32,
    /// The time control of every match, `MINUTES+SECONDS`.
    #[arg(long, default_value = "30+0")]
    time: String,
    /// Every key and move derives from this number (default: drawn).
    #[arg(long)]
    seed: Option<u64>,
    /// Loopback addresses (127.0.0.2 on) the players' connections start from, so the
    /// per-address limits see many clients; 0: the system's choice.
    #[arg(long, default_value_t = 250)]
    local_addresses: u8,
    /// Rated matches (they count in the ledger's ratings); casual by default.
    #[arg(long)]
    rated: bool,
    /// Matches each pair of players plays at once over its two multiplexed sockets (a bot's
    /// or a simul player's load); 1: every match has its own two players. Past about 9,000
    /// matches with the default, the server needs more open files than a 20,000 limit gives.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    matches_per_pair: u16,
    /// After the window: how long the matches have to end once White resigns, seconds.
    #[arg(long, default_value_t = 60.0)]
    drain: f64,
    /// How long to time verify + sign on one core, seconds.
    #[arg(long, default_value_t = 2.0)]
    bound_seconds: f64,
    /// Keep the spawned server's data directory.
    #[arg(long)]
    keep_data: bool,
    /// With `--spawn-server`: the tokio worker threads of the spawned server (and of the
    /// umpire process, with `--umpire-process`); tokio's default is one per core. The report
    /// gives the count the server itself reports (`fogproof_runtime_workers` in `/metrics`).
    #[arg(long, requires = "spawn_server", value_parser = clap::value_parser!(u16).range(1..=1024))]
    server_threads: Option<u16>,
}

fn parse_time(text: &str) -> Result<(u64, u64)> {
    let (m, s) = text.split_once('+').with_context(|| format!("--time {text}: MINUTES+SECONDS"))?;
    let minutes: u64 = m.trim().parse().with_context(|| format!("--time {text}: minutes"))?;
    let seconds: u64 = s.trim().parse().with_context(|| format!("--time {text}: seconds"))?;
    Ok((minutes * 60, seconds))
}

/// `fogproof loadtest`: the flags parsed into [`sim::measure::Options`], run by the sim crate
/// (which spawns this binary as the server with `--spawn-server`).
pub fn run(args: LoadtestArgs, out: &mut impl Write) -> Result<()> {
    let options = sim::measure::Options {
        fogproof: std::env::current_exe().context("this binary's path")?,
        server: if args.spawn_server { Vec::new() } else { args.server },
        umpire_process: args.umpire_process,
        nodes: args.nodes,
        database: args.database,
        server_pid: args.server_pid,
        matches: args.matches,
        variant: args.variant.parse()?,
        duration: args.duration,
        warmup: args.warmup,
        move_interval_ms: args.move_interval_ms,
        ramp: args.ramp,
        clock_seconds: parse_time(&args.time)?,
        seed: args.seed,
        local_addresses: args.local_addresses,
        rated: args.rated,
        matches_per_pair: args.matches_per_pair,
        drain: args.drain,
        bound_seconds: args.bound_seconds,
        keep_data: args.keep_data,
        server_threads: args.server_threads.map(usize::from),
    };
    sim::measure::run(&options, out)
}
