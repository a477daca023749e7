//! The HTTP API (JSON, NDJSON) and its routes (docs/SERVER.md, API). Every error is a JSON
//! `{"error": "..."}` naming what is wrong, with a fitting status.

pub mod delivering;
pub mod extract;
pub mod forward;
pub mod ledger;
pub mod lobby;
pub mod socket;
pub mod spectate;
pub mod stream;
pub mod tournament;
pub mod types;

use crate::admission::{Admit, lock};
use crate::error::{ApiResult, AppError, internal, parse_match_id};
use crate::finished::{finished_row, record_bytes};
use crate::state::Shared;
use crate::store::Account;
use axum::Json;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use extract::{Authed, key_of};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::{PublicKey, Signature};
use serde::Deserialize;
use serde_json::Value;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use types::{
    AccountAnswer, FinishedGame, Games, Info, InfoDeadlines, InfoLimits, LiveMatch, MatchAnswer,
    Named, SignInChallenge, SignedIn, StoredStatus, Unreadable, named,
};

/// The per-key and per-address request limits (an address counted by its bucket: an IPv6
/// address with its /64, [`crate::address::Bucket`]).
///
/// Each table holds an entry for every key and address that sent a request lately: a stranger
/// sending from ever new addresses (a host's IPv6 /48 holds 65,536 /64s) or keys grows it by one
/// entry each. It forgets the idle ones every minute ([`RateLimits::sweep`]), and as soon as
/// either holds more than [`MAX_TRACKED`] ([`Sweeper`]), so it holds about a second's
/// newcomers at most.
pub struct RateLimits {
    by_key: DefaultKeyedRateLimiter<PublicKey>,
    by_address: DefaultKeyedRateLimiter<crate::address::Bucket>,
    sweeper: Sweeper,
}

/// Keys or addresses a request-rate table holds before its idle ones are forgotten at once.
pub const MAX_TRACKED: usize = 100_000;
/// How often (in requests) a [`Sweeper`] looks at its tables' sizes.
pub const CHECK_EVERY: u64 = 256;
/// The least time between two sweeps of a full table, ms (a table full of addresses all
/// active within the last second has nothing to forget: sweeping it again at once would cost
/// a whole pass per request).
pub const MIN_SWEEP_INTERVAL_MS: u64 = 1_000;
/// `Sweeper::swept_ms` before the first sweep of a full table.
const NEVER_SWEPT: u64 = u64::MAX;

/// When a rate limiter's tables, which grow by an entry per new key or address, are to be
/// swept before their periodic sweep: every [`CHECK_EVERY`] requests it looks at their size,
/// and past `max_tracked` it asks for a sweep, at most every [`MIN_SWEEP_INTERVAL_MS`].
pub struct Sweeper {
    /// The size past which a table is swept at once.
    max_tracked: usize,
    /// Requests seen.
    requests: AtomicU64,
    /// When a full table was last swept, ms after `started` ([`NEVER_SWEPT`] before).
    swept_ms: AtomicU64,
    started: std::time::Instant,
}

impl Sweeper {
    /// A sweeper of tables of at most `max_tracked` entries.
    pub fn new(max_tracked: usize) -> Sweeper {
        Sweeper {
            max_tracked,
            requests: AtomicU64::new(0),
            swept_ms: AtomicU64::new(NEVER_SWEPT),
            started: std::time::Instant::now(),
        }
    }

    /// Counts a request; whether the caller is to sweep now (`size`: its largest table's,
    /// read every [`CHECK_EVERY`] requests only).
    pub fn counted(&self, size: impl FnOnce() -> usize) -> bool {
        self.requests.fetch_add(1, Ordering::Relaxed).is_multiple_of(CHECK_EVERY)
            && self.due(size(), self.now_ms())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether a table of `size` entries is to be swept at `now_ms` (then counted as swept).
    fn due(&self, size: usize, now_ms: u64) -> bool {
        if size <= self.max_tracked {
            return false;
        }
        let last = self.swept_ms.load(Ordering::Relaxed);
        if last != NEVER_SWEPT && now_ms < last.saturating_add(MIN_SWEEP_INTERVAL_MS) {
            return false;
        }
        let swept = self
            .swept_ms
            .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok();
        if swept {
            tracing::warn!(size, "a request-rate table is full: forgetting its idle entries");
        }
        swept
    }
}

impl RateLimits {
    /// Limits from the configuration.
    pub fn new(limits: &crate::config::Limits) -> RateLimits {
        let quota =
            |n: u32| Quota::per_second(NonZeroU32::new(n.max(1)).unwrap_or(NonZeroU32::MIN));
        RateLimits {
            by_key: RateLimiter::keyed(quota(limits.max_requests_per_second_per_key)),
            by_address: RateLimiter::keyed(quota(limits.max_requests_per_second_per_address)),
            sweeper: Sweeper::new(MAX_TRACKED),
        }
    }

