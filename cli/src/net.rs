//! `fogproof serve`, `fogproof umpire` and `fogproof bot`: the server, an umpire that runs as
//! its own party, and a house bot (docs/SERVER.md).

use anyhow::{Context, Result, bail};
use clap::Args;
use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `fogproof serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Where the database and the server's keys live (created on first start).
    #[arg(long, default_value = "fogproof-data", env = "FOGPROOF_DATA")]
    data: PathBuf,
    /// Keep matches, accounts and the lobby in this PostgreSQL database
    /// (`postgres://user@host:port/db`) instead of SQLite under --data (which still holds the
    /// keys): one server owns a database at a time (docs/SERVER.md, several nodes).
    #[arg(long, value_name = "URL", env = "FOGPROOF_DATABASE")]
    database: Option<String>,
    /// Run as one node of a cluster on --database: any number of nodes share the database,
    /// each live match owned by one node at a time through a lease, taken over by another
    /// node when its owner dies (docs/SERVER.md, several nodes). The nodes share relay.key,
    /// umpire.key and bot.key (copy them into each node's --data).
    #[arg(long, requires = "database")]
    cluster: bool,
    /// Where players reach this node (with --cluster; default http://<--listen>): a socket
    /// opened on another node for a match this one owns is told this URL.
    #[arg(long, value_name = "URL", requires = "cluster")]
    node_url: Option<String>,
    /// How long a match lease lasts unless renewed (with --cluster): a dead node's matches
    /// are taken over within about this.
    #[arg(long, value_name = "MS", default_value_t = server::store::lease::DEFAULT_LEASE_MS,
          value_parser = clap::value_parser!(u64).range(server::store::lease::MIN_LEASE_MS..))]
    lease_ms: u64,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Run no umpire service (umpired games then need a challenge naming an umpire).
    #[arg(long)]
    no_umpire: bool,
    /// Run no house bot.
    #[arg(long)]
    no_bot: bool,
    /// Terminate TLS: the certificate chain (PEM, leaf first); needs --tls-key. Plain HTTP is
    /// then served to this machine only (the umpire service and house bot, a local proxy).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The ledger's log directory (default: `<data>/ledger`), served at /ledger/.
    #[arg(long)]
    ledger: Option<PathBuf>,
    /// The log's signing key (default: `<data>/ledger.key`, created owner-only on first start).
    #[arg(long)]
    ledger_key: Option<PathBuf>,
    /// The log's origin, the name of a key created on first start.
    #[arg(long, default_value = "fogproof.localhost/ledger")]
    ledger_origin: String,
    /// How often finished matches are appended, in ms (one checkpoint per batch).
    #[arg(long, default_value_t = 1000)]
    ledger_interval_ms: u64,
    /// A witness asked to cosign every checkpoint: `URL=VKEY`, URL its submission prefix
    /// (`http://host:port`, as `fogproof witness serve` prints), VKEY its verifier key.
    /// Repeatable; with none the log is unwitnessed (a warning at start says so).
    #[arg(long = "witness", value_name = "URL=VKEY")]
    witnesses: Vec<String>,
    /// How many witness cosignatures each checkpoint should carry (default: every witness
    /// given); /api/ledger and the ledger page warn below it.
    #[arg(long)]
    witness_quorum: Option<usize>,
    /// The bound on one request to a witness, in ms.
    #[arg(long, default_value_t = server::witnessing::DEFAULT_TIMEOUT_MS)]
    witness_timeout_ms: u64,
    /// Keep no ledger (no /ledger/, no ratings, no tournaments).
    #[arg(long)]
    no_ledger: bool,
    /// Time a tournament player has to show (bring its seat and sign the terms) before it
    /// loses the game by forfeit, in ms (`max_tournament_show_wait_ms`).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_tournament_show_wait_ms)]
    tournament_show_ms: u64,
    /// Keep `<data>/umpire.key` as the server's umpire (the default of umpired challenges,
    /// bound by the total limits only) but run no umpire service in this process: run it as its
    /// own process, `fogproof umpire --server URL --key <data>/umpire.key`, on this machine or
    /// another (the load test's `--umpire-process`).
    #[arg(long, conflicts_with = "no_umpire")]
    external_umpire: bool,
    /// Behind a reverse proxy only: count each request under the last `X-Forwarded-For`
    /// address (the one the proxy added) for every per-address limit; without this flag the
    /// header is ignored.
    #[arg(long)]
    trust_forwarded_for: bool,
    /// A URL players reach this server at (`https://play.example`; repeatable): sign-ins name
    /// the origin the player's agent connected to, and the server accepts only these and its
    /// listening address's own. Behind a reverse proxy, set it to the proxy's public URL.
    #[arg(long = "public-url", value_name = "URL")]
    public_urls: Vec<String>,
    /// Open TCP connections in total (`max_tcp_connections`; the open-file limit, raised to
    /// its hard limit at start, may lower it: docs/SERVER.md, limits).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_tcp_connections)]
    max_tcp_connections: usize,
    /// Open TCP connections of one address (`max_tcp_connections_per_address`; loopback
    /// peers are spared).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_tcp_connections_per_address)]
    max_connections_per_address: usize,
    /// HTTP requests per second of one client address, with a burst of the same size
    /// (`max_requests_per_second_per_address`; behind a proxy or a cluster follower, the
    /// address it forwards for: docs/SERVER.md, limits).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_requests_per_second_per_address,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_requests_per_second_per_address: u32,
    /// Apply `--max-connections-per-address` to loopback peers too (they are spared by
    /// default: the umpire service and the house bot connect over loopback).
    #[arg(long)]
    cap_loopback: bool,
    /// Time from a connection to its first complete request head, in ms
    /// (`max_request_head_wait_ms`).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_request_head_wait_ms)]
    request_head_wait_ms: u64,
    /// Time a keep-alive connection may wait for its next request head, in ms
    /// (`max_keep_alive_idle_ms`).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_keep_alive_idle_ms)]
    keep_alive_idle_ms: u64,
    /// Time a write may stay blocked by a peer that reads nothing before the connection is
    /// dropped, in ms (`max_write_stall_ms`).
    #[arg(long, default_value_t = server::Limits::DEFAULT.max_write_stall_ms)]
    write_stall_ms: u64,
    /// On SIGTERM or ctrl-c, time the open connections have to finish before they are
    /// closed and the server exits, in ms (`shutdown_grace_ms`).
    #[arg(long, default_value_t = server::Limits::DEFAULT.shutdown_grace_ms)]
    shutdown_grace_ms: u64,
}

