//! Delivery witnessing (docs/PROTOCOL.md, delivery notices; docs/SERVER.md, delivery): the second
//! path from a party to the relay, which the relay does not control.
//!
//! **The relay side** ([`relay_deliver`], `POST /api/match/{id}/deliver`): the body is a
//! `SignedMessage` a witness forwards. The match's task takes it exactly as from its author's
//! socket and answers `200` with the canonical `relay::Entry` (message and receipt; also for a
//! message it already had), `409` with the relay's refusal, `404` if the match is not live here.
//! Limits: the body is at most `SignedMessage::MAX_BYTES`; the route is under the API's
//! per-address rate limit; the match task's queue is bounded (`503` when full).
//!
//! **The witness side** ([`DeliveryWitness`], `POST /deliver` on `fogproof witness serve`): the
//! body is a `DeliveryRequest` (the signed terms and the message). The witness checks the terms'
//! signatures, the message's signature and match, and that its author is a party
//! (`protocol::delivery::check_request`), and that the terms' relay is one it delivers to; it
//! then signs a notice at its clock's time, forwards the message to that relay, and answers
//! `200` with a `DeliveryAnswer` (the notice file and what the relay said). Limits, each named:
//! a body over [`MAX_DELIVERY_REQUEST_BYTES`] is refused with `413`; an address sending more than
//! [`DELIVERIES_PER_SECOND_PER_ADDRESS`] (burst [`DELIVERY_BURST`]) gets `429`; at most
//! [`MAX_DELIVERIES_IN_FLIGHT`] forwardings run at once (`503` beyond: the queue); each forwarding
//! waits at most [`FORWARD_TIMEOUT_MS`] for the relay; the relay's answer is read up to
//! [`MAX_RELAY_ANSWER_BYTES`]. The witness keeps no state per request: a notice is in the answer
//! only, and the party keeps it.

use crate::error::{AppError, parse_match_id};
use crate::live::Command;
use crate::state::Shared;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::codec::{Canonical, VERSION};
use protocol::delivery::{Delivered, DeliveryAnswer, DeliveryRequest, RelayAnswer, check_request};
use protocol::message::SignedMessage;
use protocol::relay::Entry;
use protocol::{Identity, PublicKey};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, oneshot};

/// The largest delivery request a witness reads, in bytes.
pub const MAX_DELIVERY_REQUEST_BYTES: usize = DeliveryRequest::MAX_BYTES;
/// Deliveries one address may ask a witness for per second.
pub const DELIVERIES_PER_SECOND_PER_ADDRESS: u32 = 5;
/// The burst above that rate.
pub const DELIVERY_BURST: u32 = 20;
/// Forwardings a witness runs at once; beyond, it answers `503`.
pub const MAX_DELIVERIES_IN_FLIGHT: usize = 64;
/// How long a witness waits for the relay's answer, in ms.
pub const FORWARD_TIMEOUT_MS: u64 = 5_000;
/// The largest relay answer a witness reads, in bytes.
pub const MAX_RELAY_ANSWER_BYTES: usize = Entry::MAX_BYTES + 4096;
/// Addresses a witness's rate limiter remembers before it forgets the idle ones (every minute,
/// and at once past it: [`super::Sweeper`]).
pub const MAX_TRACKED_ADDRESSES: usize = 100_000;

