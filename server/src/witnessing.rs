//! Witnessing (docs/SERVER.md, witnesses; docs/LEDGER.md, witnesses): the server asks the
//! witnesses it is configured with (`fogproof serve --witness URL=VKEY`) to cosign every new
//! checkpoint of its log, and serves a witness itself (`fogproof witness serve`).
//!
//! **The log side** ([`Witnessing`]): after each appender round, if the latest checkpoint
//! lacks the cosignature of a configured witness, the server sends that witness a C2SP
//! tlog-witness `add-checkpoint` request (`POST <URL>/add-checkpoint`), to all of them at once,
//! each bounded by `timeout_ms`. A `409 Conflict` names the size the witness last cosigned: the
//! server remembers it and asks once more with a consistency proof from that size (as the spec
//! says); a witness that cosigned a *larger* tree than the log holds is never asked to go back
//! (the log was rolled back or forked: logged as an error). The cosignatures that verify under
//! the witness's configured key are added to the checkpoint file (`/ledger/checkpoint`). A
//! witness that is down, slow or refusing never stops appending: the checkpoint goes out with
//! fewer cosignatures, `fogproof_witness_failures_total` counts it, a log line names the
//! witness and why, and `fogproof_ledger_checkpoint_cosignatures` says how many the latest
//! checkpoint carries. A checkpoint still missing a witness is offered to it again every
//! [`RETRY_MS`] while it is the latest.
//!
//! Limits: a witness's answer is read up to [`MAX_RESPONSE_BYTES`]; every request is bounded
//! by `timeout_ms` (default [`DEFAULT_TIMEOUT_MS`]). Witness URLs are `http://` (put a TLS proxy
//! in front of a witness on another network).
//!
//! **The witness side** ([`witness_router`]): `POST /add-checkpoint` answers with
//! `ledger::witness::Witness` (state in a directory, check and update under a file lock), with
//! the statuses C2SP tlog-witness gives (400, 403, 404, 409 with the last size as
//! `text/x.tlog.size`, 422); a body over `ledger::witness::MAX_REQUEST_BYTES` is refused with 413.
//! `GET /checkpoint?origin=O` serves the last checkpoint the witness cosigned for a log.

pub use crate::config::{DEFAULT_TIMEOUT_MS, WitnessEndpoint, WitnessSettings};
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use ledger::checkpoint::SignedCheckpoint;
use ledger::witness::Witness;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counter: a configured witness that did not cosign a checkpoint it was asked to (down, slow,
/// refusing, or an answer that does not verify).
pub const WITNESS_FAILURES: &str = "fogproof_witness_failures_total";
/// Gauge: cosignatures of configured witnesses on the latest checkpoint.
pub const CHECKPOINT_COSIGNATURES: &str = "fogproof_ledger_checkpoint_cosignatures";

/// The largest answer read from a witness, in bytes.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024;
/// How often a checkpoint still lacking a witness's cosignature is offered again, in ms.
pub const RETRY_MS: u64 = 30_000;

/// The configured witnesses whose cosignatures on `cp` verify.
pub fn cosigned_by(settings: &WitnessSettings, cp: &SignedCheckpoint) -> Vec<bool> {
    settings
        .witnesses
        .iter()
        .map(|w| cp.note.verify(std::slice::from_ref(&w.key)).is_ok_and(|v| !v.is_empty()))
        .collect()
}

/// The log whose checkpoints the witnesses cosign, as the witnessing reads and updates it
/// (`crate::ledger::ServerLedger` implements it): the log is given to each round, so this
/// module stays below the ledger that drives it.
pub trait CosignedLog: Send + Sync {
    /// Runs `f` on the log off the async runtime (it may read files and fsync); `Err` says why
    /// it could not run.
    fn with_log<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut ledger::Ledger) -> T + Send + 'static,
    ) -> impl Future<Output = Result<T, String>> + Send;
}

