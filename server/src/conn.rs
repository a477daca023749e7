//! The connection layer (docs/SERVER.md, limits): the server's own accept loop, in front of
//! the HTTP API, so that what a peer can hold with bare TCP is bounded before any request is
//! read.
//!
//! - **Caps at accept.** Open TCP connections in total (`max_tcp_connections`, at most what
//!   the open-file limit allows: [`derived_max_tcp_connections`]) and per address
//!   (`max_tcp_connections_per_address`). A connection beyond a cap is closed at once (reset),
//!   so storage and the ledger always keep their files and `/healthz` answers as soon as
//!   places free up. Behind a proxy ([`crate::Config::trust_forwarded_for`]) the per-address
//!   cap counts each connection under the forwarded address of its latest request
//!   ([`client_address`]); one over the cap is answered `503` and closed.
//! - **Timeouts.** A connection must send a complete first request head within
//!   `max_request_head_wait_ms`, and a keep-alive connection its next one within
//!   `max_keep_alive_idle_ms` (hyper's header read timeout); otherwise it is closed. A
//!   WebSocket then has `max_hello_wait_ms` for its `Hello` (`crate::socket`).
//! - **Slow readers.** Every connection's kernel send buffer is `send_buffer_bytes`, and a
//!   write that stays blocked `max_write_stall_ms` (the peer reads nothing) drops the
//!   connection, WebSockets included (the wrapper stays under the upgraded socket).
//! - **TLS.** With [`crate::Config::tls`] (`serve --tls-cert/--tls-key`) a connection's first
//!   byte decides: a TLS handshake record is answered with TLS, and the handshake counts
//!   against `max_request_head_wait_ms` (it and the first request head must both arrive within
//!   it); plain HTTP is served to peers on this machine only (loopback, or the server's own
//!   address: its umpire service and house bot, a proxy beside it), every other plain connection is closed.
//! - **Shutdown.** The loop stops accepting at once, asks every connection to finish (hyper's
//!   graceful shutdown: no new requests), waits `shutdown_grace_ms` at most, then closes what
//!   is left.

use crate::address::Bucket;
use crate::admission::lock;
use crate::config::Limits;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// Gauge: open TCP connections (every kind).
pub const TCP_CONNECTIONS: &str = "fogproof_tcp_connections";
/// Counter: connections refused at accept or at a forwarded request, by the limit named in
/// the `limit` label.
pub const TCP_REFUSED: &str = "fogproof_tcp_refused_total";
/// Counter: connections closed by a timeout, by the limit named in the `limit` label.
pub const TCP_TIMED_OUT: &str = "fogproof_tcp_timed_out_total";

/// The process's open-file limit (the soft one, which is what counts), if it can be read.
pub fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rlimit::getrlimit(rlimit::Resource::NOFILE).ok().map(|(soft, _)| soft)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Raises the process's open-file limit to its hard limit (`fogproof serve` does it at start);
/// returns the limit now in force.
pub fn raise_open_file_limit() -> io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

/// How many TCP connections `open_files` allow: `(open_files − reserved_open_files) / 2`, at
/// least 1. Half, because a connection may need a second file beside its socket (a file read
/// for `/ledger/` or `/assets/`, the other end of a loopback socket of the server's own umpire
/// service or house bot), and `reserved_open_files` stay for storage (SQLite and its WAL),
/// the ledger's tiles and the listener.
pub fn derived_max_tcp_connections(open_files: u64, reserved_open_files: usize) -> usize {
    let reserved = u64::try_from(reserved_open_files).unwrap_or(u64::MAX);
    usize::try_from(open_files.saturating_sub(reserved) / 2).unwrap_or(usize::MAX).max(1)
}

/// The address a request's per-address limits count: the peer's, or with
/// `trust_forwarded_for` the **last** `X-Forwarded-For` address (the one the proxy in front
/// added; the earlier ones are whatever the client sent and prove nothing). The same rule
/// for the connection caps and the request rate limit. The hop may carry a port, as some
/// proxies write it (`203.0.113.7:4711`, `[2001:db8::7]:4711`); one that is not an address
/// counts as the peer (the proxy) itself.
pub fn client_address(
    trust_forwarded_for: bool,
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
) -> Option<IpAddr> {
    if trust_forwarded_for
        && let Some(ip) = headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| forwarded_hop(v.trim()))
    {
        return Some(ip);
    }
    peer.map(|p| p.ip())
}

