//! Several `fogproof serve --cluster` nodes on one PostgreSQL database, when
//! `FOGPROOF_TEST_POSTGRES` names a server (without it the test prints SKIPPED): two nodes
//! sharing relay.key and umpire.key behind a load balancer (here a small failover TCP proxy:
//! it sends every connection to the node it last reached, and to the next node once that one
//! refuses), an umpire process of its own, agents playing chess and two umpired games. The
//! node serving the matches is SIGKILLed mid-match, restarted, and then the other one is
//! SIGKILLed: each time the surviving node takes the matches' leases once they expire on the
//! database's clock and resumes them from their stored entries, the agents reconnect and sign
//! in again by themselves. Every match finishes, both seats hold one record, it verifies valid
//! (one unbroken chain: the relay's receipts chain every entry), and every entry any player
//! holds a receipt for is in it (each seat checks the published record against every entry it
//! received).

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod common;
mod finished;
use common::{agent, free_port, paced_agent, serve, up};

/// Time each bot takes over a decision in the kill tests.
const PACE: Duration = Duration::from_millis(15);

/// A failover proxy on `listener`: each connection goes to the backend `current` names, or
/// the next that accepts. A send on `cut` drops every connection it carries (a load balancer
/// sending players elsewhere).
async fn failover(
    listener: tokio::net::TcpListener,
    backends: Vec<u16>,
    current: Arc<AtomicUsize>,
    cut: tokio::sync::watch::Receiver<u32>,
) {
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else { return };
        let (current, backends, mut cut) = (current.clone(), backends.clone(), cut.clone());
        cut.mark_unchanged();
        tokio::spawn(async move {
            for _ in 0..backends.len() * 20 {
                let at = current.load(Ordering::Relaxed);
                match tokio::net::TcpStream::connect(("127.0.0.1", backends[at])).await {
                    Ok(mut outbound) => {
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                            _ = cut.changed() => {}
                        }
                        return;
                    }
                    Err(_) => {
                        let _ = current.compare_exchange(
                            at,
                            (at + 1) % backends.len(),
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            }
        });
    }
}

fn node(data: &Path, port: u16, url: &str, lb: &str) -> std::process::Child {
    let args = [
        "--database",
        url,
        "--cluster",
        "--lease-ms",
        "2000",
        "--public-url",
        lb,
        "--external-umpire",
        "--no-ledger",
    ];
    serve(data, port, &args)
}

/// Two nodes behind the failover proxy, an umpire process and a pair of agents per variant,
/// each pair's match started on node A (the proxy's first).
struct Cluster {
    url: String,
    dir: PathBuf,
    datas: [PathBuf; 2],
    ports: [u16; 2],
    lb: String,
    current: Arc<AtomicUsize>,
    cut: tokio::sync::watch::Sender<u32>,
    nodes: Vec<std::process::Child>,
    pairs: Vec<(&'static &'static str, Agent, Agent)>,
    /// The `fogproof umpire` processes (with [`Umpires::Processes`]) and their directories.
    umpires: Vec<(std::process::Child, PathBuf)>,
}

/// How a [`Cluster`]'s umpire service runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Umpires {
    /// An agent in the test's own process.
    InTest,
    /// `fogproof umpire` processes of the host's umpire key: two before the matches start,
    /// more by [`Cluster::umpire_process`].
    Processes,
}

/// The host's umpire key in the cluster tests.
const UMPIRE_SEED: [u8; 32] = [72; 32];

/// Every umpired variant (the umpire service is a process of its own) and chess.
const VARIANTS: [&str; 4] = ["chess", "kriegspiel", "sic", "secretchess6"];