/// Arguments of `fogproof umpire` and `fogproof bot`.
#[derive(Args)]
pub struct AgentArgs {
    /// The server, `https://host[:port]` or `http://host:port`.
    #[arg(long)]
    server: String,
    /// A private CA to trust for an `https://` server (PEM; repeatable), besides the
    /// platform's roots.
    #[arg(long, value_name = "FILE")]
    ca: Vec<PathBuf>,
    /// The key file of this party (`fogproof keys new --out FILE`).
    #[arg(long)]
    key: PathBuf,
    /// Where journals and records are kept (default: beside the key file).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The display name.
    #[arg(long)]
    name: Option<String>,
    /// The server's relay key (`ed25519:…`, as `fogproof serve` prints it): the agent signs in
    /// only to a server presenting it. Without it the agent pins the key it first sees for the
    /// server's origin (`server-keys` in its directory) and refuses, with a warning, a server
    /// that later presents another.
    #[arg(long)]
    server_key: Option<protocol::PublicKey>,
    /// Join this tournament (64 hex digits) and play every game the server pairs this key in
    /// (repeatable; `fogproof bot` only).
    #[arg(long)]
    tournament: Vec<String>,
    /// Umpires and witnesses this player trusts.
    #[command(flatten)]
    trust: crate::trust::TrustArgs,
    /// Play through this UCI engine (e.g. /usr/games/stockfish; `fogproof bot` only): chess,
    /// and every other open game the engine lists in its `UCI_Variant` option; only those games'
    /// challenges are accepted. One engine process per match.
    #[arg(long, value_name = "PATH")]
    engine: Option<PathBuf>,
    /// The engine's thinking time per move, in ms.
    #[arg(long, default_value_t = 200, requires = "engine")]
    engine_movetime_ms: u64,
    /// A delivery witness (`http://host:port` of `fogproof witness serve --relay`): a message
    /// with no receipt within 2 s is offered to it, and its notice kept beside the journals
    /// (docs/PROTOCOL.md, delivery notices).
    #[arg(long, value_name = "URL")]
    delivery_witness: Option<String>,
}

/// The directory of an agent's journals and records: `--dir`, or `<key stem>.fogproof` beside
/// the key file.
pub(crate) fn agent_dir(key: &Path, dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| {
        let stem = key.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        key.with_file_name(format!("{stem}.fogproof"))
    })
}

