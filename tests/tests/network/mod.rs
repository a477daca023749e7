//! A network of real processes' parts in one test process: a server on 127.0.0.1 (port 0) with
//! a temporary data directory, its umpire agent, and bot agents.
#![allow(dead_code, reason = "shared by several test files, each using a part of it")]

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::{Identity, MatchId};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub struct Net {
    pub dir: PathBuf,
    pub server: Option<server::Running>,
    pub base: String,
    pub umpire: Agent,
    /// The umpire's way to the server.
    pub umpire_proxy: Proxy,
    /// Listeners bound before the server started, whose origins it accepts for sign-ins
    /// (`Config::public_origins`): [`Net::agent_behind_proxy`] runs a proxy on one.
    spare_proxies: std::sync::Mutex<Vec<tokio::net::TcpListener>>,
}

/// How many agents of one test may sit behind proxies of their own.
const SPARE_PROXIES: usize = 4;

/// A TCP proxy in front of the server for one party: cut its connections, or block it.
#[derive(Clone)]
pub struct Proxy {
    pub base: String,
    state: Arc<std::sync::Mutex<(bool, Vec<tokio::task::AbortHandle>)>>,
}

impl Proxy {
    pub async fn start(target: std::net::SocketAddr) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        Proxy::run(listener, target)
    }

    /// A proxy on a listener bound before (so a server could be told its origin first).
    pub fn run(listener: tokio::net::TcpListener, target: std::net::SocketAddr) -> Proxy {
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state: Arc<std::sync::Mutex<(bool, Vec<tokio::task::AbortHandle>)>> = Arc::default();
        let s = state.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if s.lock().unwrap().0 {
                    drop(inbound);
                    continue;
                }
                let task = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                s.lock().unwrap().1.push(task.abort_handle());
            }
        });
        Proxy { base, state }
    }

    /// Drops every connection through the proxy (the party reconnects).
    pub fn cut(&self) {
        for t in self.state.lock().unwrap().1.drain(..) {
            t.abort();
        }
    }

    /// Cuts and refuses every new connection until `unblock`.
    pub fn block(&self) {
        self.state.lock().unwrap().0 = true;
        self.cut();
    }

    pub fn unblock(&self) {
        self.state.lock().unwrap().0 = false;
    }
}

pub fn identity(label: &str) -> Identity {
    Identity::from_seed(&sim::selfplay::derive(7, label))
}

/// A decider factory: a random bot from `seed`.
pub fn bot(seed: u64) -> client::agent::DeciderFactory {
    Arc::new(move |_| {
        (
            Decider::Policy(Box::new(client::RandomBot::new(sim::selfplay::derive(seed, "bot")))),
            None,
        )
    })
}

/// As [`bot`], but taking `pace` over each decision (`sim::pace::unhurried`): for tests that must
/// act while the match is still live.
pub fn paced_bot(seed: u64, pace: Duration) -> client::agent::DeciderFactory {
    Arc::new(move |_| {
        sim::pace::unhurried(client::RandomBot::new(sim::selfplay::derive(seed, "bot")), pace)
    })
}

impl Net {
    pub async fn start(name: &str) -> Net {
        Net::start_with(name, |_| {}).await
    }

    pub async fn start_with(name: &str, edit: impl FnOnce(&mut server::Config)) -> Net {
        Net::start_with_clock(name, edit, Arc::new(server::clock::TokioClock::system())).await
    }