/// An `X-Forwarded-For` hop's address: an address, or an address and a port.
fn forwarded_hop(hop: &str) -> Option<IpAddr> {
    hop.parse().ok().or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

/// What the connection layer holds to, from [`Limits`] and the open-file limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The total cap in force: the lower of `max_tcp_connections` and the derived one.
    pub max_tcp_connections: usize,
    /// `max_tcp_connections_per_address`.
    pub max_per_address: usize,
    /// `spare_loopback_per_address`.
    pub spare_loopback: bool,
    /// Count forwarded addresses rather than peers (`Config::trust_forwarded_for`).
    pub trust_forwarded_for: bool,
    /// `max_request_head_wait_ms`.
    pub head_wait: Duration,
    /// `max_keep_alive_idle_ms`.
    pub keep_alive_idle: Duration,
    /// `max_write_stall_ms`.
    pub write_stall: Duration,
    /// `send_buffer_bytes`.
    pub send_buffer_bytes: usize,
    /// `shutdown_grace_ms`.
    pub shutdown_grace: Duration,
}

impl Settings {
    /// The settings of `limits` under the current open-file limit.
    pub fn new(limits: &Limits, trust_forwarded_for: bool) -> Settings {
        let derived = open_file_limit()
            .map_or(usize::MAX, |n| derived_max_tcp_connections(n, limits.reserved_open_files));
        Settings {
            max_tcp_connections: limits.max_tcp_connections.min(derived).max(1),
            max_per_address: limits.max_tcp_connections_per_address.max(1),
            spare_loopback: limits.spare_loopback_per_address,
            trust_forwarded_for,
            head_wait: Duration::from_millis(limits.max_request_head_wait_ms.max(1)),
            keep_alive_idle: Duration::from_millis(limits.max_keep_alive_idle_ms.max(1)),
            write_stall: Duration::from_millis(limits.max_write_stall_ms.max(1)),
            send_buffer_bytes: limits.send_buffer_bytes,
            shutdown_grace: Duration::from_millis(limits.shutdown_grace_ms),
        }
    }
}

/// Why a connection was refused: the limit, named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The total is reached.
    Total(usize),
    /// The address (an IPv6 address: its /64, or its /56 or /48, [`crate::address::levels`])
    /// has its cap.
    Address(Bucket, usize),
}

impl Refused {
    fn limit(&self) -> &'static str {
        match self {
            Refused::Total(_) => "max_tcp_connections",
            Refused::Address(..) => "max_tcp_connections_per_address",
        }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Total(n) => {
                write!(f, "the server holds {n} connections (max_tcp_connections)")
            }
            Refused::Address(bucket, n) if bucket.is_wider() => write!(
                f,
                "{bucket} has {n} connections open (max_tcp_connections_per_address: a /{} \
                 holds {} times it over all its /64s)",
                bucket.bits(),
                bucket.share()
            ),
            Refused::Address(bucket, n) => {
                write!(f, "{bucket} has {n} connections open (max_tcp_connections_per_address)")
            }
        }
    }
}

