//! `fogproof agent`: a player's agent holding the key, serving the local bot API on loopback
//! (docs/SERVER.md, "The local bot API"). A bot in any language plays through it with plain
//! HTTP; the key, the match secrets and the journals never leave this process.

use crate::net::{agent_dir, check_server, init_logs, runtime, stop_signal, trust_ca};
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use client::agent::{Accept, Agent, AgentConfig};
use client::local::Hub;
use std::io::Write;
use std::path::PathBuf;

/// Which challenges the agent accepts by itself.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum AcceptArg {
    /// None: the local bot accepts (`POST /api/challenge/{id}/accept`).
    None,
    /// Every challenge addressed to this key.
    Addressed,
    /// Every challenge addressed to this key and every open seek.
    All,
}

/// Arguments of `fogproof agent`.
#[derive(Args)]
pub struct AgentCmdArgs {
    /// The server, `https://host[:port]` or `http://host:port`.
    #[arg(long)]
    server: String,
    /// A private CA to trust for an `https://` server (PEM; repeatable), besides the
    /// platform's roots.
    #[arg(long, value_name = "FILE")]
    ca: Vec<PathBuf>,

    /// The player's key file (`fogproof keys new --out FILE`).
    #[arg(long)]
    key: PathBuf,
    /// Where the local bot API listens (loopback only unless --allow-remote).
    #[arg(long, default_value = "127.0.0.1:8765")]
    listen: String,
    /// Where journals and records are kept (default: beside the key file).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The display name, signed by the key and shown beside its fingerprint (1 to 32 letters,
    /// digits, spaces and - _ . '; docs/PROTOCOL.md, display names). Without it the server
    /// keeps the name this key signed last, if any.
    #[arg(long)]
    name: Option<String>,
    /// A tournament to join (its id, 64 hex digits; repeatable): the agent plays every game
    /// the tournament pairs it in. The agent's page and local API join and withdraw too
    /// (`POST /api/tournament/{id}/join`).
    #[arg(long, value_name = "ID")]
    tournament: Vec<String>,
    /// The server's relay key (`ed25519:…`, as `fogproof serve` prints it): the agent signs in
    /// only to a server presenting it. Without it the agent pins the key it first sees for the
    /// server's origin (`server-keys` in its directory) and refuses, with a warning, a server
    /// that later presents another.
    #[arg(long)]
    server_key: Option<protocol::PublicKey>,
    /// Challenges the agent accepts without asking the bot.
    #[arg(long, value_enum, default_value = "none")]
    accept: AcceptArg,
    /// Listen on a non-loopback address: anyone who reaches it plays as this key.
    #[arg(long)]
    allow_remote: bool,
    /// Umpires and witnesses this player trusts.
    #[command(flatten)]
    trust: crate::trust::TrustArgs,
}

/// `fogproof agent`.
pub fn run(args: AgentCmdArgs, out: &mut impl Write) -> Result<()> {
    init_logs();
    check_server(&args.server)?;
    args.trust.check()?;
    trust_ca(&args.ca)?;
    let listen: std::net::SocketAddr = args
        .listen
        .parse()
        .with_context(|| format!("--listen {}: expected IP:PORT", args.listen))?;
    if !listen.ip().is_loopback() && !args.allow_remote {
        bail!(
            "--listen {listen} is not a loopback address: anyone reaching it would play as this \
             key (pass --allow-remote to mean it)"
        );
    }
    let (identity, _) = client::keyfile::read(&args.key)
        .with_context(|| format!("reading {}", args.key.display()))?;
    if let Some(n) = &args.name {
        protocol::names::normalise(n).with_context(|| format!("--name {n:?}"))?;
    }
    let dir = agent_dir(&args.key, args.dir);
    let hub = Hub::new(dir.clone());
    let config = AgentConfig {
        server: args.server,
        server_key: args.server_key,
        identity,
        name: args.name,
        dir,
        umpire: false,
        accept: match args.accept {
            AcceptArg::None => Accept::Nothing,
            AcceptArg::Addressed => Accept::Addressed,
            AcceptArg::All => Accept::Everything,
        },
        variants: Vec::new(),
        decider: hub.factory(),
    };
    runtime()?.block_on(async {
        let local = LocalAgent::start(listen, config, &hub).await?;
        args.trust.apply(&local.agent)?;
        for t in &args.tournament {
            local
                .agent
                .join_tournament(t)
                .await
                .with_context(|| format!("joining tournament {t}"))?;
        }
        let key = local.agent.session().key;
        match local.agent.session().name() {
            Some(n) => writeln!(out, "fogproof agent for {} ({})", n.name, key.fingerprint())?,
            None => writeln!(out, "fogproof agent for {key}")?,
        }
        for t in &args.tournament {
            writeln!(out, "tournament:    {t} (joined)")?;
        }
        writeln!(out, "server:        {}", local.agent.session().base())?;
        let umpires: Vec<String> =
            local.agent.trusted_umpires().iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "umpires:       {}",
            if umpires.is_empty() { "none".into() } else { umpires.join(", ") }
        )?;
        writeln!(out, "local bot API: http://{}", local.addr)?;
        out.flush()?;
        local.serve(hub, args.allow_remote).until_stopped().await
    })
}

/// An agent signed in with its hub attached, and the loopback listener of its local API (the
/// bot API and the pages): what `fogproof agent` and `fogproof play` in the browser share.
pub(crate) struct LocalAgent {
    pub listener: tokio::net::TcpListener,
    pub addr: std::net::SocketAddr,
    pub agent: Agent,
}

impl LocalAgent {
    /// Binds `listen`, signs `config` in and attaches `hub` to the agent (before it runs, so
    /// the hub misses no event).
    pub async fn start(
        listen: std::net::SocketAddr,
        config: AgentConfig,
        hub: &std::sync::Arc<Hub>,
    ) -> Result<LocalAgent> {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let addr = listener.local_addr().context("the listening address")?;
        let agent = Agent::connect(config).await.context("signing in")?;
        hub.attach(agent.clone());
        Ok(LocalAgent { listener, addr, agent })
    }

    /// Runs the agent and serves the local API on the listener.
    pub fn serve(self, hub: std::sync::Arc<Hub>, any_host: bool) -> RunningAgent {
        let runner = self.agent.clone();
        let agent_task = tokio::spawn(async move { runner.run().await });
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(client::local::serve(self.listener, hub, any_host, async {
            let _ = stop_rx.await;
        }));
        RunningAgent { agent_task, stop_tx, server }
    }
}

/// A running agent and its local API server.
pub(crate) struct RunningAgent {
    agent_task: tokio::task::JoinHandle<Result<(), client::agent::AgentError>>,
    stop_tx: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningAgent {
    /// Until the agent stops (its error, if any) or ctrl-c / SIGTERM (Ok).
    pub async fn until_stopped(self) -> Result<()> {
        let RunningAgent { agent_task, stop_tx, server } = self;
        tokio::select! {
            r = agent_task => {
                let _ = stop_tx.send(());
                match r {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => return Err(anyhow::Error::new(e).context("the agent stopped")),
                    Err(e) => bail!("the agent stopped: {e}"),
                }
            }
            () = stop_signal() => {
                let _ = stop_tx.send(());
            }
        }
        // Event and game streams never end by themselves: stop serving them now. Everything the
        // agent promised is already journaled (fsynced as it went).
        server.abort();
        Ok(())
    }
}
