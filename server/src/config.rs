//! The server's configuration: its keys, where it stores things, its time defaults and every
//! limit on what a peer may consume (TigerBeetle style: named, unit last; docs/SERVER.md,
//! limits).

use protocol::Identity;
use protocol::PublicKey;
use protocol::codec::Canonical as _;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything a peer can make the server hold or do, bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A WebSocket frame from a peer (a [`protocol::wire::ClientFrame`]), in bytes; a longer
    /// one closes the connection.
    pub max_frame_bytes: usize,
    /// An HTTP request body, in bytes.
    pub max_body_bytes: usize,
    /// Open connections (WebSockets and event streams) in total.
    pub max_connections: usize,
    /// Open connections of one key (the server's own umpire service excepted:
    /// [`Config::is_umpire_service`]).
    pub max_connections_per_key: usize,
    /// Open challenges (seeks included) one key may have at once.
    pub max_open_challenges_per_key: usize,
    /// Matches one key may be a player in at once (pending terms included).
    pub max_live_matches_per_key: usize,
    /// Sign-in challenges outstanding at once, over all peers (each lives
    /// `sign_in_challenge_ms`).
    pub max_sign_in_challenges: usize,
    /// HTTP requests per second of one key (a burst of the same size is allowed; the server's
    /// own umpire service excepted: [`Config::is_umpire_service`]).
    pub max_requests_per_second_per_key: u32,
    /// HTTP requests per second of one address (a burst of the same size is allowed).
    pub max_requests_per_second_per_address: u32,
    /// Frames per second one match socket may send (a burst of the same size is allowed).
    pub max_frames_per_second_per_connection: u32,
    /// Matches one multiplexed socket (`GET /api/socket`) follows at once (the server's own
    /// umpire service may follow `max_live_matches`: it umpires every match of the server).
    pub max_matches_per_connection: usize,
    /// Messages the relay refused on one socket before the server closes it.
    pub max_refusals_per_connection: u32,
    /// Frames queued to one slow socket before the server drops it (it may reconnect and
    /// catch up from the last position it holds).
    pub max_queued_frames_per_connection: usize,
    /// Time a new socket has to send its `Hello`, in ms.
    pub max_hello_wait_ms: u64,
    /// Time every party has to sign a match's terms once they are complete, in ms.
    pub max_terms_wait_ms: u64,
    /// Time a sign-in challenge stays valid, in ms.
    pub sign_in_challenge_ms: u64,
    /// Time a sign-in token stays valid, in ms.
    pub token_ms: u64,
    /// Bytes of a display name.
    pub max_name_bytes: usize,
    /// The shortest initial clock a challenge may ask for, in ms.
    pub min_initial_clock_ms: u64,
    /// The longest initial clock a challenge may ask for, in ms.
    pub max_initial_clock_ms: u64,
    /// The largest increment a challenge may ask for, in ms.
    pub max_increment_ms: u64,
    /// A record uploaded to `POST /api/verify`, in bytes.
    pub max_upload_bytes: usize,
    /// Uploaded records verified at once (the rest wait their turn).
    pub max_concurrent_verifications: usize,
    /// Time a tournament player has, from the moment a round pairs them, to bring their seat
    /// and sign the terms of that game, in ms; a player who has not by then loses by forfeit
    /// (a no-show entry in the log).
    pub max_tournament_show_wait_ms: u64,
    /// A signed tournament definition sent to `POST /api/tournament`, in bytes.
    pub max_definition_bytes: usize,
    /// A file served under `/ledger/` (a tile, an entry bundle, a record), in bytes.
    pub max_ledger_file_bytes: u64,
    /// Requests for the log's routes a cluster follower forwards to the ledger's leader at
    /// once (`crate::http::forward`); beyond it a `503` with `Retry-After`.
    pub max_forwarded_requests: usize,
    // admission (issue 14)
    /// Finished-match renderings (`/replay`, `/pgn`, `/record`) built at once; beyond it a
    /// `503` with `Retry-After`.
    pub max_concurrent_renderings: usize,
    /// Uploads to `POST /api/verify` waiting for a verification place (their bodies are not
    /// read while they wait); beyond it a `503` with `Retry-After`.
    pub max_queued_verifications: usize,
    /// Sign-in challenges outstanding at once from one client address (an IPv6 address counts
    /// by its /64), besides `max_sign_in_challenges` over all.
    pub max_sign_in_challenges_per_address: usize,
    /// Open seeks (challenges naming no opponent) over all keys.
    pub max_open_seeks: usize,
    /// Time a challenge or seek stays open unanswered, in ms; then it is canceled.
    pub max_challenge_open_ms: u64,
    /// Matches live and terms being signed, over all keys: at this many, new challenges,
    /// seeks and accepts get a `503` with `Retry-After` (matches already playing go on).
    pub max_live_matches: usize,
    /// Entry batches waiting for the storage committer: at this many, new challenges, seeks,
    /// accepts and sign-ins get a `503` with `Retry-After`.
    pub max_pending_commits: usize,
    /// A storage commit slower than this, in ms, is the host's delay: the excess is not
    /// charged to anyone's clock (relay time stands still for it, docs/SERVER.md, limits).
    pub max_host_stall_ms: u64,
    /// A match's deadline timer that fires more than this late, in ms, finds the host behind
    /// (a storage commit held the match, or the runtime did not run it): relay time stands
    /// still for the lateness and this long again, so the deadline is checked again this long
    /// after the host caught up (docs/SERVER.md, limits: host faults).
    pub max_timer_lag_ms: u64,
    /// The oldest thing an umpire key may owe (a seat or signature on accepted terms, an answer
    /// in a live match), in ms: past it, new challenges, seeks and accepts that need that
    /// umpire get a `503` with `Retry-After` (the matches it umpires go on).
    pub max_umpire_lag_ms: u64,
    /// Terms one umpire key may owe its seat or signature on at once: at this many, new
    /// challenges, seeks and accepts that need that umpire get a `503` with `Retry-After`.
    pub max_umpire_terms_owed: usize,
    /// The `Retry-After` a `503` of the admission limits names, in seconds.
    pub retry_after_s: u32,
    // connection layer (issue 14): every TCP connection, before and beside the limits above
    // (docs/SERVER.md, limits; `crate::conn`).
    /// Open TCP connections in total, of every kind (requests, idle keep-alive, WebSockets,
    /// event streams). The server holds the lower of this and the number its open-file limit
    /// allows ([`crate::conn::derived_max_tcp_connections`]); a connection beyond it is closed
    /// at accept, so storage and the ledger always have their files.
    pub max_tcp_connections: usize,
    /// Open TCP connections of one address (behind a proxy with
    /// [`Config::trust_forwarded_for`]: of one forwarded address); one beyond it is closed at
    /// accept (a forwarded one is answered `503` and closed).
    pub max_tcp_connections_per_address: usize,
    /// Whether a loopback peer (the host's own umpire service and house bot, a local proxy) is
    /// spared `max_tcp_connections_per_address` (never `max_tcp_connections`).
    pub spare_loopback_per_address: bool,
    /// Open files kept for storage, the ledger and the files served, never used by
    /// connections: the open-file limit less this, halved, bounds `max_tcp_connections`.
    pub reserved_open_files: usize,
    /// Time from accepting a connection to its first complete request head, in ms; a
    /// connection that sends none by then (nothing, or a head cut short) is closed.
    pub max_request_head_wait_ms: u64,
    /// Time a keep-alive connection may wait for its next complete request head, in ms.
    pub max_keep_alive_idle_ms: u64,
    /// Time a write to a peer may stay blocked because the peer reads nothing, in ms; then
    /// the connection is dropped (a slow reader of a record, a stalled WebSocket).
    pub max_write_stall_ms: u64,
    /// The kernel send buffer of each connection (`SO_SNDBUF`), in bytes: what a peer that
    /// does not read can make the kernel hold (Linux doubles it for bookkeeping).
    pub send_buffer_bytes: usize,
    /// On shutdown, time the open connections have to finish before they are closed, in ms.
    pub shutdown_grace_ms: u64,
}

