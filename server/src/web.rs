//! The host's web site (docs/SERVER.md, section 15): the pages of the `fogproof-web` crate's
//! embedded bundle. `/assets/{path}` serves a bundle file; every other `GET` outside the APIs
//! (`/`, `/games`, `/game/{id}`, `/audit`, …) serves `host.html`, a single-page app that routes
//! by path in the browser and reads everything through the public JSON API. Nothing here knows
//! a key or a hidden board: the pages show what the API shows anyone.

use crate::error::AppError;
use crate::state::Shared;
use axum::extract::{Path, Request};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Paths the site never answers with its page: the APIs and the operators' endpoints. An
/// unknown path under them is a JSON 404, so a client that mistypes an API call is told so
/// instead of getting HTML.
const NOT_PAGES: [&str; 5] = ["/api/", "/ledger/", "/assets/", "/healthz", "/metrics"];

/// The content security policy of the pages: scripts, styles, images and API calls from this
/// server only (chessgroundx positions pieces with inline styles, hence `'unsafe-inline'` for
/// styles; `data:` for the board's SVG backgrounds), and no framing by other sites.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; \
                   base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The site's routes, merged into the API router (`api::router`).
pub fn router() -> axum::Router<Arc<Shared>> {
    axum::Router::new().route("/assets/{*path}", get(asset)).fallback(fallback)
}

/// A strong ETag: the SHA-256 of the bytes (the bundle has no content hashes in its file
/// names, so browsers revalidate and get `304` while the binary is unchanged).
fn etag(bytes: &[u8]) -> String {
    let digest = Sha256::new_with_prefix(b"fogproof/web/etag\n").chain_update(bytes).finalize();
    format!("\"{}\"", protocol::hex::encode(&digest[..16]))
}

/// `bytes` with their type, or `304` when the request already holds them.
fn send(request: &HeaderMap, a: &fogproof_web::Asset, page: bool) -> Response {
    let tag = etag(a.bytes);
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(a.content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Ok(v) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, v);
    }
    if page {
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    }
    if fresh {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, a.bytes).into_response()
}

/// `GET /assets/{path}`: a file of the bundle, or a JSON 404 naming the path.
async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    match fogproof_web::asset(&path) {
        Some(a) => send(&headers, &a, false),
        None => AppError::new(
            StatusCode::NOT_FOUND,
            format!("no asset {:?}", path.chars().take(120).collect::<String>()),
        )
        .into_response(),
    }
}

/// Every request no route took: the site's page for a `GET` or `HEAD` of a page path, else a
/// JSON error naming the method and path.
async fn fallback(request: Request) -> Response {
    let path = request.uri().path();
    let method = request.method();
    let page_path =
        !NOT_PAGES.iter().any(|p| path.starts_with(p) || path == p.trim_end_matches('/'));
    if page_path && (method == Method::GET || method == Method::HEAD) {
        return send(request.headers(), &fogproof_web::host_page(), true);
    }
    let shown: String = path.chars().take(120).collect();
    let status = if page_path { StatusCode::METHOD_NOT_ALLOWED } else { StatusCode::NOT_FOUND };
    AppError::new(status, format!("no route for {method} {shown}")).into_response()
}

