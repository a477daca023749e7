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
use common::{agent, free_port, serve, up};

/// A failover proxy on `listener`: each connection goes to the backend it last reached, or
/// the next that accepts.
async fn failover(listener: tokio::net::TcpListener, backends: Vec<u16>) {
    let current = Arc::new(AtomicUsize::new(0));
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else { return };
        let (current, backends) = (current.clone(), backends.clone());
        tokio::spawn(async move {
            for _ in 0..backends.len() * 20 {
                let at = current.load(Ordering::Relaxed);
                match tokio::net::TcpStream::connect(("127.0.0.1", backends[at])).await {
                    Ok(mut outbound) => {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_node_killed_mid_match_loses_nothing_a_receipt_promised() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: serve --cluster: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_cluster{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pg-cluster-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The host's keys, the same on every node.
    let umpire = Identity::from_seed(&[72; 32]);
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
    tokio::spawn(failover(listener, ports.to_vec()));
    let mut nodes = Vec::new();
    for (data, port) in datas.iter().zip(ports) {
        nodes.push(node(data, port, &url, &lb));
        up(port).await;
    }

    // The umpire service, a process of its own behind the load balancer like the players.
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

    let variants = ["chess", "kriegspiel", "sic"];
    let mut pairs = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let seed = 700 + i as u64;
        let bob = agent(&lb, &dir, &format!("bob-{v}"), seed * 2, Accept::Addressed).await;
        let alice = agent(&lb, &dir, &format!("alice-{v}"), seed * 2 + 1, Accept::Nothing).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        alice
            .challenge(json!({
                "variant": v,
                "clock_limit": 900,
                "clock_increment": 0,
                "opponent": bob.session().key.to_string(),
            }))
            .await
            .expect("challenge");
        pairs.push((v, alice, bob));
    }
    let probe = pairs[0].1.session().clone();
    // Node A serves everything (the proxy's first); kill it mid-match, restart it, then kill
    // node B, which took the matches over.
    let mut killed_live = 0;
    for (n, victim) in [0usize, 1].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        let mut live = 0;
        for _ in 0..100 {
            if let Ok(lobby) = probe.get("/api/lobby").await {
                live = lobby["live"].as_array().map_or(0, Vec::len);
                if live > 0 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        killed_live += live;
        eprintln!("kill {n}: node {victim} with {live} matches live");
        nodes[victim].kill().expect("SIGKILL");
        let _ = nodes[victim].wait();
        // Restarted once the survivor has taken the matches over (the lease, 2 s, and a round):
        // a node restarted sooner may take some of them itself, and until the agent follows
        // the redirect to it (not built, docs/SERVER.md) the proxy, which stays with the
        // survivor, would keep its players away from them. A new node holds no lease.
        tokio::time::sleep(Duration::from_millis(4_000)).await;
        nodes[victim] = node(&datas[victim], ports[victim], &url, &lb);
        up(ports[victim]).await;
    }
    assert!(killed_live >= 2, "the kills hit live matches ({killed_live})");
    finished::records_agree_and_are_listed(&pairs, &probe, 240).await;
    for mut n in nodes {
        let _ = n.kill();
        let _ = n.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