    /// Forgets idle keys and addresses (every minute, and when a table is full).
    pub fn sweep(&self) {
        self.by_key.retain_recent();
        self.by_key.shrink_to_fit();
        self.by_address.retain_recent();
        self.by_address.shrink_to_fit();
    }

    /// Keys and addresses held: (keys, addresses).
    pub fn tracked(&self) -> (usize, usize) {
        (self.by_key.len(), self.by_address.len())
    }

    /// Counts a request, sweeping a full table ([`Sweeper`]).
    fn counted(&self) {
        if self.sweeper.counted(|| self.by_key.len().max(self.by_address.len())) {
            self.sweep();
        }
    }
}

/// The client's address: the socket's, or with `trust_forwarded_for` the proxy's hop (the
/// same rule as the connection caps: [`crate::conn::client_address`]).
fn address(shared: &Shared, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<IpAddr> {
    crate::conn::client_address(shared.config.trust_forwarded_for, headers, peer)
}

/// The client a cluster follower forwarded this request for, if the request carries the
/// follower's attestation ([`forward::FORWARDED_FOR`]) and it checks under the cluster's key;
/// `None` for anything else (the request then counts against its own address).
fn attested_client(shared: &Shared, parts: &axum::http::request::Parts) -> Option<IpAddr> {
    let value = parts.headers.get(forward::FORWARDED_FOR)?.to_str().ok()?;
    let node = parts.headers.get(forward::FORWARDED_BY)?.to_str().ok()?;
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    shared.forwards.key().check(value, node, parts.method.as_str(), path, shared.clock.now_ms())
}

/// Middleware: refuses a request over its address's or its key's rate (429).
async fn rate_limit(
    State((shared, limits)): State<(Arc<Shared>, Arc<RateLimits>)>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
    limits.counted();
    let (parts, body) = req.into_parts();
    // A cluster follower's forward counts against the client it was forwarded for (`forward`).
    let ip = attested_client(&shared, &parts).or_else(|| address(&shared, &parts.headers, peer));
    // The host's own umpire service answers for every umpired match the host starts, from one
    // address (loopback, in the server's process): at a ramp of starts it sends more than an
    // address's quota, and a seat or signature refused there was never sent again, so the
    // start was canceled 30 s later with the umpire blamed. Its requests are spared the
    // address's rate, as they are the key's, once its token is known (a token in memory: no
    // signature is checked for a request over the rate).
    if let Some(ip) = ip
        && limits.by_address.check_key(&crate::address::Bucket::of(ip)).is_err()
        && !extract::cached_key(&parts, &shared)
            .is_some_and(|k| shared.config.is_umpire_service(&k))
    {
        return AppError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "{} sends more than {} requests per second (max_requests_per_second_per_address)",
                crate::address::describe(ip),
                shared.config.limits.max_requests_per_second_per_address
            ),
        )
        .into_response();
    }
    if let Ok(Some(k)) = key_of(&parts, &shared)
        && !shared.config.is_umpire_service(&k)
        && limits.by_key.check_key(&k).is_err()
    {
        return AppError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "{k} sends more than {} requests per second (max_requests_per_second_per_key)",
                shared.config.limits.max_requests_per_second_per_key
            ),
        )
        .into_response();
    }
    next.run(axum::extract::Request::from_parts(parts, body)).await
}

