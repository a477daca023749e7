//! Signed inclusion promises (docs/SERVER.md, inclusion promises; format in docs/LEDGER.md): when
//! a match finishes, the server signs with the log's key a promise to include its record in the
//! log within `promise_within_ms` (a [`crate::LedgerConfig`] setting, 10 minutes by default: far
//! longer than the append interval, so a restart or a slow disk does not break it), keeps it in
//! `<data dir>/promises/<match id hex>`, and serves it at `GET /api/match/{id}/promise`.
//!
//! The promise commits to the SHA-256 of the record rebuilt from the store, the same bytes the
//! appender appends. It is issued once: the file is linked into place without replacing one
//! already there, so the finish hook and a request racing it serve the same promise. A match
//! that finished while no promise was issued (a crash between the finish and the hook's task, or
//! a server upgraded with matches already finished) gets its promise at the first request.
//!
//! Resources: one file of about 160 bytes per finished match (a peer cannot name a match that
//! did not finish here: the route answers 404 or 409 for those), written by the server.

use crate::error::AppError;
use crate::state::Shared;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use ledger::promise::{PROMISE_VERSION, Promise};
use std::sync::{Arc, Weak};

/// Counter: promises issued.
pub const PROMISES_ISSUED: &str = "fogproof_ledger_promises_issued_total";
/// Counter: promises the server failed to issue at the finish (issued at the first request).
pub const PROMISE_FAILURES: &str = "fogproof_ledger_promise_failures_total";

/// The directory promises are kept in.
pub fn dir(shared: &Shared) -> std::path::PathBuf {
    shared.config.data_dir.join("promises")
}

/// Installs the finish hook that issues every finished match's promise (with a ledger only).
pub fn install(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    crate::admission::lock(&shared.on_finish).push(Arc::new(move |m| {
        let Some(shared) = weak.upgrade() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            if let Err(e) = issue(&shared, &m.row).await {
                metrics::counter!(PROMISE_FAILURES).increment(1);
                tracing::warn!(error = %e.message, "could not issue an inclusion promise");
            }
        });
    }));
}

/// The promise of a finished match: the one kept, or a new one, signed and kept.
pub async fn issue(
    shared: &Arc<Shared>,
    row: &crate::store::MatchRow,
) -> Result<Vec<u8>, AppError> {
    let Some(settings) = shared.config.ledger.as_ref() else {
        return Err(AppError::new(StatusCode::NOT_FOUND, "this server keeps no ledger"));
    };
    let path = dir(shared).join(crate::store::sqlite::id_text(&row.id));
    if let Ok(bytes) = tokio::fs::read(&path).await {
        return Ok(bytes);
    }
    let record = crate::finished::record_bytes(&*shared.store, row).await?;
    let now = shared.clock.now_ms();
    let promise = Promise {
        version: PROMISE_VERSION,
        origin: settings.key.name().to_string(),
        match_id: row.id.0,
        record_sha256: ledger::entry::sha256(&record),
        promised_at_ms: now,
        include_by_ms: now.saturating_add(settings.promise_within_ms),
    };
    let key = settings.key.clone();
    let dir = dir(shared);
    tokio::task::spawn_blocking(move || keep(&dir, &path, &promise.sign(&key)))
        .await
        .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("promise: {e}")))
}

/// Writes `bytes` durably at `path` unless a promise is already there; returns the one kept.
fn keep(dir: &std::path::Path, path: &std::path::Path, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let tmp =
        dir.join(format!(".tmp-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    let linked = std::fs::hard_link(&tmp, path);
    std::fs::remove_file(&tmp)?;
    let kept = match linked {
        Ok(()) => {
            metrics::counter!(PROMISES_ISSUED).increment(1);
            bytes.to_vec()
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::read(path)?,
        Err(e) => return Err(e),
    };
    std::fs::File::open(dir)?.sync_all()?;
    Ok(kept)
}

/// `GET /api/match/{id}/promise`: the finished match's signed inclusion promise (the promise
/// file's bytes, docs/LEDGER.md).
pub async fn serve(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    crate::state::ledger_of(&shared)?;
    let row = crate::finished::finished_row(&*shared.store, &id).await?;
    let bytes = issue(&shared, &row).await?;
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream")),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=31536000, immutable"),
            ),
        ],
        bytes,
    )
        .into_response())
}
