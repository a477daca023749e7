//! The measured run behind `fogproof loadtest`: drives many concurrent matches against a server
//! ([`crate::loadtest`])
//! and reports what the relay sustained: messages accepted per second, receipt latency, server
//! CPU and memory per match, beside the cost of the relay's own cryptography per message
//! (ed25519 verify + sign, timed on one core in the same run) (docs/LOADTEST.md).
//!
//! The run: the signature bound first (while nothing else runs), then the server (spawned as a
//! child with `--spawn-server`, or the one at `--server`), the matches ramped up, a warm-up,
//! one measurement window (counters and histograms read from the server's `/metrics` at both
//! ends, CPU time from `/proc`), then White resigns everywhere and the matches drain.
//!
//! Several nodes of one host (docs/SERVER.md, several nodes): `--spawn-server --nodes N
//! --database postgres://…` starts N `fogproof serve --cluster` nodes on a fresh database of
//! their own on that PostgreSQL server (dropped after), or `--server` given once per node;
//! each match's two players use one node, the matches spread over the nodes in turn. The
//! figures are the nodes' together (their `/metrics` summed, their CPU and memory added), and
//! with `--nodes` the database server's CPU too (its processes, from `pg_stat_activity`).

//!
//! The CLI parses the flags into [`Options`] and calls [`run`].