/// The log side: asks the configured witnesses to cosign each new checkpoint.
#[derive(Debug)]
pub struct Witnessing {
    settings: WitnessSettings,
    client: reqwest::Client,
    /// The size each witness last cosigned, as far as this server knows (none: never asked).
    known: Mutex<Vec<Option<u64>>>,
    /// The checkpoint text last offered, and when.
    last: Mutex<Option<(String, Instant)>>,
}

impl Witnessing {
    /// The witnessing of a server configured with `settings`.
    pub fn new(settings: WitnessSettings) -> Witnessing {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(settings.timeout_ms.max(1)))
            .build()
            .unwrap_or_default();
        let n = settings.witnesses.len();
        Witnessing { settings, client, known: Mutex::new(vec![None; n]), last: Mutex::new(None) }
    }

    /// The witnessing of the server's ledger configuration.
    pub fn of(config: &crate::Config) -> Witnessing {
        Witnessing::new(config.ledger.as_ref().map(|l| l.witnesses.clone()).unwrap_or_default())
    }

    /// One round, after the appender's: offers the latest checkpoint to every configured
    /// witness whose cosignature it lacks, and adds the cosignatures that verify. Never fails:
    /// what went wrong is logged and counted.
    pub async fn round(&self, l: &impl CosignedLog) {
        if self.settings.witnesses.is_empty() {
            return;
        }
        let Ok(cp) = l.with_log(|led| led.checkpoint().clone()).await else { return };
        let have = cosigned_by(&self.settings, &cp);
        let missing: Vec<usize> = (0..have.len()).filter(|&i| !have[i]).collect();
        if missing.is_empty() {
            return;
        }
        {
            let mut last = crate::admission::lock(&self.last);
            if let Some((text, at)) = last.as_ref()
                && *text == cp.note.text
                && at.elapsed() < Duration::from_millis(RETRY_MS)
            {
                return;
            }
            *last = Some((cp.note.text.clone(), Instant::now()));
        }
        let asks = missing.iter().map(|&i| self.ask(i, l, &cp));
        let answers = futures_util::future::join_all(asks).await;
        let mut got: Vec<(usize, String)> = Vec::new();
        for (&i, answer) in missing.iter().zip(answers) {
            let w = &self.settings.witnesses[i];
            match answer {
                Ok(lines) => got.push((i, lines)),
                Err(why) => {
                    metrics::counter!(WITNESS_FAILURES).increment(1);
                    tracing::warn!(
                        witness = w.key.name(),
                        url = %w.url,
                        size = cp.checkpoint.size,
                        why,
                        "a witness did not cosign the checkpoint; it goes out without that cosignature"
                    );
                }
            }
        }
        let witnesses = self.settings.witnesses.clone();
        let text = cp.note.text.clone();
        let added = l
            .with_log(move |led| {
                let mut failed = Vec::new();
                // The checkpoint moved on (another append): the next round offers the new one.
                if led.checkpoint().note.text != text {
                    return (cosigned_count(&witnesses, led.checkpoint()), failed);
                }
                for (i, lines) in got {
                    if let Err(e) =
                        led.add_cosignatures(&lines, std::slice::from_ref(&witnesses[i].key))
                    {
                        failed.push((i, e.to_string()));
                    }
                }
                (cosigned_count(&witnesses, led.checkpoint()), failed)
            })
            .await;
        let Ok((count, failed)) = added else { return };
        for (i, why) in failed {
            metrics::counter!(WITNESS_FAILURES).increment(1);
            tracing::warn!(
                witness = self.settings.witnesses[i].key.name(),
                why,
                "a witness's answer is not its cosignature of the checkpoint"
            );
        }
        metrics::gauge!(CHECKPOINT_COSIGNATURES).set(count as f64);
        if count < self.settings.quorum {
            tracing::warn!(
                size = cp.checkpoint.size,
                cosignatures = count,
                quorum = self.settings.quorum,
                "the latest checkpoint has fewer witness cosignatures than the quorum"
            );
        }
    }

    /// Asks witness `i` to cosign `cp`: its answer's lines, or why not.
    async fn ask(
        &self,
        i: usize,
        l: &impl CosignedLog,
        cp: &SignedCheckpoint,
    ) -> Result<String, String> {
        let w = &self.settings.witnesses[i];
        let size = cp.checkpoint.size;
        let mut old = crate::admission::lock(&self.known)[i].unwrap_or(0).min(size);
        // At most one retry: after a 409 with the size the witness reports.
        for _ in 0..2 {
            let want = cp.note.text.clone();
            let body = l
                .with_log(move |led| {
                    if led.checkpoint().note.text != want {
                        return Err("the checkpoint moved on".to_owned());
                    }
                    led.witness_request(old).map_err(|e| e.to_string())
                })
                .await??;
            let response = self
                .client
                .post(format!("{}/add-checkpoint", w.url))
                .body(body)
                .send()
                .await
                .map_err(|e| format!("request: {e}"))?;
            let status = response.status();
            let text = read_limited(response).await?;
            match status.as_u16() {
                200 => {
                    crate::admission::lock(&self.known)[i] = Some(size);
                    return Ok(text);
                }
                409 => {
                    let last: u64 = text.trim_end_matches('\n').parse().map_err(|_| {
                        format!("409 with a body that is not a size: {:?}", excerpt(&text))
                    })?;
                    crate::admission::lock(&self.known)[i] = Some(last);
                    if last > size {
                        tracing::error!(
                            witness = w.key.name(),
                            witness_size = last,
                            log_size = size,
                            "the witness cosigned a larger tree than this log holds: the log was \
                             rolled back or forked"
                        );
                        return Err(format!(
                            "the witness last cosigned size {last}, more than the log's {size}"
                        ));
                    }
                    old = last;
                }
                s => return Err(format!("HTTP {s}: {}", excerpt(&text))),
            }
        }
        Err("409 twice".to_owned())
    }
}

