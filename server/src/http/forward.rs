//! The log's routes on a cluster's followers (docs/SERVER.md, several nodes).
//!
//! Only the ledger's leader holds the log open (`crate::leader`: it alone locks the shared
//! directory and keeps the history in memory), so the routes that read or write the log
//! (`/api/ledger*`, `/api/ratings/*`, `/api/tournaments`, publishing, showing, joining,
//! starting and withdrawing from a tournament, inclusion promises, `/ledger/*` files) answer
//! there. A follower **forwards** such a request to the leader's node URL (the `nodes` row of
//! the node holding the `leaders` lease) and streams the answer back, so a client may use any
//! node, as it does for the lobby and event streams: a browser's page, the CLI and `curl` need
//! no redirect to follow (a redirect to another origin would also lose the `Authorization`
//! header in most clients). The answer carries [`FORWARDED_TO`] naming the leader.
//!
//! Limits: at most `max_forwarded_requests` forwards at once per node (beyond it a `503`), each
//! place taken only once the request body has been read (so a client sending it slowly holds
//! none) and held until the answer has been streamed back; the body is read whole, at most the
//! largest limit of the log's routes; the leader must accept the connection within
//! [`CONNECT_TIMEOUT`](crate::forwarding::CONNECT_TIMEOUT) and send something within
//! [`READ_TIMEOUT`](crate::forwarding::READ_TIMEOUT). A request that was forwarded once is never
//! forwarded again ([`FORWARDED_BY`]): a node that is elected but has not opened the log yet
//! answers `503`, not a loop. Without a leader (a new one is being elected: within a lease or
//! two) the answer is `503` with `Retry-After`.
//!
//! **Whose request.** At the leader every forwarded request comes from the follower's address,
//! so the leader's per-address request rate would count all of a follower's clients as one. The
//! follower therefore says for whom it forwards ([`FORWARDED_FOR`]: the client's address as its
//! own limits counted it, attested with the cluster's [`crate::forwarding::ForwardKey`]), and
//! the leader counts an attested request against that address instead (`super::rate_limit`).
//! The client was already held to the same rate at the follower; what it sends a follower to
//! forward counts once more at the leader, as if it had come there itself.

use crate::error::AppError;
use crate::state::Shared;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

pub use crate::forwarding::{FORWARDED_BY, FORWARDED_FOR, FORWARDED_TO};

/// The request headers a forward carries over (the token, what the body is, what the client
/// accepts, its caching and range conditions); nothing else of the client's reaches the leader.
const REQUEST_HEADERS: [HeaderName; 7] = [
    header::AUTHORIZATION,
    header::CONTENT_TYPE,
    header::ACCEPT,
    header::ACCEPT_ENCODING,
    header::IF_NONE_MATCH,
    header::IF_MODIFIED_SINCE,
    header::RANGE,
];

/// The connection-level headers of an answer that are the hop's, not the answer's.
const HOP_HEADERS: [HeaderName; 7] = [
    header::CONNECTION,
    header::TRANSFER_ENCODING,
    header::TE,
    header::TRAILER,
    header::UPGRADE,
    header::PROXY_AUTHENTICATE,
    header::PROXY_AUTHORIZATION,
];

/// The middleware of the log's routes: runs the route here when this node holds the log (a
/// single server, or the cluster's leader) or is no cluster node (the route then says it
/// keeps no ledger); otherwise forwards the request to the leader.
pub async fn to_ledger_leader(
    State(shared): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    let Some(pg) = shared.cluster.get().filter(|_| shared.ledger.as_ref().is_none()) else {
        return next.run(req).await;
    };
    match forward(&shared, pg, req).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

async fn forward(
    shared: &Shared,
    pg: &crate::store::postgres::PostgresStore,
    req: Request,
) -> Result<Response, AppError> {
    if let Some(by) = req.headers().get(FORWARDED_BY) {
        return Err(AppError::busy(
            format!(
                "this node was elected to lead the ledger but has not opened the log yet \
                 (forwarded by {}): try again shortly",
                String::from_utf8_lossy(by.as_bytes())
            ),
            1,
        ));
    }
    let Some(leases) = pg.leases() else {
        return Err(AppError::new(
            axum::http::StatusCode::NOT_FOUND,
            "this server keeps no ledger",
        ));
    };
    let l = shared.config.limits;
    let peer =
        req.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0);
    let client =
        crate::conn::client_address(shared.config.trust_forwarded_for, req.headers(), peer);
    // The body first, before a place is taken: a client sending it slowly holds no place.
    let (parts, body) = req.into_parts();
    // The body limit of the log's largest route (publishing a definition), no more.
    let limit = l.max_body_bytes.max(2 * l.max_definition_bytes + 1024);
    let body = axum::body::to_bytes(body, limit).await.map_err(|e| {
        AppError::new(
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body could not be read (at most {limit} bytes): {e}"),
        )
    })?;
    // Held until the answer's body has been streamed back.
    let place = shared.forwards.place().map_err(|_| {
        metrics::counter!(crate::metrics::ADMISSION_REFUSED).increment(1);
        AppError::busy(
            format!(
                "{} requests are being forwarded to the ledger's leader \
                 (max_forwarded_requests): try again shortly",
                l.max_forwarded_requests
            ),
            1,
        )
    })?;
    // The leader, looked up inside the place: at most that many lookups at once.
    let leader = leases
        .leader_url(pg.pool(), crate::leader::LEDGER_ROLE)
        .await
        .map_err(|e| AppError::busy(format!("finding the ledger's leader: {e}"), 1))?
        .ok_or_else(|| {
            AppError::busy(
                "no node leads the ledger now (a leader is being elected, within a lease or \
                 two): try again shortly",
                1,
            )
        })?;
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{}{path}", leader.trim_end_matches('/'));
    let mut out = shared.forwards.client()?.request(parts.method.clone(), &url).body(body);
    for name in &REQUEST_HEADERS {
        for v in parts.headers.get_all(name) {
            out = out.header(name, v);
        }
    }
    let own = shared
        .config
        .cluster
        .as_ref()
        .and_then(|c| c.node_url.clone())
        .unwrap_or_else(|| "a follower".into());
    let own = HeaderValue::from_str(&own).unwrap_or(HeaderValue::from_static("a follower"));
    if let Some(client) = client {
        let attested = crate::forwarding::Attested {
            node: own.to_str().unwrap_or("a follower"),
            client,
            method: parts.method.as_str(),
            path,
            issued_ms: shared.clock.now_ms(),
        };
        out = out.header(FORWARDED_FOR, shared.forwards.key().attest(&attested));
    }
    out = out.header(FORWARDED_BY, own);
    let answer = out.send().await.map_err(|e| {
        AppError::busy(
            format!("the ledger's leader at {leader} did not answer ({e}): try again shortly"),
            1,
        )
    })?;
    let mut r = Response::builder().status(answer.status());
    for (name, v) in answer.headers() {
        if !HOP_HEADERS.contains(name) {
            r = r.header(name, v);
        }
    }
    if let Ok(v) = HeaderValue::from_str(&leader) {
        r = r.header(FORWARDED_TO, v);
    }
    let body = axum::body::Body::from_stream(futures_util::StreamExt::map(
        answer.bytes_stream(),
        move |chunk| {
            let _held = &place;
            chunk
        },
    ));
    r.body(body).map_err(|e| crate::error::internal(format!("forwarded answer: {e}")))
}