use crate::loadtest::{Load, LoadConfig, WindowReport};
use anyhow::{Context, Result, bail};
use protocol::codec::Canonical;
use rules::Variant;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to run and measure (`fogproof loadtest`'s flags, parsed).
#[derive(Clone, Debug)]
pub struct Options {
    /// The `fogproof` binary to spawn the server (`serve`) and umpire (`umpire`) with.
    pub fogproof: PathBuf,
    /// The server's address, once per node of one host; empty: spawn one (or `nodes`).
    pub server: Vec<String>,
    /// With no `server`: run the umpire as its own process beside `serve --external-umpire`.
    pub umpire_process: bool,
    /// With no `server`: start this many `serve --cluster` nodes on the PostgreSQL server
    /// `database` names (a fresh database of their own on it, dropped after the run).
    pub nodes: Option<usize>,
    /// The PostgreSQL server of `nodes`.
    pub database: Option<String>,
    /// The process id of the server at `server`, to measure its CPU and memory.
    pub server_pid: Option<u32>,
    /// Matches played at once.
    pub matches: usize,
    /// The game.
    pub variant: Variant,
    /// The measurement window, seconds.
    pub duration: f64,
    /// Time between every match playing and the window opening, seconds.
    pub warmup: f64,
    /// How long each player waits before each move, milliseconds (0: at once).
    pub move_interval_ms: u64,
    /// Matches started per second while ramping up.
    pub ramp: u32,
    /// The time control of every match: (base, increment), seconds.
    pub clock_seconds: (u64, u64),
    /// Every key and move derives from this number (`None`: drawn).
    pub seed: Option<u64>,
    /// Loopback addresses (127.0.0.2 on) the players' connections start from; 0: the system's
    /// choice.
    pub local_addresses: u8,
    /// Rated matches.
    pub rated: bool,
    /// Matches each pair of players plays at once over its two multiplexed sockets.
    pub matches_per_pair: u16,
    /// After the window: how long the matches have to end once White resigns, seconds.
    pub drain: f64,
    /// How long to time verify + sign on one core, seconds.
    pub bound_seconds: f64,
    /// Keep the spawned server's data directory.
    pub keep_data: bool,
    /// With `--spawn-server`: the tokio worker threads of the spawned server (and of the
    /// umpire process), through `TOKIO_WORKER_THREADS`; `None`: tokio's default, one per core.
    pub server_threads: Option<usize>,
}

/// The server being measured.
struct Server {
    base: String,
    pid: Option<u32>,
    child: Option<(std::process::Child, PathBuf, bool)>,
    /// The umpire running as its own process (`--umpire-process`).
    umpire: Option<std::process::Child>,
    /// Every node's address (several nodes of one host), `base` first; empty: `base` alone.
    nodes: Vec<String>,
    /// The other nodes `--nodes` started (`child` is the first).
    others: Vec<std::process::Child>,
    /// With `--nodes`: the PostgreSQL server's URL and the database made for the run.
    database: Option<(String, String)>,
}

/// The first line `fogproof serve` prints once it listens, naming its address.
const LISTENING: &str = "fogproof server listening on ";

/// Starts `fogproof serve --listen 127.0.0.1:0 --no-bot --data DATA` with `extra` and waits
/// for its address.
fn spawn_serve(
    fogproof: &std::path::Path,
    data: &std::path::Path,
    extra: &[&str],
    log: &std::path::Path,
    threads: Option<usize>,
) -> Result<(std::process::Child, String)> {
    let log_file = std::fs::File::create(log).context("the server's log")?;
    let mut command = std::process::Command::new(fogproof);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--no-bot", "--data"])
        .arg(data)
        .args(extra)
        .env("FOGPROOF_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(log_file);
    with_threads(&mut command, threads);
    let mut child = command.spawn().context("starting fogproof serve")?;
    let stdout = child.stdout.take().context("the server's output")?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    let base = loop {
        let Some(line) = lines.next() else {
            let _ = child.kill();
            bail!("fogproof serve ended before listening (see {})", log.display());
        };
        if let Some(url) = line?.strip_prefix(LISTENING) {
            break url.trim().to_owned();
        }
    };
    // Keep reading its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Ok((child, base))
}

/// Gives a spawned process `threads` tokio worker threads (`TOKIO_WORKER_THREADS`, which
/// tokio's runtime builder reads when the program names no number itself, as `fogproof` does).
fn with_threads(command: &mut std::process::Command, threads: Option<usize>) {
    if let Some(n) = threads {
        command.env("TOKIO_WORKER_THREADS", n.to_string());
    }
}

/// Sends SIGTERM to a child and waits up to `seconds` for it, then kills it.
fn terminate(child: &mut std::process::Child, seconds: u64) {
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Server {
    fn spawn(
        fogproof: &std::path::Path,
        keep: bool,
        umpire_process: bool,
        threads: Option<usize>,
    ) -> Result<Server> {
        let dir = std::env::temp_dir().join(format!("fogproof-loadtest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let extra: &[&str] = if umpire_process { &["--external-umpire"] } else { &[] };
        let (child, base) =
            spawn_serve(fogproof, &dir.join("data"), extra, &dir.join("serve.log"), threads)?;
        let pid = child.id();
        let mut server = Server {
            base,
            pid: Some(pid),
            child: Some((child, dir.clone(), keep)),
            umpire: None,
            nodes: Vec::new(),
            others: Vec::new(),
            database: None,
        };
        if umpire_process {
            // The key `fogproof serve` wrote before it listened, so the umpire is the server's.
            let log = std::fs::File::create(dir.join("umpire.log")).context("the umpire's log")?;
            let mut command = std::process::Command::new(fogproof);
            command
                .args(["umpire", "--server", &server.base, "--name", "umpire", "--key"])
                .arg(dir.join("data").join("umpire.key"))
                .arg("--dir")
                .arg(dir.join("umpire"))
                .env("FOGPROOF_LOG", "warn")
                .stdout(std::process::Stdio::null())
                .stderr(log);
            with_threads(&mut command, threads);
            let umpire = command.spawn().context("starting fogproof umpire")?;
            server.umpire = Some(umpire);
        }
        Ok(server)
    }

    /// `n` cluster nodes on a fresh database on the PostgreSQL server `url` names, sharing
    /// the first node's keys (the host's), the first keeping the ledger.
    fn spawn_nodes(
        fogproof: &std::path::Path,
        keep: bool,
        n: usize,
        url: &str,
        runtime: &tokio::runtime::Runtime,
        threads: Option<usize>,
    ) -> Result<Server> {
        if n == 0 {
            bail!("--nodes must be at least 1");
        }
        let dir = std::env::temp_dir().join(format!("fogproof-loadtest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let name = format!("fogproof_loadtest_{}", std::process::id());
        let db = runtime
            .block_on(server::store::postgres::fresh_database(url, &name))
            .context("a fresh database for the nodes")?;
        let mut server = Server {
            base: String::new(),
            pid: None,
            child: None,
            umpire: None,
            nodes: Vec::new(),
            others: Vec::new(),
            database: Some((url.to_owned(), name)),
        };
        for i in 0..n {
            let data = dir.join(format!("node-{i}"));
            if i > 0 {
                std::fs::create_dir_all(&data)?;
                for key in ["relay.key", "umpire.key", "bot.key"] {
                    let from = dir.join("node-0").join(key);
                    if from.exists() {
                        std::fs::copy(&from, data.join(key))
                            .with_context(|| format!("copying {}", from.display()))?;
                    }
                }
            }
            let mut extra = vec!["--cluster", "--database", db.as_str()];
            if i > 0 {
                extra.push("--no-ledger");
            }
            let log = dir.join(format!("serve-{i}.log"));
            let (child, base) = spawn_serve(fogproof, &data, &extra, &log, threads)?;
            server.nodes.push(base.clone());
            if i == 0 {
                server.base = base;
                server.pid = Some(child.id());
                server.child = Some((child, dir.clone(), keep));
            } else {
                server.others.push(child);
            }
        }
        Ok(server)
    }

    /// Every node's process id.
    fn pids(&self) -> Vec<u32> {
        self.pid.into_iter().chain(self.others.iter().map(std::process::Child::id)).collect()
    }

    /// Every node's address.
    fn bases(&self) -> Vec<String> {
        if self.nodes.is_empty() { vec![self.base.clone()] } else { self.nodes.clone() }
    }

    /// The umpire process's id, if it runs apart.
    fn umpire_pid(&self) -> Option<u32> {
        self.umpire.as_ref().map(std::process::Child::id)
    }

    fn stop(&mut self) {
        if let Some(mut umpire) = self.umpire.take() {
            terminate(&mut umpire, 5);
        }
        for mut node in std::mem::take(&mut self.others) {
            terminate(&mut node, 20);
        }
        let Some((mut child, dir, keep)) = self.child.take() else { return };
        terminate(&mut child, 20);
        if !keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// CPU time of a process (all its threads), seconds.
fn process_cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3, utime 14,
    // stime 15 (proc(5)).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / rustix::param::clock_ticks_per_second() as f64)
}

/// Resident memory now and at its peak, KiB.
fn process_memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// The machine's CPU time, busy and in total, seconds over all cores.
fn machine_cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3)? + v.get(4)?;
    let hz = rustix::param::clock_ticks_per_second() as f64;
    Some(((total - idle) as f64 / hz, total as f64 / hz))
}

/// One reading of everything measured at a window's edge.
struct Snapshot {
    at: Instant,
    metrics: Metrics,
    server_cpu: Option<f64>,
    umpire_cpu: Option<f64>,
    own_cpu: Option<f64>,
    machine: Option<(f64, f64)>,
    /// The database server's processes (`--nodes`).
    database_cpu: Option<f64>,
}

/// The server's Prometheus text, as numbers by series (`name{labels}`).
#[derive(Clone, Debug, Default)]
struct Metrics(BTreeMap<String, f64>);

impl Metrics {
    fn parse(text: &str) -> Metrics {
        let mut out = BTreeMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some((series, value)) = line.rsplit_once(' ')
                && let Ok(v) = value.trim().parse::<f64>()
            {
                out.insert(series.trim().to_owned(), v);
            }
        }
        Metrics(out)
    }

    fn get(&self, series: &str) -> f64 {
        self.0.get(series).copied().unwrap_or(0.0)
    }

    /// A histogram's cumulative buckets `(le, count)`, ascending, `+Inf` last.
    fn buckets(&self, name: &str) -> Vec<(f64, f64)> {
        let prefix = format!("{name}_bucket{{le=\"");
        let mut v: Vec<(f64, f64)> = self
            .0
            .iter()
            .filter_map(|(k, c)| {
                let le = k.strip_prefix(&prefix)?.strip_suffix("\"}")?;
                let le = if le == "+Inf" { f64::INFINITY } else { le.parse().ok()? };
                Some((le, *c))
            })
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    }
}

/// A histogram over a window: the difference of two readings.
struct Window {
    buckets: Vec<(f64, f64)>,
    count: f64,
    sum: f64,
}

impl Window {
    fn between(a: &Metrics, b: &Metrics, name: &str) -> Window {
        let before = a.buckets(name);
        let buckets = b
            .buckets(name)
            .into_iter()
            .map(|(le, c)| {
                let was = before.iter().find(|(l, _)| *l == le).map_or(0.0, |x| x.1);
                (le, c - was)
            })
            .collect();
        Window {
            buckets,
            count: b.get(&format!("{name}_count")) - a.get(&format!("{name}_count")),
            sum: b.get(&format!("{name}_sum")) - a.get(&format!("{name}_sum")),
        }
    }

    /// The upper bound of the bucket holding the `q` quantile, seconds.
    fn quantile(&self, q: f64) -> Option<f64> {
        if self.count <= 0.0 {
            return None;
        }
        let rank = (q * self.count).ceil().max(1.0);
        self.buckets.iter().find(|(_, c)| *c >= rank).map(|(le, _)| *le)
    }

    fn mean(&self) -> Option<f64> {
        (self.count > 0.0).then(|| self.sum / self.count)
    }
}

fn ms(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".into(),
        Some(s) if s.is_infinite() => "> 10 s".into(),
        Some(s) => format!("{:.1} ms", s * 1000.0),
    }
}

/// The relay's cryptography per message ([`Crypto::relay`]), over every message of a
/// self-played Kriegspiel match, timed on the calling thread ([`Crypto::time`]):
/// [`protocol::message::SignedMessage::verify`] of each player's or umpire's message and
/// [`protocol::message::SignedReceipt::sign`] of its receipt. The umpire's is
/// [`UmpireCrypto`].
pub struct Crypto {
    steps: Vec<(protocol::message::SignedMessage, protocol::message::Receipt)>,
    relay: protocol::Identity,
}

impl Crypto {
    /// The relay's verify + sign.
    pub fn relay() -> Result<Crypto> {
        let played = bound_match()?;
        let terms = protocol::terms::MatchTerms::from_canonical(&played.record.terms.terms)
            .context("the terms")?;
        let mut steps = Vec::new();
        for e in &played.record.entries {
            let body = e.message.verify().context("a self-played message")?;
            if body.author != terms.relay {
                let receipt = protocol::message::Receipt::from_canonical(&e.receipt.receipt)
                    .context("a self-played receipt")?;
                steps.push((e.message.clone(), receipt));
            }
        }
        if steps.is_empty() {
            bail!("the self-played match has no message to time");
        }
        Ok(Crypto { steps, relay: protocol::Identity::from_seed(&[9; 32]) })
    }

    /// How many distinct messages one pass times.
    pub fn messages(&self) -> usize {
        self.steps.len()
    }

    /// Does the cryptography of `n` messages (the match's, cycled from message `from`).
    fn run(&self, from: usize, n: usize) -> Result<()> {
        for i in 0..n {
            let (message, receipt) = &self.steps[(from + i) % self.steps.len()];
            std::hint::black_box(message.verify().context("verify")?);
            std::hint::black_box(protocol::message::SignedReceipt::sign(receipt, &self.relay));
        }
        Ok(())
    }

    /// This thread's CPU time per message over `n` messages from message `from`, seconds
    /// (the wall time where the thread's CPU clock cannot be read).
    pub fn time(&self, from: usize, n: usize) -> Result<f64> {
        Ok(cpu_seconds(|| self.run(from, n))? / n.max(1) as f64)
    }

    /// The median of [`Crypto::time`] over slices of one pass each, for `seconds` of wall
    /// time: seconds of CPU per message. A slice a disturbance slowed (another process's
    /// burst, a migration) moves a median less than a mean.
    pub fn median(&self, seconds: f64) -> Result<f64> {
        median_of(seconds, || self.time(0, self.steps.len()))
    }
}

/// The match every bound is timed on: a self-played Kriegspiel match, seed 1.
fn bound_match() -> Result<crate::Selfplay> {
    crate::selfplay_with(crate::SelfplayConfig::new(Variant::Kriegspiel, 1))
        .context("self-playing the Kriegspiel match the bound is timed on")
}

/// This thread's CPU time to run `f`, seconds (the wall time where the thread's CPU clock
/// cannot be read).
fn cpu_seconds(f: impl FnOnce() -> Result<()>) -> Result<f64> {
    let (cpu, started) = (thread_cpu_ns(), Instant::now());
    f()?;
    let wall = started.elapsed().as_secs_f64();
    Ok(match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    })
}

/// The median of `slice()` called again and again for `seconds` of wall time (at least once).
fn median_of(seconds: f64, mut slice: impl FnMut() -> Result<f64>) -> Result<f64> {
    let started = Instant::now();
    let mut slices = Vec::new();
    while slices.is_empty() || started.elapsed().as_secs_f64() < seconds {
        slices.push(slice()?);
    }
    Ok(median(&mut slices))
}

/// The umpire's cryptography over every entry of a self-played Kriegspiel match (seed 1: the
/// players' sealed attempts, the relay's notices, the umpire's own messages coming back), as
/// issue 14 counts it (the umpire's answer cost is bounded by its open, check, seal and sign):
/// - **check**: for every entry not its own, the author's signature
///   ([`protocol::message::SignedMessage::verify_for`]); for every entry, the relay's receipt
///   ([`protocol::message::SignedReceipt::verify_signed_hash`]);
/// - **open**: every message sealed to it ([`protocol::seal::Inbox::open`], one key agreement
///   per channel);
/// - **seal**: every sealed message it writes ([`protocol::seal::Sealer`], one key agreement per
///   channel, from the seal seeds it disclosed at the end), at the padded size of its answers;
/// - **sign**: every message it writes (`SignedMessage::sign` of the same body).
///
/// `fogproof loadtest --umpire-process` compares the umpire process's CPU per message with it;
/// `cargo bench --bench umpire` compares the umpire's machine in-process with it.
pub struct UmpireCrypto {
    /// The match's umpire.
    pub umpire: protocol::Identity,
    /// The umpire's match secret.
    pub secret: [u8; 32],
    /// The match's terms, verified.
    pub agreed: protocol::terms::AgreedTerms,
    /// The record's entries, in order.
    pub entries: Vec<protocol::relay::Entry>,
    /// The entries' bodies, decoded.
    bodies: Vec<protocol::message::MessageBody>,
    /// The umpire's messages in the record, in order, encoded.
    pub written: Vec<Vec<u8>>,
    /// The umpire's seal secret for the match.
    seal: protocol::seal::SealSecret,
    /// The seal seed of each channel the umpire sealed on (from its disclosures).
    seeds: BTreeMap<protocol::Channel, [u8; 32]>,
    /// The players' keys by color.
    colors: protocol::ByColor<protocol::PublicKey>,
}

/// [`UmpireCrypto::pass`]'s time by operation, nanoseconds of this thread's CPU, and how many
/// of each it did.
#[derive(Clone, Copy, Debug, Default)]
pub struct UmpirePhases {
    /// Signatures and receipts checked.
    pub check: u64,
    /// Sealed messages opened.
    pub open: u64,
    /// Messages sealed.
    pub seal: u64,
    /// Messages signed.
    pub sign: u64,
    /// Entries checked (each one's receipt, and its message's signature if not the umpire's).
    pub entries: usize,
    /// Messages the umpire opened.
    pub opened: usize,
    /// Messages the umpire sealed.
    pub sealed: usize,
    /// Messages the umpire signed.
    pub signed: usize,
}

impl UmpireCrypto {
    /// The self-played match (seed 1) and the umpire's keys for it.
    pub fn new() -> Result<UmpireCrypto> {
        use protocol::message::Payload;
        let played = bound_match()?;
        let cast = crate::selfplay::cast(1);
        let agreed = played.record.terms.verify().context("the terms")?;
        let u = agreed.terms.umpire.as_ref().context("the self-played match has no umpire")?;
        let seal = protocol::seal::SealSecret::for_match(&cast.umpire, &u.nonce);
        if seal.public() != u.seal_key {
            bail!("the umpire's seal key is not the one its terms name");
        }
        let mut bodies = Vec::new();
        let mut written = Vec::new();
        let mut seeds = BTreeMap::new();
        for e in &played.record.entries {
            let body = e.message.verify().context("a self-played message")?;
            if body.author == cast.umpire.public() {
                written.push(e.message.to_canonical());
                if let Payload::Disclose(d) = &body.payload {
                    for d in d {
                        seeds.insert(d.channel, d.seal_seed);
                    }
                }
            }
            bodies.push(body);
        }
        Ok(UmpireCrypto {
            umpire: cast.umpire.clone(),
            secret: crate::selfplay::derive(1, "umpire-secret"),
            agreed,
            entries: played.record.entries.clone(),
            bodies,
            written,
            seal,
            seeds,
            colors: played.colors.context("the self-played match's colors")?,
        })
    }

    /// The match's entries (what one pass goes through).
    pub fn messages(&self) -> usize {
        self.entries.len()
    }

    /// The umpire's cryptography for the whole match, once; with `phases`, each operation's
    /// time is added to it (reading the thread's clock around each, which a pass without
    /// `phases` does not pay).
    pub fn pass(&self, mut phases: Option<&mut UmpirePhases>) -> Result<()> {
        use protocol::message::{Payload, SignedMessage, seal_context};
        use protocol::seal::{Inbox, Sealer};
        use std::hint::black_box;
        // The clock is read only with `phases`: `lap` adds the time since `since` to one
        // operation's total and returns the time now (0 without `phases`).
        fn lap(
            phases: &mut Option<&mut UmpirePhases>,
            field: fn(&mut UmpirePhases) -> &mut u64,
            since: u64,
        ) -> u64 {
            let Some(p) = phases.as_deref_mut() else { return 0 };
            let now = thread_cpu_ns().unwrap_or(0);
            *field(p) += now.saturating_sub(since);
            now
        }
        fn count(
            phases: &mut Option<&mut UmpirePhases>,
            field: fn(&mut UmpirePhases) -> &mut usize,
        ) {
            if let Some(p) = phases.as_deref_mut() {
                *field(p) += 1;
            }
        }
        let me = self.umpire.public();
        let relay = self.agreed.terms.relay;
        let id = self.agreed.match_id;
        let mut inbox = Inbox::new(self.seal.clone());
        let mut sealers: BTreeMap<protocol::Channel, Sealer> = BTreeMap::new();
        let padded = protocol::game::sealed_plaintext_bytes(
            Variant::Kriegspiel,
            protocol::game::SealDirection::FromUmpire,
        );
        let to_umpire = protocol::game::sealed_plaintext_bytes(
            Variant::Kriegspiel,
            protocol::game::SealDirection::ToUmpire,
        );
        let plaintext = vec![0u8; padded / 2];
        for (e, body) in self.entries.iter().zip(&self.bodies) {
            let t = if phases.is_some() { thread_cpu_ns().unwrap_or(0) } else { 0 };
            if body.author != me {
                black_box(e.message.verify_for(&id).context("verify")?);
            }
            black_box(
                e.receipt
                    .verify_signed_hash(&relay, &id, e.message.signed_hash())
                    .context("receipt")?,
            );
            let t = lap(&mut phases, |p| &mut p.check, t);
            count(&mut phases, |p| &mut p.entries);
            match (&body.payload, body.author == me) {
                (Payload::Sealed(sealed), false) if body.channel != protocol::Channel::Public => {
                    black_box(
                        inbox
                            .open(&seal_context(body), sealed, to_umpire)
                            .map_err(|e| anyhow::anyhow!("open: {e:?}"))?,
                    );
                    lap(&mut phases, |p| &mut p.open, t);
                    count(&mut phases, |p| &mut p.opened);
                }
                (payload, true) => {
                    if let Payload::Sealed(_) = payload {
                        let context = seal_context(body);
                        let sealer = match sealers.entry(body.channel) {
                            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                            std::collections::btree_map::Entry::Vacant(v) => {
                                v.insert(self.sealer(body.channel, &context)?)
                            }
                        };
                        black_box(
                            sealer
                                .seal(&context, &plaintext, padded, false)
                                .map_err(|e| anyhow::anyhow!("seal: {e:?}"))?,
                        );
                        count(&mut phases, |p| &mut p.sealed);
                    }
                    let t = lap(&mut phases, |p| &mut p.seal, t);
                    black_box(SignedMessage::sign(body, &self.umpire));
                    lap(&mut phases, |p| &mut p.sign, t);
                    count(&mut phases, |p| &mut p.signed);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The umpire's sealer on private `channel` (a key agreement with the channel's player),
    /// from the seal seed it disclosed for it.
    fn sealer(
        &self,
        channel: protocol::Channel,
        context: &protocol::seal::SealContext,
    ) -> Result<protocol::seal::Sealer> {
        let side = channel.side().context("a sealed public message")?;
        let key = self.colors[side];
        let player = self.agreed.terms.players.iter().find(|p| p.key == key);
        let recipient = player.context("the channel's player")?.seal_key;
        let seed = self.seeds.get(&channel).context("no disclosed seal seed for a channel")?;
        protocol::seal::Sealer::new(&recipient, context, seed)
            .map_err(|e| anyhow::anyhow!("sealer: {e:?}"))
    }

    /// The median over passes for `seconds` of wall time of one pass's CPU per entry,
    /// seconds.
    pub fn median(&self, seconds: f64) -> Result<f64> {
        median_of(seconds, || Ok(cpu_seconds(|| self.pass(None))? / self.messages() as f64))
    }
}

/// The median of `values` (sorted in place); 0 for none.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The relay's cryptography timed in short bursts on a thread of its own while the load runs
/// ([`UnderLoad::start`], [`UnderLoad::stop`]): what verify + sign cost on this machine while
/// its cores are busy, where the bound timed before the run had a quiet core. A burst runs on
/// caches its own first messages warmed; the server interleaves other work with each
/// signature, which a burst does not reproduce. A burst of [`UnderLoad::BURST`] messages every
/// [`UnderLoad::EVERY`]: about 2% of one core.
pub struct UnderLoad {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Result<Vec<f64>>>,
}

impl UnderLoad {
    /// Messages per burst.
    pub const BURST: usize = 64;
    /// The time between bursts.
    pub const EVERY: Duration = Duration::from_millis(200);

    /// Starts timing `crypto` in bursts.
    pub fn start(crypto: std::sync::Arc<Crypto>) -> UnderLoad {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut bursts = Vec::new();
            let mut from = 0;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(UnderLoad::EVERY);
                bursts.push(crypto.time(from, UnderLoad::BURST)?);
                from = (from + UnderLoad::BURST) % crypto.messages();
            }
            Ok(bursts)
        });
        UnderLoad { stop, thread }
    }

    /// Stops, and gives the median of the bursts (seconds of CPU per message) and their count.
    pub fn stop(self) -> Result<(f64, usize)> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut bursts =
            self.thread.join().map_err(|_| anyhow::anyhow!("the timing thread panicked"))??;
        Ok((median(&mut bursts), bursts.len()))
    }
}

/// This thread's time on a CPU so far, nanoseconds (`CLOCK_THREAD_CPUTIME_ID`: exact to the
/// call, where `/proc/thread-self/schedstat`, read before stop 24, moves only at the
/// scheduler's ticks and context switches, too coarse for a burst of a few milliseconds).
/// The benches time with it too.
pub fn thread_cpu_ns() -> Option<u64> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(u64::try_from(t.tv_nsec).ok()?)
}

/// Raises this process's open-file limit to its hard limit (each match holds sockets).
fn raise_file_limit() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut l = getrlimit(Resource::Nofile);
    if l.maximum.is_some() {
        l.current = l.maximum;
    }
    let _ = setrlimit(Resource::Nofile, l);
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

/// `fogproof loadtest`: the run, its report written to `out` line by line.
pub fn run(args: &Options, out: &mut impl Write) -> Result<()> {
    let (variant, clock_seconds) = (args.variant, args.clock_seconds);
    if args.matches == 0 {
        bail!("--matches must be at least 1");
    }
    if !(args.duration > 0.0 && args.warmup >= 0.0 && args.drain >= 0.0) {
        bail!("--duration must be positive, --warmup and --drain not negative");
    }
    let files = raise_file_limit();
    let seed = match args.seed {
        Some(s) => s,
        None => u64::from_le_bytes(protocol::keys::random_32()?[..8].try_into()?),
    };
    writeln!(
        out,
        "fogproof loadtest: {} matches of {}, one move per {} ms per match, seed {seed}",
        args.matches,
        variant.id(),
        args.move_interval_ms
    )?;
    if args.matches_per_pair > 1 {
        let pairs = args.matches.div_ceil(usize::from(args.matches_per_pair));
        writeln!(
            out,
            "players: {} keys, {} matches at once per pair (one multiplexed socket per key)",
            2 * pairs,
            args.matches_per_pair
        )?;
    }
    out.flush()?;

    // 1. The signature bound, on one core, before anything else runs.
    let relay_crypto = std::sync::Arc::new(Crypto::relay()?);
    let per_message = relay_crypto.median(args.bound_seconds)?;
    let bound = 1.0 / per_message;
    writeln!(
        out,
        "signature bound: verify + sign {:.1} us of CPU per message on one core = {bound:.0} \
         messages/s (ed25519-dalek verify_strict + sign over the {} messages of a self-played \
         Kriegspiel match; the median of passes over them for {} s)",
        per_message * 1e6,
        relay_crypto.messages(),
        args.bound_seconds
    )?;
    let umpire_crypto = if args.umpire_process {
        let c = UmpireCrypto::new()?;
        let per_entry = c.median(args.bound_seconds)?;
        writeln!(
            out,
            "umpire bound: its receipt checks, signature checks, opens, seals and signatures \
             {:.1} us of CPU per entry of the match on one core (over the {} entries of the \
             same match)",
            per_entry * 1e6,
            c.messages()
        )?;
        Some(per_entry)
    } else {
        None
    };
    out.flush()?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting tokio")?;

    // 2. The server.
    let mut server = match (args.server.first(), args.nodes) {
        (Some(base), _) => Server {
            base: base.trim_end_matches('/').to_owned(),
            pid: args.server_pid,
            child: None,
            umpire: None,
            nodes: if args.server.len() > 1 {
                args.server.iter().map(|b| b.trim_end_matches('/').to_owned()).collect()
            } else {
                Vec::new()
            },
            others: Vec::new(),
            database: None,
        },
        (None, Some(n)) => Server::spawn_nodes(
            &args.fogproof,
            args.keep_data,
            n,
            args.database.as_deref().unwrap_or(""),
            &runtime,
            args.server_threads,
        )?,
        (None, None) => {
            Server::spawn(&args.fogproof, args.keep_data, args.umpire_process, args.server_threads)?
        }
    };
    let host_is_loopback = server
        .base
        .split_once("://")
        .and_then(|(_, r)| r.split(['/', ':']).next())
        .and_then(|h| h.parse::<IpAddr>().ok())
        .is_some_and(|ip| ip.is_loopback() && ip.is_ipv4());
    let sources: Vec<IpAddr> = if host_is_loopback {
        (0..args.local_addresses)
            .map(|i| IpAddr::from([127, 0, 0, 2u8.saturating_add(i)]))
            .collect()
    } else {
        Vec::new()
    };
    writeln!(
        out,
        "server: {}{} (load from {} local addresses, open-file limit {files}){}",
        server.bases().join(" "),
        match (server.nodes.len(), &server.database) {
            (0, _) => server.pid.map_or(String::new(), |p| format!(", pid {p}")),
            (n, Some(_)) =>
                format!(", {n} cluster nodes on one PostgreSQL database, pids {:?}", server.pids()),
            (n, None) => format!(", {n} nodes"),
        },
        sources.len().max(1),
        server.umpire_pid().map_or(" with its umpire service in its process".into(), |p| format!(
            "; the umpire in a process of its own, pid {p}"
        ))
    )?;
    out.flush()?;

    let bounds = Bounds { relay: per_message, umpire: umpire_crypto, relay_crypto };
    let result = runtime.block_on(measure(
        args,
        &server,
        variant,
        clock_seconds,
        seed,
        sources,
        &bounds,
        out,
    ));
    server.stop();
    if let Some((url, name)) = server.database.take()
        && !args.keep_data
        && let Err(e) = runtime.block_on(server::store::postgres::drop_database(&url, &name))
    {
        eprintln!("dropping the run's database {name}: {e}");
    }
    result
}

/// The bounds a run's CPU per message is compared with, timed before the load.
struct Bounds {
    /// The relay's verify + sign, seconds of CPU per message on a quiet core.
    relay: f64,
    /// The umpire's cryptography per entry ([`UmpireCrypto`]; `--umpire-process` only).
    umpire: Option<f64>,
    /// The relay's cryptography, timed again under load.
    relay_crypto: std::sync::Arc<Crypto>,
}

#[allow(clippy::too_many_arguments, reason = "one call from `run`, every argument named there")]
async fn measure(
    args: &Options,
    server: &Server,
    variant: Variant,
    clock_seconds: (u64, u64),
    seed: u64,
    sources: Vec<IpAddr>,
    bounds: &Bounds,
    out: &mut impl Write,
) -> Result<()> {
    // Idle connections dropped before the server's keep-alive limit closes them (the window
    // opens minutes after the first read), so a read never lands on a closing connection.
    let http = reqwest::Client::builder()
        .pool_idle_timeout(client::net::POOL_IDLE)
        .build()
        .context("an HTTP client")?;
    // Every node's `/metrics`, summed series by series (counters and histogram buckets add).
    let metrics_urls: Vec<String> = server.bases().iter().map(|b| format!("{b}/metrics")).collect();
    let read_metrics = || async {
        let mut sum = Metrics::default();
        for metrics_url in &metrics_urls {
            let text = http
                .get(metrics_url)
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .with_context(|| format!("reading {metrics_url}"))?
                .text()
                .await
                .with_context(|| format!("reading {metrics_url}"))?;
            for (k, v) in Metrics::parse(&text).0 {
                *sum.0.entry(k).or_insert(0.0) += v;
            }
        }
        anyhow::Ok(sum)
    };
    // The nodes' CPU added (unknown if any is).
    let pids: Vec<String> = if server.pid.is_some() {
        server.pids().iter().map(u32::to_string).collect()
    } else {
        Vec::new()
    };
    let cpu_of = |pids: &[String]| -> Option<f64> {
        if pids.is_empty() {
            return None;
        }
        pids.iter().map(|p| process_cpu_seconds(p)).sum()
    };
    let umpire_pid = server.umpire_pid();
    let me = std::process::id().to_string();
    let snapshot = |db_pids: Vec<String>| {
        let (read_metrics, pids, me) = (&read_metrics, &pids, &me);
        async move {
            let metrics = read_metrics().await?;
            anyhow::Ok(Snapshot {
                at: Instant::now(),
                metrics,
                server_cpu: cpu_of(pids),
                umpire_cpu: umpire_pid.and_then(|p| process_cpu_seconds(&p.to_string())),
                own_cpu: process_cpu_seconds(me),
                machine: machine_cpu_seconds(),
                // Processes that ended in the window count for nothing (the pools keep theirs).
                database_cpu: (!db_pids.is_empty())
                    .then(|| db_pids.iter().filter_map(|p| process_cpu_seconds(p)).sum()),
            })
        }
    };
    let memory_of = |pids: &[u32]| -> Option<(u64, u64)> {
        let each: Option<Vec<(u64, u64)>> = pids.iter().map(|p| process_memory_kib(*p)).collect();
        each.filter(|e| !e.is_empty())
            .map(|e| e.iter().fold((0, 0), |(a, b), (x, y)| (a + x, b + y)))
    };
    let node_pids = if server.pid.is_some() { server.pids() } else { Vec::new() };
    read_metrics().await?;
    // Several nodes: one leads the ledger once a lease round elected it (a follower's
    // `/api/ledger` is 404); the run waits for it, so that the matches it measures are
    // appended, and names it.
    if server.bases().len() > 1 || server.database.is_some() {
        match wait_for_leader(&http, &server.bases(), Duration::from_millis(LEADER_WAIT_MS)).await {
            Some((i, size)) => {
                writeln!(out, "ledger: node {i} ({}) leads, {size} entries", server.bases()[i])?;
            }
            None if server.child.is_some() => {
                bail!("no node led the ledger within {LEADER_WAIT_MS} ms (LEADER_WAIT_MS)")
            }
            None => writeln!(
                out,
                "ledger: no node answers /api/ledger within {LEADER_WAIT_MS} ms (none keeps one)"
            )?,
        }
        out.flush()?;
    }
    let baseline_memory = memory_of(&node_pids);

    // 3. The matches, ramped up.
    let load = Load::start(LoadConfig {
        server: server.base.clone(),
        nodes: server.nodes.clone(),
        matches: args.matches,
        variant,
        move_interval: Duration::from_millis(args.move_interval_ms),
        clock_seconds,
        ramp_per_second: args.ramp,
        seed,
        sources,
        rated: args.rated,
        matches_per_pair: usize::from(args.matches_per_pair),
    });
    let ramp_started = Instant::now();
    let ramp_limit = Duration::from_secs_f64(args.matches as f64 / f64::from(args.ramp.max(1)))
        + Duration::from_secs(120);
    let mut said = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let p = load.progress();
        if said.elapsed() >= Duration::from_secs(5) {
            said = Instant::now();
            eprintln!(
                "ramp: {} matches playing, {} started, {} told to come back (503), {} errors after \
                 {:.0} s{}",
                p.playing,
                p.started,
                p.busy,
                p.errors,
                ramp_started.elapsed().as_secs_f64(),
                error_kinds(&p.error_kinds, 3)
            );
        }
        if p.playing as usize >= args.matches {
            break;
        }
        if ramp_started.elapsed() > ramp_limit {
            writeln!(
                out,
                "ramp: only {} of {} matches playing after {:.0} s; measuring those",
                p.playing,
                args.matches,
                ramp_started.elapsed().as_secs_f64()
            )?;
            break;
        }
    }
    let ramped = load.progress();
    let ramp_seconds = ramp_started.elapsed().as_secs_f64();
    writeln!(
        out,
        "ramp: {} matches playing after {ramp_seconds:.1} s: {:.0} matches started per second \
         (asked: {} per second), {} starts told to come back (503), {} errors, {} matches \
         given up{}",
        ramped.playing,
        ramped.started as f64 / ramp_seconds.max(1e-3),
        args.ramp,
        ramped.busy,
        ramped.errors,
        ramped.failed,
        error_kinds(&ramped.error_kinds, usize::MAX)
    )?;
    let phases: Vec<String> = crate::loadtest::PHASES
        .iter()
        .zip(&ramped.phases)
        .map(|(name, us)| match us {
            Some(us) => format!("{name} {:.1} ms", *us as f64 / 1000.0),
            None => format!("{name} -"),
        })
        .collect();
    writeln!(out, "start phases (challenger's side, mean): {}", phases.join(", "))?;
    out.flush()?;
    tokio::time::sleep(Duration::from_secs_f64(args.warmup)).await;

    // 4. The window.
    let db_pids: Vec<String> = match &server.database {
        Some((url, _)) => server::store::postgres::server_pids(url)
            .await
            .map(|p| p.iter().map(u32::to_string).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let a = snapshot(db_pids.clone()).await?;
    let at_start = load.progress();
    load.open_window();
    let under_load = UnderLoad::start(bounds.relay_crypto.clone());
    tokio::time::sleep(Duration::from_secs_f64(args.duration)).await;
    let players = load.close_window();
    let b = snapshot(db_pids).await?;
    let at_end = load.progress();
    let memory = memory_of(&node_pids);
    let loaded = under_load.stop()?;
    report(bounds, loaded, &a, &b, &players, &at_start, &at_end, baseline_memory, memory, out)?;
    out.flush()?;

    // 5. The drain.
    let before = load.progress();
    let end = load.stop(Duration::from_secs_f64(args.drain)).await;
    writeln!(
        out,
        "drain: White resigned in {} matches; {} ended within {:.0} s",
        before.playing,
        end.finished - before.finished,
        args.drain
    )?;
    writeln!(
        out,
        "ends: {}",
        end.ends.iter().map(|(why, n)| format!("{n} {why}")).collect::<Vec<_>>().join(", ")
    )?;
    if server.bases().len() > 1 || server.database.is_some() {
        // The leader now (it may have changed during the run), never a follower's 404.
        if let Some((i, size)) = ledger_leader(&http, &server.bases()).await {
            writeln!(out, "ledger: node {i} leads at the end, {size} entries")?;
        }
    }
    writeln!(
        out,
        "errors: {} ({} matches given up, {} messages refused), {} starts told to come back \
         with a 503 (not errors){}{}",
        end.errors,
        end.failed,
        end.refused,
        end.busy,
        error_kinds(&end.error_kinds, usize::MAX),
        if end.first_errors.is_empty() {
            String::new()
        } else {
            format!("; first: {}", end.first_errors.join(" | "))
        }
    )?;
    Ok(())
}

/// How long a measured run of several nodes waits for one of them to lead the ledger (a lease
/// round, docs/SERVER.md, several nodes: a fifth of the lease at most once a node is up).
pub const LEADER_WAIT_MS: u64 = 30_000;

/// The node of `bases` (its index) that leads the ledger now, the one whose `/api/ledger`
/// answers, with the log's size; none when no node's does.
async fn ledger_leader(http: &reqwest::Client, bases: &[String]) -> Option<(usize, u64)> {
    for (i, base) in bases.iter().enumerate() {
        let Ok(r) = http.get(format!("{base}/api/ledger")).send().await else { continue };
        // A follower forwards the log's routes to the leader and says so: not the leader.
        if !r.status().is_success() || r.headers().contains_key(server::http::forward::FORWARDED_TO)
        {
            continue;
        }
        if let Ok(v) = r.json::<serde_json::Value>().await {
            return Some((i, v["size"].as_u64().unwrap_or(0)));
        }
    }
    None
}

/// [`ledger_leader`], asked every 100 ms until one node leads or `wait` has passed.
async fn wait_for_leader(
    http: &reqwest::Client,
    bases: &[String],
    wait: Duration,
) -> Option<(usize, u64)> {
    let until = Instant::now() + wait;
    loop {
        if let Some(found) = ledger_leader(http, bases).await {
            return Some(found);
        }
        if Instant::now() >= until {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `; by kind: N kind, ...`, the `most` most frequent kinds of error first (empty without
/// errors).
fn error_kinds(kinds: &BTreeMap<String, u64>, most: usize) -> String {
    if kinds.is_empty() {
        return String::new();
    }
    let mut sorted: Vec<(&String, &u64)> = kinds.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> =
        sorted.iter().take(most).map(|(kind, n)| format!("{n} \"{kind}\"")).collect();
    let rest = sorted.len().saturating_sub(most);
    format!(
        "; by kind: {}{}",
        shown.join(", "),
        if rest > 0 { format!(" and {rest} more kinds") } else { String::new() }
    )
}

#[allow(clippy::too_many_arguments, reason = "one call from `measure`, every argument named there")]
fn report(
    bounds: &Bounds,
    (loaded, bursts): (f64, usize),
    a: &Snapshot,
    b: &Snapshot,
    players: &WindowReport,
    at_start: &crate::loadtest::Progress,
    at_end: &crate::loadtest::Progress,
    baseline_memory: Option<(u64, u64)>,
    memory: Option<(u64, u64)>,
    out: &mut impl Write,
) -> Result<()> {
    let bound = 1.0 / bounds.relay;
    let seconds = (b.at - a.at).as_secs_f64();
    let delta = |name: &str| b.metrics.get(name) - a.metrics.get(name);
    let accepted = delta("fogproof_messages_accepted_total");
    let rate = accepted / seconds;
    let playing = at_end.playing.max(1) as f64;
    // The server's runtime, as it reports it (summed over the nodes).
    let workers = b.metrics.get("fogproof_runtime_workers");
    if workers > 0.0 {
        writeln!(out, "server runtime: {workers:.0} tokio worker threads")?;
    }
    writeln!(
        out,
        "window: {seconds:.1} s with {} matches playing ({} finished and replaced in it)",
        at_end.playing,
        at_end.finished - at_start.finished
    )?;
    writeln!(
        out,
        "throughput: {rate:.0} messages/s accepted by the relay ({accepted:.0} in the window) = \
         {:.1}% of the signature bound",
        100.0 * rate / bound
    )?;
    let receipts = Window::between(&a.metrics, &b.metrics, "fogproof_receipt_latency_seconds");
    writeln!(
        out,
        "receipt latency (server, arrival to receipt out; bucket bounds): p50 <= {}, p99 <= {}, \
         max <= {}, mean {}",
        ms(receipts.quantile(0.5)),
        ms(receipts.quantile(0.99)),
        ms(receipts.quantile(1.0)),
        ms(receipts.mean())
    )?;
    let q = |p: f64| players.quantile_us(p).map(|us| f64::from(us) / 1e6);
    writeln!(
        out,
        "receipt latency (players, send to own entry back): p50 {}, p99 {}, max {} over {} messages",
        ms(q(0.5)),
        ms(q(0.99)),
        ms(q(1.0)),
        players.latencies_us.len()
    )?;
    let commits = Window::between(&a.metrics, &b.metrics, "fogproof_storage_commit_seconds");
    let entries = delta("fogproof_entries_committed_total");
    writeln!(
        out,
        "storage: {:.0} commits/s of {:.1} entries each, commit mean {}, p99 <= {}",
        commits.count / seconds,
        if commits.count > 0.0 { entries / commits.count } else { 0.0 },
        ms(commits.mean()),
        ms(commits.quantile(0.99))
    )?;
    let cores = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some((y - x) / seconds),
        _ => None,
    };
    let server = cores(a.server_cpu, b.server_cpu);
    let umpire = cores(a.umpire_cpu, b.umpire_cpu);
    let own = cores(a.own_cpu, b.own_cpu);
    let database = cores(a.database_cpu, b.database_cpu);
    let machine = match (a.machine, b.machine) {
        (Some((busy0, total0)), Some((busy1, total1))) => {
            Some(((busy1 - busy0) / seconds, (total1 - total0) / seconds))
        }
        _ => None,
    };
    writeln!(
        out,
        "signature bound under load: verify + sign {:.1} us of CPU per message (the median of \
         {bursts} bursts of {} messages timed on a thread of the load generator in the window; \
         {:.2}x the quiet core's)",
        loaded * 1e6,
        UnderLoad::BURST,
        loaded / bounds.relay
    )?;
    match server {
        Some(s) => writeln!(
            out,
            "server CPU: {s:.2} cores = {:.2} ms per second per match, {:.0} us per accepted \
             message ({:.1}x the relay's verify + sign on a quiet core, {:.1}x under load)",
            1000.0 * s / playing,
            1e6 * s / rate.max(f64::MIN_POSITIVE),
            s / rate.max(f64::MIN_POSITIVE) * bound,
            s / rate.max(f64::MIN_POSITIVE) / loaded.max(f64::MIN_POSITIVE)
        )?,
        None => writeln!(out, "server CPU: unknown (--spawn-server or --server-pid)")?,
    }
    // The throughput per core of CPU used, against the bound on one core: what the relay would
    // sustain per core if it had whole cores of its own at this cost per message. Not a
    // measurement of a machine with more cores.
    let per_core = |out: &mut dyn Write, label: &str, used: f64| {
        let rate_per_core = rate / used.max(f64::MIN_POSITIVE);
        writeln!(
            out,
            "{label}: {used:.2} cores for {rate:.0} messages/s = {rate_per_core:.0} messages/s per \
             core = {:.1}% of the one-core signature bound",
            100.0 * rate_per_core / bound
        )
    };
    if let Some(s) = server {
        per_core(out, "per core of server CPU", s)?;
    }
    if let Some(d) = database {
        writeln!(
            out,
            "database CPU (PostgreSQL's processes): {d:.2} cores = {:.0} us per accepted message{}",
            1e6 * d / rate.max(f64::MIN_POSITIVE),
            server.map_or(String::new(), |s| format!(
                " = {:.0}% of nodes + database ({:.0} us per message together)",
                100.0 * d / (s + d).max(f64::MIN_POSITIVE),
                1e6 * (s + d) / rate.max(f64::MIN_POSITIVE)
            ))
        )?;
    }
    if let Some(u) = umpire {
        let per_message = u / rate.max(f64::MIN_POSITIVE);
        writeln!(
            out,
            "umpire process CPU: {u:.2} cores = {:.0} us per accepted message{}",
            1e6 * per_message,
            bounds.umpire.map_or(String::new(), |c| format!(
                " ({:.2}x its receipt checks, signature checks, opens, seals and signatures on \
                 a quiet core)",
                per_message / c
            ))
        )?;
        if let Some(s) = server {
            per_core(out, "per core of server + umpire CPU", s + u)?;
        }
    }
    match (baseline_memory, memory) {
        (Some((base, _)), Some((rss, peak))) => writeln!(
            out,
            "server memory: {:.0} MiB resident ({:.0} MiB before the matches, peak {:.0} MiB) = \
             {:.0} KiB per match",
            rss as f64 / 1024.0,
            base as f64 / 1024.0,
            peak as f64 / 1024.0,
            rss.saturating_sub(base) as f64 / playing
        )?,
        _ => writeln!(out, "server memory: unknown (--spawn-server or --server-pid)")?,
    }
    writeln!(
        out,
        "load generator CPU: {}; machine: {} of {} cores busy{}",
        own.map_or("-".into(), |c| format!("{c:.2} cores")),
        machine.map_or("-".into(), |m| format!("{:.2}", m.0)),
        machine.map_or("-".into(), |m| format!("{:.0}", m.1)),
        match (machine, server, own) {
            (Some(m), Some(s), Some(o)) => format!(
                " ({:.2} by other processes)",
                (m.0 - s - o - umpire.unwrap_or(0.0) - database.unwrap_or(0.0)).max(0.0)
            ),
            _ => String::new(),
        }
    )?;
    Ok(())
}
