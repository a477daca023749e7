//! `fogproof play`: a person plays. The agent (in this process) holds the key, journals and
//! plays the protocol.
//!
//! By default it serves the agent's web pages and the local API (`client::local`) on loopback
//! and opens them in the browser (`--no-open`, or no browser found: it prints the address): the
//! lobby, then each game's page with the seat's own view.
//!
//! With `--terminal`, this loop draws the player's own view (the seat's
//! knowledge: `client::view::render`), reads moves in UCI from standard input, and asks for
//! Intrigue's and 6x6's setups and the 6x6 tie-break in a simple text form.
//!
//! Plain lines on stdout, so it can be scripted: whenever something is asked, one line names
//! it (`legal: e2e4 d2d4 …`, `attempts: …` in Kriegspiel, `setup: intrigue`, `setup:
//! secretchess6 …`, `tiebreak: secretchess6 …`), then a prompt line. Journaled matches are
//! resumed first: running it again (or `--resume`) picks them up.

use crate::net::{agent_dir, check_server, init_logs, runtime, trust_ca};
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use client::agent::{Accept, Agent, AgentConfig};
use client::local::{Hub, Snapshot, Status};
use protocol::roles::Ask;
use rules::Color;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Arguments of `fogproof play`.
#[derive(Args)]
pub struct PlayArgs {
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
    /// The game to challenge with: chess, kriegspiel, sic, intrigue, secretchess6, espionage.
    #[arg(long)]
    variant: Option<String>,
    /// The time control: minutes + increment in seconds.
    #[arg(long, default_value = "5+3")]
    time: String,
    /// Whom to challenge: `bot` (the server's house bot), `open` (anyone), or a key.
    #[arg(long)]
    vs: Option<String>,
    /// A game option, `name=value` (repeatable; e.g. `touch-move=true`).
    #[arg(long = "option")]
    options: Vec<String>,
    /// Your colour: white, black or random.
    #[arg(long)]
    color: Option<String>,
    /// A rated game (default: casual, as lichess's challenges; the agent checks that the
    /// terms it signs say the same).
    #[arg(long)]
    rated: bool,
    /// Accept the challenge with this id instead.
    #[arg(long, conflicts_with = "vs")]
    accept: Option<String>,
    /// Only resume journaled matches (running without --vs or --accept does the same).
    #[arg(long)]
    resume: bool,
    /// Play in the terminal instead of the browser.
    #[arg(long)]
    terminal: bool,
    /// Browser mode: print the page's address without opening a browser.
    #[arg(long)]
    no_open: bool,
    /// Browser mode: where the pages and the local API listen (loopback; port 0 picks one).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
}

/// `rated` or `casual`, as a challenge's JSON says.
fn rated_text(c: &Value) -> &'static str {
    if c["rated"].as_bool() == Some(true) { "rated" } else { "casual" }
}

/// Reads `M+S` (minutes, increment seconds).
fn time_control(text: &str) -> Result<(u64, u64)> {
    let (m, s) = text
        .split_once('+')
        .ok_or_else(|| anyhow!("--time {text}: expected minutes+seconds, like 5+3"))?;
    let m: u64 = m.trim().parse().with_context(|| format!("--time {text}: minutes"))?;
    let s: u64 = s.trim().parse().with_context(|| format!("--time {text}: seconds"))?;
    Ok((m * 60, s))
}