/// `POST /api/match/{id}/deliver`: a message a delivery witness forwards (see the module docs).
pub async fn relay_deliver(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, AppError> {
    let arrived = Instant::now();
    let id = parse_match_id(&id)?;
    let message = SignedMessage::from_canonical(&body)
        .map_err(|e| AppError::new(StatusCode::BAD_REQUEST, format!("the body: {e}")))?;
    let body_id = message
        .verify()
        .map_err(|e| AppError::new(StatusCode::BAD_REQUEST, e.to_string()))?
        .match_id;
    if body_id != id {
        return Err(AppError::new(StatusCode::BAD_REQUEST, "the message is for another match"));
    }
    let Some(handle) = shared.live(&id) else {
        return Err(AppError::new(StatusCode::NOT_FOUND, "this match is not live here"));
    };
    let (reply, answer) = oneshot::channel();
    handle
        .tx
        .try_send(Command::Deliver { bytes: body.to_vec(), arrived, reply })
        .map_err(|_| AppError::busy("the match's queue is full", 1))?;
    match answer.await {
        Ok(Ok(entry)) => Ok((
            StatusCode::OK,
            [(header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"))],
            entry.to_canonical(),
        )
            .into_response()),
        Ok(Err(why)) => Err(AppError::new(StatusCode::CONFLICT, why)),
        Err(_) => Err(AppError::new(StatusCode::NOT_FOUND, "the match ended")),
    }
}

/// A relay a witness delivers to: its key (as the terms name it) and its server's base URL.
#[derive(Clone, Debug)]
pub struct RelayEndpoint {
    /// The relay key.
    pub key: PublicKey,
    /// `http://host:port`.
    pub url: String,
}

impl RelayEndpoint {
    /// Parses `URL=KEY` (`KEY` as `ed25519:<hex>`).
    pub fn parse(spec: &str) -> Result<RelayEndpoint, String> {
        let (url, key) = spec
            .rsplit_once('=')
            .ok_or_else(|| format!("{spec:?}: expected URL=ed25519:<relay key hex>"))?;
        let key: PublicKey = key.parse().map_err(|e| format!("relay key {key:?}: {e:?}"))?;
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(format!("relay URL {url:?}: expected http(s)://host:port"));
        }
        Ok(RelayEndpoint { key, url: url.trim_end_matches('/').to_owned() })
    }
}

/// The witness side (see the module docs).
pub struct DeliveryWitness {
    identity: Identity,
    relays: Vec<RelayEndpoint>,
    client: reqwest::Client,
    in_flight: Semaphore,
    /// Deliveries by the sender's bucket (an IPv6 address: its /64).
    by_address: DefaultKeyedRateLimiter<crate::address::Bucket>,
    sweeper: super::Sweeper,
    clock: Box<dyn Fn() -> u64 + Send + Sync>,
}

impl DeliveryWitness {
    /// A witness signing with `identity` that delivers to `relays`, reading the time from the
    /// system clock.
    pub fn new(identity: Identity, relays: Vec<RelayEndpoint>) -> DeliveryWitness {
        DeliveryWitness::with_clock(identity, relays, Box::new(system_ms))
    }

    /// The same with another clock (tests: a witness whose clock is late or early).
    pub fn with_clock(
        identity: Identity,
        relays: Vec<RelayEndpoint>,
        clock: Box<dyn Fn() -> u64 + Send + Sync>,
    ) -> DeliveryWitness {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(FORWARD_TIMEOUT_MS))
            .build()
            .unwrap_or_default();
        let quota = Quota::per_second(
            NonZeroU32::new(DELIVERIES_PER_SECOND_PER_ADDRESS).unwrap_or(NonZeroU32::MIN),
        )
        .allow_burst(NonZeroU32::new(DELIVERY_BURST).unwrap_or(NonZeroU32::MIN));
        DeliveryWitness {
            identity,
            relays,
            client,
            in_flight: Semaphore::new(MAX_DELIVERIES_IN_FLIGHT),
            by_address: RateLimiter::keyed(quota),
            sweeper: super::Sweeper::new(MAX_TRACKED_ADDRESSES),
            clock,
        }
    }

    /// Forgets the addresses that are back to their full allowance.
    fn forget_idle(&self) {
        self.by_address.retain_recent();
        self.by_address.shrink_to_fit();
    }

    /// The witness's key (what a verifier is given).
    pub fn key(&self) -> PublicKey {
        self.identity.public()
    }

    /// Answers one request: the notice and the relay's answer, or the HTTP status and why not.
    pub async fn deliver(&self, body: &[u8]) -> Result<DeliveryAnswer, (StatusCode, String)> {
        let request = DeliveryRequest::from_canonical(body)
            .map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
        let (terms, _) =
            check_request(&request).map_err(|e| (StatusCode::FORBIDDEN, e.to_string()))?;
        let relay = self.relays.iter().find(|r| r.key == terms.terms.relay).ok_or_else(|| {
            (
                StatusCode::NOT_FOUND,
                format!("this witness does not deliver to relay {}", terms.terms.relay),
            )
        })?;
        let _permit = self.in_flight.try_acquire().map_err(|_| {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("{MAX_DELIVERIES_IN_FLIGHT} deliveries in flight; try again"),
            )
        })?;
        // The notice is signed before the forwarding: it states when the witness was offered
        // the message, whatever the relay then does.
        let delivered = Delivered::notarize(
            &self.identity,
            terms.match_id,
            request.message.clone(),
            (self.clock)(),
        );
        let answer = self.forward(relay, &terms.match_id, &request.message).await;
        let answer = match answer {
            RelayAnswer::Receipted(e)
                if e.message != request.message
                    || e.receipt.verify(&relay.key, &terms.match_id, &request.message).is_err() =>
            {
                RelayAnswer::Refused("the relay answered with another message's entry".into())
            }
            other => other,
        };
        Ok(DeliveryAnswer { version: VERSION, delivered, relay: answer })
    }

    async fn forward(
        &self,
        relay: &RelayEndpoint,
        match_id: &protocol::MatchId,
        message: &SignedMessage,
    ) -> RelayAnswer {
        let url = format!("{}/api/match/{}/deliver", relay.url, protocol::hex::encode(&match_id.0));
        let sent = self.client.post(url).body(message.to_canonical()).send().await;
        let mut response = match sent {
            Ok(r) => r,
            Err(e) => return RelayAnswer::Unreachable(format!("request: {e}")),
        };
        let status = response.status();
        let mut bytes = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > MAX_RELAY_ANSWER_BYTES {
                        return RelayAnswer::Unreachable(format!(
                            "an answer over {MAX_RELAY_ANSWER_BYTES} bytes"
                        ));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return RelayAnswer::Unreachable(format!("reading: {e}")),
            }
        }
        if status.is_success() {
            match Entry::from_canonical(&bytes) {
                Ok(e) => RelayAnswer::Receipted(e),
                Err(e) => RelayAnswer::Unreachable(format!("an answer that is no entry: {e}")),
            }
        } else {
            let text = String::from_utf8_lossy(&bytes).chars().take(500).collect::<String>();
            RelayAnswer::Refused(format!("HTTP {}: {}", status.as_u16(), text.trim_end()))
        }
    }
}