/// Every route of the server's API.
pub fn router(
    shared: Arc<Shared>,
    metrics: Option<metrics_exporter_prometheus::PrometheusHandle>,
) -> axum::Router {
    let limits = Arc::new(RateLimits::new(&shared.config.limits));
    {
        let limits = limits.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(60));
            loop {
                tick.tick().await;
                limits.sweep();
            }
        });
    }
    let max_body = shared.config.limits.max_body_bytes;
    // The log's routes: on a cluster's follower, forwarded to the ledger's leader (`forward`).
    let log = axum::Router::new()
        .route("/api/ledger", get(self::ledger::info))
        .route("/api/ledger/proof/{id}", get(self::ledger::proof))
        .route("/api/ratings/{variant}", get(self::ledger::ratings))
        .route("/api/tournaments", get(tournament::list))
        .route(
            "/api/tournament",
            post(tournament::publish).layer(axum::extract::DefaultBodyLimit::max(
                2 * shared.config.limits.max_definition_bytes + 1024,
            )),
        )
        .route("/api/tournament/{id}", get(tournament::show))
        .route("/api/tournament/{id}/join", post(tournament::join))
        .route("/api/tournament/{id}/start", post(tournament::start))
        .route("/api/tournament/{id}/withdraw", post(tournament::withdraw))
        .route("/ledger/{*path}", get(ledger_file))
        .route("/api/match/{id}/promise", get(crate::promise::serve))
        .route_layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            forward::to_ledger_leader,
        ));
    let api = axum::Router::new()
        .route("/api/info", get(info))
        .route("/api/auth/challenge", post(sign_in_challenge))
        .route("/api/auth/login", post(sign_in))
        .route("/api/account", get(account).post(rename))
        .route("/api/stream/event", get(self::stream::event_stream))
        .route("/api/challenge", get(lobby::my_challenges).post(lobby::create_challenge))
        .route("/api/challenge/{id}/accept", post(lobby::accept))
        .route("/api/challenge/{id}/decline", post(lobby::decline))
        .route("/api/challenge/{id}/cancel", post(lobby::cancel))
        .route("/api/pending/{id}/umpire", post(lobby::umpire_seat))
        .route("/api/pending/{id}/sign", post(lobby::sign))
        .route("/api/lobby", get(lobby::lobby_view))
        .route("/api/games", get(games))
        .route("/api/match/{id}", get(match_info))
        .route("/api/match/{id}/record", get(record))
        .route("/api/match/{id}/verdict", get(verdict))
        .route("/api/match/{id}/pgn", get(pgn))
        .route("/api/match/{id}/replay", get(replay))
        .route(
            "/api/verify",
            post(verify_upload)
                .layer(axum::extract::DefaultBodyLimit::max(shared.config.limits.max_upload_bytes)),
        )
        .route("/api/match/{id}/socket", get(self::socket::socket))
        .route(
            "/api/match/{id}/deliver",
            post(self::delivering::relay_deliver).layer(axum::extract::DefaultBodyLimit::max(
                <protocol::message::SignedMessage as protocol::codec::Canonical>::MAX_BYTES,
            )),
        )
        .route("/api/socket", get(self::socket::mux_socket))
        .route("/api/tournament/game/{id}/seat", post(tournament::seat))
        .merge(log)
        .merge(self::spectate::router())
        .layer(axum::middleware::from_fn_with_state((shared.clone(), limits), rate_limit))
        .layer(axum::extract::DefaultBodyLimit::max(max_body));
    let ops = axum::Router::new().route("/healthz", get(|| async { "ok\n" })).route(
        "/metrics",
        get(move || {
            let m = metrics.clone();
            async move {
                let text = m.map(|h| h.render()).unwrap_or_default();
                ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
            }
        }),
    );
    api.merge(ops).merge(crate::web::router()).with_state(shared)
}

/// `GET /ledger/{*path}`: the log's files (`ledger::serve_file`).
async fn ledger_file(
    State(shared): State<Arc<Shared>>,
    Path(path): Path<String>,
) -> ApiResult<Response> {
    self::ledger::serve_file(&shared, &path).await
}

async fn info(State(shared): State<Arc<Shared>>) -> Json<Info> {
    Json(Info {
        server: "fogproof",
        version: env!("CARGO_PKG_VERSION"),
        protocol: protocol::codec::VERSION,
        relay: shared.config.relay.public().to_string(),
        umpire: shared.config.default_umpire.map(|k| k.to_string()),
        bot: shared.config.house_bot.map(|k| k.to_string()),
        variants: rules::Variant::ALL.iter().map(|v| v.id()).collect(),
        limits: InfoLimits {
            max_frame_bytes: shared.config.limits.max_frame_bytes,
            max_body_bytes: shared.config.limits.max_body_bytes,
            max_open_challenges_per_key: shared.config.limits.max_open_challenges_per_key,
            max_terms_wait_ms: shared.config.limits.max_terms_wait_ms,
        },
        deadlines: InfoDeadlines {
            reveal_ms: shared.config.deadlines.reveal_ms,
            answer_ms: shared.config.deadlines.answer_ms,
        },
    })
}