/// The part of a stored verdict (`verifier::json::verified`) that a list of finished games
/// shows: `status` (`valid`, `faults`), the players by color, the score and reason of the
/// result (the sanction's, for a record with faults: `void` when nobody wins), and each
/// culprit's key once. Absent fields are `null`; a verdict that is not JSON gives
/// `{"status": "unknown"}` (it was written by this server, so that would be a bug to report,
/// not a reason to hide the game).
pub fn verdict_summary(verdict: &str) -> VerdictSummary {
    use serde_json::{Value, json};
    let Ok(v) = serde_json::from_str::<Value>(verdict) else {
        return VerdictSummary::Unknown { status: UnknownStatus::Unknown };
    };
    let outcome = if v["status"] == "valid" { &v["result"] } else { &v["sanction"] };
    let (score, reason) = match outcome {
        Value::Object(_) => (outcome["score"].clone(), outcome["reason"].clone()),
        Value::String(s) => (Value::Null, json!(s)),
        _ => (Value::Null, Value::Null),
    };
    let mut culprits: Vec<Value> = Vec::new();
    for f in v["faults"].as_array().map(Vec::as_slice).unwrap_or_default() {
        if !f["culprit"].is_null() && !culprits.contains(&f["culprit"]) {
            culprits.push(f["culprit"].clone());
        }
    }
    VerdictSummary::Read(ReadVerdict {
        status: v["status"].clone(),
        white: v["white"]["key"].clone(),
        black: v["black"]["key"].clone(),
        score,
        reason,
        faults: v["faults"].as_array().map_or(0, Vec::len),
        culprits,
    })
}

/// A finished game's verdict summed up ([`verdict_summary`]).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
#[serde(untagged)]
pub enum VerdictSummary {
    /// The stored verdict, read.
    Read(ReadVerdict),
    /// A stored verdict that is not JSON (a bug of this server's to report).
    Unknown {
        /// Always `unknown`.
        status: UnknownStatus,
    },
}

/// `unknown`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
#[serde(rename_all = "lowercase")]
pub enum UnknownStatus {
    /// The verdict could not be read.
    Unknown,
}

/// What a stored verdict says, as far as a list shows it. The values are the verifier's
/// (`verifier::json`), copied as they are.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct ReadVerdict {
    /// `valid` or `faults`.
    #[cfg_attr(feature = "ts", ts(type = "\"valid\" | \"faults\" | null"))]
    pub status: serde_json::Value,
    /// White's key, where the verdict names it.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub white: serde_json::Value,
    /// Black's key, likewise.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub black: serde_json::Value,
    /// The score (`1-0`, `0-1`, `1/2-1/2`), or none (a void game).
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub score: serde_json::Value,
    /// Why it ended (the sanction's reason, for a record with faults).
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub reason: serde_json::Value,
    /// How many faults.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub faults: usize,
    /// Each culprit's key, once.
    #[cfg_attr(feature = "ts", ts(type = "string[]"))]
    pub culprits: Vec<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::verdict_summary;
    use serde_json::json;
    use verifier::{Fault, FaultKind, MatchRole, Verdict};

    #[test]
    fn a_faulty_verdict_is_summed_up_with_each_culprit_once() {
        let umpire = protocol::Identity::from_seed(&[1; 32]).public();
        let fault = |kind, culprit: Option<protocol::PublicKey>, role| Fault {
            kind,
            culprit,
            role,
            entry: Some(3),
            message: None,
            evidence: "signed one thing, the rules give another".into(),
            explanation: "the umpire lied".into(),
        };
        let verdict = Verdict::Faults(vec![
            fault(FaultKind::FalseAnnouncement, Some(umpire), MatchRole::Umpire),
            fault(FaultKind::FalseClaim, Some(umpire), MatchRole::Umpire),
            fault(FaultKind::TruncatedRecord, None, MatchRole::Record),
        ]);
        // The stored verdict is the verifier's own JSON.
        let s =
            serde_json::to_value(verdict_summary(&verifier::json::verdict(&verdict).to_string()))
                .expect("plain data");
        assert_eq!(s["status"], "faults");
        assert_eq!(s["faults"], 3);
        assert_eq!(s["culprits"], json!([umpire.to_string()]));
        // An umpire's fault voids the game: no score, the reason says so.
        assert_eq!((s["score"].clone(), s["reason"].clone()), (json!(null), json!("void")));
    }

    #[test]
    fn a_verdict_that_is_not_json_is_unknown_not_hidden() {
        let summary = |v: &str| serde_json::to_value(verdict_summary(v)).expect("plain data");
        assert_eq!(summary("{not json")["status"], "unknown");
        assert_eq!(summary("")["status"], "unknown");
    }
}