fn system_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The witness's delivery route, `POST /deliver` (merge it into the witness's router; serve with
/// `into_make_service_with_connect_info::<SocketAddr>` so the per-address limit applies).
pub fn delivery_router(witness: Arc<DeliveryWitness>) -> axum::Router {
    {
        let witness = witness.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                witness.forget_idle();
            }
        });
    }
    axum::Router::new()
        .route("/deliver", axum::routing::post(deliver))
        .layer(DefaultBodyLimit::max(MAX_DELIVERY_REQUEST_BYTES))
        .with_state(witness)
}

async fn deliver(
    State(witness): State<Arc<DeliveryWitness>>,
    peer: Option<axum::Extension<ConnectInfo<SocketAddr>>>,
    body: Bytes,
) -> Response {
    if witness.sweeper.counted(|| witness.by_address.len()) {
        witness.forget_idle();
    }
    if let Some(axum::Extension(ConnectInfo(addr))) = peer
        && witness.by_address.check_key(&crate::address::Bucket::of(addr.ip())).is_err()
    {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "{} asks for more than {DELIVERIES_PER_SECOND_PER_ADDRESS} deliveries per second\n",
                crate::address::describe(addr.ip())
            ),
        )
            .into_response();
    }
    match witness.deliver(&body).await {
        Ok(answer) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"))],
            answer.to_canonical(),
        )
            .into_response(),
        Err((status, why)) => (status, format!("{why}\n")).into_response(),
    }
}

/// Serves a delivery witness alone on `listener` (tests, and a witness without a log): `POST
/// /deliver`, with the peer's address for the per-address limit.
pub fn spawn_witness(
    listener: tokio::net::TcpListener,
    witness: Arc<DeliveryWitness>,
) -> tokio::task::JoinHandle<()> {
    let app = delivery_router(witness).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    })
}