impl Limits {
    /// The defaults: enough for a machine holding thousands of matches.
    pub const DEFAULT: Limits = Limits {
        max_frame_bytes: protocol::wire::ClientFrame::MAX_BYTES,
        max_body_bytes: 64 * 1024,
        max_connections: 50_000,
        max_connections_per_key: 64,
        max_open_challenges_per_key: 16,
        max_live_matches_per_key: 64,
        max_sign_in_challenges: 100_000,
        max_requests_per_second_per_key: 50,
        max_requests_per_second_per_address: 200,
        max_frames_per_second_per_connection: 100,
        max_matches_per_connection: 1_024,
        max_refusals_per_connection: 64,
        max_queued_frames_per_connection: 4096,
        max_hello_wait_ms: 10_000,
        max_terms_wait_ms: 30_000,
        sign_in_challenge_ms: 60_000,
        token_ms: 24 * 3600 * 1000,
        max_name_bytes: 40,
        min_initial_clock_ms: 10_000,
        max_initial_clock_ms: 3 * 3600 * 1000,
        max_increment_ms: 180_000,
        max_upload_bytes: 16 * 1024 * 1024,
        max_concurrent_verifications: 2,
        max_tournament_show_wait_ms: 60_000,
        max_definition_bytes: 64 * 1024,
        max_ledger_file_bytes: 64 * 1024 * 1024,
        max_forwarded_requests: 64,
        // admission (issue 14)
        max_concurrent_renderings: 4,
        max_queued_verifications: 8,
        max_sign_in_challenges_per_address: 64,
        max_open_seeks: 10_000,
        max_challenge_open_ms: 15 * 60 * 1000,
        max_live_matches: 20_000,
        max_pending_commits: 2_048,
        max_host_stall_ms: 1_000,
        max_timer_lag_ms: 500,
        max_umpire_lag_ms: 2_000,
        max_umpire_terms_owed: 512,
        retry_after_s: 5,
        // connection layer (issue 14)
        max_tcp_connections: 50_000,
        max_tcp_connections_per_address: 256,
        spare_loopback_per_address: true,
        reserved_open_files: 256,
        max_request_head_wait_ms: 10_000,
        max_keep_alive_idle_ms: 60_000,
        max_write_stall_ms: 20_000,
        send_buffer_bytes: 128 * 1024,
        shutdown_grace_ms: 5_000,
    };
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// Deadlines the server writes into the terms it proposes, besides the players' clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// The terms' `reveal_ms`: commitments, reveals, setups, openings, disclosures.
    pub reveal_ms: u64,
    /// The terms' `answer_ms`: the umpire's answers, an Intrigue owner's answer.
    pub answer_ms: u64,
    /// After the relay's `Close`, how long the server waits for every party's countersignature
    /// before the record is final.
    pub countersign_ms: u64,
    /// After a restart, relay time stands still this long, so everyone can reconnect before
    /// any clock runs again (docs/SERVER.md, restarts).
    pub resume_grace_ms: u64,
}