/// Standard input, line by line, on a thread of its own (`None` at its end).
fn stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The hub of a person's seats and its agent's configuration: accepting nothing by itself (the
/// person challenges or accepts), every decision asked of the hub.
fn hub_and_config(
    args: &PlayArgs,
    identity: protocol::Identity,
    dir: PathBuf,
) -> (Arc<Hub>, AgentConfig) {
    let hub = Hub::new(dir.clone());
    let config = AgentConfig {
        server: args.server.clone(),
        server_key: args.server_key,
        identity,
        name: args.name.clone(),
        dir,
        umpire: false,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: hub.factory(),
    };
    (hub, config)
}

/// `fogproof play`.
pub fn run(args: PlayArgs, out: &mut impl Write) -> Result<()> {
    if !args.terminal {
        return run_browser(args, out);
    }
    init_logs();
    check_server(&args.server)?;
    trust_ca(&args.ca)?;
    let (identity, _) = client::keyfile::read(&args.key)
        .with_context(|| format!("reading {}", args.key.display()))?;
    let dir = agent_dir(&args.key, args.dir.clone());
    let resumable = client::journal::unfinished(&dir).len();
    if args.resume && resumable == 0 {
        bail!("no journaled match to resume in {}", dir.display());
    }
    let new_game = if args.resume { None } else { args.vs.clone().or(args.accept.clone()) };
    if new_game.is_none() && resumable == 0 {
        bail!("nothing to play: --variant V --vs bot|KEY|open to challenge, or --accept ID");
    }
    let request = match (&args.vs, &args.variant) {
        (Some(_), None) => bail!("--vs needs --variant"),
        (Some(_), Some(v)) => {
            v.parse::<rules::Variant>()?;
            let (limit, increment) = time_control(&args.time)?;
            let mut options = serde_json::Map::new();
            for o in &args.options {
                let (k, v) = o
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--option {o}: expected name=value"))?;
                options.insert(k.to_owned(), json!(v));
            }
            Some(json!({
                "variant": v, "clock_limit": limit, "clock_increment": increment,
                "options": options, "color": args.color, "rated": args.rated,
            }))
        }
        (None, _) => None,
    };
    let (hub, config) = hub_and_config(&args, identity, dir);
    runtime()?.block_on(async {
        let agent = Agent::connect(config).await.context("signing in")?;
        hub.attach(agent.clone());
        let runner = agent.clone();
        tokio::spawn(async move {
            if let Err(e) = runner.run().await {
                tracing::error!(error = %e, "the agent stopped");
            }
        });
        let trusted: Vec<String> =
            agent.trusted_umpires().iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "Umpires you trust (the server's by default): {}",
            if trusted.is_empty() { "none".to_owned() } else { trusted.join(", ") }
        )?;
        let mut input = stdin_lines();
        // Journaled matches first: the agent resumes them as it starts.
        if resumable > 0 {
            writeln!(out, "Resuming {resumable} journaled match(es).")?;
            let ids = wait_for(&hub, Duration::from_secs(30), |h| {
                let live: Vec<String> = h
                    .games()
                    .into_iter()
                    .filter(|(_, s)| !matches!(s, Status::Finished | Status::Stopped))
                    .map(|(id, _)| id)
                    .collect();
                (live.len() >= resumable).then_some(live)
            })
            .await
            .unwrap_or_default();
            for id in ids {
                if !play_game(&hub, &agent, &id, &mut input, out).await? {
                    return anyhow::Ok(());
                }
            }
        }
        let Some(target) = new_game else { return anyhow::Ok(()) };
        let mut events = hub.events().1;
        let challenge_id = if let Some(body) = request {
            let c = hub.challenge(&target, &body).await?;
            let id = c["id"].as_str().unwrap_or_default().to_owned();
            writeln!(
                out,
                "Challenge {id} sent ({} {}, {}, {}, umpire {}); waiting for it to be accepted.",
                c["variant"]["key"].as_str().unwrap_or(""),
                c["timeControl"]["show"].as_str().unwrap_or(""),
                rated_text(&c),
                if target == "open" { "open to anyone" } else { target.as_str() },
                c["umpire"].as_str().unwrap_or("none"),
            )?;
            id
        } else {
            // The agent accepts only a challenge whose umpire its player trusts.
            let c = hub.accept(&target).await?;
            writeln!(
                out,
                "Accepted challenge {target} ({}, umpire {}); waiting for the game to start.",
                rated_text(&c),
                c["umpire"].as_str().unwrap_or("none")
            )?;
            target.clone()
        };
        out.flush()?;
        let id = loop {
            if let Some(m) = hub.match_of_challenge(&challenge_id)
                && hub.snapshot(&m).is_some()
            {
                break m;
            }
            tokio::select! {
                e = events.recv() => {
                    if let Ok(e) = e
                        && matches!(e["type"].as_str(), Some("challengeDeclined" | "challengeCanceled"))
                        && e["challenge"]["id"] == challenge_id.as_str()
                    {
                        let why = e["reason"].as_str().unwrap_or("");
                        bail!("challenge {challenge_id} was {}{}{why}",
                            if e["type"] == "challengeDeclined" { "declined" } else { "canceled" },
                            if why.is_empty() { "" } else { ": " });
                    }
                }
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        };
        play_game(&hub, &agent, &id, &mut input, out).await?;
        anyhow::Ok(())
    })
}

/// The challenge body of `--variant`, `--time`, `--option` and `--color`.
fn challenge_body(args: &PlayArgs) -> Result<Value> {
    let v = args.variant.as_deref().ok_or_else(|| anyhow!("--vs needs --variant"))?;
    v.parse::<rules::Variant>()?;
    let (limit, increment) = time_control(&args.time)?;
    let mut options = serde_json::Map::new();
    for o in &args.options {
        let (k, v) =
            o.split_once('=').ok_or_else(|| anyhow!("--option {o}: expected name=value"))?;
        options.insert(k.to_owned(), json!(v));
    }
    Ok(json!({
        "variant": v, "clock_limit": limit, "clock_increment": increment,
        "options": options, "color": args.color, "rated": args.rated,
    }))
}

/// Opens `url` in the desktop's browser; `false` if no opener could be started.
fn open_browser(url: &str) -> bool {
    let openers: &[&str] =
        if cfg!(target_os = "macos") { &["open"] } else { &["xdg-open", "sensible-browser"] };
    openers.iter().any(|o| {
        std::process::Command::new(o)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok()
    })
}

/// `fogproof play` in the browser: the agent, its pages and local API on loopback, until
/// ctrl-c. `--vs`/`--accept` send the challenge (or accept one) at once; the page shows it.
fn run_browser(args: PlayArgs, out: &mut impl Write) -> Result<()> {
    init_logs();
    check_server(&args.server)?;
    trust_ca(&args.ca)?;
    let listen: std::net::SocketAddr = args
        .listen
        .parse()
        .with_context(|| format!("--listen {}: expected IP:PORT", args.listen))?;
    if !listen.ip().is_loopback() {
        bail!("--listen {listen}: the pages play as your key, so they listen on loopback only");
    }
    let request = match &args.vs {
        Some(_) => Some(challenge_body(&args)?),
        None => None,
    };
    let (identity, _) = client::keyfile::read(&args.key)
        .with_context(|| format!("reading {}", args.key.display()))?;
    let dir = agent_dir(&args.key, args.dir.clone());
    let (hub, config) = hub_and_config(&args, identity, dir);
    runtime()?.block_on(async {
        let local = crate::agent_cmd::LocalAgent::start(listen, config, &hub).await?;
        let url = format!("http://{}/", local.addr);
        writeln!(out, "fogproof play for {}", local.agent.session().key)?;
        writeln!(out, "server: {}", local.agent.session().base())?;
        writeln!(out, "Play in your browser: {url}")?;
        out.flush()?;
        let running = local.serve(hub.clone(), false);
        if let Some(body) = request
            && let Some(target) = &args.vs
        {
            let c = hub.challenge(target, &body).await?;
            writeln!(
                out,
                "Challenge {} sent ({}).",
                c["id"].as_str().unwrap_or(""),
                rated_text(&c)
            )?;
        } else if let Some(id) = &args.accept {
            let c = hub.accept(id).await?;
            writeln!(out, "Accepted challenge {id} ({}).", rated_text(&c))?;
        }
        if !args.no_open && !open_browser(&url) {
            writeln!(out, "(no browser found: open the address above)")?;
        }
        writeln!(
            out,
            "Ctrl-c to stop (a match in play goes on: run fogproof play again to resume it)."
        )?;
        out.flush()?;
        running.until_stopped().await
    })
}

/// Waits (up to `limit`) until `f` finds something in the hub.
async fn wait_for<T>(hub: &Arc<Hub>, limit: Duration, f: impl Fn(&Hub) -> Option<T>) -> Option<T> {
    let mut changes = hub.changes();
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(t) = f(hub) {
            return Some(t);
        }
        match tokio::time::timeout_at(deadline, changes.changed()).await {
            Ok(Ok(())) => {}
            _ => return f(hub),
        }
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn clock_text(ms: u64) -> String {
    format!("{}:{:02}.{}", ms / 60_000, (ms / 1000) % 60, (ms / 100) % 10)
}

const HELP: &str = "\
Commands: a move in UCI from the list shown (e2e4, e7e8q; 6x6: b1d3, b1c4+ powering a knight,
freeze-c2, end-turn), 'resign', 'draw' (offer, or accept the opponent's offer; a move declines
it), 'moves' (the list again), 'board' (the view again), 'help', 'quit' (leave; the match goes
on, run fogproof play again to resume it).";

/// What is asked, as one line a script can read, then the prompt.
fn prompt(snap: &Snapshot, ask: &Ask) -> String {
    match ask {
        Ask::Choose(_) => {
            let name =
                if snap.variant == rules::Variant::Kriegspiel { "attempts" } else { "legal" };
            format!(
                "{name}: {}\nYour move (UCI from the list; or resign, draw, help):",
                snap.offered.join(" ")
            )
        }
        Ask::Setup(setup) => {
            // The example is the asker's own (Intrigue's informer among its own pawns, R-I1).
            let side = snap.view.as_ref().map_or(Color::White, |v| v.side);
            setup.prompt(side)
        }
    }
}

/// The JSON answer to a free-form question, from the line typed.
fn setup_json(ask: &Ask, line: &str) -> Result<Value> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match ask {
        Ask::Setup(setup) => setup
            .form_from_words(&words)
            .map(|form| client::local::setup::form_json(&form))
            .map_err(|e| anyhow!(e)),
        Ask::Choose(_) => bail!("a move is asked"),
    }
}