/// Checks a `--server` address.
pub(crate) fn check_server(server: &str) -> Result<()> {
    if !server.starts_with("http://") && !server.starts_with("https://") {
        bail!("--server {server}: expected https://host[:port] or http://host:port");
    }
    Ok(())
}

/// Trusts the `--ca` files (besides the platform's roots) for every connection this process
/// makes ([`client::tls::add_ca_file`]).
pub(crate) fn trust_ca(files: &[PathBuf]) -> Result<()> {
    for f in files {
        client::tls::add_ca_file(f).map_err(anyhow::Error::msg).context("--ca")?;
    }
    Ok(())
}

/// Reads `path`, or creates it with a fresh identity (owner-only) if it does not exist.
fn key_at(path: &Path, comment: &str) -> Result<Identity> {
    if !path.exists() {
        let id = Identity::generate().context("drawing a key")?;
        client::keyfile::write_new(path, &id, comment)
            .with_context(|| format!("writing {}", path.display()))?;
        return Ok(id);
    }
    Ok(client::keyfile::read(path).with_context(|| format!("reading {}", path.display()))?.0)
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")
}

pub(crate) fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("FOGPROOF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
}

/// Waits for ctrl-c or SIGTERM.
pub(crate) async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn agent_config(
    server: String,
    identity: Identity,
    dir: PathBuf,
    name: Option<String>,
    umpire: bool,
    server_key: Option<protocol::PublicKey>,
) -> AgentConfig {
    AgentConfig {
        server,
        server_key,
        identity,
        name,
        dir,
        umpire,
        accept: if umpire { Accept::Nothing } else { Accept::Everything },
        variants: Vec::new(),
        decider: if umpire { Arc::new(|_| (Decider::None, None)) } else { house_bot() },
    }
}

/// The house bot's decider: a fresh [`client::HouseBot`] per match, from OS randomness.
fn house_bot() -> client::agent::DeciderFactory {
    Arc::new(|_| {
        let seed = protocol::keys::random_32().unwrap_or([7; 32]);
        (Decider::Policy(Box::new(client::HouseBot::new(seed))), None)
    })
}