impl Deadlines {
    /// The defaults.
    pub const DEFAULT: Deadlines = Deadlines {
        reveal_ms: 30_000,
        answer_ms: 10_000,
        countersign_ms: 10_000,
        resume_grace_ms: 15_000,
    };
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines::DEFAULT
    }
}

/// The server's ledger: where its log lives, the key that signs its checkpoints, and how
/// often finished matches are appended (docs/SERVER.md, the ledger).
#[derive(Clone, Debug)]
pub struct LedgerConfig {
    /// The log directory (created with an empty log on first start).
    pub dir: PathBuf,
    /// The log's signing key (its name is the log's origin).
    pub key: ledger::note::SignerKey,
    /// How often the appender appends what finished since, in ms (one checkpoint per batch).
    pub append_interval_ms: u64,
    /// The most matches one batch appends (the rest wait for the next).
    pub max_batch_matches: usize,
    /// The witnesses asked to cosign every checkpoint (none by default: an unwitnessed log).
    pub witnesses: WitnessSettings,
    /// How long after a match finishes its signed inclusion promise gives the log to include
    /// it, in ms (docs/SERVER.md, inclusion promises); far longer than `append_interval_ms`.
    pub promise_within_ms: u64,
}

impl LedgerConfig {
    /// A ledger in `dir` signed by `key`, appending every second.
    pub fn new(dir: PathBuf, key: ledger::note::SignerKey) -> LedgerConfig {
        LedgerConfig {
            dir,
            key,
            append_interval_ms: 1_000,
            max_batch_matches: 256,
            witnesses: WitnessSettings::default(),
            promise_within_ms: 600_000,
        }
    }
}

/// How a server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the database lives (`fogproof.sqlite` in it) unless `database` names another.
    pub data_dir: PathBuf,
    /// A PostgreSQL URL (`serve --database postgres://...`): the store lives there instead of
    /// SQLite under `data_dir` (docs/SERVER.md, several nodes); none: SQLite.
    pub database: Option<String>,
    /// Run as one node of a cluster on the PostgreSQL `database` (`serve --cluster`): any
    /// number of nodes share it, each live match owned by one through a lease
    /// (`store::lease`, docs/SERVER.md, several nodes); none: this server owns the database.
    pub cluster: Option<ClusterConfig>,
    /// The relay's key: it signs receipts and notices, and the terms as relay.
    pub relay: Identity,
    /// The umpire the server proposes for umpired games when a challenge names none (the
    /// umpire service's key; never the relay's).
    pub default_umpire: Option<PublicKey>,
    /// The house bot's key, advertised at `/api/info` (`--vs bot`).
    pub house_bot: Option<PublicKey>,
    /// Limits on peers.
    pub limits: Limits,
    /// Deadlines in the terms, countersignatures and restarts.
    pub deadlines: Deadlines,
    /// Behind a reverse proxy only: take a request's client address from the last
    /// `X-Forwarded-For` address (the one the proxy itself added: the earlier ones are the
    /// client's word) for every per-address limit; without it the header is ignored
    /// ([`crate::conn::client_address`]).
    pub trust_forwarded_for: bool,
    /// The ledger every finished match is appended to; none: no ledger (and no tournaments).
    pub ledger: Option<LedgerConfig>,
    /// Terminate TLS with this configuration (`serve --tls-cert/--tls-key`,
    /// [`crate::conn::tls_config`]); none: plain HTTP (behind a proxy, or on loopback).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// The origins (`scheme://host[:port]`, [`protocol::wire::origin`] form) players reach
    /// this server at (`serve --public-url`): a sign-in must name one of them. The listening
    /// address's own ([`default_origins`]) are added at start.
    pub public_origins: Vec<String>,
}

