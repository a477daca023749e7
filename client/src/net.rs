//! The client side of the server's API (docs/SERVER.md): sign-in by signature, the JSON
//! calls of the lobby, the NDJSON event stream, and match sockets carrying [`protocol::wire`]
//! frames: by default every match of a session shares one multiplexed socket
//! ([`Session::open`]), as lichess's clients do; a socket of one match's own
//! ([`Session::socket`]) remains for compatibility and tests.
//!
//! Keys never leave this process: the server only ever sees public keys, signatures and the
//! signed messages themselves.

use futures_util::{SinkExt, StreamExt};
use protocol::codec::Canonical;
use protocol::message::SignedMessage;
use protocol::wire::{ClientFrame, ServerFrame};
use protocol::{Identity, MatchId, PublicKey, Signature};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use thiserror::Error;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{self, Message, client::IntoClientRequest};

/// Why a call to the server failed.
#[derive(Debug, Error)]
pub enum NetError {
    /// The server could not be reached, or the connection broke.
    #[error("{url}: {why}")]
    Connect {
        /// What was called.
        url: String,
        /// Why it failed.
        why: String,
    },
    /// The TLS connection failed: the server's certificate is not trusted, or the handshake
    /// failed. Retrying does not help.
    #[error("{url}: {why}")]
    Tls {
        /// What was called.
        url: String,
        /// Why it failed ([`crate::tls::explain`]).
        why: String,
    },
    /// The server answered with an error.
    #[error("{url}: {status}: {message}")]
    Refused {
        /// What was called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's `error` text.
        message: String,
    },
    /// The display name given cannot be signed (docs/PROTOCOL.md, display names): nothing
    /// was sent.
    #[error(transparent)]
    Name(#[from] protocol::names::NameError),
    /// The server sent something this client cannot read.
    #[error("{url}: unexpected answer: {why}")]
    Protocol {
        /// What was called.
        url: String,
        /// What is wrong with it.
        why: String,
    },
}

impl NetError {
    /// Whether retrying later may help (the server is down or restarting).
    pub fn is_transient(&self) -> bool {
        match self {
            NetError::Connect { .. } => true,
            NetError::Refused { status, .. } => *status == 429 || *status >= 500,
            NetError::Protocol { .. } | NetError::Tls { .. } | NetError::Name(_) => false,
        }
    }

    /// The URL a cluster node named as the owner of the match it does not run (its 1013
    /// close, or the multiplexed socket's `Left`: [`protocol::wire::owner_redirect`]), if this
    /// error is one. An address to judge ([`Session::at_node`]), not to trust.
    pub fn moved_to(&self) -> Option<&str> {
        match self {
            NetError::Connect { why, .. } => protocol::wire::redirect_target(why),
            _ => None,
        }
    }