/// `fogproof serve`.
pub fn serve(args: ServeArgs, out: &mut impl Write) -> Result<()> {
    init_logs();
    std::fs::create_dir_all(&args.data)
        .with_context(|| format!("creating {}", args.data.display()))?;
    let relay = key_at(&args.data.join("relay.key"), "fogproof relay")?;
    let umpire = (!args.no_umpire)
        .then(|| key_at(&args.data.join("umpire.key"), "fogproof umpire service"))
        .transpose()?;
    let bot = (!args.no_bot)
        .then(|| key_at(&args.data.join("bot.key"), "fogproof house bot"))
        .transpose()?;
    // Connections are files: take every one the system allows (the connection cap is derived
    // from what this leaves, with room kept for storage and the ledger).
    let open_files = server::conn::raise_open_file_limit();
    if let Err(e) = &open_files {
        tracing::warn!(error = %e, "could not raise the open-file limit");
    }
    let rt = runtime()?;
    let served = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let mut config = server::Config::new(args.data.join("server"), relay.clone());
        config.database = args.database.clone();
        if args.cluster {
            let in_process = umpire.as_ref().filter(|_| !args.external_umpire).into_iter();
            config.cluster = Some(server::config::ClusterConfig {
                node_url: args.node_url.clone(),
                lease_ms: args.lease_ms,
                local_services: in_process.chain(bot.as_ref()).map(|k| k.public()).collect(),
            });
        }
        config.limits.max_tournament_show_wait_ms = args.tournament_show_ms;
        config.trust_forwarded_for = args.trust_forwarded_for;
        for url in &args.public_urls {
            let Some(origin) = protocol::wire::origin(url) else {
                bail!("--public-url {url}: expected http://host[:port] or https://host[:port]");
            };
            config.public_origins.push(origin);
        }
        config.limits.max_tcp_connections = args.max_tcp_connections;
        config.limits.max_tcp_connections_per_address = args.max_connections_per_address;
        config.limits.spare_loopback_per_address = !args.cap_loopback;
        config.limits.max_requests_per_second_per_address =
            args.max_requests_per_second_per_address;
        config.limits.max_request_head_wait_ms = args.request_head_wait_ms;
        config.limits.max_keep_alive_idle_ms = args.keep_alive_idle_ms;
        config.limits.max_write_stall_ms = args.write_stall_ms;
        config.limits.shutdown_grace_ms = args.shutdown_grace_ms;
        if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
            config.tls = Some(
                server::conn::tls_config(cert, key).map_err(anyhow::Error::msg).context("--tls-cert")?,
            );
        }
        if !args.no_ledger {
            let key_path = args.ledger_key.clone().unwrap_or_else(|| args.data.join("ledger.key"));
            let key = if key_path.exists() {
                crate::ledger::read_secret_key(&key_path)?
            } else {
                let k = ledger::note::SignerKey::generate(
                    &args.ledger_origin,
                    ledger::note::KeyKind::Ed25519,
                )?;
                crate::ledger::write_secret_key(&key_path, &k)?;
                k
            };
            let mut l = server::LedgerConfig::new(
                args.ledger.clone().unwrap_or_else(|| args.data.join("ledger")),
                key,
            );
            l.append_interval_ms = args.ledger_interval_ms;
            let witnesses = args
                .witnesses
                .iter()
                .map(|w| server::witnessing::WitnessEndpoint::parse(w).map_err(anyhow::Error::msg))
                .collect::<Result<Vec<_>>>()
                .context("--witness")?;
            let quorum = args.witness_quorum.unwrap_or(witnesses.len());
            if quorum > witnesses.len() {
                bail!("--witness-quorum {quorum} needs at least {quorum} --witness");
            }
            l.witnesses = server::witnessing::WitnessSettings {
                witnesses,
                quorum,
                timeout_ms: args.witness_timeout_ms,
            };
            config.ledger = Some(l);
        }
        config.default_umpire = umpire.as_ref().map(Identity::public);
        config.house_bot = bot.as_ref().map(Identity::public);
        let running =
            server::start(config, listener, Arc::new(server::clock::TokioClock::system()))
                .await
                .context("starting the server")?;
        let tls = running.shared.config.tls.is_some();
        let base = format!("{}://{}", if tls { "https" } else { "http" }, running.addr);
        // The umpire service and the house bot are parties of their own: they connect to the
        // server like anyone else (over loopback), so nothing in the relay knows they are local.
        // They speak plain HTTP to the server's own address (served to this machine only).
        let mut inner = running.addr;
        if inner.ip().is_unspecified() {
            inner.set_ip(match inner {
                std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let inner = format!("http://{inner}");
        let service = umpire.clone().filter(|_| !args.external_umpire);
        for (identity, is_umpire, dir, name) in
            [(service, true, "umpire", "umpire"), (bot.clone(), false, "bot", "house bot")]
        {
            let Some(identity) = identity else { continue };
            let config = agent_config(
                inner.clone(),
                identity,
                args.data.join(dir),
                Some(name.into()),
                is_umpire,
                Some(relay.public()),
            );
            tokio::spawn(async move {
                match Agent::connect(config).await {
                    Ok(a) => {
                        if let Err(e) = a.run().await {
                            tracing::error!(error = %e, "{name} stopped");
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "{name} could not sign in"),
                }
            });
        }
        writeln!(out, "fogproof server listening on {base}")?;
        writeln!(out, "relay key:  {}", relay.public())?;
        if let Some(u) = &umpire {
            writeln!(out, "umpire key: {}", u.public())?;
            if args.external_umpire {
                writeln!(
                    out,
                    "umpire:     not in this process; run {} umpire --server {base} --key {}",
                    invocation(),
                    args.data.join("umpire.key").display()
                )?;
            }
        }
        if let Some(b) = &bot {
            writeln!(out, "house bot:  {}", b.public())?;
        }
        writeln!(out, "data:       {}", args.data.display())?;
        writeln!(
            out,
            "connections: {} at most, {} per address (open files: {})",
            running.tcp.settings.max_tcp_connections,
            running.tcp.settings.max_per_address,
            open_files.as_ref().map_or_else(|_| "unknown".to_owned(), u64::to_string)
        )?;
        if let Some(l) = running.shared.ledger.as_ref() {
            writeln!(out, "ledger:     {base}/ledger/ ({})", l.dir.display())?;
            writeln!(out, "log key:    {}", l.vkey)?;
            let settings = running.shared.config.ledger.as_ref().map(|c| &c.witnesses);
            match settings {
                Some(w) if !w.witnesses.is_empty() => {
                    for e in &w.witnesses {
                        writeln!(out, "witness:    {} at {}", e.key.name(), e.url)?;
                    }
                    writeln!(out, "quorum:     {} of {}", w.quorum, w.witnesses.len())?;
                }
                _ => {
                    tracing::warn!("the log is unwitnessed: no --witness given");
                    writeln!(
                        out,
                        "WARNING:    the log is unwitnessed (no --witness): readers cannot tell \
                         whether they are all shown the same log; see docs/SERVER.md, witnesses"
                    )?;
                }
            }
        }
        let me = invocation();
        // From this machine: on plain HTTP the loopback address where the server listens on
        // every address (`0.0.0.0`, `[::]`), as its umpire service and house bot connect.
        let here = if tls { &base } else { &inner };
        writeln!(out, "play a house bot from another terminal:")?;
        writeln!(out, "  {me} keys new --out me.key")?;
        writeln!(out, "  {me} play --server {here} --key me.key     # in the browser")?;
        writeln!(
            out,
            "  {me} play --terminal --server {here} --key me.key --variant kriegspiel --time 5+3 --vs bot"
        )?;
        out.flush()?;
        let stopper = running.shared.clone();
        tokio::spawn(async move {
            stop_signal().await;
            let _ = stopper.shutdown.send(true);
        });
        running.wait().await.context("serving")?;
        anyhow::Ok(())
    });
    // Whatever is left (an agent's task, a blocking read) does not hold the exit up.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// `fogproof umpire` (`umpire = true`) and `fogproof bot`.
pub fn agent(args: AgentArgs, umpire: bool) -> Result<()> {
    init_logs();
    let (identity, _) = client::keyfile::read(&args.key)
        .with_context(|| format!("reading {}", args.key.display()))?;
    let dir = agent_dir(&args.key, args.dir);
    check_server(&args.server)?;
    args.trust.check()?;
    trust_ca(&args.ca)?;
    let mut config = agent_config(args.server, identity, dir, args.name, umpire, args.server_key);
    if let Some(path) = &args.engine {
        if umpire {
            bail!("--engine: only `fogproof bot` plays");
        }
        let engine = client::uci::Engine::start(path).context("--engine")?;
        // Every open game the engine plays (chess always; another where its `UCI_Variant`
        // lists the game's id).
        let (variants, missing): (Vec<rules::Variant>, Vec<rules::Variant>) = rules::Variant::ALL
            .into_iter()
            .filter(|v| v.mode() == rules::Mode::Open)
            .partition(|v| engine.plays(*v));
        let shown: Vec<&str> = variants.iter().map(|v| v.id()).collect();
        let not: Vec<String> = missing
            .iter()
            .map(|v| format!(" (not {0}: the engine lists no UCI_Variant {0})", v.id()))
            .collect();
        eprintln!(
            "engine: {} ({}); plays {}{}",
            if engine.name.is_empty() { "unnamed" } else { &engine.name },
            path.display(),
            shown.join(", "),
            not.concat()
        );
        drop(engine);
        config.variants = variants;
        let (path, movetime) = (path.clone(), args.engine_movetime_ms);
        config.decider = Arc::new(move |_| {
            let seed = protocol::keys::random_32().unwrap_or([7; 32]);
            let bot = client::uci::EngineBot::new(path.clone(), movetime, seed);
            (Decider::Policy(Box::new(bot)), None)
        });
    }
    runtime()?.block_on(async {
        let agent = Agent::connect(config).await.context("signing in")?;
        args.trust.apply(&agent)?;
        if let Some(url) = &args.delivery_witness {
            agent.use_delivery_witness(url);
        }
        for t in &args.tournament {
            agent.join_tournament(t).await.with_context(|| format!("joining tournament {t}"))?;
        }
        tokio::select! {
            r = agent.run() => r.context("the agent stopped")?,
            () = stop_signal() => {}
        }
        anyhow::Ok(())
    })
}

/// How a person at this terminal runs this very program: `fogproof` where that name on the
/// `PATH` is this binary (after `cargo install --path cli`), else the binary's own path (after
/// `cargo run`, where `fogproof` is not on the `PATH`), so that every printed hint works when
/// pasted.
pub fn invocation() -> String {
    let Ok(me) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return "fogproof".to_owned();
    };
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .any(|dir| std::fs::canonicalize(dir.join("fogproof")).is_ok_and(|found| found == me))
    });
    if on_path { "fogproof".to_owned() } else { me.display().to_string() }
}
