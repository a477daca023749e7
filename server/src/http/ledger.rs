//! The ledger's HTTP handlers (docs/SERVER.md, the ledger): the log's files at `/ledger/`,
//! `GET /api/ledger`, `GET /api/ledger/proof/{id}` and `GET /api/ratings/{variant}`. The log
//! and its appender are `crate::ledger`.

use crate::error::AppError;
use crate::ledger::{
    Cosignature, EntryTournament, LedgerFile, LedgerInfo, LedgerProof, MatchEntryJson, RatingList,
    RatingRow, classify,
};
use crate::state::{Shared, ledger_of};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a path is not one of the log's files (the answer names it).
fn not_a_log_path(path: &str) -> AppError {
    AppError::new(
        StatusCode::NOT_FOUND,
        format!(
            "/ledger/{}: not a path of the log (checkpoint, tile/<L>/<N>[.p/<W>], \
             tile/entries/<N>[.p/<W>], records/<sha256 hex>)",
            path.chars().take(120).collect::<String>()
        ),
    )
}

/// `GET /ledger/{*path}`: the log's files, read-only, with tlog-tiles' content types and
/// caching.
pub async fn serve_file(shared: &Arc<Shared>, path: &str) -> Result<Response, AppError> {
    let Some(l) = shared.ledger.as_ref() else {
        return Err(AppError::new(StatusCode::NOT_FOUND, "this server keeps no ledger"));
    };
    let kind = classify(path).ok_or_else(|| not_a_log_path(path))?;
    let file: PathBuf = l.dir.join(Path::new(path));
    let max = shared.config.limits.max_ledger_file_bytes;
    let meta = match tokio::fs::metadata(&file).await {
        Ok(m) if m.is_file() => m,
        _ => {
            return Err(AppError::new(
                StatusCode::NOT_FOUND,
                format!("/ledger/{path}: no such file in the log"),
            ));
        }
    };
    if meta.len() > max {
        return Err(AppError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("/ledger/{path} is over {max} bytes (max_ledger_file_bytes)"),
        ));
    }
    let bytes = tokio::fs::read(&file)
        .await
        .map_err(|e| AppError::new(StatusCode::NOT_FOUND, format!("/ledger/{path}: {e}")))?;
    let (content_type, cache) = match kind {
        LedgerFile::Checkpoint => ("text/plain; charset=utf-8", "no-cache"),
        LedgerFile::FullTile | LedgerFile::Record => {
            ("application/octet-stream", "public, max-age=31536000, immutable")
        }
        // Its bytes never change, but it is deleted once the full tile exists: cache briefly.
        LedgerFile::PartialTile => ("application/octet-stream", "public, max-age=60"),
    };
    // Entry bundles are stored gzipped (older logs: plain) and served as stored; tlog-tiles lets
    // a log send `Content-Encoding: gzip` with no negotiation.
    let gzip = path.starts_with("tile/entries/") && bytes.starts_with(&ledger::store::GZIP_MAGIC);
    let mut response = (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
        ],
        bytes,
    )
        .into_response();
    if gzip {
        response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    Ok(response)
}

/// `GET /api/ledger`: the log's size, its checkpoint, its verifier key and the witnesses
/// whose cosignatures the checkpoint carries.
pub async fn info(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
) -> Result<axum::Json<LedgerInfo>, AppError> {
    let l = ledger_of(&shared)?.clone();
    let vkey = l.vkey.clone();
    let cp = l.with(|led| led.checkpoint().clone()).await?;
    let origin = cp.checkpoint.origin.clone();
    let witnesses = cp
        .note
        .signatures
        .iter()
        .filter(|s| s.name != origin)
        .map(|s| Cosignature {
            name: s.name.clone(),
            key_id: s.key_id().map(|k| format!("{k:08x}")),
        })
        .collect();
    Ok(axum::Json(LedgerInfo {
        witness_policy: crate::witnessing::policy_json(&shared.config, &cp),
        size: cp.checkpoint.size,
        root: base64(&cp.checkpoint.root),
        checkpoint: cp.to_text(),
        origin,
        vkey,
        witnesses,
        tiles: "/ledger/",
    }))
}