    /// The error of a failed request or connection to `url`: [`NetError::Tls`] where a TLS
    /// error is in `e`'s chain, else [`NetError::Connect`].
    pub fn connect(url: &str, e: &(dyn std::error::Error + 'static)) -> NetError {
        match crate::tls::explain(e) {
            Some(why) => NetError::Tls { url: url.into(), why },
            None => NetError::Connect { url: url.into(), why: with_causes(e) },
        }
    }
}

/// An error's text followed by its causes' (reqwest's own text, "error sending request for
/// url", says nothing of why: the cause, a reset or a refused connection, is in its sources).
pub fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// What `/api/info` says of the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    /// The relay's key (sign-ins are bound to it).
    pub relay: PublicKey,
    /// The server's umpire service, if it runs one.
    pub umpire: Option<PublicKey>,
    /// The server's house bot, if any.
    pub bot: Option<PublicKey>,
}

/// A signed-in session with a server. Its token is renewed by signing in again whenever the
/// server no longer honours it (expired, or another host's server).
#[derive(Clone, Debug)]
pub struct Session {
    http: reqwest::Client,
    base: String,
    identity: Identity,
    /// The display name set at every sign-in, signed by the key.
    name: Arc<std::sync::Mutex<Option<protocol::names::SignedName>>>,
    token: std::sync::Arc<std::sync::Mutex<String>>,
    /// The local address every connection of this session starts from (`None`: the
    /// system's choice).
    local: Option<std::net::IpAddr>,
    /// The signed-in key.
    pub key: PublicKey,
    /// The server.
    pub info: ServerInfo,
    /// The multiplexed socket every clone of this session shares, opened on first use and
    /// again after it broke.
    mux: Arc<tokio::sync::Mutex<Option<mpsc::UnboundedSender<MuxCommand>>>>,
    /// Numbers this session's subscriptions (so a match opened again is not left by the
    /// old one's end).
    subscriptions: Arc<AtomicU64>,
    /// Sessions signed in afresh at the cluster nodes a redirect named, by origin (at most
    /// [`MAX_NODE_SESSIONS`]; [`Session::at_node`]).
    nodes: Arc<tokio::sync::Mutex<std::collections::BTreeMap<String, Session>>>,
    /// How many redirects to another node this session has followed ([`Session::redirects`]).
    followed: Arc<AtomicU64>,
}

/// How many redirects to a match's owner node a seat follows in a row (without reaching the
/// match) before it waits its backoff and starts again from its configured server: a node
/// that names another, which names another, never keeps it from waiting.
pub const MAX_REDIRECTS: usize = 4;

/// How many cluster nodes' sessions one session keeps ([`Session::at_node`]); past it one
/// (the first by origin) is dropped, and signed in again if named again.
pub const MAX_NODE_SESSIONS: usize = 16;

type WsStream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// What a session's match sockets ask of its multiplexed socket's task.
enum MuxCommand {
    /// Follow a match from `since`; its frames go to `tx`.
    Open { id: MatchId, since: Option<u64>, token: u64, tx: mpsc::UnboundedSender<MuxEvent> },
    /// Send these bytes as one binary frame.
    Send(Vec<u8>),
    /// Stop following a match (if subscription `token` is still the one open).
    Leave { id: MatchId, token: u64 },
}

/// What a session's multiplexed socket hands one match socket.
enum MuxEvent {
    /// A frame of the match.
    Frame(ServerFrame),
    /// The subscription ended: the server left it, or the socket broke after its `Welcome`.
    Ended(NetError),
    /// The socket broke before the server answered this subscription's `Open` (an `Open` that
    /// raced the socket's close): nothing of the match came on it, so the match socket opens it
    /// again on the session's next socket ([`MAX_REOPENS`]).
    Broke(NetError),
}

/// How many times a match socket opens its match again on a new multiplexed socket when the
/// one it was opened on broke before the server answered (each time on a socket the session
/// connected after the break); past it the break is the match socket's error.
pub const MAX_REOPENS: u32 = 3;

/// How long an idle pooled HTTP connection is kept for reuse: less than the server's own
/// keep-alive idle limit (docs/SERVER.md, limits: `max_keep_alive_idle_ms`, 60 s by default).
pub const POOL_IDLE: Duration = Duration::from_secs(30);

fn key_field(v: &Value, field: &str) -> Option<PublicKey> {
    v.get(field).and_then(Value::as_str).and_then(|s| s.parse().ok())
}

/// A match id's hex (for logs).
pub fn hex_id(id: &MatchId) -> String {
    protocol::hex::encode(&id.0)
}

/// The hex of a signature's 64 bytes.
pub fn signature_hex(s: &Signature) -> String {
    protocol::hex::encode(&s.to_bytes())
}

async fn answer(
    url: &str,
    r: Result<reqwest::Response, reqwest::Error>,
) -> Result<Value, NetError> {
    let r = r.map_err(|e| NetError::connect(url, &e))?;
    let status = r.status().as_u16();
    let text =
        r.text().await.map_err(|e| NetError::Connect { url: url.into(), why: e.to_string() })?;
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if !(200..300).contains(&status) {
        let message = v.get("error").and_then(Value::as_str).map_or(text.clone(), str::to_owned);
        return Err(NetError::Refused { url: url.into(), status, message });
    }
    Ok(v)
}

impl Session {
    /// Reads `/api/info` of the server at `base` (`http://host:port`).
    pub async fn server_info(http: &reqwest::Client, base: &str) -> Result<ServerInfo, NetError> {
        let url = format!("{base}/api/info");
        let v = answer(&url, http.get(&url).send().await).await?;
        let relay = key_field(&v, "relay")
            .ok_or_else(|| NetError::Protocol { url: url.clone(), why: "no relay key".into() })?;
        Ok(ServerInfo { relay, umpire: key_field(&v, "umpire"), bot: key_field(&v, "bot") })
    }

    /// Signs in to the server at `base` with `identity` (and sets the display name if given).
    pub async fn sign_in(
        base: &str,
        identity: &Identity,
        name: Option<&str>,
    ) -> Result<Session, NetError> {
        Session::sign_in_from(base, identity, name, None).await
    }

    /// [`Session::sign_in`], but first `check` judges the server's `/api/info` (its relay key:
    /// the agent's configured or pinned key); nothing is signed for a server it refuses.
    /// (issue13-rated: added for the sign-in that names its server.)
    pub async fn sign_in_checked(
        base: &str,
        identity: &Identity,
        name: Option<&str>,
        check: &(dyn Fn(&ServerInfo) -> Result<(), String> + Send + Sync),
    ) -> Result<Session, NetError> {
        let base = base.trim_end_matches('/');
        let http = Session::http_client(base, None)?;
        let info = Session::server_info(&http, base).await?;
        check(&info).map_err(|why| NetError::Protocol { url: format!("{base}/api/info"), why })?;
        let session = Session::sign_in(base, identity, name).await?;
        if session.info.relay != info.relay {
            let why = check(&session.info).err().unwrap_or_else(|| "its relay key changed".into());
            return Err(NetError::Protocol { url: format!("{base}/api/info"), why });
        }
        Ok(session)
    }

    /// [`Session::sign_in`] with every connection of the session (requests and sockets)
    /// starting from the local address `local`: a load generator on one machine spreads its
    /// simulated players over the loopback range as real players come from many addresses.
    pub async fn sign_in_from(
        base: &str,
        identity: &Identity,
        name: Option<&str>,
        local: Option<std::net::IpAddr>,
    ) -> Result<Session, NetError> {
        let http = Session::http_client(base, local)?;
        Session::sign_in_with(http, base, identity, name, local).await
    }

