//! `fogproof witness`: a C2SP tlog-witness on the command line: create its cosigning key,
//! answer `add-checkpoint` requests (standard input to standard output), show what it cosigned.

use crate::ledger::{read_secret_key, write_secret_key};
use anyhow::{Context, Result};
use clap::Subcommand;
use ledger::note::{KeyKind, SignerKey, VerifierKey};
use ledger::witness::Witness;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The witness's subcommands.
#[derive(Subcommand)]
pub enum WitnessCommand {
    /// Create a witness cosigning key (owner-only file, never overwritten); print its vkey.
    Init {
        /// The witness's name, e.g. `witness.example.org/w1`.
        #[arg(long)]
        name: String,
        /// Where to write the secret key.
        #[arg(long)]
        key: PathBuf,
    },
    /// Print the witness's verifier key (what readers configure).
    Key {
        /// The witness's secret key file.
        #[arg(long)]
        key: PathBuf,
    },
    /// Answer an add-checkpoint request read from standard input: print the cosignature line,
    /// or refuse (exit 1) with the HTTP status C2SP tlog-witness gives the refusal.
    AddCheckpoint {
        /// The witness's state directory.
        #[arg(long)]
        state: PathBuf,
        /// The witness's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// A log's verifier key the witness follows. Repeatable.
        #[arg(long, required = true)]
        log: Vec<String>,
    },
    /// Serve the witness over HTTP (C2SP tlog-witness): `POST /add-checkpoint`, and
    /// `GET /checkpoint?origin=O` for the last checkpoint cosigned of a log. Point a log at it
    /// with `fogproof serve --witness http://ADDR=VKEY` (VKEY: `fogproof witness key`).
    Serve {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8090")]
        listen: String,
        /// The witness's state directory.
        #[arg(long)]
        state: PathBuf,
        /// The witness's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// A log's verifier key the witness follows (`log key:` in `fogproof serve`'s
        /// output). Repeatable.
        #[arg(long, required = true)]
        log: Vec<String>,
        /// A relay the witness delivers messages to (`POST /deliver`, docs/PROTOCOL.md,
        /// delivery notices): `URL=ed25519:<relay key hex>` (the relay key: `fogproof serve`'s
        /// output, or `/api/info`). Repeatable; none: no delivery route.
        #[arg(long)]
        relay: Vec<String>,
    },
    /// Print the last checkpoint the witness cosigned for a log.
    Checkpoint {
        /// The witness's state directory.
        #[arg(long)]
        state: PathBuf,
        /// The witness's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// The log's origin.
        #[arg(long)]
        origin: String,
    },
}

/// Runs one `witness` subcommand.
pub fn run(command: WitnessCommand, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        WitnessCommand::Init { name, key } => {
            let k = SignerKey::generate(&name, KeyKind::Cosignature)?;
            write_secret_key(&key, &k)?;
            writeln!(out, "wrote {}", key.display())?;
            writeln!(out, "witness-key: {}", k.verifier())?;
        }
        WitnessCommand::Key { key } => writeln!(out, "{}", read_secret_key(&key)?.verifier())?,
        WitnessCommand::AddCheckpoint { state, key, log } => {
            let logs = log
                .iter()
                .map(|l| VerifierKey::parse(l).context("--log"))
                .collect::<Result<Vec<_>>>()?;
            let witness = Witness::new(&state, read_secret_key(&key)?, logs)?;
            let mut body = Vec::new();
            std::io::stdin()
                .take(ledger::witness::MAX_REQUEST_BYTES as u64 + 1)
                .read_to_end(&mut body)?;
            let now = crate::ledger::now_ms() / 1000;
            match witness.add_checkpoint(&body, now) {
                Ok(line) => write!(out, "{line}")?,
                Err(e) => {
                    eprintln!("fogproof: witness refused (HTTP {}): {e}", e.status());
                    return Ok(ExitCode::from(1));
                }
            }
        }
        WitnessCommand::Serve { listen, state, key, log, relay } => {
            let relays = relay
                .iter()
                .map(|r| server::delivering::RelayEndpoint::parse(r).map_err(anyhow::Error::msg))
                .collect::<Result<Vec<_>>>()
                .context("--relay")?;
            let logs = log
                .iter()
                .map(|l| VerifierKey::parse(l).context("--log"))
                .collect::<Result<Vec<_>>>()?;
            let secret = read_secret_key(&key)?;
            let vkey = secret.verifier().to_string();
            // The delivery notices are signed with the same Ed25519 key under their own domain
            // tag (a control byte first: never a note's text), so the witness policy a host
            // publishes names the key a verifier trusts for notices.
            let delivery_id = protocol::Identity::from_seed(&secret.signing_key().to_bytes());
            let names: Vec<String> = logs.iter().map(|l| l.name().to_owned()).collect();
            let witness = std::sync::Arc::new(Witness::new(&state, secret, logs)?);
            crate::net::init_logs();
            crate::net::runtime()?.block_on(async {
                let listener = tokio::net::TcpListener::bind(&listen)
                    .await
                    .with_context(|| format!("listening on {listen}"))?;
                let addr = listener.local_addr()?;
                writeln!(out, "fogproof witness listening on http://{addr}")?;
                writeln!(out, "witness key: {vkey}")?;
                writeln!(out, "logs:        {}", names.join(", "))?;
                writeln!(out, "point a log at it: fogproof serve --witness http://{addr}={vkey}")?;
                let mut router = server::witnessing::witness_router(witness);
                if !relays.is_empty() {
                    writeln!(out, "delivery key: {}", delivery_id.public())?;
                    writeln!(
                        out,
                        "delivers to: {}",
                        relays.iter().map(|r| r.url.as_str()).collect::<Vec<_>>().join(", ")
                    )?;
                    let d = server::delivering::DeliveryWitness::new(delivery_id, relays);
                    router = router.merge(server::delivering::delivery_router(Arc::new(d)));
                }
                out.flush()?;
                axum::serve(
                    listener,
                    router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
                )
                .with_graceful_shutdown(crate::net::stop_signal())
                .await
                .context("serving")?;
                anyhow::Ok(())
            })?;
        }
        WitnessCommand::Checkpoint { state, key, origin } => {
            let witness = Witness::new(&state, read_secret_key(&key)?, Vec::new())?;
            let cp = witness
                .latest(&origin)?
                .with_context(|| format!("this witness never cosigned {origin}"))?;
            write!(out, "{}", cp.to_text())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
