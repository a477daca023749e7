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
    /// Sign a tournament definition (JSON, see docs/LEDGER.md) as its organiser, writing the
    /// definition file `fogproof ledger append --definition` publishes.
    Define {
        /// The definition as JSON.
        json: PathBuf,
        /// The organiser's secret key file (a signed-note Ed25519 key; created owner-only with
        /// --name if absent).
        #[arg(long)]
        organiser_key: PathBuf,
        /// The organiser's name, to create the key.
        #[arg(long)]
        name: Option<String>,
        /// Where to write the signed definition (never overwritten).
        #[arg(long)]
        out: PathBuf,
    },
    /// Publish a signed definition on a server (signed in with the organiser's key): its
    /// tournament entry goes into the server's log, and the server runs the tournament.
    Publish {
        /// The signed definition file (`fogproof tournament define --out`).
        definition: PathBuf,
        /// The server, `http://host:port`.
        #[arg(long)]
        server: String,
        /// The organiser's secret key file.
        #[arg(long)]
        organiser_key: PathBuf,
    },
    /// Start round 1 on the server without waiting for every entrant to join (organiser).
    Start {
        /// The tournament id (64 hex digits).
        id: String,
        /// The server, `http://host:port`.
        #[arg(long)]
        server: String,
        /// The organiser's secret key file.
        #[arg(long)]
        organiser_key: PathBuf,
    },
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
        TournamentCommand::Define { json, organiser_key, name, out: file } => {
            let key = if organiser_key.exists() {
                crate::ledger::read_secret_key(&organiser_key)?
            } else {
                let name = name.context("no organiser key yet: give --name to create one")?;
                let k = ledger::note::SignerKey::generate(&name, ledger::note::KeyKind::Ed25519)?;
                crate::ledger::write_secret_key(&organiser_key, &k)?;
                writeln!(out, "wrote {}", organiser_key.display())?;
                k
            };
            let text = std::fs::read_to_string(&json)
                .with_context(|| format!("cannot read {}", json.display()))?;
            let def = definition_from_json(&text).with_context(|| json.display().to_string())?;
            let signed = def.sign(key.signing_key())?;
            let bytes = protocol::codec::Canonical::to_canonical(&signed);
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&file)
                .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
                .with_context(|| {
                    format!("cannot create {} (it is never overwritten)", file.display())
                })?;
            writeln!(out, "tournament {}", protocol::hex::encode(&ledger::entry::sha256(&bytes)))?;
            writeln!(out, "organiser {}", protocol::PublicKey(key.verifier().public()))?;
        }
        TournamentCommand::Publish { definition, server, organiser_key } => {
            let bytes = std::fs::read(&definition)
                .with_context(|| format!("cannot read {}", definition.display()))?;
            let v = organiser_post(
                &server,
                &organiser_key,
                "/api/tournament",
                serde_json::json!({ "definition": protocol::hex::encode(&bytes) }),
            )?;
            writeln!(out, "tournament {}", v["id"].as_str().unwrap_or("?"))?;
            writeln!(
                out,
                "follow it at {server}/api/tournament/{}",
                v["id"].as_str().unwrap_or("?")
            )?;
        }
        TournamentCommand::Start { id, server, organiser_key } => {
            let id = protocol::hex::encode(&parse_id(&id)?);
            organiser_post(
                &server,
                &organiser_key,
                &format!("/api/tournament/{id}/start"),
                serde_json::json!({}),
            )?;
            writeln!(out, "round 1 of {id} starts")?;
        }
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

/// Signs in to `server` with the organiser's key (the Ed25519 key of its signed-note key
/// file) and posts `body` to `path`.
fn organiser_post(
    server: &str,
    key: &std::path::Path,
    path: &str,
    body: serde_json::Value,
) -> Result<serde_json::Value> {
    crate::net::check_server(server)?;
    let key = crate::ledger::read_secret_key(key)?;
    let identity = protocol::Identity::from_seed(&key.signing_key().to_bytes());
    crate::net::runtime()?.block_on(async {
        let session = client::net::Session::sign_in(server, &identity, None)
            .await
            .context("signing in as the organiser")?;
        Ok(session.post(path, &body).await?)
    })
}

/// A definition from its JSON form:
/// `{"name", "variant", "system": {"swiss": ROUNDS} | {"round-robin": "single"|"double"},
///   "players": [{"key": "ed25519:HEX", "name", "rating"?}], "tie_breaks": ["Buchholz", ...],
///   "time_control"}`.
fn definition_from_json(
    text: &str,
) -> Result<ledger::tournament::definition::TournamentDefinition> {
    use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
    let v: serde_json::Value = serde_json::from_str(text)?;
    let s = |field: &str| -> Result<String> {
        v[field]
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("\"{field}\" must be a string"))
    };
    let variant: rules::Variant = s("variant")?.parse()?;
    let system = if let Some(rounds) = v["system"]["swiss"].as_u64() {
        System::Swiss { rounds: u32::try_from(rounds)? }
    } else {
        match v["system"]["round-robin"].as_str() {
            Some("single") => System::RoundRobin { double: false },
            Some("double") => System::RoundRobin { double: true },
            _ => bail!(
                "\"system\" must be {{\"swiss\": ROUNDS}} or {{\"round-robin\": \"single\"|\"double\"}}"
            ),
        }
    };
    let players = v["players"]
        .as_array()
        .context("\"players\" must be a list")?
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let key = p["key"]
                .as_str()
                .and_then(|k| k.strip_prefix("ed25519:"))
                .and_then(protocol::hex::decode_array::<32>);
            Ok(Entrant {
                key: protocol::PublicKey(key.with_context(|| {
                    format!("player {i}: \"key\" must be ed25519:<64 hex digits>")
                })?),
                name: p["name"]
                    .as_str()
                    .with_context(|| format!("player {i}: \"name\" must be a string"))?
                    .to_string(),
                rating: match &p["rating"] {
                    serde_json::Value::Null => None,
                    r => Some(u16::try_from(
                        r.as_u64().with_context(|| format!("player {i}: bad rating"))?,
                    )?),
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let tie_breaks = v["tie_breaks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| match t.as_str() {
                    Some("Buchholz") => Ok(TieBreak::Buchholz),
                    Some("BuchholzCut1") => Ok(TieBreak::BuchholzCut1),
                    Some("MedianBuchholz") => Ok(TieBreak::MedianBuchholz),
                    Some("SonnebornBerger") => Ok(TieBreak::SonnebornBerger),
                    Some("DirectEncounter") => Ok(TieBreak::DirectEncounter),
                    Some("Wins") => Ok(TieBreak::Wins),
                    Some("ProgressiveScore") => Ok(TieBreak::ProgressiveScore),
                    other => bail!("unknown tie-break {other:?}"),
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?
        .unwrap_or_default();
    let def = TournamentDefinition {
        name: s("name")?,
        ruleset: variant.ruleset().to_string(),
        variant,
        system,
        players,
        tie_breaks,
        time_control: s("time_control")?,
    };
    def.validate()?;
    Ok(def)
}