    /// An HTTP client whose connections start from `local` (`None`: the system's choice), for
    /// [`Session::sign_in_with`].
    pub fn http_client(
        base: &str,
        local: Option<std::net::IpAddr>,
    ) -> Result<reqwest::Client, NetError> {
        let tls = crate::tls::client_config()
            .map_err(|why| NetError::Tls { url: base.to_owned(), why })?;
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // Below the server's keep-alive idle time (`max_keep_alive_idle_ms`, 60 s): a pooled
            // connection is never reused just as the server closes it ("connection closed
            // before message completed").
            .pool_idle_timeout(POOL_IDLE)
            .local_address(local)
            .tls_backend_preconfigured((*tls).clone())
            .build()
            .map_err(|e| NetError::Connect { url: base.to_owned(), why: e.to_string() })
    }

    /// [`Session::sign_in_from`] over an HTTP client shared with other sessions (made by
    /// [`Session::http_client`] with the same `local`): a load generator's many players share
    /// its pool of idle connections instead of keeping one each.
    pub async fn sign_in_with(
        http: reqwest::Client,
        base: &str,
        identity: &Identity,
        name: Option<&str>,
        local: Option<std::net::IpAddr>,
    ) -> Result<Session, NetError> {
        let base = base.trim_end_matches('/').to_owned();
        // The name is signed once, here: every sign-in of this session sends the same
        // statement (a newer session's replaces it on the server).
        let name =
            name.map(|n| protocol::names::SignedName::sign(identity, n, wall_ms())).transpose()?;
        let info = Session::server_info(&http, &base).await?;
        let session = Session {
            http,
            base,
            identity: identity.clone(),
            name: Arc::new(std::sync::Mutex::new(name)),
            token: std::sync::Arc::default(),
            local,
            key: identity.public(),
            info,
            mux: Arc::default(),
            subscriptions: Arc::default(),
            nodes: Arc::default(),
            followed: Arc::default(),
        };
        session.renew().await?;
        Ok(session)
    }

    /// A session at the cluster node `url` that a redirect named as a match's owner (docs/
    /// SERVER.md, several nodes), for that match's socket: the address is the server's word,
    /// so it is judged, never trusted. Only an `http(s)://` (or `ws(s)://`) address is
    /// followed, only its origin, and never from `https` down to `http`. The agent signs in
    /// there **afresh**: this session's token never goes to another origin (the node may be a
    /// stranger's: a sign-in names the origin it is made at, so the node can replay it
    /// nowhere else), and `relay`, the key this match's terms name, must be the node's relay
    /// key before anything is signed (a node with another key could not receipt the match
    /// anyway). The sessions are kept by origin ([`MAX_NODE_SESSIONS`]). Returns this session
    /// itself for its own origin.
    pub async fn at_node(&self, url: &str, relay: &PublicKey) -> Result<Session, NetError> {
        let bad = |why: &str| NetError::Protocol { url: url.to_owned(), why: why.to_owned() };
        let http_url = match url.split_once("://") {
            Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
                "http" | "ws" => format!("http://{rest}"),
                "https" | "wss" => format!("https://{rest}"),
                _ => return Err(bad("a redirect to a node must name an http(s) or ws(s) address")),
            },
            None => return Err(bad("a redirect to a node must name an http(s) or ws(s) address")),
        };
        let origin = protocol::wire::origin(&http_url)
            .ok_or_else(|| bad("a redirect to a node must name an http(s)://host[:port]"))?;
        let own = protocol::wire::origin(&self.base);
        if own.as_deref() == Some(origin.as_str()) {
            return Ok(self.clone());
        }
        if own.as_deref().is_some_and(|o| o.starts_with("https://"))
            && !origin.starts_with("https://")
        {
            return Err(bad("a redirect from https to plain http is not followed"));
        }
        let mut nodes = self.nodes.lock().await;
        if let Some(s) = nodes.get(&origin).filter(|s| s.info.relay == *relay) {
            self.followed.fetch_add(1, Ordering::Relaxed);
            return Ok(s.clone());
        }
        let info = Session::server_info(&self.http, &origin).await?;
        if info.relay != *relay {
            return Err(NetError::Protocol {
                url: format!("{origin}/api/info"),
                why: format!(
                    "the node's relay key is {}, the match's is {relay}: not following it",
                    info.relay
                ),
            });
        }
        let session = Session {
            http: self.http.clone(),
            base: origin.clone(),
            identity: self.identity.clone(),
            name: Arc::new(std::sync::Mutex::new(self.name())),
            token: std::sync::Arc::default(),
            local: self.local,
            key: self.key,
            info,
            mux: Arc::default(),
            subscriptions: Arc::default(),
            nodes: Arc::default(),
            followed: Arc::default(),
        };
        session.renew().await?;
        if nodes.len() >= MAX_NODE_SESSIONS
            && let Some(first) = nodes.keys().next().cloned()
        {
            nodes.remove(&first);
        }
        nodes.insert(origin, session.clone());
        self.followed.fetch_add(1, Ordering::Relaxed);
        Ok(session)
    }

    /// How many times [`Session::at_node`] gave this session (and its clones) another node's
    /// session to follow a redirect to.
    pub fn redirects(&self) -> u64 {
        self.followed.load(Ordering::Relaxed)
    }