async fn sign_in_challenge(
    State(shared): State<Arc<Shared>>,
    req: axum::extract::Request,
) -> ApiResult<Json<SignInChallenge>> {
    let l = shared.config.limits;
    shared.admit(Admit::SignIn)?;
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
    let ip = address(&shared, req.headers(), peer);
    let c = lock(&shared.auth)
        .challenge(
            shared.clock.now_ms(),
            l.sign_in_challenge_ms,
            l.max_sign_in_challenges,
            ip,
            l.max_sign_in_challenges_per_address,
        )
        .map_err(|e| {
            metrics::counter!(crate::metrics::ADMISSION_REFUSED).increment(1);
            // A place frees when the oldest challenge expires at the latest.
            let wait = u32::try_from(l.sign_in_challenge_ms.div_ceil(1000)).unwrap_or(u32::MAX);
            AppError::busy(e.to_string(), wait.min(l.retry_after_s.max(1)))
        })?;
    Ok(Json(SignInChallenge {
        challenge: protocol::hex::encode(&c),
        server: shared.config.relay.public().to_string(),
        expires_in_ms: l.sign_in_challenge_ms,
    }))
}

#[derive(Deserialize)]
struct SignIn {
    key: String,
    challenge: String,
    signature: String,
    /// The origin the client connected to, as it signed it (`protocol::wire::origin`).
    #[serde(default)]
    origin: Option<String>,
    /// The display name, signed by the key (`protocol::names::SignedName`, JSON).
    #[serde(default)]
    name: Option<Value>,
}

pub(crate) fn parse_signature(text: &str) -> ApiResult<Signature> {
    let b = protocol::hex::decode_array::<64>(text)
        .ok_or_else(|| AppError::bad("signature: expected 128 hex digits"))?;
    let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
    r.copy_from_slice(&b[..32]);
    s.copy_from_slice(&b[32..]);
    Ok(Signature { r, s })
}

async fn sign_in(
    State(shared): State<Arc<Shared>>,
    Json(req): Json<SignIn>,
) -> ApiResult<Json<SignedIn>> {
    let key: PublicKey = req.key.parse().map_err(|e| AppError::bad(format!("key: {e}")))?;
    let challenge = protocol::hex::decode_array::<32>(&req.challenge)
        .ok_or_else(|| AppError::bad("challenge: expected 64 hex digits"))?;
    let signature = parse_signature(&req.signature)?;
    let origin = req.origin.as_deref().ok_or_else(|| {
        AppError::bad(
            "origin: the URL this client connected to (scheme://host[:port]), signed with the \
             challenge: a sign-in names the server it was meant for",
        )
    })?;
    let name = req.name.as_ref().map(|n| crate::auth::accept_name(&shared, &key, n)).transpose()?;
    let now = shared.clock.now_ms();
    let token = lock(&shared.auth)
        .sign_in(
            &shared.config.relay.public(),
            &shared.config.public_origins,
            origin,
            &key,
            &challenge,
            &signature,
            now,
            shared.config.limits.token_ms,
        )
        .map_err(|e| AppError::new(StatusCode::UNAUTHORIZED, e.to_string()))?;
    // An account is its key, and the name the key signed (none until it signs one: the server
    // never writes a name of its own).
    let name = match name {
        // A newer name kept already (chosen on another device) stays: the sign-in goes on.
        Some(n) => match crate::auth::store_name(&shared, n).await {
            Ok(n) => Some(n),
            Err(e) if e.status == StatusCode::CONFLICT => crate::auth::name_of(&shared, &key).await,
            Err(e) => return Err(e),
        },
        None => {
            if shared.store.account(&key).await.map_err(internal)?.is_none() {
                let account = Account { key, name: String::new(), created_ms: now };
                shared.store.put_account(&account).await.map_err(internal)?;
            }
            crate::auth::name_of(&shared, &key).await
        }
    };
    Ok(Json(SignedIn {
        token,
        key: key.to_string(),
        name: name.as_ref().map(|n| n.name.clone()),
        signed_name: name,
    }))
}