/// Plays one match to its end; `false` if the person left (`quit`, or the input ended).
async fn play_game(
    hub: &Arc<Hub>,
    agent: &Agent,
    id: &str,
    input: &mut mpsc::UnboundedReceiver<String>,
    out: &mut impl Write,
) -> Result<bool> {
    let mut watch = hub.watch(id).ok_or_else(|| anyhow!("no match {id}"))?;
    let match_id =
        protocol::MatchId(protocol::hex::decode_array(id).ok_or_else(|| anyhow!("match id {id}"))?);
    writeln!(out, "Match {id}")?;
    let mut shown_view = None;
    let mut shown_offer = None;
    let mut shown_refused = None;
    let mut shown_faults = 0;
    let mut shown_claim = None;
    let mut prompted = 0;
    loop {
        let snap = hub.snapshot(id).ok_or_else(|| anyhow!("no match {id}"))?;
        if snap.view.is_some() && snap.view != shown_view {
            if let Some(v) = &snap.view {
                write!(out, "\n{}", client::view::render(v))?;
            }
            shown_view = snap.view.clone();
        }
        let me = snap.view.as_ref().map(|v| v.side);
        if snap.draw_offer != shown_offer {
            match snap.draw_offer {
                Some(c) if Some(c) == me => writeln!(out, "You offer a draw.")?,
                Some(c) => writeln!(
                    out,
                    "{} offers a draw: type 'draw' to accept; a move declines it.",
                    side_name(c)
                )?,
                None => {}
            }
            shown_offer = snap.draw_offer;
        }
        if snap.refused.is_some() && snap.refused != shown_refused {
            writeln!(out, "Refused: {}", snap.refused.as_deref().unwrap_or(""))?;
        }
        shown_refused.clone_from(&snap.refused);
        for f in snap.faults.iter().skip(shown_faults) {
            writeln!(out, "Fault in what was received: {f}")?;
        }
        shown_faults = snap.faults.len();
        if snap.claim.is_some() && snap.claim != shown_claim {
            if let Some(c) = &snap.claim {
                writeln!(
                    out,
                    "Game over: {} ({}). Waiting for the final record.",
                    client::local::score(c),
                    c.reason
                )?;
            }
            shown_claim.clone_from(&snap.claim);
        }
        if snap.status == Status::Finished {
            finish(&snap, out)?;
            return Ok(true);
        }
        if snap.status == Status::Stopped {
            bail!("the match {id} stopped: {}", snap.faults.join("; "));
        }
        if let Some(ask) = &snap.ask
            && snap.asked != prompted
        {
            prompted = snap.asked;
            if let Some((w, b, running)) = &snap.clocks {
                let running = match running.as_deref() {
                    Some("white") => ", White's clock runs",
                    Some("black") => ", Black's clock runs",
                    _ => "",
                };
                writeln!(
                    out,
                    "Clocks: White {} | Black {}{running}",
                    clock_text(*w),
                    clock_text(*b)
                )?;
            }
            writeln!(out, "{}", prompt(&snap, ask))?;
        }
        out.flush()?;
        tokio::select! {
            r = watch.changed() => {
                if r.is_err() {
                    bail!("the match {id} is gone");
                }
            }
            line = input.recv() => {
                let Some(line) = line else {
                    writeln!(out, "Input closed: leaving; the match goes on (run fogproof play again to resume it).")?;
                    return Ok(false);
                };
                let line = line.trim();
                let result = match line {
                    "help" | "?" => { writeln!(out, "{HELP}")?; Ok(()) }
                    "quit" | "exit" => {
                        writeln!(out, "Leaving; the match goes on (run fogproof play again to resume it).")?;
                        return Ok(false);
                    }
                    "board" | "" => { shown_view = None; Ok(()) }
                    "moves" => { prompted = 0; Ok(()) }
                    "resign" => hub.resign(id).map_err(anyhow::Error::from),
                    "draw" => hub.draw(id, true).map_err(anyhow::Error::from),
                    text => match &snap.ask {
                        Some(Ask::Choose(_)) => hub.play(id, text).map_err(anyhow::Error::from),
                        Some(ask) => setup_json(ask, text).and_then(|v| hub.setup(id, &v).map_err(anyhow::Error::from)),
                        None => Err(anyhow!("nothing is asked of you now")),
                    },
                };
                if let Err(e) = result {
                    writeln!(out, "{e}")?;
                    // Ask again.
                    prompted = 0;
                }
            }
            () = tokio::time::sleep(Duration::from_secs(1)) => {
                if let Some(Err(e)) = agent.record(&match_id) {
                    bail!("the match {id} stopped: {e}");
                }
            }
        }
    }
}

/// The end: the result, the record saved, and its verdict from this machine's own verifier.
fn finish(snap: &Snapshot, out: &mut impl Write) -> Result<()> {
    if let Some(c) = &snap.claim {
        writeln!(out, "Result: {} ({})", client::local::score(c), c.reason)?;
    }
    let Some(path) = &snap.record else {
        writeln!(out, "The record could not be saved: {}", snap.faults.join("; "))?;
        return Ok(());
    };
    writeln!(out, "Record: {}", path.display())?;
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    match verifier::verify(&bytes) {
        verifier::Verdict::Valid { result } => {
            writeln!(out, "Verified: valid, {} ({})", result.score(), result.reason.name())?
        }
        verifier::Verdict::Faults(faults) => {
            writeln!(out, "Verified: FAULTS")?;
            for f in faults {
                writeln!(out, "  {}", f.explanation)?;
            }
        }
    }
    Ok(())
}