/// The connection layer's settings and counts.
pub struct Gate {
    /// What it holds to.
    pub settings: Settings,
    total: AtomicUsize,
    by_address: Mutex<BTreeMap<Bucket, usize>>,
    /// TLS, where the server terminates it.
    tls: Option<tokio_rustls::TlsAcceptor>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("settings", &self.settings)
            .field("open", &self.open())
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

/// The TLS record type of a handshake: the first byte a TLS client sends.
const TLS_HANDSHAKE: u8 = 0x16;

/// A TLS server configuration from PEM files: the certificate chain (leaf first) and its
/// private key; HTTP/1.1 only.
pub fn tls_config(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<Arc<rustls::ServerConfig>, String> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no PEM certificate in it", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("TLS certificate and key: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

impl Gate {
    /// A gate with nothing open.
    pub fn new(settings: Settings) -> Gate {
        Gate {
            settings,
            total: AtomicUsize::new(0),
            by_address: Mutex::new(BTreeMap::new()),
            tls: None,
        }
    }

    /// The gate terminating TLS with `config` (none: plain HTTP).
    #[must_use]
    pub fn with_tls(mut self, config: Option<Arc<rustls::ServerConfig>>) -> Gate {
        self.tls = config.map(tokio_rustls::TlsAcceptor::from);
        self
    }

    /// Open TCP connections.
    pub fn open(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Open connections counted under `ip`'s bucket ([`Bucket`]: an IPv6 address's /64).
    pub fn of_address(&self, ip: IpAddr) -> usize {
        self.of_bucket(Bucket::of(ip))
    }

    /// Open connections counted under `bucket` (an IPv6 /56 or /48 counts all its /64s').
    pub fn of_bucket(&self, bucket: Bucket) -> usize {
        lock(&self.by_address).get(&bucket).copied().unwrap_or(0)
    }

    fn spared(&self, ip: IpAddr) -> bool {
        self.settings.spare_loopback && crate::address::is_loopback(ip)
    }

    /// A place for a new connection from `peer`, counted under its address unless the
    /// forwarded addresses are counted instead.
    fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<TcpSlot, Refused> {
        let max = self.settings.max_tcp_connections;
        if self.total.fetch_add(1, Ordering::Relaxed) >= max {
            self.total.fetch_sub(1, Ordering::Relaxed);
            return Err(Refused::Total(max));
        }
        metrics::gauge!(TCP_CONNECTIONS).increment(1.0);
        let mut slot = TcpSlot { gate: self.clone(), _address: None };
        if !self.settings.trust_forwarded_for {
            slot._address = Some(self.address(peer)?);
        }
        Ok(slot)
    }

    /// A count under each of `ip`'s buckets ([`crate::address::levels`]: an IPv6 address's
    /// /64, /56 and /48, each with its cap); nothing is counted for a spared address.
    fn address(self: &Arc<Self>, ip: IpAddr) -> Result<AddressSlot, Refused> {
        if self.spared(ip) {
            return Ok(AddressSlot { gate: self.clone(), buckets: Vec::new() });
        }
        let levels = crate::address::levels(ip);
        let mut by = lock(&self.by_address);
        for &(bucket, times) in &levels {
            let cap = self.settings.max_per_address.saturating_mul(times);
            if by.get(&bucket).is_some_and(|n| *n >= cap) {
                return Err(Refused::Address(bucket, cap));
            }
        }
        for &(bucket, _) in &levels {
            *by.entry(bucket).or_insert(0) += 1;
        }
        Ok(AddressSlot {
            gate: self.clone(),
            buckets: levels.into_iter().map(|(b, _)| b).collect(),
        })
    }
}

/// One connection's place in the total; dropping it frees the place.
#[derive(Debug)]
struct TcpSlot {
    gate: Arc<Gate>,
    _address: Option<AddressSlot>,
}

impl Drop for TcpSlot {
    fn drop(&mut self) {
        self.gate.total.fetch_sub(1, Ordering::Relaxed);
        metrics::gauge!(TCP_CONNECTIONS).decrement(1.0);
    }
}

/// One connection counted under an address's buckets; dropping it frees the counts.
#[derive(Debug)]
struct AddressSlot {
    gate: Arc<Gate>,
    buckets: Vec<Bucket>,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        if self.buckets.is_empty() {
            return;
        }
        let mut by = lock(&self.gate.by_address);
        for bucket in &self.buckets {
            if let Some(n) = by.get_mut(bucket) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    by.remove(bucket);
                }
            }
        }
    }
}