fn cosigned_count(witnesses: &[WitnessEndpoint], cp: &SignedCheckpoint) -> usize {
    witnesses
        .iter()
        .filter(|w| cp.note.verify(std::slice::from_ref(&w.key)).is_ok_and(|v| !v.is_empty()))
        .count()
}

fn excerpt(text: &str) -> String {
    text.chars().take(200).collect::<String>().trim_end().to_owned()
}

/// Reads an answer up to [`MAX_RESPONSE_BYTES`].
async fn read_limited(mut response: reqwest::Response) -> Result<String, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading: {e}"))? {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!("the answer is over {MAX_RESPONSE_BYTES} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())
}

/// What `/api/ledger` says of the witnesses: each configured witness (name, key, URL, whether
/// its cosignature on the checkpoint verifies), the quorum, how many verify, and a warning when
/// fewer than the quorum (or none at all) do.
pub fn policy_json(config: &crate::Config, cp: &SignedCheckpoint) -> WitnessPolicy {
    let settings = config.ledger.as_ref().map(|l| l.witnesses.clone()).unwrap_or_default();
    let have = cosigned_by(&settings, cp);
    let count = have.iter().filter(|&&b| b).count();
    let warning = if settings.witnesses.is_empty() {
        Some("this log runs no witness: nothing stops it from showing different readers different logs".to_owned())
    } else if count < settings.quorum.max(1) {
        Some(format!(
            "the latest checkpoint has {count} witness cosignature(s); the server's quorum is {}",
            settings.quorum.max(1)
        ))
    } else {
        None
    };
    WitnessPolicy {
        quorum: settings.quorum,
        cosignatures: count,
        witnesses: settings
            .witnesses
            .iter()
            .zip(&have)
            .map(|(w, &c)| PolicyWitness {
                name: w.key.name().to_owned(),
                vkey: w.key.to_string(),
                url: w.url.clone(),
                cosigned: c,
            })
            .collect(),
        warning,
    }
}