    /// Signs in again (a fresh challenge, signed) and keeps the new token.
    pub async fn renew(&self) -> Result<(), NetError> {
        let base = &self.base;
        let url = format!("{base}/api/auth/challenge");
        let c = answer(&url, self.http.post(&url).send().await).await?;
        let challenge = c
            .get("challenge")
            .and_then(Value::as_str)
            .and_then(protocol::hex::decode_array::<32>)
            .ok_or_else(|| NetError::Protocol { url: url.clone(), why: "no challenge".into() })?;
        // The sign-in names the server: its relay key and the origin this client connected to
        // (a proxy relaying another server's challenge gets a signature naming itself).
        let origin = protocol::wire::origin(base).ok_or_else(|| NetError::Protocol {
            url: base.clone(),
            why: "not an http(s)://host[:port] address".into(),
        })?;
        let signature =
            protocol::wire::sign_in(&self.identity, &self.info.relay, &origin, &challenge);
        let url = format!("{base}/api/auth/login");
        let mut body = json!({
            "key": self.key.to_string(),
            "challenge": protocol::hex::encode(&challenge),
            "signature": signature_hex(&signature),
            "origin": origin,
        });
        if let Some(n) = self.name() {
            body["name"] = json!(n);
        }
        let v = answer(&url, self.http.post(&url).json(&body).send().await).await?;
        let token = v
            .get("token")
            .and_then(Value::as_str)
            .ok_or_else(|| NetError::Protocol { url: url.clone(), why: "no token".into() })?;
        *self.token.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = token.to_owned();
        Ok(())
    }