    /// A server on `clock` (a test's relay whose time it controls).
    pub async fn start_with_clock(
        name: &str,
        edit: impl FnOnce(&mut server::Config),
        clock: Arc<dyn server::clock::Clock>,
    ) -> Net {
        let dir = std::env::temp_dir().join(format!("fogproof-net-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let relay = identity("relay");
        let umpire_id = identity("umpire");
        let mut config = server::Config::new(dir.join("server"), relay.clone());
        config.default_umpire = Some(umpire_id.public());
        // The proxies the parties reach the server through are the operator's own (as a
        // reverse proxy): the server accepts sign-ins at their origins.
        let mut proxies = Vec::new();
        for _ in 0..=SPARE_PROXIES {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let at = format!("http://{}", l.local_addr().expect("addr"));
            config.public_origins.push(protocol::wire::origin(&at).expect("an origin"));
            proxies.push(l);
        }
        edit(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let running = server::start(config, listener, clock).await.expect("server starts");
        let base = format!("http://{}", running.addr);
        let umpire_proxy = Proxy::run(proxies.pop().expect("bound"), running.addr);
        let umpire = Agent::connect(AgentConfig {
            server_key: None,
            server: umpire_proxy.base.clone(),
            identity: umpire_id,
            name: Some("umpire".into()),
            dir: dir.join("umpire"),
            umpire: true,
            accept: Accept::Nothing,
            variants: Vec::new(),
            decider: Arc::new(|_| (Decider::None, None)),
        })
        .await
        .expect("umpire signs in");
        let u = umpire.clone();
        tokio::spawn(async move { u.run().await });
        let spare_proxies = std::sync::Mutex::new(proxies);
        Net { dir, server: Some(running), base, umpire, umpire_proxy, spare_proxies }
    }

    pub async fn agent(
        &self,
        name: &str,
        decider: client::agent::DeciderFactory,
        accept: Accept,
    ) -> Agent {
        self.agent_via(&self.base.clone(), name, decider, accept).await
    }

    /// One of the server's own proxy origins, bound and not yet used: a test's own proxy in
    /// front of the server listens on it so the parties behind it can sign in.
    #[allow(dead_code, reason = "used by some of the test binaries that share this module")]
    pub fn spare_listener(&self) -> tokio::net::TcpListener {
        self.spare_proxies.lock().unwrap().pop().expect("a spare proxy listener")
    }

    /// An agent whose connections go through a proxy of its own.
    pub async fn agent_behind_proxy(
        &self,
        name: &str,
        decider: client::agent::DeciderFactory,
        accept: Accept,
    ) -> (Agent, Proxy) {
        let listener = self.spare_proxies.lock().unwrap().pop().expect("a spare proxy listener");
        let proxy = Proxy::run(listener, self.server.as_ref().expect("running").addr);
        let a = self.agent_via(&proxy.base.clone(), name, decider, accept).await;
        (a, proxy)
    }

    pub async fn agent_via(
        &self,
        server: &str,
        name: &str,
        decider: client::agent::DeciderFactory,
        accept: Accept,
    ) -> Agent {
        let a = Agent::connect(AgentConfig {
            server_key: None,
            server: server.to_owned(),
            identity: identity(name),
            name: Some(name.into()),
            dir: self.dir.join(name),
            umpire: false,
            accept,
            variants: Vec::new(),
            decider,
        })
        .await
        .expect("agent signs in");
        let runner = a.clone();
        tokio::spawn(async move { runner.run().await });
        // Let its event stream open before anyone challenges it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        a
    }

    /// Waits for `agent`'s first finished match.
    pub async fn finished(&self, agent: &Agent) -> (MatchId, Vec<u8>) {
        for _ in 0..12_000 {
            if let Some((id, r)) = agent.records().into_iter().next() {
                return (id, r.expect("the seat ends with the record"));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no match finished within 120 s");
    }

    pub async fn get_bytes(&self, path: &str) -> Vec<u8> {
        reqwest_get(&format!("{}{path}", self.base)).await
    }

    /// The live matches in the server's registry with the entries each has stored (read from
    /// the server's state: the public API shows no entry count for a game that hides
    /// information).
    pub fn live_stored(&self) -> Vec<(MatchId, Vec<protocol::PublicKey>, u64)> {
        let shared = &self.server.as_ref().expect("running").shared;
        server::state::lock(&shared.matches)
            .iter()
            .map(|(id, h)| (*id, h.parties.clone(), server::state::lock(&h.info).stored))
            .collect()
    }

    /// Waits until `key` plays a live match with at least `entries` entries; returns its id.
    pub async fn live_of(&self, key: &protocol::PublicKey, entries: u64) -> MatchId {
        for _ in 0..6_000 {
            let found = self
                .live_stored()
                .into_iter()
                .find(|(_, parties, stored)| *stored >= entries && parties.contains(key));
            if let Some((id, _, _)) = found {
                return id;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{key} plays no live match with {entries} entries");
    }

    /// Waits until a live match has at least `entries` entries; returns its id (hex).
    pub async fn live_with(&self, entries: u64) -> String {
        for _ in 0..6_000 {
            if let Some((id, _, _)) =
                self.live_stored().into_iter().find(|(_, _, stored)| *stored >= entries)
            {
                return protocol::hex::encode(&id.0);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no live match reached {entries} entries");
    }

    /// A GET's status and body text.
    pub async fn get_raw(&self, path: &str) -> (u16, String) {
        let (status, body) = http(&format!("{}{path}", self.base), "GET", None).await;
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// A POST's status and body text.
    pub async fn post_raw(&self, path: &str, json: &serde_json::Value) -> (u16, String) {
        let (status, body) = http(&format!("{}{path}", self.base), "POST", Some(json)).await;
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// A POST of raw bytes: the status and the body text.
    pub async fn post_bytes(&self, path: &str, bytes: &[u8]) -> (u16, String) {
        let (status, body) = http_bytes(&format!("{}{path}", self.base), "POST", bytes).await;
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        serde_json::from_slice(&self.get_bytes(path).await).expect("json")
    }

    pub async fn stop(mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown().await.expect("clean shutdown");
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn reqwest_get(url: &str) -> Vec<u8> {
    http(url, "GET", None).await.1
}

/// A bare HTTP/1.1 request over a TCP stream (the tests need no HTTP client of their own):
/// the status and the body.
pub async fn http(url: &str, method: &str, json: Option<&serde_json::Value>) -> (u16, Vec<u8>) {
    let body = json.map(ToString::to_string).unwrap_or_default();
    http_bytes(url, method, body.as_bytes()).await
}

/// A bare HTTP/1.1 request with a raw body.
pub async fn http_bytes(url: &str, method: &str, body: &[u8]) -> (u16, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let mut s = tokio::net::TcpStream::connect(host).await.expect("connect");
    let head = format!(
        "{method} /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.expect("write");
    s.write_all(body).await.expect("write");
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.expect("read");
    let at = all.windows(4).position(|w| w == b"\r\n\r\n").expect("headers") + 4;
    let head = String::from_utf8_lossy(&all[..at]).to_lowercase();
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    let body = all[at..].to_vec();
    if !head.contains("transfer-encoding: chunked") {
        return (status, body);
    }
    let mut out = Vec::new();
    let mut rest = body.as_slice();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").expect("chunk size");
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).expect("hex").trim(), 16)
                .expect("size");
        rest = &rest[line_end + 2..];
        if size == 0 {
            break;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
    (status, out)
}