/// The witness policy `GET /api/ledger` reports ([`policy_json`]).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct WitnessPolicy {
    /// How many cosignatures the server wants.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub quorum: usize,
    /// How many valid ones the latest checkpoint carries.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cosignatures: usize,
    /// The configured witnesses.
    pub witnesses: Vec<PolicyWitness>,
    /// What a reader should be told, if the checkpoint falls short.
    pub warning: Option<String>,
}

/// A configured witness.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct PolicyWitness {
    /// Its name.
    pub name: String,
    /// Its verifier key.
    pub vkey: String,
    /// Where it is asked.
    pub url: String,
    /// Whether the latest checkpoint carries its valid cosignature.
    pub cosigned: bool,
}

/// The witness side's state.
#[derive(Clone)]
struct WitnessApp {
    witness: Arc<Witness>,
}

/// The HTTP witness: `POST /add-checkpoint` (C2SP tlog-witness) and `GET /checkpoint?origin=`.
pub fn witness_router(witness: Arc<Witness>) -> axum::Router {
    axum::Router::new()
        .route("/add-checkpoint", axum::routing::post(add_checkpoint))
        .route("/checkpoint", axum::routing::get(latest))
        .layer(DefaultBodyLimit::max(ledger::witness::MAX_REQUEST_BYTES))
        .with_state(WitnessApp { witness })
}

fn text_response(status: StatusCode, content_type: &'static str, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response()
}

async fn add_checkpoint(State(app): State<WitnessApp>, body: axum::body::Bytes) -> Response {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let w = app.witness.clone();
    let result = tokio::task::spawn_blocking(move || w.add_checkpoint(&body, now)).await;
    match result {
        Ok(Ok(lines)) => text_response(StatusCode::OK, "text/plain; charset=utf-8", lines),
        Ok(Err(ledger::witness::WitnessError::Conflict { last, .. })) => {
            text_response(StatusCode::CONFLICT, "text/x.tlog.size", format!("{last}\n"))
        }
        Ok(Err(e)) => {
            let status =
                StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            if status.is_server_error() {
                tracing::error!(error = %e, "witness state");
            }
            text_response(status, "text/plain; charset=utf-8", format!("{e}\n"))
        }
        Err(e) => text_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            format!("witness task: {e}\n"),
        ),
    }
}

#[derive(serde::Deserialize)]
struct OriginQuery {
    origin: String,
}

async fn latest(State(app): State<WitnessApp>, Query(q): Query<OriginQuery>) -> Response {
    let w = app.witness.clone();
    match tokio::task::spawn_blocking(move || w.latest(&q.origin)).await {
        Ok(Ok(Some(cp))) => {
            text_response(StatusCode::OK, "text/plain; charset=utf-8", cp.to_text())
        }
        Ok(Ok(None)) => text_response(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "this witness never cosigned that log\n".into(),
        ),
        Ok(Err(e)) => text_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            format!("{e}\n"),
        ),
        Err(e) => text_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            format!("witness task: {e}\n"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witness_specs_parse_url_and_key() {
        let k = ledger::note::SignerKey::from_seed(
            "w.example/1",
            ledger::note::KeyKind::Cosignature,
            [9; 32],
        )
        .unwrap();
        let vkey = k.verifier().to_string();
        let e = WitnessEndpoint::parse(&format!("http://127.0.0.1:9/w/={vkey}")).unwrap();
        assert_eq!(e.url, "http://127.0.0.1:9/w");
        assert_eq!(e.key.to_string(), vkey);
        assert!(WitnessEndpoint::parse(&format!("ftp://x={vkey}")).is_err());
        assert!(WitnessEndpoint::parse("http://x=notakey").is_err());
        let log = ledger::note::SignerKey::from_seed(
            "log.example",
            ledger::note::KeyKind::Ed25519,
            [9; 32],
        )
        .unwrap();
        assert!(WitnessEndpoint::parse(&format!("http://x={}", log.verifier())).is_err());
    }
}
