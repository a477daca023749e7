//! Sign-in names the server the player meant (issue 13 point 6). A phishing proxy that relays
//! the real server's sign-in challenge to a player's agent gets no token: the agent signs the
//! origin it connected to (the proxy's) with the server's relay key, and the server accepts
//! only its own origins. And the agent does not take the relay key from whatever answers: it
//! pins the key it first sees for an origin (or is given it) and refuses one that changes.

mod network;

use client::agent::{Accept, Agent, AgentConfig, AgentError, SERVER_KEYS_FILE};
use client::net::{NetError, Session, signature_hex};
use client::seat::Decider;
use network::{Net, Proxy, identity};
use protocol::{Identity, PublicKey};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

fn agent_config(server: &str, who: &Identity, dir: &Path, key: Option<PublicKey>) -> AgentConfig {
    AgentConfig {
        server: server.to_owned(),
        server_key: key,
        identity: who.clone(),
        name: None,
        dir: dir.to_owned(),
        umpire: false,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: Arc::new(|_| (Decider::None, None)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_relaying_the_servers_challenge_gets_no_token() {
    let net = Net::start("sign-in-relay").await;
    let victim = identity("stock-bot");
    // The phishing site: a forwarder the server's operator knows nothing of, passing every
    // byte both ways (the victim sees the real server's relay key and challenges).
    let phish = Proxy::start(net.server.as_ref().expect("running").addr).await;
    let err = Session::sign_in(&phish.base, &victim, None).await.expect_err("no token via a proxy");
    assert!(
        matches!(&err, NetError::Refused { status: 401, message, .. }
            if message.contains("origin") && message.contains(&phish.base)),
        "{err}"
    );
    // What the proxy saw cannot be replayed either: the victim's signature names the proxy's
    // origin, so presenting it with the real server's origin does not verify.
    let (_, c) = net.post_raw("/api/auth/challenge", &json!({})).await;
    let c: Value = serde_json::from_str(&c).expect("json");
    let relay: PublicKey = c["server"].as_str().expect("server").parse().expect("key");
    let challenge: [u8; 32] =
        protocol::hex::decode_array(c["challenge"].as_str().expect("hex")).expect("challenge");
    let phish_origin = protocol::wire::origin(&phish.base).expect("origin");
    let signed = protocol::wire::sign_in(&victim, &relay, &phish_origin, &challenge);
    let real_origin = protocol::wire::origin(&net.base).expect("origin");
    let (status, body) = net
        .post_raw(
            "/api/auth/login",
            &json!({
                "key": victim.public().to_string(),
                "challenge": c["challenge"],
                "signature": signature_hex(&signed),
                "origin": real_origin,
            }),
        )
        .await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("does not sign this challenge"), "{body}");
    // A login without an origin is refused too.
    let (status, body) = net
        .post_raw(
            "/api/auth/login",
            &json!({ "key": victim.public().to_string(), "challenge": c["challenge"],
                     "signature": signature_hex(&signed) }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    // The same key, straight to the server: signed in.
    let s = Session::sign_in(&net.base, &victim, None).await.expect("signs in");
    assert_eq!(s.info.relay, relay);
}

/// A forwarder whose target can be switched: the same origin, answered by another server.
fn forward(listener: tokio::net::TcpListener, target: Arc<Mutex<SocketAddr>>) {
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let to = *target.lock().unwrap();
            tokio::spawn(async move {
                if let Ok(mut out) = tokio::net::TcpStream::connect(to).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                }
            });
        }
    });
}

async fn serve(dir: &Path, relay: &Identity, origin: &str) -> server::Running {
    let mut config = server::Config::new(dir.to_owned(), relay.clone());
    config.public_origins.push(origin.to_owned());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    server::start(config, listener, Arc::new(server::clock::TokioClock::system()))
        .await
        .expect("starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_pins_the_relay_key_and_refuses_a_changed_one() {
    let dir = std::env::temp_dir().join(format!("fogproof-pin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // One public address (a reverse proxy both operators declare with --public-url), in front
    // of server A, later of server B with another relay key.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let origin = protocol::wire::origin(&base).expect("origin");
    let (relay_a, relay_b) = (identity("relay-a"), identity("relay-b"));
    let a = serve(&dir.join("a"), &relay_a, &origin).await;
    let b = serve(&dir.join("b"), &relay_b, &origin).await;
    let target = Arc::new(Mutex::new(a.addr));
    forward(listener, target.clone());
    let player = identity("player");
    let home = dir.join("player");
    // First use: the agent pins A's key for the origin, and signs in (through the operator's
    // proxy: its origin is one the server declared).
    let agent = Agent::connect(agent_config(&base, &player, &home, None)).await.expect("signs in");
    assert_eq!(agent.session().info.relay, relay_a.public());
    let pins = std::fs::read_to_string(home.join(SERVER_KEYS_FILE)).expect("a pin file");
    assert_eq!(pins.trim(), format!("{origin} {}", relay_a.public()));
    // Again: the pin holds.
    Agent::connect(agent_config(&base, &player, &home, None)).await.expect("the same key");
    // The address now answers with another relay key: refused, with a warning naming both.
    *target.lock().unwrap() = b.addr;
    let err = Agent::connect(agent_config(&base, &player, &home, None))
        .await
        .err()
        .expect("a changed relay key is refused");
    let text = err.to_string();
    assert!(matches!(err, AgentError::Net(NetError::Protocol { .. })), "{text}");
    assert!(
        text.contains("WARNING")
            && text.contains("pinned")
            && text.contains(&relay_a.public().to_string())
            && text.contains(&relay_b.public().to_string()),
        "{text}"
    );
    // B never saw a sign-in: nothing was signed for it (no account was made).
    let account = b.shared.store.account(&player.public()).await.expect("the store");
    assert!(account.is_none(), "{account:?}");
    // The pin file is unchanged.
    assert_eq!(std::fs::read_to_string(home.join(SERVER_KEYS_FILE)).expect("pins"), pins);
    // A key given (`--server-key`) decides instead of the pin: the operator's new key signs
    // in; a wrong one is refused.
    Agent::connect(agent_config(&base, &player, &home, Some(relay_b.public())))
        .await
        .expect("the given key");
    let err =
        Agent::connect(agent_config(&base, &player, &dir.join("fresh"), Some(relay_a.public())))
            .await
            .err()
            .expect("not the given key");
    assert!(err.to_string().contains("not the one this agent was given"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