fn base64(bytes: &[u8]) -> String {
    use base64ct::{Base64, Encoding};
    Base64::encode_string(bytes)
}

/// `GET /api/ledger/proof/{match_id}`: the match's inclusion proof in the latest checkpoint,
/// as a C2SP tlog-proof and in parts, with what its entry says.
pub async fn proof(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<axum::Json<LedgerProof>, AppError> {
    let l = ledger_of(&shared)?.clone();
    let id = crate::error::parse_match_id(&id)?;
    let p = l.with(move |led| led.prove(&id.0)).await?.map_err(|e| match e {
        ledger::service::LedgerProveError::NotFound(_) => AppError::new(
            StatusCode::NOT_FOUND,
            format!(
                "match {} is not in the log (finished matches are appended within seconds)",
                protocol::hex::encode(&id.0)
            ),
        ),
        other => AppError::new(StatusCode::INTERNAL_SERVER_ERROR, other.to_string()),
    })?;
    let decoded = p.extra.as_deref().and_then(|b| ledger::entry::LedgerEntry::from_bytes(b).ok());
    let record = decoded
        .as_ref()
        .and_then(ledger::entry::LedgerEntry::stored_file)
        .map(|sha| format!("/ledger/{}", ledger::store::record_path(&sha)));
    let entry = decoded.as_ref().and_then(|e| e.as_match().cloned());
    let entry_json = entry.map(|m| MatchEntryJson {
        match_id: protocol::hex::encode(&m.match_id),
        record_sha256: protocol::hex::encode(&m.record_sha256),
        variant: m.variant,
        ruleset: m.ruleset,
        white: m.white.to_string(),
        black: m.black.to_string(),
        colors_known: m.colors_known,
        umpire: m.umpire.map(|k| k.to_string()),
        relay: m.relay.to_string(),
        valid: m.verdict == ledger::entry::EntryVerdict::Valid,
        result: m.result.map(|r| r.score()),
        rated: m.rated,
        tournament: m
            .context
            .tournament
            .map(|t| EntryTournament { id: protocol::hex::encode(&t.tournament), round: t.round }),
        finished_at_ms: m.context.finished_at_ms,
        verifier_version: m.verifier_version,
    });
    Ok(axum::Json(LedgerProof {
        index: p.index,
        size: p.checkpoint.checkpoint.size,
        leaf: p.extra.as_deref().map(base64),
        hashes: p.proof.iter().map(|h| base64(h)).collect(),
        checkpoint: p.checkpoint.to_text(),
        entry: entry_json,
        record,
        tlog_proof: p.to_text(),
    }))
}

/// `GET /api/ratings/{variant}`: every rated player of the variant, as the log gives them
/// (Glicko-2, lichess parameters, every match entry in log order), best first.
pub async fn ratings(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    axum::extract::Path(variant): axum::extract::Path<String>,
) -> Result<axum::Json<RatingList>, AppError> {
    let v: rules::Variant = variant.parse().map_err(|_| {
        AppError::new(
            StatusCode::NOT_FOUND,
            format!(
                "unknown variant {:?} (one of {})",
                variant.chars().take(40).collect::<String>(),
                rules::Variant::ALL.iter().map(|v| v.id()).collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    let l = ledger_of(&shared)?.clone();
    let (mut list, size) =
        l.with(move |led| (led.ratings(v), led.checkpoint().checkpoint.size)).await?;
    // Best first; ties by key, so the order is the same everywhere.
    list.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then(a.0.cmp(&b.0)));
    let ratings = list
        .iter()
        .map(|(k, r)| RatingRow {
            key: k.to_string(),
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
            games: r.games,
            provisional: r.provisional,
        })
        .collect();
    Ok(axum::Json(RatingList { variant: v, log_size: size, ratings }))
}
