//! `fogproof agent`: a player's agent holding the key, serving the local bot API on loopback
//! (docs/SERVER.md, "The local bot API"). A bot in any language plays through it with plain
//! HTTP; the key, the match secrets and the journals never leave this process.

use crate::net::{agent_dir, check_server, init_logs, runtime, stop_signal};
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
    /// The server, `http://host:port`.
    #[arg(long)]
    server: String,
    /// The player's key file (`fogproof keys new --out FILE`).
    #[arg(long)]
    key: PathBuf,
    /// Where the local bot API listens (loopback only unless --allow-remote).
    #[arg(long, default_value = "127.0.0.1:8765")]
    listen: String,
    /// Where journals and records are kept (default: beside the key file).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The display name.
    #[arg(long)]
    name: Option<String>,
    /// Challenges the agent accepts without asking the bot.
    #[arg(long, value_enum, default_value = "none")]
    accept: AcceptArg,
    /// Listen on a non-loopback address: anyone who reaches it plays as this key.
    #[arg(long)]
    allow_remote: bool,
}

/// `fogproof agent`.
pub fn run(args: AgentCmdArgs, out: &mut impl Write) -> Result<()> {
    init_logs();
    check_server(&args.server)?;
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
    let dir = agent_dir(&args.key, args.dir);
    let hub = Hub::new(dir.clone());
    let config = AgentConfig {
        server: args.server,
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
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let addr = listener.local_addr().context("the listening address")?;
        let agent = Agent::connect(config).await.context("signing in")?;
        hub.attach(agent.clone());
        writeln!(out, "fogproof agent for {}", agent.session().key)?;
        writeln!(out, "server:        {}", agent.session().base())?;
        writeln!(out, "local bot API: http://{addr}")?;
        out.flush()?;
        let runner = agent.clone();
        let agent_task = tokio::spawn(async move { runner.run().await });
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(client::local::serve(listener, hub, args.allow_remote, async {
            let _ = stop_rx.await;
        }));
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
        anyhow::Ok(())
    })
}