async fn account(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
) -> ApiResult<Json<AccountAnswer>> {
    let name = crate::auth::name_of(&shared, &key).await;
    Ok(Json(AccountAnswer {
        key: key.to_string(),
        fingerprint: key.fingerprint(),
        name: name.as_ref().map(|n| n.name.clone()),
        signed_name: name,
    }))
}

#[derive(Deserialize)]
struct Rename {
    /// The display name, signed by the key (`protocol::names::SignedName`, JSON).
    name: Value,
}

/// `POST /api/account`: sets the display name (signed by the key, newer than the one kept).
async fn rename(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Json(req): Json<Rename>,
) -> ApiResult<Json<AccountAnswer>> {
    let name = crate::auth::accept_name(&shared, &key, &req.name)?;
    let name = crate::auth::store_name(&shared, name).await?;
    Ok(Json(AccountAnswer {
        key: key.to_string(),
        fingerprint: key.fingerprint(),
        name: Some(name.name.clone()),
        signed_name: Some(name),
    }))
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    limit: Option<u32>,
}

fn finished_json(row: &crate::store::MatchRow) -> FinishedGame {
    let finish = row.finish.as_ref();
    FinishedGame {
        id: protocol::hex::encode(&row.id.0),
        variant: row.variant.clone(),
        rated: row.rated,
        players: row.players.map(|k| k.to_string()),
        started_ms: row.created_ms,
        status: match row.status {
            crate::store::MatchStatus::Live => StoredStatus::Live,
            crate::store::MatchStatus::Finished => StoredStatus::Finished,
        },
        finished_ms: finish.map(|f| f.finished_ms),
        result: finish.map(|f| f.result.clone()),
        record_sha256: finish.map(|f| protocol::hex::encode(&f.record_sha256)),
        verdict: finish.map(|f| crate::web::verdict_summary(&f.verdict)),
    }
}

async fn games(
    State(shared): State<Arc<Shared>>,
    Query(p): Query<Page>,
) -> ApiResult<Json<Named<Games>>> {
    let rows =
        shared.store.finished_matches(p.limit.unwrap_or(50).min(500)).await.map_err(internal)?;
    let games = Games { games: rows.iter().map(finished_json).collect() };
    Ok(Json(named(&shared, games).await?))
}

async fn match_info(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> ApiResult<Json<Named<MatchAnswer>>> {
    let id = parse_match_id(&id)?;
    if let Some(h) = shared.live(&id) {
        let info = lock(&h.info).clone();
        let live = MatchAnswer::Live(LiveMatch { info, status: "live" });
        return Ok(Json(named(&shared, live).await?));
    }
    let row = shared.store.get_match(&id).await.map_err(internal)?;
    let v = row
        .map(|r| MatchAnswer::Stored(finished_json(&r)))
        .ok_or_else(|| AppError::new(StatusCode::NOT_FOUND, "no such match"))?;
    Ok(Json(named(&shared, v).await?))
}

/// A place to render a finished match (`max_concurrent_renderings`), or a `503` with
/// `Retry-After`: rebuilding a record and replaying it costs CPU, so a crowd of downloads waits
/// its turn instead of starving the live matches.
fn rendering_place(shared: &Shared) -> ApiResult<tokio::sync::SemaphorePermit<'_>> {
    shared.renderings.try_acquire().map_err(|_| {
        metrics::counter!(crate::metrics::ADMISSION_REFUSED).increment(1);
        AppError::busy(
            format!(
                "{} finished matches are being rendered (max_concurrent_renderings): try again \
                 shortly",
                shared.config.limits.max_concurrent_renderings
            ),
            1,
        )
    })
}

async fn record(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> ApiResult<Response> {
    let row = finished_row(&*shared.store, &id).await?;
    let _place = rendering_place(&shared)?;
    let bytes = record_bytes(&*shared.store, &row).await?;
    let name = format!("attachment; filename=\"{}.rec\"", &id[..16.min(id.len())]);
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream")),
            (header::CONTENT_DISPOSITION, HeaderValue::from_str(&name).map_err(internal)?),
        ],
        bytes,
    )
        .into_response())
}