/// A cluster node's settings (`serve --cluster`).
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// Where players reach this node (`--node-url`; default `http://` and the listening
    /// address): a socket opened for a match another node owns is told this URL.
    pub node_url: Option<String>,
    /// How long a match lease lasts unless renewed (`--lease-ms`): a dead node's matches are
    /// taken over within about this.
    pub lease_ms: u64,
    /// Keys whose agents run in this node's process (its in-process umpire service and house
    /// bot): they serve this node's lobby only, so the other nodes' events for them are not
    /// handed to them (every node's copy of the service would answer, with seats of its own).
    pub local_services: Vec<PublicKey>,
}

/// The origins of the listening address `addr`, which a server always accepts: `http://ADDR`,
/// and for a loopback or unspecified address (`0.0.0.0`, `::`) the loopback names
/// `http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`. A server reached
/// under any other name (a host name, a reverse proxy) needs `--public-url`.
pub fn default_origins(addr: std::net::SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut out = Vec::new();
    // Both schemes: the same listener may terminate TLS itself (`--tls-cert`).
    for scheme in ["http", "https"] {
        out.extend(protocol::wire::origin(&format!("{scheme}://{addr}")));
        if addr.ip().is_loopback() || addr.ip().is_unspecified() {
            for host in ["127.0.0.1", "localhost", "[::1]"] {
                out.extend(protocol::wire::origin(&format!("{scheme}://{host}:{port}")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

impl Config {
    /// Whether `key` is the server's own umpire service, which the per-key limits do not
    /// bound (it is a party of every umpired match the server holds; the total limits and the
    /// players' per-key limits bound those matches).
    pub fn is_umpire_service(&self, key: &PublicKey) -> bool {
        self.default_umpire == Some(*key)
    }

    /// A configuration with the defaults.
    pub fn new(data_dir: PathBuf, relay: Identity) -> Config {
        Config {
            data_dir,
            database: None,
            cluster: None,
            relay,
            default_umpire: None,
            house_bot: None,
            limits: Limits::DEFAULT,
            deadlines: Deadlines::DEFAULT,
            trust_forwarded_for: false,
            ledger: None,
            tls: None,
            public_origins: Vec::new(),
        }
    }
}

// The witnesses' settings (used by `crate::witnessing`), here so that the configuration
// sits below the modules it configures.

/// The default bound on one request to a witness, in ms.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;

/// A witness the server asks: where its `add-checkpoint` lives and its cosignature key.
#[derive(Clone, Debug)]
pub struct WitnessEndpoint {
    /// The submission prefix, `http://host:port[/path]` (the request goes to
    /// `<url>/add-checkpoint`).
    pub url: String,
    /// The witness's cosignature verifier key.
    pub key: ledger::note::VerifierKey,
}

impl WitnessEndpoint {
    /// Parses `URL=VKEY` (the `=` that splits them is the first after which a verifier key
    /// parses).
    pub fn parse(spec: &str) -> Result<WitnessEndpoint, String> {
        for (i, _) in spec.match_indices('=') {
            let (url, vkey) = (&spec[..i], &spec[i + 1..]);
            if let Ok(key) = ledger::note::VerifierKey::parse(vkey) {
                if !url.starts_with("http://") {
                    return Err(format!("witness URL {url:?}: expected http://host:port[/path]"));
                }
                if key.kind() != ledger::note::KeyKind::Cosignature {
                    return Err(format!("witness key {vkey}: not a cosignature (type 0x04) key"));
                }
                return Ok(WitnessEndpoint { url: url.trim_end_matches('/').to_owned(), key });
            }
        }
        Err(format!("{spec:?}: expected URL=VKEY (the witness's verifier key)"))
    }
}

/// The witnesses a server's log asks, and the quorum readers are told to expect.
#[derive(Clone, Debug)]
pub struct WitnessSettings {
    /// The witnesses.
    pub witnesses: Vec<WitnessEndpoint>,
    /// How many of them a checkpoint should carry (reported at `/api/ledger`, warned about).
    pub quorum: usize,
    /// The bound on one request to a witness, in ms.
    pub timeout_ms: u64,
}

impl Default for WitnessSettings {
    fn default() -> WitnessSettings {
        WitnessSettings { witnesses: Vec::new(), quorum: 0, timeout_ms: DEFAULT_TIMEOUT_MS }
    }
}