impl Cluster {
    async fn start(tag: &str, seed: u64) -> Option<Cluster> {
        let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
            println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
            return None;
        };
        Some(Cluster::start_on(tag, seed, &base_url, Umpires::InTest).await)
    }

    /// Two nodes on a fresh database of the server at `base_url`.
    async fn start_on(tag: &str, seed: u64, base_url: &str, umpires: Umpires) -> Cluster {
        let db = format!("fogproof_cluster_{tag}{}", std::process::id());
        let url = server::store::postgres::fresh_database(base_url, &db).await.expect("database");
        let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("pg-cluster-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // The host's keys, the same on every node.
        let umpire = Identity::from_seed(&UMPIRE_SEED);
        let datas = [dir.join("node-a"), dir.join("node-b")];
        for data in &datas {
            std::fs::create_dir_all(data).expect("dir");
            let relay = Identity::from_seed(&[71; 32]);
            client::keyfile::write_new(&data.join("relay.key"), &relay, "relay").expect("key");
            client::keyfile::write_new(&data.join("umpire.key"), &umpire, "umpire").expect("key");
        }
        let ports = [free_port(), free_port()];
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let lb = format!("http://{}", listener.local_addr().expect("addr"));
        let current = Arc::new(AtomicUsize::new(0));
        let (cut, cut_rx) = tokio::sync::watch::channel(0u32);
        tokio::spawn(failover(listener, ports.to_vec(), current.clone(), cut_rx));
        let mut nodes = Vec::new();
        for (data, port) in datas.iter().zip(ports) {
            nodes.push(node(data, port, &url, &lb));
            up(port).await;
        }

        let mut c = Cluster {
            url,
            dir: dir.clone(),
            datas,
            ports,
            lb: lb.clone(),
            current,
            cut,
            nodes,
            pairs: Vec::new(),
            umpires: Vec::new(),
        };
        if umpires == Umpires::Processes {
            c.umpire_process();
            c.umpire_process();
            tokio::time::sleep(Duration::from_millis(1_000)).await;
        } else {
            c.umpire_in_test(umpire).await;
        }
        for (i, v) in VARIANTS.iter().enumerate() {
            let seed = seed + i as u64;
            // Paced so that the matches are still live when the nodes are killed.
            let (a, b) = (format!("alice-{v}"), format!("bob-{v}"));
            let bob = paced_agent(&lb, &dir, &b, seed * 2, Accept::Addressed, PACE).await;
            let alice = paced_agent(&lb, &dir, &a, seed * 2 + 1, Accept::Nothing, PACE).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            challenge(&alice, &bob, v).await.expect("challenge");
            c.pairs.push((v, alice, bob));
        }
        c
    }

    /// The umpire service as an agent in this process, behind the load balancer.
    async fn umpire_in_test(&self, umpire: Identity) {
        let (lb, dir) = (self.lb.clone(), self.dir.clone());
        let u = Agent::connect(AgentConfig {
            server_key: None,
            server: lb.clone(),
            identity: umpire,
            name: Some("umpire".into()),
            dir: dir.join("umpire"),
            umpire: true,
            accept: Accept::Nothing,
            variants: Vec::new(),
            decider: Arc::new(|_| (Decider::None, None)),
        })
        .await
        .expect("umpire");
        let ur = u.clone();
        tokio::spawn(async move { ur.run().await });
    }

    /// Starts one more `fogproof umpire` process of the host's umpire key behind the load
    /// balancer, its journals in a directory of its own; returns its index.
    fn umpire_process(&mut self) -> usize {
        let i = self.umpires.len();
        let dir = self.dir.join(format!("umpire-{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        let key = dir.join("umpire.key");
        client::keyfile::write_new(&key, &Identity::from_seed(&UMPIRE_SEED), "umpire")
            .expect("key");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["umpire", "--server", &self.lb, "--key"])
            .arg(&key)
            .arg("--dir")
            .arg(&dir)
            .env("FOGPROOF_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fogproof umpire starts");
        self.umpires.push((child, dir));
        i
    }

    /// The matches (hex ids) whose umpire seat umpire process `i` runs now: its unfinished
    /// journals (a process refused a seat leaves it, and its journal).
    fn umpiring(&self, i: usize) -> std::collections::BTreeSet<String> {
        client::journal::unfinished(&self.umpires[i].1)
            .into_iter()
            .filter_map(|(p, _)| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect()
    }

    /// The matches node `i` runs now (its own lobby, not the load balancer's node).
    async fn live_on(&self, i: usize) -> usize {
        let http = client::net::Session::http_client(&self.lb, None).expect("client");
        let lobby = format!("http://127.0.0.1:{}/api/lobby", self.ports[i]);
        let mut live = 0;
        for _ in 0..20 {
            if let Ok(r) = http.get(&lobby).send().await
                && let Ok(v) = r.json::<serde_json::Value>().await
            {
                live = v["live"].as_array().map_or(0, Vec::len);
                if live > 0 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        live
    }

    /// Every match finishes; both seats hold one record that verifies and holds every entry
    /// either received.
    async fn finish(self) {
        let probe = self.pairs[0].1.session().clone();
        finished::records_agree_and_are_listed(&self.pairs, &probe, 240).await;
        for (_, a, _) in &self.pairs {
            for record in a.records().into_values().flatten() {
                umpire_never_equivocates(&record);
            }
        }
        for (mut u, _) in self.umpires {
            let _ = u.kill();
            let _ = u.wait();
        }
        for mut n in self.nodes {
            let _ = n.kill();
            let _ = n.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_node_killed_mid_match_loses_nothing_a_receipt_promised() {
    let Some(mut c) = Cluster::start("kill", 700).await else { return };

    // The load balancer turns to node B while node A runs every match: node B closes each
    // match socket naming node A (1013), and every seat follows it there, signing in at node
    // A's own address (no redirect followed, no seat could reach its match again).
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    c.current.store(1, Ordering::Relaxed);
    c.cut.send_modify(|n| *n += 1);
    // (A match that ended before the turn, a quick random game, has nothing to follow; one
    // still playing reaches node A only through the redirect.)
    let redirected = |c: &Cluster| {
        c.pairs
            .iter()
            .filter(|(_, a, b)| a.session().redirects() > 0 && b.session().redirects() > 0)
            .count()
    };
    let ended = |c: &Cluster| {
        c.pairs
            .iter()
            .filter(|(_, a, b)| {
                a.session().redirects() == 0 && !a.records().is_empty() && !b.records().is_empty()
            })
            .count()
    };
    for _ in 0..200 {
        if redirected(&c) + ended(&c) == c.pairs.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        redirected(&c) + ended(&c),
        c.pairs.len(),
        "every seat of a match still playing followed the redirect to node A"
    );
    assert!(redirected(&c) >= 2, "the turn hit matches still playing ({})", redirected(&c));

    // Node A serves everything; kill it mid-match, restart it at once, then kill node B,
    // which took (some of) the matches over.
    let mut killed_live = 0;
    for (n, victim) in [0usize, 1].into_iter().enumerate() {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(1_500)).await;
        }
        let live = c.live_on(victim).await;
        killed_live += live;
        eprintln!("kill {n}: node {victim} with {live} matches live");
        c.nodes[victim].kill().expect("SIGKILL");
        let _ = c.nodes[victim].wait();
        // Restarted at once: it may take some of the killed node's matches itself when their
        // leases expire, while the proxy stays with the survivor; the survivor then closes
        // their sockets naming the restarted node (1013), and the agents follow it there.
        c.nodes[victim] = node(&c.datas[victim], c.ports[victim], &c.url, &c.lb);
        up(c.ports[victim]).await;
    }
    assert!(killed_live >= 2, "the kills hit live matches ({killed_live})");
    c.finish().await;
}

/// Runs the test server's `pg_ctl` (as the postgres user when the test runs as root, as
/// `.ci/run` and /tmp/pg.sh start it) on its cluster `DIR/data`.
fn pg_ctl(bin: &str, dir: &str, args: &[&str]) {
    let pg_ctl = format!("{bin}/pg_ctl");
    let data = format!("{dir}/data");
    let mut cmd = if rustix::process::getuid().is_root() {
        let mut c = std::process::Command::new("runuser");
        c.args(["-u", "postgres", "--", &pg_ctl]);
        c
    } else {
        std::process::Command::new(&pg_ctl)
    };
    let status = cmd.args(["-D", &data]).args(args).status().expect("pg_ctl runs");
    assert!(status.success(), "pg_ctl {args:?}: {status}");
}

/// The database stops (`pg_ctl stop -m fast`: every session cut) mid-match and starts again
/// 3 s later: while it is down the nodes commit nothing, so receipt nothing; after it the
/// match tasks that stopped on a failed commit are taken over from their stored entries, the
/// agents reconnect, and every match finishes with one record that verifies and holds every
/// entry any seat received (a receipt without a commit would be missing from it). Runs when
/// `FOGPROOF_TEST_PG_CLUSTER` names a PostgreSQL server of its own as `BIN DIR URL` (/tmp/pg.sh's
/// output: its `pg_ctl`'s folder, its directory with the cluster in `DIR/data` and its socket in
/// `DIR`, and its URL): a server stopped under the other tests would fail them, so `.ci/run`
/// starts a second one for this test.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_restarting_mid_match_loses_nothing_a_receipt_promised() {
    let Some((bin, pgdir, base_url)) =
        std::env::var("FOGPROOF_TEST_PG_CLUSTER").ok().and_then(|v| {
            let mut words = v.split_whitespace().map(str::to_owned);
            Some((words.next()?, words.next()?, words.next()?))
        })
    else {
        println!("SKIPPED: a database restart: FOGPROOF_TEST_PG_CLUSTER is not set");
        return;
    };
    let c = Cluster::start_on("dbrestart", 800, &base_url, Umpires::InTest).await;
    let port = base_url
        .rsplit_once(':')
        .map(|(_, p)| p.split('/').next().unwrap_or("").to_owned())
        .expect("the test server's port");
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let live = c.live_on(0).await;
    eprintln!("the database stops with {live} matches live");
    assert!(live >= 2, "the restart hits live matches ({live})");
    pg_ctl(&bin, &pgdir, &["stop", "-m", "fast", "-w"]);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let options =
        format!("-p {port} -k {pgdir} -c listen_addresses=127.0.0.1 -c max_connections=300");
    let log = format!("{pgdir}/log");
    pg_ctl(&bin, &pgdir, &["-l", &log, "-w", "-o", &options, "start"]);
    c.finish().await;
}

/// A sign-in token node A issued is honoured by node B (and by node A restarted): tokens are
/// signed by the host's relay key, which every node holds. A challenge made on node A reaches
/// the challenged player streaming events from node B (NOTIFY), who accepts it on node B (its
/// lobby read the challenge from the database), and the challenger streaming from node A
/// hears of the terms written on node B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_lobby_events_reach_every_node() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster_ev{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pg-cluster-ev-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let datas = [dir.join("node-a"), dir.join("node-b")];
    for data in &datas {
        std::fs::create_dir_all(data).expect("dir");
        let relay = Identity::from_seed(&[81; 32]);
        client::keyfile::write_new(&data.join("relay.key"), &relay, "relay").expect("key");
    }
    let ports = [free_port(), free_port()];
    let bases: Vec<String> = ports.iter().map(|p| format!("http://127.0.0.1:{p}")).collect();
    let mut nodes = Vec::new();
    for ((data, port), base) in datas.iter().zip(ports).zip(&bases) {
        nodes.push(node(data, port, &url, base));
        up(port).await;
    }
    let (a, b) = (&bases[0], &bases[1]);

    // Tokens.
    let me = Identity::from_seed(&[90; 32]);
    let session = client::net::Session::sign_in(a, &me, None).await.expect("sign in on A");
    let token = session.bearer_token();
    let http = client::net::Session::http_client(b, None).expect("client");
    let account = |base: &str, token: &str| {
        let (http, url, token) = (http.clone(), format!("{base}/api/account"), token.to_owned());
        async move {
            let r = http.get(&url).bearer_auth(&token).send().await.expect("request");
            let status = r.status().as_u16();
            (status, r.text().await.unwrap_or_default())
        }
    };
    let (status, body) = account(b, &token).await;
    assert_eq!(status, 200, "node B honours node A's token: {body}");
    assert!(body.contains(&me.public().to_string()), "{body}");
    let last = if token.ends_with('0') { "1" } else { "0" };
    let forged = format!("{}{last}", &token[..token.len() - 1]);
    assert_eq!(account(b, &forged).await.0, 401, "a token changed in its signature is refused");
    nodes[0].kill().expect("SIGKILL");
    let _ = nodes[0].wait();
    nodes[0] = node(&datas[0], ports[0], &url, a);
    up(ports[0]).await;
    assert_eq!(account(a, &token).await.0, 200, "node A restarted honours its token");

    // Events.
    let bob = agent(b, &dir, "bob", 901, Accept::Addressed).await;
    let alice = agent(a, &dir, "alice", 903, Accept::Nothing).await;
    let mut alice_heard = alice.subscribe();
    let mut bob_heard = bob.subscribe();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let challenge = challenge(&alice, &bob, "chess").await.expect("challenge on node A");
    let id = challenge["id"].as_str().or_else(|| challenge["challenge"]["id"].as_str());
    let id = id.expect("challenge id").to_owned();
    wait_for(&mut bob_heard, "challenge", &id).await;
    let terms = wait_for(&mut alice_heard, "terms", &id).await;
    assert!(terms["terms"].as_str().is_some_and(|t| !t.is_empty()), "{terms}");
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `alice` challenges `bob` to a game of `variant` (15 minutes, no increment).
async fn challenge(
    alice: &Agent,
    bob: &Agent,
    variant: &str,
) -> Result<serde_json::Value, client::agent::AgentError> {
    let game = rules::GameOptions::default_for(variant.parse().expect("a variant"));
    let request = protocol::challenge::ChallengeRequest {
        opponent: Some(bob.session().key),
        ..protocol::challenge::ChallengeRequest::new(game, 900, 0)
    };
    alice.challenge(&request).await
}

/// The first event of type `kind` about challenge `id` an agent's observer hears (20 s at most).
async fn wait_for(
    rx: &mut tokio::sync::broadcast::Receiver<serde_json::Value>,
    kind: &str,
    id: &str,
) -> serde_json::Value {
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match rx.recv().await {
                Ok(e) if e["type"] == kind && (e["id"] == id || e["challenge"]["id"] == id) => {
                    return e;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("no {kind} event for challenge {id}"))
}

/// Two nodes on a fresh database of `FOGPROOF_TEST_POSTGRES` (their own base URLs as their
/// node URLs), sharing relay.key and umpire.key; `None` (SKIPPED) without a server.
async fn two_nodes(tag: &str) -> Option<(PathBuf, Vec<String>, Vec<std::process::Child>)> {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return None;
    };
    let db = format!("fogproof_cluster_{tag}{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pg-cluster-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let umpire = Identity::from_seed(&[92; 32]);
    let datas = [dir.join("node-a"), dir.join("node-b")];
    for data in &datas {
        std::fs::create_dir_all(data).expect("dir");
        let relay = Identity::from_seed(&[91; 32]);
        client::keyfile::write_new(&data.join("relay.key"), &relay, "relay").expect("key");
        client::keyfile::write_new(&data.join("umpire.key"), &umpire, "umpire").expect("key");
    }
    let ports = [free_port(), free_port()];
    let bases: Vec<String> = ports.iter().map(|p| format!("http://127.0.0.1:{p}")).collect();
    let mut nodes = Vec::new();
    for ((data, port), base) in datas.iter().zip(ports).zip(&bases) {
        nodes.push(node(data, port, &url, base));
        up(port).await;
    }
    Some((dir, bases, nodes))
}

fn seat(who: &Identity) -> serde_json::Value {
    let (seal, nonce) = client::journal::fresh_seat(who).expect("seat");
    json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) })
}

/// One open seek made on node A, accepted at the same instant by one player on node A and
/// another on node B: the database's claim decides, so exactly one acceptance is taken and
/// exactly one player is sent terms; the other is answered that the challenge was accepted.
/// Repeated, so the race is run with either node ahead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_accepting_one_challenge_at_once_give_one_terms() {
    let Some((dir, bases, nodes)) = two_nodes("race").await else { return };
    let (a, b) = (&bases[0], &bases[1]);
    let me = Identity::from_seed(&[93; 32]);
    let challenger = client::net::Session::sign_in(a, &me, None).await.expect("sign in");
    for round in 0..6u8 {
        let who =
            [Identity::from_seed(&[100 + round; 32]), Identity::from_seed(&[120 + round; 32])];
        let s0 = client::net::Session::sign_in(a, &who[0], None).await.expect("sign in A");
        let s1 = client::net::Session::sign_in(b, &who[1], None).await.expect("sign in B");
        let mut heard = [s0.events().await.expect("events"), s1.events().await.expect("events")];
        let c = challenger
            .post(
                "/api/challenge",
                &json!({ "variant": "chess", "clock_limit": 900, "clock_increment": 0,
                         "seat": seat(&me) }),
            )
            .await
            .expect("seek on node A");
        let id = c["challenge"]["id"].as_str().expect("id").to_owned();
        // Node B hears of it (NOTIFY) before anyone there can accept it.
        let path = format!("/api/challenge/{id}/accept");
        let mut open_on_b = false;
        for _ in 0..100 {
            let lobby = s1.get("/api/lobby").await.expect("lobby");
            if lobby.to_string().contains(&id) {
                open_on_b = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(open_on_b, "the seek reached node B's lobby");
        let (seat0, seat1) = (seat(&who[0]), seat(&who[1]));
        let (r0, r1) = tokio::join!(s0.post(&path, &seat0), s1.post(&path, &seat1));
        let taken = [r0.is_ok(), r1.is_ok()];
        assert_eq!(
            taken.iter().filter(|t| **t).count(),
            1,
            "round {round}: exactly one acceptance taken: {r0:?} {r1:?}"
        );
        let refused = if taken[0] { r1 } else { r0 };
        let refused = refused.expect_err("the other refused").to_string();
        assert!(refused.contains("accepted") && refused.contains(&id), "{refused}");
        // Exactly the winner is sent terms (and the loser none, within a second more).
        let winner = usize::from(!taken[0]);
        let [h0, h1] = &mut heard;
        let (w, l) = if winner == 0 { (h0, h1) } else { (h1, h0) };
        assert!(terms_heard(w, &id, 20).await, "round {round}: the winner is sent the terms");
        assert!(!terms_heard(l, &id, 1).await, "round {round}: the loser is sent no terms");
    }
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a `terms` event about challenge `id` comes on `rx` within `secs`.
async fn terms_heard(rx: &mut client::net::EventStream, id: &str, secs: u64) -> bool {
    let heard = tokio::time::timeout(Duration::from_secs(secs), async {
        while let Some(Ok(e)) = rx.next().await {
            if e["type"] == "terms" && e["id"] == id {
                return true;
            }
        }
        false
    });
    heard.await.unwrap_or(false)
}

/// Terms live in the database: a kriegspiel challenge made on node A is accepted on node B,
/// the umpire process (on node B) brings its seat and signs there, the acceptor signs on B
/// and the challenger on node A, which did not accept (its signature is taken, not a 404).
/// The match starts on the node that stored the last signature and finishes with one record
/// that verifies, held by both seats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terms_accepted_on_one_node_are_signed_on_either() {
    let Some((dir, bases, nodes)) = two_nodes("sign").await else { return };
    let (a, b) = (&bases[0], &bases[1]);
    let u = Agent::connect(AgentConfig {
        server_key: None,
        server: b.clone(),
        identity: Identity::from_seed(&[92; 32]),
        name: Some("umpire".into()),
        dir: dir.join("umpire"),
        umpire: true,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: Arc::new(|_| (Decider::None, None)),
    })
    .await
    .expect("umpire");
    let ur = u.clone();
    tokio::spawn(async move { ur.run().await });
    let bob = agent(b, &dir, "bob", 951, Accept::Addressed).await;
    let alice = agent(a, &dir, "alice", 953, Accept::Nothing).await;
    let mut alice_heard = alice.subscribe();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let challenge = challenge(&alice, &bob, "kriegspiel").await.expect("challenge on node A");
    let id = challenge["id"].as_str().or_else(|| challenge["challenge"]["id"].as_str());
    let id = id.expect("challenge id").to_owned();
    wait_for(&mut alice_heard, "terms", &id).await;
    let start = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match alice_heard.recv().await {
                Ok(e) if e["type"] == "gameStart" => return e,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await
    .expect("the match starts once every party signed, wherever it signed");
    assert!(start["game"]["terms"].as_str().is_some_and(|t| !t.is_empty()), "{start}");
    let pairs = vec![(&"kriegspiel", alice, bob)];
    let probe = pairs[0].1.session().clone();
    finished::records_agree_and_are_listed(&pairs, &probe, 240).await;
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// No two messages of the umpire in `record` share a channel and a number: one umpire wrote
/// the record's umpire channels, never two processes of its key writing each their own.
fn umpire_never_equivocates(record: &[u8]) {
    use protocol::codec::Canonical;
    let r = protocol::record::MatchRecord::from_canonical(record).expect("a record");
    let terms = protocol::terms::MatchTerms::from_canonical(&r.terms.terms).expect("terms");
    let Some(umpire) = terms.umpire.map(|u| u.key) else { return };
    let mut seen = std::collections::BTreeMap::new();
    for e in &r.entries {
        let body = protocol::message::MessageBody::from_canonical(&e.message.body).expect("body");
        if body.author == umpire {
            let at = (body.channel.byte(), body.seq);
            let before = seen.insert(at, e.message.hash());
            assert!(before.is_none(), "two umpire messages at {at:?} in one record");
        }
    }
    assert!(!seen.is_empty(), "the umpire wrote in its match");
}

/// Several `fogproof umpire` processes of one key serve one cluster, and spread its seats: two
/// processes run before the umpired matches start; every process hears of each match
/// (gameStart on its stream) and waits by the seats it holds before it opens it
/// (`client::agent::umpire_claim_delay`), and the relay gives each seat to the first connection,
/// so each process holds some seats, and no match is held by both. The process holding the
/// most is SIGKILLed mid-match (not restarted): each of its matches tells the umpire's key that
/// its seat has no connection (`umpireSeatOpen`), the other process takes every such seat over
/// (of a match that had not ended before the kill: a quick game may end in the meantime),
/// rebuilding the umpire from the key and the entries (its secret is derived), and every match
/// finishes with one record that verifies, in which no umpire message number is used twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_umpire_process_killed_mid_match_is_replaced_by_another() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let mut c = Cluster::start_on("umpires", 1_100, &base_url, Umpires::Processes).await;
    // Until both umpire processes hold seats (the matches start within a second or two; on a
    // busy machine later): at most 15 s.
    let mut held = [c.umpiring(0), c.umpiring(1)];
    for _ in 0..150 {
        if held.iter().all(|h| !h.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        held = [c.umpiring(0), c.umpiring(1)];
    }
    eprintln!("the umpire processes serve {} and {} live matches", held[0].len(), held[1].len());
    assert!(
        held.iter().all(|h| !h.is_empty()),
        "the seats are spread: each umpire process holds some ({held:?})"
    );
    assert!(held[0].is_disjoint(&held[1]), "one umpire connection per match ({held:?})");
    assert!(held[0].len() + held[1].len() >= 2, "the kill hits live umpired matches ({held:?})");
    let (victim, heir) = if held[0].len() >= held[1].len() { (0, 1) } else { (1, 0) };
    c.umpires[victim].0.kill().expect("SIGKILL");
    let _ = c.umpires[victim].0.wait();
    // Taken over within a few seconds (a notice every 2 s while a seat has no connection). A
    // match that ended before the kill (a quick game) has no seat to take over: its players
    // hold its record; no umpired match can end after it without an umpire.
    let orphaned = held[victim].clone();
    let ended = |c: &Cluster| -> std::collections::BTreeSet<String> {
        c.pairs
            .iter()
            .flat_map(|(_, a, b)| {
                a.records().into_keys().chain(b.records().into_keys()).collect::<Vec<_>>()
            })
            .map(|id| protocol::hex::encode(&id.0))
            .filter(|id| orphaned.contains(id))
            .collect()
    };
    let mut taken = std::collections::BTreeSet::new();
    let mut over = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let dir = &c.umpires[heir].1;
        taken = orphaned
            .iter()
            .filter(|id| dir.join(format!("{id}.journal")).exists())
            .cloned()
            .collect();
        over = ended(&c);
        if taken.union(&over).count() == orphaned.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("orphaned {}: {} taken over, {} had ended", orphaned.len(), taken.len(), over.len());
    let mut accounted: std::collections::BTreeSet<String> = taken.union(&over).cloned().collect();
    accounted.retain(|id| orphaned.contains(id));
    assert_eq!(accounted, orphaned, "the other umpire process took every orphaned seat over");
    assert!(!taken.is_empty(), "the kill hit a live umpired match ({orphaned:?}, ended {over:?})");
    c.finish().await;
}

/// A node that dies between taking the last signature of shared terms and storing their match
/// loses nothing: node A (`FOGPROOF_FAULT=terms-claimed`) aborts right after claiming the
/// terms; they stay in the database, marked signed, and node B's sweep starts the match once
/// node A's grace is over (the signer's retry through the load balancer finds them claimed,
/// not gone). The players reach node B through the load balancer, the match is played and
/// finishes with one record that verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_terms_survive_a_node_dying_before_their_match_is_stored() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster_claim{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pg-cluster-claim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let datas = [dir.join("node-a"), dir.join("node-b")];
    for data in &datas {
        std::fs::create_dir_all(data).expect("dir");
        let relay = Identity::from_seed(&[111; 32]);
        client::keyfile::write_new(&data.join("relay.key"), &relay, "relay").expect("key");
    }
    let ports = [free_port(), free_port()];
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let lb = format!("http://{}", listener.local_addr().expect("addr"));
    let (_cut, cut_rx) = tokio::sync::watch::channel(0u32);
    tokio::spawn(failover(listener, ports.to_vec(), Arc::new(AtomicUsize::new(0)), cut_rx));
    let mut nodes = Vec::new();
    for (i, (data, port)) in datas.iter().zip(ports).enumerate() {
        let fault = if i == 0 { server::fault::TERMS_CLAIMED } else { "" };
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_fogproof"))
            .args(["serve", "--data", data.to_str().expect("utf-8"), "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["--no-bot", "--database", &url, "--cluster", "--lease-ms", "2000"])
            .args(["--public-url", &lb, "--external-umpire", "--no-ledger"])
            .env("FOGPROOF_LOG", "warn")
            .env(server::fault::VARIABLE, fault)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fogproof serve starts");
        nodes.push(child);
        up(port).await;
    }
    let bob = agent(&lb, &dir, "bob", 1_201, Accept::Addressed).await;
    let alice = agent(&lb, &dir, "alice", 1_203, Accept::Nothing).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    challenge(&alice, &bob, "chess").await.expect("challenge");
    // Node A stops at the crash point.
    let mut stopped = None;
    for _ in 0..200 {
        stopped = nodes[0].try_wait().expect("wait");
        if stopped.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stopped = stopped.expect("node A stopped at the crash point after the last signature");
    assert!(!stopped.success(), "{stopped}");
    let pairs = vec![(&"chess", alice, bob)];
    let probe = pairs[0].1.session().clone();
    finished::records_agree_and_are_listed(&pairs, &probe, 120).await;
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The node that leads the ledger now (its own `/api/ledger` answers; a follower's answer is
/// the leader's, forwarded, or a 503 while none leads), and the log's size there.
async fn ledger_leader(ports: &[u16; 2], skip: Option<usize>) -> Option<(usize, u64)> {
    let http = reqwest::Client::new();
    for (i, port) in ports.iter().enumerate() {
        if skip == Some(i) {
            continue;
        }
        let url = format!("http://127.0.0.1:{port}/api/ledger");
        if let Ok(r) = http.get(&url).send().await
            && r.status().is_success()
            && !r.headers().contains_key(server::http::forward::FORWARDED_TO)
            && let Ok(v) = r.json::<serde_json::Value>().await
        {
            return Some((i, v["size"].as_u64().unwrap_or(0)));
        }
    }
    None
}

/// The arguments of a cluster node that shares the ledger at `ledger` (signed with the key
/// file `key`) with the others, on the database `url`, clients told to reach it at `public`.
fn ledger_node_args(url: &str, public: &str, ledger: &Path, key: &Path) -> Vec<String> {
    let (ledger, key) = (ledger.to_str().expect("utf-8"), key.to_str().expect("utf-8"));
    [
        "--database",
        url,
        "--cluster",
        "--lease-ms",
        "2000",
        "--public-url",
        public,
        "--ledger",
        ledger,
        "--ledger-key",
        key,
        "--ledger-interval-ms",
        "200",
    ]
    .map(String::from)
    .to_vec()
}

/// A fresh folder for a two-node cluster sharing one ledger: the folder, the shared ledger's
/// folder, the ledger's key file (`key`, mode 0600) and the two nodes' data folders, each with
/// the host's relay key from `relay_seed`.
fn ledger_cluster_dirs(
    name: &str,
    key: &ledger::note::SignerKey,
    relay_seed: u8,
) -> (PathBuf, PathBuf, PathBuf, [PathBuf; 2]) {
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pg-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shared_ledger = dir.join("ledger");
    std::fs::create_dir_all(&dir).expect("dir");
    let key_path = dir.join("ledger.key");
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&key_path)
            .expect("key file");
        writeln!(f, "{}", key.to_secret_text()).expect("key written");
    }
    let datas = [dir.join("node-a"), dir.join("node-b")];
    for data in &datas {
        std::fs::create_dir_all(data).expect("dir");
        let relay = Identity::from_seed(&[relay_seed; 32]);
        client::keyfile::write_new(&data.join("relay.key"), &relay, "relay").expect("key");
    }
    (dir, shared_ledger, key_path, datas)
}

/// The node that leads the ledger, once one does (within a lease round or two).
async fn first_leader(ports: &[u16; 2]) -> usize {
    for _ in 0..100 {
        if let Some((i, _)) = ledger_leader(ports, None).await {
            return i;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no node leads the ledger");
}

/// The ledger appender is one leader elected among the nodes (a lease row in PostgreSQL):
/// both nodes name the same ledger directory and key, one leads and appends a finished match;
/// it is SIGKILLed, the other takes the lease once it expires, locks the directory, reconciles
/// and appends the next finished match; `fogproof ledger audit` passes on the one log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_leader_killed_is_replaced_and_the_log_stays_one() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster_leader{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let key =
        ledger::note::SignerKey::generate("fogproof.test/ledger", ledger::note::KeyKind::Ed25519)
            .expect("key");
    let (dir, shared_ledger, key_path, datas) = ledger_cluster_dirs("leader", &key, 131);
    let ports = [free_port(), free_port()];
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let lb = format!("http://{}", listener.local_addr().expect("addr"));
    let (_cut, cut_rx) = tokio::sync::watch::channel(0u32);
    tokio::spawn(failover(listener, ports.to_vec(), Arc::new(AtomicUsize::new(0)), cut_rx));
    let start = |i: usize| {
        let extra = ledger_node_args(&url, &lb, &shared_ledger, &key_path);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        serve(&datas[i], ports[i], &extra)
    };
    let mut nodes = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        nodes.push(start(i));
        up(*port).await;
    }
    // One of them leads (within a lease round).
    let first = first_leader(&ports).await;
    let other = 1 - first;
    // (The follower forwards the log's routes to the leader's node URL; here both nodes are
    // told to be reached at the load balancer, so that is tested where each node has its own
    // URL: `a_tournament_is_played_through_two_nodes_across_a_ledger_leader_kill`.)

    // A match finishes and the leader appends it.
    let play = |n: u64| {
        let (lb, dir) = (lb.clone(), dir.clone());
        async move {
            let bob = agent(&lb, &dir, &format!("bob-{n}"), 1_300 + 2 * n, Accept::Addressed).await;
            let alice =
                agent(&lb, &dir, &format!("alice-{n}"), 1_301 + 2 * n, Accept::Nothing).await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            challenge(&alice, &bob, "chess").await.expect("challenge");
            for _ in 0..1_200 {
                if !alice.records().is_empty() && !bob.records().is_empty() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("match {n} did not finish");
        }
    };
    let appended = |want: u64, skip: Option<usize>| async move {
        for _ in 0..300 {
            if let Some((i, size)) = ledger_leader(&ports, skip).await
                && size >= want
            {
                return i;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the log never reached {want} entries");
    };
    play(0).await;
    assert_eq!(appended(1, None).await, first, "the leader appended the first match");

    // The leader dies; the other node takes the lease and appends the next match.
    nodes[first].kill().expect("SIGKILL");
    let _ = nodes[first].wait();
    play(1).await;
    assert_eq!(appended(2, Some(first)).await, other, "the new leader appended the next match");
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["ledger", "audit", shared_ledger.to_str().expect("utf-8"), "--log-key"])
        .arg(key.verifier().to_string())
        .output()
        .expect("the binary runs");
    let out = String::from_utf8_lossy(&audit.stdout);
    assert_eq!(audit.status.code(), Some(0), "{out} {}", String::from_utf8_lossy(&audit.stderr));
    assert!(out.contains("2 matches"), "{out}");
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A follower forwards the log's routes and says for whom (docs/SERVER.md section 7): at the
/// leader, what one client sends through a follower counts against that client's address, not
/// against the follower's, so one busy client cannot use up the follower's address for all its
/// other clients. Node A starts alone with a request rate of 5 per second per address and leads
/// the ledger; node B, at 1,000 per second, follows. A client on 127.0.0.2 floods B with
/// `GET /api/ledger` (forwarded to A) until A refuses it: the 429 came from the leader (it
/// names it in `x-fogproof-forwarded-to`) and names 127.0.0.2. A client on 127.0.0.3 then
/// reads the log through B at once: the leader did not count the flood against B's address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followers_forwards_count_against_its_clients_at_the_leader() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster_forwarded{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let key =
        ledger::note::SignerKey::generate("fogproof.test/ledger", ledger::note::KeyKind::Ed25519)
            .expect("key");
    let (dir, shared_ledger, key_path, datas) = ledger_cluster_dirs("forwarded", &key, 137);
    let ports = [free_port(), free_port()];
    let start = |i: usize, rate: &str| {
        let public = format!("http://127.0.0.1:{}", ports[i]);
        let mut extra = ledger_node_args(&url, &public, &shared_ledger, &key_path);
        extra.extend(["--max-requests-per-second-per-address".to_owned(), rate.to_owned()]);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        serve(&datas[i], ports[i], &extra)
    };
    let mut nodes = vec![start(0, "5")];
    up(ports[0]).await;
    for _ in 0..100 {
        if ledger_leader(&[ports[0], ports[0]], None).await.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    nodes.push(start(1, "1000"));
    up(ports[1]).await;
    let from = |last: u8| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from([127, 0, 0, last]))
            .build()
            .expect("a client")
    };
    let through_b = format!("http://127.0.0.1:{}/api/ledger", ports[1]);
    // The leader's node URL (`http://127.0.0.1:<A's port>`, from its --listen) as B names it.
    let leader = format!("127.0.0.1:{}", ports[0]);
    let forwarded_to = |r: &reqwest::Response| {
        r.headers()
            .get(server::http::forward::FORWARDED_TO)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_start_matches("http://").trim_end_matches('/').to_owned())
    };

    // B forwards to A (its first answers name A), until A refuses the flood of 127.0.0.2.
    let (flood, mut refused) = (from(2), None);
    for _ in 0..200 {
        let r = flood.get(&through_b).send().await.expect("B answers");
        if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
            refused = Some((forwarded_to(&r), r.text().await.expect("a body")));
            break;
        }
        assert!(r.status().is_success(), "{}", r.status());
        assert_eq!(forwarded_to(&r).as_deref(), Some(leader.as_str()), "B forwarded it to A");
    }
    let (by, body) = refused.expect("the leader refused the flood at 5 per second");
    assert_eq!(by.as_deref(), Some(leader.as_str()), "the leader refused it, not B: {body}");
    assert!(body.contains("127.0.0.2"), "counted against the client: {body}");
    assert!(!body.contains("127.0.0.1 "), "not against the follower: {body}");

    // Another client of B is served at once: B's own address was not used up at A.
    let r = from(3).get(&through_b).send().await.expect("B answers");
    assert!(r.status().is_success(), "another client of B: {}", r.status());
    assert_eq!(forwarded_to(&r).as_deref(), Some(leader.as_str()));

    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tournament's game is arranged through any node and carried on by a new ledger leader:
/// two nodes share the ledger (one leads, running the tournament runner); each player's agent
/// talks to one node only, player A's to the leader, player B's to the other. The leader
/// invites the pairing and A brings its seat there; the leader is SIGKILLed before B brings its
/// seat (and restarted once the other node leads). The other node takes the lead and finds the
/// invitation with A's seat in the store (it invites nobody again); B's agent, started then on
/// its node, hears of the game and brings its seat there, the terms are signed on both nodes,
/// and the game is played to the end: one record that verifies, both agents heard of one
/// invitation only, nobody heard of a no-show, and the tournament is finished in the log with
/// the game's result (no forfeit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_is_played_through_two_nodes_across_a_ledger_leader_kill() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster_cup{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let log_key = ledger::note::SignerKey::from_seed(
        "fogproof.test/ledger",
        ledger::note::KeyKind::Ed25519,
        [141; 32],
    )
    .expect("key");
    let (dir, shared_ledger, key_path, datas) = ledger_cluster_dirs("cup", &log_key, 142);
    let ports = [free_port(), free_port()];
    let bases: Vec<String> = ports.iter().map(|p| format!("http://127.0.0.1:{p}")).collect();
    let start = |i: usize| {
        let extra = ledger_node_args(&url, &bases[i], &shared_ledger, &key_path);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        serve(&datas[i], ports[i], &extra)
    };
    let mut nodes = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        nodes.push(start(i));
        up(*port).await;
    }
    let first = first_leader(&ports).await;
    let other = 1 - first;

    // A plays through the leader, B through the other node. Both keys join (signed in where
    // the ledger is: joining reads the tournament from it); B's agent starts only after the
    // kill, knowing from its directory that it joined.
    let (white_name, black_name) = ("cup-a", "cup-b");
    let white_key = Identity::from_seed(&sim::selfplay::derive(1_401, white_name));
    let black_key = Identity::from_seed(&sim::selfplay::derive(1_403, black_name));
    let org_seed = [143; 32];
    let def = ledger::tournament::definition::TournamentDefinition {
        name: "Failover Cup".into(),
        variant: rules::Variant::Chess,
        ruleset: rules::Variant::Chess.ruleset().into(),
        system: ledger::tournament::definition::System::RoundRobin { double: false },
        players: [(&white_key, "W"), (&black_key, "B")]
            .iter()
            .map(|(k, n)| ledger::tournament::definition::Entrant {
                key: k.public(),
                name: (*n).into(),
                rating: None,
            })
            .collect(),
        tie_breaks: vec![ledger::tournament::definition::TieBreak::SonnebornBerger],
        time_control: "10+0".into(),
    };
    let org = ledger::note::SignerKey::from_seed("org", ledger::note::KeyKind::Ed25519, org_seed)
        .expect("key");
    let file =
        protocol::codec::Canonical::to_canonical(&def.sign(org.signing_key()).expect("signed"));
    // The organiser publishes through the follower: the log's routes are forwarded to the
    // leader (its token, signed with the host's key, is good there too).
    let organiser =
        client::net::Session::sign_in(&bases[other], &Identity::from_seed(&org_seed), None)
            .await
            .expect("sign in");
    let published = organiser
        .post("/api/tournament", &json!({ "definition": protocol::hex::encode(&file) }))
        .await
        .expect("published through the follower");
    let id = published["id"].as_str().expect("id").to_owned();
    std::fs::create_dir_all(dir.join(black_name)).expect("dir");
    std::fs::write(dir.join(black_name).join(client::agent::TOURNAMENTS_FILE), format!("{id}\n"))
        .expect("B's tournaments file");
    let white = paced_agent(&bases[first], &dir, white_name, 1_401, Accept::Nothing, PACE).await;
    let mut white_heard = white.subscribe();
    white.join_tournament(&id).await.expect("A joins on the leader");
    let black_on_follower =
        client::net::Session::sign_in(&bases[other], &black_key, None).await.expect("sign in");
    black_on_follower
        .post(&format!("/api/tournament/{id}/join"), &json!({}))
        .await
        .expect("B joins through the follower");

    // Round 1 starts (every entrant joined) and A brings its seat to the leader.
    let invited = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match white_heard.recv().await {
                Ok(e) if e["type"] == "tournamentGame" => return e,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await
    .expect("A is invited");
    let game = invited["id"].as_str().expect("game id").to_owned();
    // The tournament as a node shows it, and the leader it was forwarded to (none: its own).
    let shown_by = |base: String| {
        let (http, id) = (reqwest::Client::new(), id.clone());
        async move {
            let r = http.get(format!("{base}/api/tournament/{id}")).send().await.expect("request");
            let by = r
                .headers()
                .get(server::http::forward::FORWARDED_TO)
                .map(|v| v.to_str().expect("ascii").to_owned());
            (r.json::<serde_json::Value>().await.expect("json"), by)
        }
    };
    let shown = |base: String| {
        let f = shown_by(base);
        async move { f.await.0 }
    };
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (before, by) = shown_by(bases[first].clone()).await;
    assert_eq!(before["invitations"].as_array().map(Vec::len), Some(1), "{before}");
    assert_eq!(by, None, "the leader answers itself");
    let (through, by) = shown_by(bases[other].clone()).await;
    assert_eq!(through, before, "the follower shows what the leader does");
    assert_eq!(by.as_deref(), Some(bases[first].as_str()), "forwarded to the leader");
    // A request forwarded once is not forwarded again (a node elected but not open yet would
    // send it back): the follower refuses it, the leader answers it.
    let once_forwarded = |base: &str| {
        reqwest::Client::new()
            .get(format!("{base}/api/ledger"))
            .header(server::http::forward::FORWARDED_BY, "http://elsewhere")
            .send()
    };
    let looped = once_forwarded(&bases[other]).await.expect("request");
    assert_eq!(looped.status().as_u16(), 503, "no second forward");
    assert_eq!(looped.headers().get("retry-after").map(|v| v.as_bytes()), Some(&b"1"[..]));
    let at_leader = once_forwarded(&bases[first]).await.expect("request");
    assert_eq!(at_leader.status().as_u16(), 200, "the leader answers a forwarded request");

    // The leader dies before B shows; the other node leads once its lease expires, and the
    // killed node is restarted then (a follower: restarted at once, it would renew its own
    // lease, its address being its name in the election).
    nodes[first].kill().expect("SIGKILL");
    let _ = nodes[first].wait();
    let mut new_leader = None;
    for _ in 0..150 {
        new_leader = ledger_leader(&ports, Some(first)).await;
        if new_leader.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (now_leads, _) = new_leader.expect("a node leads again");
    assert_eq!(now_leads, other, "the surviving node took the lead");
    nodes[first] = start(first);
    up(ports[first]).await;
    let black = paced_agent(&bases[other], &dir, black_name, 1_403, Accept::Nothing, PACE).await;
    let mut black_heard = black.subscribe();

    // The game is played through both nodes.
    let pairs = vec![(&"chess", white, black)];
    let probe = pairs[0].1.session().clone();
    finished::records_agree_and_are_listed(&pairs, &probe, 240).await;
    let mut status = serde_json::Value::Null;
    for _ in 0..100 {
        status = shown(bases[other].clone()).await;
        if status["status"] == "finished" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status["status"], "finished", "the game's record is in the log: {status}");
    // The restarted node, a follower now, forwards to the new leader.
    let (again, by) = shown_by(bases[first].clone()).await;
    assert_eq!(again, status, "the old leader, now a follower, shows the new leader's log");
    assert_eq!(by.as_deref(), Some(bases[other].as_str()), "forwarded to the new leader");
    let mut invitations = std::collections::BTreeSet::new();
    for heard in [&mut white_heard, &mut black_heard] {
        while let Ok(e) = heard.try_recv() {
            assert_ne!(e["type"], "tournamentNoShow", "nobody who brought a seat forfeits: {e}");
            if e["type"] == "tournamentGame" {
                invitations.insert(e["id"].as_str().unwrap_or_default().to_owned());
            }
        }
    }
    assert!(invitations.iter().all(|g| *g == game), "one invitation: {invitations:?} {game}");
    let pairings = status["pairings"].to_string();
    assert!(!pairings.contains("no_show") && !pairings.contains("forfeit"), "{pairings}");
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