async fn verdict(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> ApiResult<Response> {
    let row = finished_row(&*shared.store, &id).await?;
    let verdict = row.finish.map(|f| f.verdict).unwrap_or_default();
    // The verdict as the verifier wrote it, with the names of the keys it shows (signed by
    // them: docs/PROTOCOL.md, display names).
    let verdict = match serde_json::from_str::<Value>(&verdict) {
        Ok(v @ Value::Object(_)) => crate::auth::with_names(&shared, v).await.to_string(),
        _ => verdict,
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], verdict).into_response())
}

#[derive(Deserialize)]
struct View {
    #[serde(default)]
    view: Option<String>,
}

async fn pgn(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(v): Query<View>,
) -> ApiResult<Response> {
    let view = match v.view.as_deref().unwrap_or("full") {
        "full" => None,
        "white" => Some(rules::Color::White),
        "black" => Some(rules::Color::Black),
        other => {
            return Err(AppError::bad(format!(
                "view {:?}: white, black or full",
                other.chars().take(20).collect::<String>()
            )));
        }
    };
    let row = finished_row(&*shared.store, &id).await?;
    let _place = rendering_place(&shared)?;
    let bytes = record_bytes(&*shared.store, &row).await?;
    let text = tokio::task::spawn_blocking(move || verifier::pgn::pgn(&bytes, view))
        .await
        .map_err(internal)?
        .map_err(|e| AppError::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], text).into_response())
}

/// `GET /api/match/{id}/replay`: the compact replay (`verifier::views::CompactReplay`), gzipped
/// where the request accepts it (a 34-step Kriegspiel game: 23 KB of JSON, 3.6 KB gzipped).
async fn replay(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let row = finished_row(&*shared.store, &id).await?;
    let _place = rendering_place(&shared)?;
    let bytes = record_bytes(&*shared.store, &row).await?;
    let gzip = accepts_gzip(&headers);
    let body = tokio::task::spawn_blocking(move || {
        verifier::views::compact_replay(&bytes).map(|r| replay_body(&r, gzip))
    })
    .await
    .map_err(internal)?
    .map_err(|e| AppError::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?
    .map_err(internal)?;
    let mut response =
        ([(header::CONTENT_TYPE, "application/json"), (header::VARY, "accept-encoding")], body)
            .into_response();
    if gzip {
        response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    Ok(response)
}

/// The replay's JSON, gzipped (fast level: the JSON repeats itself) when `gzip`.
fn replay_body(replay: &verifier::views::CompactReplay, gzip: bool) -> std::io::Result<Vec<u8>> {
    use std::io::Write as _;
    let json = serde_json::to_vec(replay)?;
    if !gzip {
        return Ok(json);
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&json)?;
    encoder.finish()
}

/// Whether `Accept-Encoding` names gzip (or `*`) without `q=0`.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .is_some_and(|q| q.trim().trim_end_matches('0') == "0." || q.trim() == "0")
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
    })
}

/// `POST /api/verify`: a record's bytes in, the verifier's verdict out, for the audit page.
/// The command-line verifier is the trust anchor; this is a convenience with the same code.
///
/// An upload too long by its `Content-Length` is refused before its body is read; the others
/// take a place in the queue (`max_queued_verifications`, else a `503`) and then a
/// verification place (`max_concurrent_verifications`) before the body is read, with a hard
/// bound (`max_upload_bytes`) however it is sent: at most that many bodies are held at once.
async fn verify_upload(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> ApiResult<Response> {
    let max = shared.config.limits.max_upload_bytes;
    let too_long = || {
        AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a record of at most {max} bytes (max_upload_bytes)"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_long());
    }
    let _queued = shared.uploads.try_acquire().map_err(|_| {
        metrics::counter!(crate::metrics::ADMISSION_REFUSED).increment(1);
        AppError::busy(
            format!(
                "{} uploads are being verified or waiting (max_concurrent_verifications, \
                 max_queued_verifications): try again later",
                shared.config.limits.max_concurrent_verifications.max(1)
                    + shared.config.limits.max_queued_verifications
            ),
            shared.config.limits.retry_after_s,
        )
    })?;
    let _place = shared.verifications.acquire().await.map_err(internal)?;
    // Past `max` bytes the read stops with an error (the body is never held whole); a client
    // gone mid-body ends here too, and is past caring about the answer.
    let bytes = axum::body::to_bytes(body, max).await.map_err(|e| {
        AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the record was not read whole within {max} bytes (max_upload_bytes): {e}"),
        )
    })?;
    if bytes.is_empty() {
        return Err(AppError::bad("send the record's bytes as the request body"));
    }
    let value = tokio::task::spawn_blocking(move || {
        if let Some(why) = verifier::envelope::not_a_record(&bytes) {
            let error = format!("not a fogproof match record: {why}");
            return serde_json::to_value(Unreadable { status: "unreadable", error });
        }
        Ok(verifier::json::verified(&verifier::verify_match(&bytes)))
    })
    .await
    .map_err(internal)?
    .map_err(internal)?;
    Ok(Json(value).into_response())
}

