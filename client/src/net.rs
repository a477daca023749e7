//! The client side of the server's API (docs/SERVER.md): sign-in by signature, the JSON
//! calls of the lobby, the NDJSON event stream, and a match socket carrying
//! [`protocol::wire`] frames.
//!
//! Keys never leave this process: the server only ever sees public keys, signatures and the
//! signed messages themselves.

use futures_util::{SinkExt, StreamExt};
use protocol::codec::Canonical;
use protocol::message::SignedMessage;
use protocol::wire::{ClientFrame, ServerFrame};
use protocol::{Identity, MatchId, PublicKey, Signature};
use serde_json::{Value, json};
use std::time::Duration;
use thiserror::Error;
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
            NetError::Protocol { .. } | NetError::Tls { .. } => false,
        }
    }

    /// The error of a failed request or connection to `url`: [`NetError::Tls`] where a TLS
    /// error is in `e`'s chain, else [`NetError::Connect`].
    pub fn connect(url: &str, e: &(dyn std::error::Error + 'static)) -> NetError {
        match crate::tls::explain(e) {
            Some(why) => NetError::Tls { url: url.into(), why },
            None => NetError::Connect { url: url.into(), why: e.to_string() },
        }
    }
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
/// server no longer knows it (after a restart, tokens live in the server's memory only).
#[derive(Clone, Debug)]
pub struct Session {
    http: reqwest::Client,
    base: String,
    identity: Identity,
    name: Option<String>,
    token: std::sync::Arc<std::sync::Mutex<String>>,
    /// The local address every connection of this session starts from (`None`: the
    /// system's choice).
    local: Option<std::net::IpAddr>,
    /// The signed-in key.
    pub key: PublicKey,
    /// The server.
    pub info: ServerInfo,
}

fn key_field(v: &Value, field: &str) -> Option<PublicKey> {
    v.get(field).and_then(Value::as_str).and_then(|s| s.parse().ok())
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
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| NetError::Connect { url: base.to_owned(), why: e.to_string() })?;
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
        let base = base.trim_end_matches('/').to_owned();
        let tls =
            crate::tls::client_config().map_err(|why| NetError::Tls { url: base.clone(), why })?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .local_address(local)
            .tls_backend_preconfigured((*tls).clone())
            .build()
            .map_err(|e| NetError::Connect { url: base.clone(), why: e.to_string() })?;
        let info = Session::server_info(&http, &base).await?;
        let session = Session {
            http,
            base,
            identity: identity.clone(),
            name: name.map(str::to_owned),
            token: std::sync::Arc::default(),
            local,
            key: identity.public(),
            info,
        };
        session.renew().await?;
        Ok(session)
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
        if let Some(n) = &self.name {
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
        Ok(EventStream { url, body: Box::pin(r.bytes_stream()), buffer: Vec::new() })
    }

    /// Opens a match socket, saying the last position already held.
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
    /// [`Session::socket`]).
    pub async fn socket_without_hello(&self, id: &MatchId) -> Result<MatchSocket, NetError> {
        let ws_base = self.base.replacen("http", "ws", 1);
        let url = format!("{ws_base}/api/match/{}/socket", protocol::hex::encode(&id.0));
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
                tokio_tungstenite::connect_async_tls_with_config(
                    req,
                    Some(config),
                    false,
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
        Ok(MatchSocket { url, ws })
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
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The NDJSON event stream.
pub struct EventStream {
    url: String,
    body: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: Vec<u8>,
}

impl EventStream {
    /// The next event; `None` when the stream ends (reconnect to get the current state).
    pub async fn next(&mut self) -> Option<Result<Value, NetError>> {
        loop {
            if let Some(at) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=at).collect();
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(text.trim()).map_err(|e| NetError::Protocol {
                    url: self.url.clone(),
                    why: format!("event line: {e}"),
                }));
            }
            match self.body.next().await? {
                Ok(chunk) => self.buffer.extend_from_slice(&chunk),
                Err(e) => {
                    return Some(Err(NetError::Connect {
                        url: self.url.clone(),
                        why: e.to_string(),
                    }));
                }
            }
        }
    }
}

/// A match socket.
pub struct MatchSocket {
    url: String,
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl MatchSocket {
    /// Sends one frame.
    pub async fn send_frame(&mut self, f: &ClientFrame) -> Result<(), NetError> {
        self.ws
            .send(Message::Binary(f.to_canonical().into()))
            .await
            .map_err(|e| NetError::Connect { url: self.url.clone(), why: e.to_string() })
    }

    /// Sends a signed message (its canonical bytes, as signed).
    pub async fn send(&mut self, m: &SignedMessage) -> Result<(), NetError> {
        self.send_frame(&ClientFrame::Message(m.to_canonical())).await
    }

    /// Sends raw bytes as one binary frame (tests of hostile clients).
    pub async fn send_raw(&mut self, bytes: Vec<u8>) -> Result<(), NetError> {
        self.ws
            .send(Message::Binary(bytes.into()))
            .await
            .map_err(|e| NetError::Connect { url: self.url.clone(), why: e.to_string() })
    }

    /// Sends a text frame (tests of hostile clients: the protocol is binary).
    pub async fn send_text(&mut self, text: &str) -> Result<(), NetError> {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| NetError::Connect { url: self.url.clone(), why: e.to_string() })
    }

    /// The next frame from the server; `None` once the socket is closed. A close carries its
    /// reason as an error.
    pub async fn next(&mut self) -> Option<Result<ServerFrame, NetError>> {
        loop {
            let m = match self.ws.next().await? {
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