/// What one connection holds for as long as its socket lives (in the HTTP connection and,
/// after an upgrade, under the WebSocket).
#[derive(Debug)]
struct Held {
    peer: SocketAddr,
    slot: TcpSlot,
    /// Behind a proxy: the bucket of the latest request's forwarded address, and its count.
    forwarded: Mutex<Option<(Bucket, AddressSlot)>>,
    /// Whether a complete request head has arrived.
    started: AtomicBool,
}

impl Held {
    /// Counts the connection under `ip`'s bucket (`ip`: the forwarded address of its latest
    /// request).
    fn forwarded(&self, ip: IpAddr) -> Result<(), Refused> {
        let bucket = Bucket::of(ip);
        let mut held = lock(&self.forwarded);
        if held.as_ref().is_some_and(|(current, _)| *current == bucket) {
            return Ok(());
        }
        // Free the old count first: one connection counts under one address at a time.
        *held = None;
        *held = Some((bucket, self.slot.gate.address(ip)?));
        Ok(())
    }
}

/// A TCP stream whose writes may stay blocked `stall` at most, holding the connection's
/// places until it is dropped.
struct Stream {
    inner: TcpStream,
    stall: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
    _held: Arc<Held>,
}

impl Stream {
    /// A write is blocked: arms the stall timer, or reports that it ran out.
    fn blocked(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let stall = self.stall;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                metrics::counter!(TCP_TIMED_OUT, "limit" => "max_write_stall_ms").increment(1);
                Poll::Ready(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the peer read nothing for {} ms (max_write_stall_ms)",
                        stall.as_millis()
                    ),
                ))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn done<T>(&mut self, p: Poll<io::Result<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match p {
            Poll::Pending => self.blocked(cx).map(Err),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let p = Pin::new(&mut me.inner).poll_write(cx, buf);
        me.done(p, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let p = Pin::new(&mut me.inner).poll_write_vectored(cx, bufs);
        me.done(p, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let p = Pin::new(&mut me.inner).poll_flush(cx);
        me.done(p, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let p = Pin::new(&mut me.inner).poll_shutdown(cx);
        me.done(p, cx)
    }
}

/// The answer to a forwarded request over its address's cap: `503`, and the connection
/// closes.
fn refusal(why: &Refused) -> Response {
    let mut r = crate::error::AppError::new(StatusCode::SERVICE_UNAVAILABLE, why.to_string())
        .into_response();
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// Closes a refused connection at once (a reset: nothing lingers in the kernel).
fn reset(stream: TcpStream) {
    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
    drop(stream);
}

/// Until `stop` is true (or its sender is gone).
async fn stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stop.wait_for(|v| *v).await;
}

/// Serves `app` on `listener` until `stop` turns true, then gives the open connections
/// `shutdown_grace_ms` and closes the rest.
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    gate: Arc<Gate>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> io::Result<()> {
    let mut conns: JoinSet<()> = JoinSet::new();
    let for_conns = stop.clone();
    loop {
        tokio::select! {
            biased;
            () = stopped(&mut stop) => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match gate.admit(peer.ip()) {
                    Ok(slot) => {
                        let held = Arc::new(Held {
                            peer,
                            slot,
                            forwarded: Mutex::new(None),
                            started: AtomicBool::new(false),
                        });
                        conns.spawn(connection(stream, held, app.clone(), for_conns.clone()));
                    }
                    Err(why) => {
                        metrics::counter!(TCP_REFUSED, "limit" => why.limit()).increment(1);
                        tracing::debug!(%peer, %why, "connection refused at accept");
                        reset(stream);
                    }
                },
                Err(e) => {
                    // Out of files (or another error of the listener itself): wait a little
                    // rather than spin; errors of one connection are not worth a pause.
                    if !matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::ConnectionRefused
                    ) {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            },
        }
    }
    drop(listener);
    let grace = gate.settings.shutdown_grace;
    let drained =
        tokio::time::timeout(grace, async { while conns.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::info!(
            left = conns.len(),
            "connections still open after {} ms (shutdown_grace_ms): closing them",
            grace.as_millis()
        );
    }
    conns.shutdown().await;
    Ok(())
}

/// One connection: HTTP/1.1 with upgrades, its timeouts, and its forwarded-address count.
async fn connection(
    stream: TcpStream,
    held: Arc<Held>,
    app: axum::Router,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let settings = held.slot.gate.settings;
    // No Nagle: a match socket's frames and an event stream's lines are small writes that
    // must leave at once; with Nagle a write behind one not yet acknowledged waited for the
    // peer's delayed acknowledgement (tens of ms a hop, on every start's event and entry).
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    if settings.send_buffer_bytes > 0
        && let Err(e) =
            socket2::SockRef::from(&stream).set_send_buffer_size(settings.send_buffer_bytes)
    {
        tracing::debug!(error = %e, "could not set the send buffer");
    }
    // The first request head (and, with TLS, the handshake before it) must arrive by then.
    let head_deadline = tokio::time::Instant::now() + settings.head_wait;
    let tls = match &held.slot.gate.tls {
        None => None,
        Some(acceptor) => {
            let mut first = [0u8; 1];
            let peeked = tokio::time::timeout_at(head_deadline, stream.peek(&mut first)).await;
            match peeked {
                Ok(Ok(1)) if first[0] == TLS_HANDSHAKE => Some(acceptor.clone()),
                // Plain HTTP from this machine only: loopback, or its own address.
                Ok(Ok(1))
                    if crate::address::is_loopback(held.peer.ip())
                        || stream.local_addr().is_ok_and(|l| l.ip() == held.peer.ip()) =>
                {
                    None
                }
                Ok(Ok(_)) => {
                    tracing::debug!(peer = %held.peer, "plain HTTP on the TLS port: closed");
                    return;
                }
                Ok(Err(_)) => return,
                Err(_) => {
                    metrics::counter!(TCP_TIMED_OUT, "limit" => "max_request_head_wait_ms")
                        .increment(1);
                    return;
                }
            }
        }
    };
    let stream =
        Stream { inner: stream, stall: settings.write_stall, stalled: None, _held: held.clone() };
    match tls {
        None => serve_http(TokioIo::new(stream), held, app, stop, head_deadline).await,
        Some(acceptor) => {
            match tokio::time::timeout_at(head_deadline, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => serve_http(TokioIo::new(tls), held, app, stop, head_deadline).await,
                Ok(Err(e)) => {
                    tracing::debug!(peer = %held.peer, error = %e, "TLS handshake failed")
                }
                Err(_) => {
                    metrics::counter!(TCP_TIMED_OUT, "limit" => "max_request_head_wait_ms")
                        .increment(1);
                    tracing::debug!(peer = %held.peer, "no TLS handshake in time: closed");
                }
            }
        }
    }
}

/// HTTP/1.1 with upgrades over `io` (plain or TLS), until it ends, the first request head
/// misses `head_deadline`, or the server stops.
async fn serve_http<I>(
    io: TokioIo<I>,
    held: Arc<Held>,
    app: axum::Router,
    mut stop: tokio::sync::watch::Receiver<bool>,
    head_deadline: tokio::time::Instant,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let settings = held.slot.gate.settings;
    let h = held.clone();
    let service =
        hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            let app = app.clone();
            let held = h.clone();
            async move {
                held.started.store(true, Ordering::Relaxed);
                if settings.trust_forwarded_for
                    && let Some(ip) = client_address(true, req.headers(), Some(held.peer))
                    && let Err(why) = held.forwarded(ip)
                {
                    metrics::counter!(TCP_REFUSED, "limit" => why.limit()).increment(1);
                    return Ok::<_, std::convert::Infallible>(refusal(&why));
                }
                req.extensions_mut().insert(ConnectInfo(held.peer));
                tower::ServiceExt::oneshot(app, req.map(axum::body::Body::new)).await
            }
        });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(settings.keep_alive_idle).keep_alive(true);
    let conn = builder.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    let head_wait = tokio::time::sleep_until(head_deadline);
    tokio::pin!(head_wait);
    let mut head_checked = false;
    let mut draining = false;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    if e.is_timeout() {
                        metrics::counter!(TCP_TIMED_OUT, "limit" => "max_keep_alive_idle_ms")
                            .increment(1);
                    }
                    tracing::debug!(peer = %held.peer, error = %e, "connection ended");
                }
                break;
            }
            () = &mut head_wait, if !head_checked => {
                head_checked = true;
                if !held.started.load(Ordering::Relaxed) {
                    metrics::counter!(TCP_TIMED_OUT, "limit" => "max_request_head_wait_ms")
                        .increment(1);
                    tracing::debug!(peer = %held.peer, "no request head in time: closed");
                    break;
                }
            }
            () = stopped(&mut stop), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forwarded_address_is_the_proxys_hop_and_only_when_trusted() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().expect("addr");
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_static("6.6.6.6, 203.0.113.7"));
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert_eq!(client_address(true, &h, Some(peer)), Some(ip("203.0.113.7")));
        assert_eq!(client_address(false, &h, Some(peer)), Some(ip("10.0.0.1")));
        // Two headers: the last one is the proxy's.
        h.append("x-forwarded-for", HeaderValue::from_static("198.51.100.2"));
        assert_eq!(client_address(true, &h, Some(peer)), Some(ip("198.51.100.2")));
        // Garbage: the peer.
        let mut bad = HeaderMap::new();
        bad.insert("x-forwarded-for", HeaderValue::from_static("1.2.3.4, nonsense"));
        assert_eq!(client_address(true, &bad, Some(peer)), Some(ip("10.0.0.1")));
        // A hop with a port, as some proxies write it; a bracketed IPv6 address without one is
        // not an address.
        for (hop, client) in [
            ("203.0.113.7:4711", Some("203.0.113.7")),
            ("[2001:db8::7]:4711", Some("2001:db8::7")),
            ("2001:db8::7", Some("2001:db8::7")),
            ("[2001:db8::7]", None),
            ("203.0.113.7:", None),
        ] {
            let mut h = HeaderMap::new();
            h.insert("x-forwarded-for", HeaderValue::from_str(hop).expect("a header"));
            let want = ip(client.unwrap_or("10.0.0.1"));
            assert_eq!(client_address(true, &h, Some(peer)), Some(want), "{hop}");
        }
    }

    #[test]
    fn the_derived_cap_keeps_files_for_storage() {
        assert_eq!(derived_max_tcp_connections(1024, 256), 384);
        assert_eq!(derived_max_tcp_connections(1_048_576, 256), 524_160);
        assert_eq!(derived_max_tcp_connections(100, 256), 1);
    }

    #[test]
    fn caps_count_and_free_places() {
        let mut limits = Limits::DEFAULT;
        limits.max_tcp_connections = 3;
        limits.max_tcp_connections_per_address = 2;
        limits.spare_loopback_per_address = true;
        let mut gate = Gate::new(Settings::new(&limits, false));
        gate.settings.max_tcp_connections = 3;
        let gate = Arc::new(gate);
        let a: IpAddr = "192.0.2.1".parse().expect("ip");
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        let s1 = gate.admit(a).expect("first");
        let s2 = gate.admit(a).expect("second");
        assert_eq!(gate.admit(a).expect_err("third"), Refused::Address(Bucket::of(a), 2));
        assert_eq!(gate.open(), 2, "a refused connection holds nothing");
        let s3 = gate.admit(lo).expect("loopback is spared the per-address cap");
        assert_eq!(gate.admit(lo).expect_err("total"), Refused::Total(3));
        assert!(Refused::Total(3).to_string().contains("(max_tcp_connections)"));
        drop((s1, s2, s3));
        assert_eq!((gate.open(), gate.of_address(a)), (0, 0));
    }

    /// A gate of 1,000 connections, 2 per address, loopback spared.
    fn gate_of_two_per_address() -> Arc<Gate> {
        let mut limits = Limits::DEFAULT;
        limits.max_tcp_connections = 1_000;
        limits.max_tcp_connections_per_address = 2;
        let mut gate = Gate::new(Settings::new(&limits, false));
        gate.settings.max_tcp_connections = 1_000;
        Arc::new(gate)
    }

    /// A host handed a /64 holds one address's connections, not one per address of its 2^64;
    /// an IPv4 client seen through a dual-stack listener counts as its IPv4 address, and the
    /// mapped loopback is spared like the loopback.
    #[test]
    fn an_ipv6_64_shares_one_cap_and_a_mapped_ipv4_address_counts_as_itself() {
        let (gate, ip) = (gate_of_two_per_address(), |s: &str| s.parse::<IpAddr>().expect("ip"));
        let held = [gate.admit(ip("2001:db8::1")), gate.admit(ip("2001:db8::2"))];
        assert!(held.iter().all(Result::is_ok));
        let refused = gate.admit(ip("2001:db8::3:4:5:6")).expect_err("the same /64 is full");
        assert_eq!(refused, Refused::Address(Bucket::of(ip("2001:db8::")), 2));
        assert!(
            refused.to_string().starts_with("2001:db8::/64 has 2 connections open"),
            "{refused}"
        );
        assert_eq!(gate.of_address(ip("2001:db8::ffff")), 2);
        let next = gate.admit(ip("2001:db8:0:1::1")).expect("the next /64 is another client");
        let v4 = gate.admit(ip("192.0.2.1")).expect("first");
        let mapped = gate.admit(ip("::ffff:192.0.2.1")).expect("second, as 192.0.2.1");
        assert_eq!(gate.of_address(ip("192.0.2.1")), 2);
        assert!(gate.admit(ip("192.0.2.1")).is_err(), "the mapped one counted as 192.0.2.1");
        assert!(gate.admit(ip("::ffff:198.51.100.1")).is_ok(), "not one bucket for all of IPv4");
        let spared: Vec<_> = (0..3).map(|_| gate.admit(ip("::ffff:127.0.0.1"))).collect();
        assert!(spared.iter().all(Result::is_ok), "the mapped loopback is spared");
        drop((held, next, v4, mapped));
        assert_eq!(gate.of_address(ip("2001:db8::1")), 0);
    }

    /// A home connection's /56 (256 /64s) holds 4 times a /64's cap in all, a /48 8 times:
    /// with a share per /64 alone, one home connection could hold every connection there is.
    #[test]
    fn a_56_holds_four_times_an_addresss_cap_and_a_48_eight_times() {
        let (gate, ip) = (gate_of_two_per_address(), |s: &str| s.parse::<IpAddr>().expect("ip"));
        let mut held = Vec::new();
        // Four /64s of one /56, two each: the /56 is full.
        for sub in 0..4 {
            for host in 1..=2 {
                held.push(gate.admit(ip(&format!("2001:db8:0:{sub}::{host}"))).expect("room"));
            }
        }
        let refused = gate.admit(ip("2001:db8:0:ff::1")).expect_err("a fifth /64 of the /56");
        assert_eq!(
            refused.to_string().split(" (").next(),
            Some("2001:db8::/56 has 8 connections open")
        );
        assert!(refused.to_string().contains("max_tcp_connections_per_address"), "{refused}");
        assert_eq!(gate.of_address(ip("2001:db8:0:ff::1")), 0, "a refusal counts nothing");
        // The /48's other /56s: 8 more, then the /48 is full.
        for sub in 0..4 {
            for host in 1..=2 {
                held.push(gate.admit(ip(&format!("2001:db8:0:1{sub}0::{host}"))).expect("room"));
            }
        }
        let refused = gate.admit(ip("2001:db8:0:f00::1")).expect_err("the /48 is full");
        assert!(
            refused.to_string().starts_with("2001:db8::/48 has 16 connections open"),
            "{refused}"
        );
        assert!(gate.admit(ip("2001:db8:1::1")).is_ok(), "another /48");
        assert!(gate.admit(ip("192.0.2.1")).is_ok());
        // Closing one frees its place at every level.
        held.pop();
        assert!(gate.admit(ip("2001:db8:0:f00::1")).is_ok());
        drop(held);
        let wide = crate::address::levels(ip("2001:db8::1"));
        assert!(wide.iter().all(|(b, _)| gate.of_bucket(*b) == 0), "every level freed");
    }
}