#[cfg(test)]
mod rate_tests {
    use super::{RateLimits, Sweeper};
    use crate::address::Bucket;
    use std::time::Duration;

    fn fresh(limits: &RateLimits, from: u16, n: u16) {
        for i in from..from + n {
            let ip = std::net::IpAddr::from([0x2001, 0xdb8, i, 0, 0, 0, 0, 1]);
            assert!(limits.by_address.check_key(&Bucket::of(ip)).is_ok());
        }
    }

    /// A stranger sending from ever new addresses grows the table by one entry each: past its
    /// size it is swept at once (at most once a second), forgetting the idle addresses and
    /// keeping the ones still over or near their rate, which stay limited.
    #[test]
    fn a_full_request_rate_table_forgets_its_idle_addresses_and_keeps_the_busy_ones() {
        let mut config = crate::config::Limits::DEFAULT;
        // 20 a second: one request is forgotten after 50 ms, a burst of 20 only after 1 s.
        config.max_requests_per_second_per_address = 20;
        let mut limits = RateLimits::new(&config);
        limits.sweeper = Sweeper::new(10);
        let busy = Bucket::of("198.51.100.1".parse().expect("ip"));
        let over = (0..1_000).filter(|_| limits.by_address.check_key(&busy).is_err()).count();
        assert!(over > 0, "a flood meets the rate");
        fresh(&limits, 0, 50);
        assert_eq!(limits.tracked().1, 51);
        std::thread::sleep(Duration::from_millis(100));
        limits.counted();
        assert_eq!(limits.tracked().1, 1, "only the flooding address is kept");
        // It kept its state: a few requests' worth came back, not a fresh burst of 20.
        let passed = (0..50).filter(|_| limits.by_address.check_key(&busy).is_ok()).count();
        assert!(passed < 20, "and it is still held to its rate ({passed} of 50 passed)");
        // Full again within the second: not swept again yet.
        fresh(&limits, 100, 50);
        for _ in 0..2 * super::CHECK_EVERY {
            limits.counted();
        }
        assert_eq!(limits.tracked().1, 51, "at most one sweep a second");
        let now = limits.sweeper.now_ms();
        assert!(limits.sweeper.due(51, now + super::MIN_SWEEP_INTERVAL_MS));
        assert!(!limits.sweeper.due(51, now + super::MIN_SWEEP_INTERVAL_MS + 1), "just swept");
        // A table within its size is left alone, however long since the last sweep.
        assert!(!limits.sweeper.due(10, now + 10 * super::MIN_SWEEP_INTERVAL_MS));
    }
}

#[cfg(test)]
mod replay_tests {
    use super::{HeaderMap, HeaderValue, accepts_gzip, header};

    fn with(values: &[&'static str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::ACCEPT_ENCODING, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn gzip_is_sent_only_where_the_request_accepts_it() {
        assert!(accepts_gzip(&with(&["gzip, deflate, br"])));
        assert!(accepts_gzip(&with(&["br;q=1.0, GZIP;q=0.5"])));
        assert!(accepts_gzip(&with(&["identity", "*"])));
        assert!(!accepts_gzip(&with(&[])));
        assert!(!accepts_gzip(&with(&["br, deflate"])));
        assert!(!accepts_gzip(&with(&["gzip;q=0"])));
        assert!(!accepts_gzip(&with(&["gzip; q=0.000, br"])));
        assert!(!accepts_gzip(&with(&["xgzip"])));
    }
}