    /// The display name this session signed in with, if any.
    pub fn name(&self) -> Option<protocol::names::SignedName> {
        self.name.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Sets the display name on the server (signed now by the key; the server refuses a name
    /// it cannot check) and signs in with it from now on, in every clone of this session.
    pub async fn set_name(&self, name: &str) -> Result<protocol::names::SignedName, NetError> {
        let signed = protocol::names::SignedName::sign(&self.identity, name, wall_ms())?;
        self.post("/api/account", &json!({ "name": signed })).await?;
        *self.name.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(signed.clone());
        Ok(signed)
    }

    /// The session's bearer token now (for requests made without this session's client).
    pub fn bearer_token(&self) -> String {
        self.token()
    }

    fn token(&self) -> String {
        self.token.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Sends a request built by `build` with the token; signs in again once if the server no
    /// longer knows the token.
    async fn authed(
        &self,
        url: &str,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, NetError> {
        let connect = |e: reqwest::Error| NetError::connect(url, &e);
        let r = build(&self.token()).send().await.map_err(connect)?;
        if r.status() != reqwest::StatusCode::UNAUTHORIZED {
            return Ok(r);
        }
        self.renew().await?;
        build(&self.token()).send().await.map_err(connect)
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `GET path` (JSON).
    pub async fn get(&self, path: &str) -> Result<Value, NetError> {
        let url = format!("{}{path}", self.base);
        let r = self.authed(&url, |t| self.http.get(&url).bearer_auth(t)).await?;
        answer(&url, Ok(r)).await
    }

    /// `POST path` with a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, NetError> {
        let url = format!("{}{path}", self.base);
        let r = self.authed(&url, |t| self.http.post(&url).bearer_auth(t).json(body)).await?;
        answer(&url, Ok(r)).await
    }

    /// `GET path` as bytes (a record).
    pub async fn get_bytes(&self, path: &str) -> Result<Vec<u8>, NetError> {
        let url = format!("{}{path}", self.base);
        let r = self.authed(&url, |t| self.http.get(&url).bearer_auth(t)).await?;
        let status = r.status().as_u16();
        let bytes = r
            .bytes()
            .await
            .map_err(|e| NetError::Connect { url: url.clone(), why: e.to_string() })?;
        if !(200..300).contains(&status) {
            let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let message = v.get("error").and_then(Value::as_str).unwrap_or("").to_owned();
            return Err(NetError::Refused { url, status, message });
        }
        Ok(bytes.to_vec())
    }

    /// The record of a finished match.
    pub async fn record(&self, id: &MatchId) -> Result<Vec<u8>, NetError> {
        self.get_bytes(&format!("/api/match/{}/record", protocol::hex::encode(&id.0))).await
    }

    /// Opens this key's event stream: one JSON value per event (keep-alive lines skipped).
    pub async fn events(&self) -> Result<EventStream, NetError> {
        let url = format!("{}/api/stream/event", self.base);
        let r = self.authed(&url, |t| self.http.get(&url).bearer_auth(t)).await?;
        if !r.status().is_success() {
            return Err(NetError::Refused {
                url,
                status: r.status().as_u16(),
                message: r.text().await.unwrap_or_default(),
            });
        }
        Ok(EventStream { url, lines: crate::ndjson::Lines::new(r.bytes_stream()) })
    }

    /// Opens a socket of match `id` of its own (`GET /api/match/{id}/socket`), saying the last
    /// position already held (compatibility and tests; a participant uses [`Session::open`]).
    pub async fn socket(&self, id: &MatchId, since: Option<u64>) -> Result<MatchSocket, NetError> {
        match self.try_socket(id, since).await {
            Err(NetError::Refused { status: 401, .. }) => {
                self.renew().await?;
                self.try_socket(id, since).await
            }
            other => other,
        }
    }

    async fn try_socket(&self, id: &MatchId, since: Option<u64>) -> Result<MatchSocket, NetError> {
        let mut s = self.socket_without_hello(id).await?;
        s.send_frame(&ClientFrame::Hello { version: protocol::codec::VERSION, since }).await?;
        Ok(s)
    }

    /// Opens a match socket and says nothing yet (tests of hostile clients; a participant uses
    /// [`Session::open`]).
    pub async fn socket_without_hello(&self, id: &MatchId) -> Result<MatchSocket, NetError> {
        let path = format!("/api/match/{}/socket", protocol::hex::encode(&id.0));
        let (url, ws) = self.connect_ws(&path).await?;
        Ok(MatchSocket { url, inner: Inner::Own(Box::new(ws)) })
    }

    /// Opens a WebSocket to `path` with this session's token.
    async fn connect_ws(&self, path: &str) -> Result<(String, WsStream), NetError> {
        let ws_base = self.base.replacen("http", "ws", 1);
        let url = format!("{ws_base}{path}");
        let err = |why: String| NetError::Connect { url: url.clone(), why };
        let mut req = url.as_str().into_client_request().map_err(|e| err(e.to_string()))?;
        let auth = format!("Bearer {}", self.token()).parse().map_err(|_| err("token".into()))?;
        req.headers_mut().insert("authorization", auth);
        // Read 4 KiB at a time, not tungstenite's 128 KiB (zeroed before every read and kept
        // per socket), as the server does (`server::socket::READ_BUFFER_BYTES`).
        let config = tungstenite::protocol::WebSocketConfig::default()
            .read_buffer_size(4096)
            .max_message_size(Some(ServerFrame::MAX_BYTES + 64))
            .max_frame_size(Some(ServerFrame::MAX_BYTES + 64));
        // wss: the same roots as the session's requests (used only for a wss URL).
        let tls =
            crate::tls::client_config().map_err(|why| NetError::Tls { url: url.clone(), why })?;
        let connector = Some(tokio_tungstenite::Connector::Rustls(tls));
        let connected = match self.local {
            None => {
                // No Nagle (`disable_nagle`): frames are small and must leave at once.
                tokio_tungstenite::connect_async_tls_with_config(
                    req,
                    Some(config),
                    true,
                    connector,
                )
                .await
            }
            Some(local) => {
                let stream =
                    connect_from(local, &self.base).await.map_err(|e| err(e.to_string()))?;
                tokio_tungstenite::client_async_tls_with_config(
                    req,
                    stream,
                    Some(config),
                    connector,
                )
                .await
            }
        };
        let (ws, _) = connected.map_err(|e| match e {
            tungstenite::Error::Http(r) => NetError::Refused {
                url: url.clone(),
                status: r.status().as_u16(),
                message: String::from_utf8_lossy(r.body().as_deref().unwrap_or_default())
                    .into_owned(),
            },
            e => NetError::connect(&url, &e),
        })?;
        Ok((url, ws))
    }

    /// Follows match `id` from the last position held, over the session's one multiplexed
    /// socket (`GET /api/socket`, opened on first use, and again after it broke): the
    /// returned socket behaves as a socket of the match's own (`Welcome`, the catch-up, live
    /// entries; an error, then `None`, when the server stops following the match here or the
    /// shared socket breaks), while every match of the session shares one connection.
    pub async fn open(&self, id: &MatchId, since: Option<u64>) -> Result<MatchSocket, NetError> {
        let Subscribed { url, token, cmd, rx } = self.subscribe(id, since).await?;
        let channel =
            MuxChannel { session: self.clone(), id: *id, since, token, cmd, rx, reopens: 0 };
        Ok(MatchSocket { url, inner: Inner::Mux(Box::new(channel)) })
    }

    /// Asks the session's multiplexed socket to follow `id` from `since`.
    async fn subscribe(&self, id: &MatchId, since: Option<u64>) -> Result<Subscribed, NetError> {
        let token = self.subscriptions.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        let mut open = MuxCommand::Open { id: *id, since, token, tx };
        // A socket that broke between `mux_link` and the send has closed its queue: the
        // second link is a new socket.
        for _ in 0..2 {
            let (url, cmd) = self.mux_link().await?;
            match cmd.send(open) {
                Ok(()) => return Ok(Subscribed { url, token, cmd, rx }),
                Err(mpsc::error::SendError(back)) => open = back,
            }
        }
        let ws_base = self.base.replacen("http", "ws", 1);
        Err(NetError::Connect {
            url: format!("{ws_base}/api/socket"),
            why: "the socket closed".into(),
        })
    }

    /// The multiplexed socket's task, connecting it if there is none or it broke.
    async fn mux_link(&self) -> Result<(String, mpsc::UnboundedSender<MuxCommand>), NetError> {
        let ws_base = self.base.replacen("http", "ws", 1);
        let url = format!("{ws_base}/api/socket");
        let mut link = self.mux.lock().await;
        if let Some(cmd) = link.as_ref().filter(|c| !c.is_closed()) {
            return Ok((url, cmd.clone()));
        }
        let (url, mut ws) = match self.connect_ws("/api/socket").await {
            Err(NetError::Refused { status: 401, .. }) => {
                self.renew().await?;
                self.connect_ws("/api/socket").await?
            }
            other => other?,
        };
        let hello = ClientFrame::Hello { version: protocol::codec::VERSION, since: None };
        ws.send(Message::Binary(hello.to_canonical().into()))
            .await
            .map_err(|e| NetError::Connect { url: url.clone(), why: e.to_string() })?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(mux_task(ws, rx, url.clone()));
        *link = Some(tx.clone());
        Ok((url, tx))
    }
}

/// A match followed on the multiplexed socket.
struct MuxSub {
    token: u64,
    tx: mpsc::UnboundedSender<MuxEvent>,
    /// Whether its `Welcome` came: frames before it are the rest of an earlier subscription
    /// of the same match, and dropped.
    welcomed: bool,
}

/// The task of a session's multiplexed socket: sends what the session's match sockets ask,
/// hands each wrapped frame to its match's socket. When the socket breaks, the session stops
/// using it at once (its command queue closes, so the next `open` connects a new socket);
/// every match socket that had its `Welcome` gets the error, then `None` (each seat opens its
/// match again: a new socket), and one whose `Open` the server had not answered (it raced the
/// close) is told to open it again on the new socket ([`MuxEvent::Broke`]).
async fn mux_task(
    mut ws: WsStream,
    mut commands: mpsc::UnboundedReceiver<MuxCommand>,
    url: String,
) {
    let mut subs: HashMap<MatchId, MuxSub> = HashMap::new();
    let connect = |why: String| NetError::Connect { url: url.clone(), why };
    let why = loop {
        tokio::select! {
            m = ws.next() => match m {
                Some(Ok(Message::Binary(b))) => match ServerFrame::from_canonical(&b) {
                    Ok(ServerFrame::For { match_id, frame }) => {
                        let Some(sub) = subs.get_mut(&match_id) else { continue };
                        match *frame {
                            ServerFrame::Left { reason } => {
                                let e = connect(format!("closed: {reason}"));
                                let _ = sub.tx.send(MuxEvent::Ended(e));
                                subs.remove(&match_id);
                            }
                            ServerFrame::Finished { entries } if sub.welcomed => {
                                let f = ServerFrame::Finished { entries };
                                let _ = sub.tx.send(MuxEvent::Frame(f));
                                subs.remove(&match_id);
                            }
                            f @ ServerFrame::Welcome { .. } => {
                                sub.welcomed = true;
                                let _ = sub.tx.send(MuxEvent::Frame(f));
                            }
                            f if sub.welcomed => {
                                let _ = sub.tx.send(MuxEvent::Frame(f));
                            }
                            _ => {}
                        }
                    }
                    Ok(other) => break format!("unexpected answer: an unwrapped frame {other:?}"),
                    Err(e) => break format!("unexpected answer: {e}"),
                },
                Some(Ok(Message::Close(frame))) => {
                    break format!(
                        "closed: {}",
                        frame.map_or_else(String::new, |f| format!("{} {}", f.code, f.reason))
                    );
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break e.to_string(),
                None => break "closed".to_owned(),
            },
            c = commands.recv() => {
                let Some(c) = c else {
                    // The session and all its match sockets are gone.
                    let _ = ws.close(None).await;
                    return;
                };
                // This command and those queued behind it (at most 64) go in one write.
                let mut next = Some(c);
                let mut fed = 0;
                let mut failed = None;
                while let Some(c) = next.take() {
                    let frame = match c {
                        MuxCommand::Open { id, since, token, tx } => {
                            subs.insert(id, MuxSub { token, tx, welcomed: false });
                            Some(ClientFrame::Open { match_id: id, since }.to_canonical())
                        }
                        MuxCommand::Send(bytes) => Some(bytes),
                        MuxCommand::Leave { id, token } => {
                            if subs.get(&id).is_some_and(|s| s.token == token) {
                                subs.remove(&id);
                                Some(ClientFrame::Leave { match_id: id }.to_canonical())
                            } else {
                                None
                            }
                        }
                    };
                    if let Some(frame) = frame {
                        if let Err(e) = ws.feed(Message::Binary(frame.into())).await {
                            failed = Some(e.to_string());
                            break;
                        }
                        fed += 1;
                    }
                    if fed < 64 {
                        next = commands.try_recv().ok();
                    }
                }
                if let Some(why) = failed {
                    break why;
                }
                if fed > 0 && let Err(e) = ws.flush().await {
                    break e.to_string();
                }
            }
        }
    };
    // From here on the session connects a new socket for every `open`; the `Open`s already
    // queued here never reached the server, and are opened again there.
    commands.close();
    let mut unanswered = Vec::new();
    while let Ok(c) = commands.try_recv() {
        if let MuxCommand::Open { tx, .. } = c {
            unanswered.push(tx);
        }
    }
    for sub in subs.into_values() {
        let e = connect(why.clone());
        let _ = sub.tx.send(if sub.welcomed { MuxEvent::Ended(e) } else { MuxEvent::Broke(e) });
    }
    for tx in unanswered {
        let _ = tx.send(MuxEvent::Broke(connect(why.clone())));
    }
}

/// A TCP connection from `local` to the host and port of `base` (`http://host:port`,
/// `https://host:port`).
async fn connect_from(
    local: std::net::IpAddr,
    base: &str,
) -> std::io::Result<tokio::net::TcpStream> {
    let (scheme, authority) = base.split_once("://").unwrap_or(("http", base));
    let authority = authority.split('/').next().unwrap_or(authority);
    let authority = if authority.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) {
        authority.to_owned()
    } else {
        format!("{authority}:{}", if scheme == "https" { 443 } else { 80 })
    };
    let authority = authority.as_str();
    let mut last = std::io::Error::other(format!("{authority}: no address"));
    for addr in tokio::net::lookup_host(authority).await? {
        let socket = match addr {
            std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        socket.bind(std::net::SocketAddr::new(local, 0))?;
        match socket.connect(addr).await {
            Ok(s) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The NDJSON event stream, read line by line with a bounded buffer ([`crate::ndjson`]).
pub struct EventStream {
    url: String,
    lines: crate::ndjson::Lines,
}

impl EventStream {
    /// The next event; `None` when the stream ends (reconnect to get the current state). A
    /// line over [`crate::ndjson::MAX_LINE_BYTES`] is an error and ends the stream.
    pub async fn next(&mut self) -> Option<Result<Value, NetError>> {
        loop {
            let line = match self.lines.next().await? {
                Ok(line) => line,
                Err(crate::ndjson::LineError::Io(e)) => {
                    return Some(Err(NetError::Connect {
                        url: self.url.clone(),
                        why: e.to_string(),
                    }));
                }
                Err(e) => {
                    return Some(Err(NetError::Protocol {
                        url: self.url.clone(),
                        why: format!("event line: {e}"),
                    }));
                }
            };
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            return Some(serde_json::from_str(text.trim()).map_err(|e| NetError::Protocol {
                url: self.url.clone(),
                why: format!("event line: {e}"),
            }));
        }
    }
}

/// A match socket: a socket of the match's own, or a match followed on the session's
/// multiplexed socket (the same frames either way).
pub struct MatchSocket {
    url: String,
    inner: Inner,
}

enum Inner {
    Own(Box<WsStream>),
    Mux(Box<MuxChannel>),
}

/// A subscription asked of the session's multiplexed socket.
struct Subscribed {
    url: String,
    token: u64,
    cmd: mpsc::UnboundedSender<MuxCommand>,
    rx: mpsc::UnboundedReceiver<MuxEvent>,
}

/// A match on the multiplexed socket; leaving it (dropping) tells the server.
struct MuxChannel {
    /// The session, to open the match again if its socket broke before the server answered.
    session: Session,
    id: MatchId,
    /// The position it was (last) opened from.
    since: Option<u64>,
    token: u64,
    cmd: mpsc::UnboundedSender<MuxCommand>,
    rx: mpsc::UnboundedReceiver<MuxEvent>,
    /// Times it was opened again since its last `Welcome` ([`MAX_REOPENS`]).
    reopens: u32,
}

impl MuxChannel {
    /// The next frame, opening the match again on a new socket if the `Open` raced the old
    /// socket's close.
    async fn next(&mut self) -> Option<Result<ServerFrame, NetError>> {
        loop {
            match self.rx.recv().await? {
                MuxEvent::Frame(f) => {
                    if matches!(f, ServerFrame::Welcome { .. }) {
                        self.reopens = 0;
                    }
                    return Some(Ok(f));
                }
                MuxEvent::Ended(e) => return Some(Err(e)),
                MuxEvent::Broke(e) if self.reopens >= MAX_REOPENS => return Some(Err(e)),
                MuxEvent::Broke(_) => {
                    self.reopens += 1;
                    match self.session.subscribe(&self.id, self.since).await {
                        Ok(s) => (self.token, self.cmd, self.rx) = (s.token, s.cmd, s.rx),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
    }
}

impl Drop for MuxChannel {
    fn drop(&mut self) {
        let _ = self.cmd.send(MuxCommand::Leave { id: self.id, token: self.token });
    }
}

impl MatchSocket {
    /// Sends one frame (on the multiplexed socket, `Hello` opens the match again from
    /// `since` and `Message` goes as `To`, naming the match).
    pub async fn send_frame(&mut self, f: &ClientFrame) -> Result<(), NetError> {
        let bytes = match (&mut self.inner, f) {
            (Inner::Mux(m), ClientFrame::Message(bytes)) => {
                ClientFrame::To { match_id: m.id, message: bytes.clone() }.to_canonical()
            }
            (Inner::Mux(m), ClientFrame::Hello { since, .. }) => {
                m.since = *since;
                ClientFrame::Open { match_id: m.id, since: *since }.to_canonical()
            }
            _ => f.to_canonical(),
        };
        self.send_raw(bytes).await
    }

    /// Sends a signed message (its canonical bytes, as signed).
    pub async fn send(&mut self, m: &SignedMessage) -> Result<(), NetError> {
        let message = m.to_canonical();
        let bytes = match &self.inner {
            Inner::Mux(c) => ClientFrame::To { match_id: c.id, message }.to_canonical(),
            Inner::Own(_) => ClientFrame::Message(message).to_canonical(),
        };
        self.send_raw(bytes).await
    }

    /// Sends raw bytes as one binary frame (tests of hostile clients; on the multiplexed
    /// socket they go unchanged, for every match on it).
    pub async fn send_raw(&mut self, bytes: Vec<u8>) -> Result<(), NetError> {
        let url = &self.url;
        match &mut self.inner {
            Inner::Own(ws) => ws
                .send(Message::Binary(bytes.into()))
                .await
                .map_err(|e| NetError::Connect { url: url.clone(), why: e.to_string() }),
            Inner::Mux(c) => c.cmd.send(MuxCommand::Send(bytes)).map_err(|_| NetError::Connect {
                url: url.clone(),
                why: "the socket closed".into(),
            }),
        }
    }

    /// Sends a text frame (tests of hostile clients: the protocol is binary; a socket of the
    /// match's own only).
    pub async fn send_text(&mut self, text: &str) -> Result<(), NetError> {
        let url = &self.url;
        match &mut self.inner {
            Inner::Own(ws) => ws
                .send(Message::Text(text.into()))
                .await
                .map_err(|e| NetError::Connect { url: url.clone(), why: e.to_string() }),
            Inner::Mux(_) => Err(NetError::Protocol {
                url: url.clone(),
                why: "text frames are not sent on the multiplexed socket".into(),
            }),
        }
    }

    /// The next frame from the server; `None` once the socket is closed. A close carries its
    /// reason as an error.
    pub async fn next(&mut self) -> Option<Result<ServerFrame, NetError>> {
        let ws = match &mut self.inner {
            Inner::Own(ws) => ws,
            Inner::Mux(c) => return c.next().await,
        };
        loop {
            let m = match ws.next().await? {
                Ok(m) => m,
                Err(e) => {
                    return Some(Err(NetError::Connect {
                        url: self.url.clone(),
                        why: e.to_string(),
                    }));
                }
            };
            match m {
                Message::Binary(b) => {
                    return Some(ServerFrame::from_canonical(&b).map_err(|e| NetError::Protocol {
                        url: self.url.clone(),
                        why: e.to_string(),
                    }));
                }
                Message::Close(frame) => {
                    let why =
                        frame.map_or_else(String::new, |f| format!("{} {}", f.code, f.reason));
                    return Some(Err(NetError::Connect {
                        url: self.url.clone(),
                        why: format!("closed: {why}"),
                    }));
                }
                _ => {}
            }
        }
    }
}

/// The wall clock, ms since the Unix epoch: when a display name was chosen (a newer statement
/// replaces an older one; nothing a verifier replays).
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn session(base: &str) -> Session {
        let identity = Identity::from_seed(&[5; 32]);
        Session {
            http: Session::http_client(base, None).unwrap(),
            base: base.to_owned(),
            key: identity.public(),
            identity,
            name: Arc::default(),
            token: Arc::new(std::sync::Mutex::new("the-configured-servers-token".into())),
            local: None,
            info: ServerInfo {
                relay: Identity::from_seed(&[6; 32]).public(),
                umpire: None,
                bot: None,
            },
            mux: Arc::default(),
            subscriptions: Arc::default(),
            nodes: Arc::default(),
            followed: Arc::default(),
        }
    }

    /// A server that answers every request with `info` and records each request's head.
    async fn stranger(info: Value) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let heard: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
        let log = heard.clone();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = vec![0; 8192];
                let n = s.read(&mut buf).await.unwrap_or(0);
                log.lock().unwrap().push(String::from_utf8_lossy(&buf[..n]).into_owned());
                let body = info.to_string();
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            }
        });
        (base, heard)
    }

    #[tokio::test]
    async fn a_redirect_is_judged_before_anything_is_signed_or_sent() {
        let relay = Identity::from_seed(&[6; 32]).public();
        let s = session("https://play.example");
        for url in ["ftp://node.example", "javascript:alert(1)", "node.example", "https://u@node"] {
            assert!(
                matches!(s.at_node(url, &relay).await, Err(NetError::Protocol { .. })),
                "{url}"
            );
        }
        // Never from https down to http.
        let e = s.at_node("http://node.example", &relay).await.unwrap_err();
        assert!(e.to_string().contains("plain http"), "{e}");
        // Its own origin: itself (no new sign-in), whatever the path.
        let same = s.at_node("wss://play.example:443/api/socket", &relay).await.unwrap();
        assert_eq!(same.base(), s.base());
        assert_eq!(s.redirects(), 0);

        // A node whose relay key is not the match's: nothing is signed, no token is sent.
        let other = Identity::from_seed(&[7; 32]).public();
        let (base, heard) = stranger(json!({ "relay": other.to_string() })).await;
        let s = session("http://127.0.0.1:1");
        let e = s.at_node(&format!("{base}/x"), &relay).await.unwrap_err();
        assert!(e.to_string().contains("relay key"), "{e}");
        let heard = heard.lock().unwrap().clone();
        assert_eq!(heard.len(), 1, "only /api/info was asked: {heard:?}");
        assert!(heard[0].starts_with("GET /api/info "), "{heard:?}");
        assert!(!heard[0].to_ascii_lowercase().contains("authorization"), "{heard:?}");
        assert!(!heard[0].contains("the-configured-servers-token"), "{heard:?}");
        assert_eq!(s.redirects(), 0);
    }

    #[test]
    fn a_refusal_naming_the_owner_reads_as_a_redirect() {
        let reason = protocol::wire::owner_redirect("http://10.0.0.2:8080");
        let e = NetError::Connect {
            url: "ws://lb/api/socket".into(),
            why: format!("closed: {reason}"),
        };
        assert_eq!(e.moved_to(), Some("http://10.0.0.2:8080"));
        let e = NetError::Connect {
            url: "ws://lb".into(),
            why: "closed: 1013 the match has stopped".into(),
        };
        assert_eq!(e.moved_to(), None);
    }
}
