//! The request extractors of the API: the bearer token (`Authorization: Bearer`, or
//! `?token=` parsed by axum's `Query`) and the signed-in key it stands for.

use crate::admission::lock;
use crate::error::{ApiResult, AppError};
use crate::state::Shared;
use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use protocol::PublicKey;
use serde::Deserialize;
use std::sync::Arc;

/// The bearer token of a request: `Authorization: Bearer <token>`, or `?token=` (browsers
/// cannot set headers on a WebSocket), percent-decoded by axum's `Query` (serde_urlencoded). A
/// query that does not parse (e.g. `token` given twice) is a 400 naming it.
fn token(parts: &Parts) -> ApiResult<Option<String>> {
    if let Some(t) = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        return Ok(Some(t.trim().to_owned()));
    }
    /// The one query parameter the extractor reads; any others belong to the handler.
    #[derive(Deserialize)]
    struct TokenQuery {
        token: Option<String>,
    }
    if parts.uri.query().is_none() {
        return Ok(None);
    }
    Query::<TokenQuery>::try_from_uri(&parts.uri)
        .map(|Query(q)| q.token)
        .map_err(|e| AppError::bad(format!("malformed query (?token=): {}", e.body_text())))
}

/// The key of a request whose token the server already checked and keeps in memory
/// (`Auth::cached`), without checking a new one: what a refusal path may look up for free.
pub(crate) fn cached_key(parts: &Parts, shared: &Shared) -> Option<PublicKey> {
    let t = token(parts).ok()??;
    lock(&shared.auth).cached(&t, shared.clock.now_ms()).flatten()
}

/// The signed-in key of a request (401 without a live token).
#[derive(Clone, Copy, Debug)]
pub struct Authed(pub PublicKey);

/// The signed-in key of a request, if any.
#[derive(Clone, Copy, Debug)]
pub struct MaybeAuthed(pub Option<PublicKey>);

pub(crate) fn key_of(parts: &Parts, shared: &Shared) -> ApiResult<Option<PublicKey>> {
    let Some(t) = token(parts)? else { return Ok(None) };
    let now = shared.clock.now_ms();
    let issuer = {
        let auth = lock(&shared.auth);
        if let Some(known) = auth.cached(&t, now) {
            return Ok(known);
        }
        auth.issuer()
    };
    // A token not in memory: its signature is checked outside the lock every request shares.
    let Some(signed) = issuer.and_then(|i| crate::auth::Auth::signed_token(&i, &t)) else {
        return Ok(None);
    };
    Ok(lock(&shared.auth).remember(&t, signed, now))
}

impl FromRequestParts<Arc<Shared>> for Authed {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, shared: &Arc<Shared>) -> ApiResult<Authed> {
        key_of(parts, shared)?.map(Authed).ok_or_else(|| {
            AppError::new(
                StatusCode::UNAUTHORIZED,
                "sign in first: POST /api/auth/challenge, then /api/auth/login; send the token \
                 as 'Authorization: Bearer <token>'",
            )
        })
    }
}

impl FromRequestParts<Arc<Shared>> for MaybeAuthed {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, shared: &Arc<Shared>) -> ApiResult<Self> {
        Ok(MaybeAuthed(key_of(parts, shared)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::state::Shared;
    use protocol::Identity;
    use std::sync::Arc;

    fn parts(uri: &str) -> Parts {
        axum::http::Request::builder().uri(uri).body(()).expect("a request").into_parts().0
    }

    #[tokio::test]
    async fn the_query_token_is_percent_decoded_and_a_malformed_query_is_refused() {
        let dir = std::env::temp_dir().join(format!("fogproof-api-token-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let server = Identity::from_seed(&[9; 32]);
        let me = Identity::from_seed(&[1; 32]);
        let config = Config::new(dir.clone(), server.clone());
        let store = crate::store::sqlite::SqliteStore::open(&dir).await.expect("store");
        let clock = Arc::new(crate::clock::TokioClock::system());
        let shared = Arc::new(Shared::new(config, clock, Arc::new(store)));
        let now = shared.clock.now_ms();
        let origin = "https://fogproof.example";
        let token = {
            let mut auth = lock(&shared.auth);
            let c = auth.challenge(now, 60_000, 10, None, 10).expect("a challenge");
            let sig = protocol::wire::sign_in(&me, &server.public(), origin, &c);
            auth.sign_in(
                &server.public(),
                &[origin.into()],
                origin,
                &me.public(),
                &c,
                &sig,
                now,
                60_000,
            )
            .expect("a token")
        };
        // Every byte percent-encoded: the extractor sees the token itself.
        let encoded: String = token.bytes().map(|b| format!("%{b:02X}")).collect();
        let mut p = parts(&format!("/api/socket?x=1&token={encoded}"));
        let Authed(key) = Authed::from_request_parts(&mut p, &shared).await.expect("signed in");
        assert_eq!(key, me.public());
        // The plain token still works, and so does the header.
        let mut p = parts(&format!("/api/socket?token={token}"));
        assert!(Authed::from_request_parts(&mut p, &shared).await.is_ok());
        // An unknown token: 401.
        let mut p = parts("/api/socket?token=abc%20def");
        let e = Authed::from_request_parts(&mut p, &shared).await.expect_err("no such token");
        assert_eq!(e.status, StatusCode::UNAUTHORIZED);
        // `token` twice does not parse: a 400 that names the query, for both extractors.
        let mut p = parts(&format!("/api/socket?token={token}&token=x"));
        let e = Authed::from_request_parts(&mut p, &shared).await.expect_err("malformed");
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.message.contains("malformed query"), "{}", e.message);
        let mut p = parts(&format!("/api/socket?token={token}&token=x"));
        let e = MaybeAuthed::from_request_parts(&mut p, &shared).await.expect_err("malformed");
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        // No query and no header: 401, and nobody for the optional extractor.
        let mut p = parts("/api/socket");
        let e = Authed::from_request_parts(&mut p, &shared).await.expect_err("anonymous");
        assert_eq!(e.status, StatusCode::UNAUTHORIZED);
        let mut p = parts("/api/socket");
        let MaybeAuthed(k) = MaybeAuthed::from_request_parts(&mut p, &shared).await.expect("ok");
        assert_eq!(k, None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
