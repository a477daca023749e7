//! Hostile clients against a real server (sockets on 127.0.0.1): malformed, oversized and text
//! frames, a forged signature, another match's id, a message written for the other seat, a
//! flood, a socket that never speaks, a stranger watching a hidden game, a bad sign-in, too
//! many connections. Each is refused with an error naming what is wrong, and the honest
//! matches beside them finish with valid records.

mod network;

use client::agent::Accept;
use client::net::{MatchSocket, NetError, Session};
use network::{Net, bot, identity};
use protocol::challenge::ChallengeRequest;
use protocol::message::{Author, Payload};
use protocol::wire::{ClientFrame, ServerFrame};
use protocol::{Channel, MatchId};
use rules::Variant;
use serde_json::json;
use std::sync::{Arc, Mutex};

fn hostile_limits(c: &mut server::Config) {
    c.limits.max_hello_wait_ms = 400;
    c.limits.max_refusals_per_connection = 8;
    c.limits.max_connections_per_key = 6;
}

/// Reads frames until the socket closes; the refusal texts and the close text, joined.
async fn until_closed(s: &mut MatchSocket) -> String {
    let mut said = Vec::new();
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), s.next()).await {
            Err(_) => panic!("the socket stayed open; it said: {said:?}"),
            Ok(None) => return said.join(" | "),
            Ok(Some(Ok(ServerFrame::Refused { reason, .. }))) => said.push(reason),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(e))) => {
                said.push(e.to_string());
                return said.join(" | ");
            }
        }
    }
}

/// Reads frames until a refusal; its reason.
async fn next_refusal(s: &mut MatchSocket) -> String {
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), s.next()).await {
            Ok(Some(Ok(ServerFrame::Refused { reason, .. }))) => return reason,
            Ok(Some(Ok(_))) => {}
            other => panic!("no refusal: {other:?}"),
        }
    }
}

async fn hello(session: &Session, id: &MatchId) -> MatchSocket {
    session.socket(id, None).await.expect("socket")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_are_refused_and_honest_matches_go_on() {
    let net = Net::start_with("hostile", hostile_limits).await;
    // Two honest matches: alice-bob (Kriegspiel, hidden) and mallory-carol (chess), where
    // mallory's own agent plays honestly while her other sockets attack.
    let bob = net.agent("bob", bot(21), Accept::Addressed).await;
    let alice = net.agent("alice", bot(22), Accept::Nothing).await;
    let carol = net.agent("carol", bot(23), Accept::Addressed).await;
    // Mallory's own agent never moves until the checks below are done (then resigns): its
    // chess match stays live through all of them however fast the bots play.
    let resign: Arc<Mutex<Vec<tokio::sync::mpsc::Sender<client::seat::SeatCommand>>>> =
        Arc::default();
    let held = resign.clone();
    let waits: client::agent::DeciderFactory = Arc::new(move |_| {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        held.lock().expect("lock").push(tx);
        (client::seat::Decider::Remote(rx), None)
    });
    let mallory_agent = net.agent("mallory", waits, Accept::Nothing).await;
    for (from, to, variant) in [(&alice, &bob, "kriegspiel"), (&mallory_agent, &carol, "chess")] {
        from.challenge(&ChallengeRequest::addressed(
            variant.parse::<Variant>().expect("a variant"),
            600,
            0,
            to.session().key,
        ))
        .await
        .expect("challenge");
    }
    let mallory_id = identity("mallory");
    let mallory = Session::sign_in(&net.base, &mallory_id, None).await.expect("sign in");
    let hidden = net.live_of(&alice.session().key, 8).await;
    let mine = net.live_of(&mallory.key, 4).await;

    // A frame that is no ClientFrame.
    let mut s = hello(&mallory, &mine).await;
    s.send_raw(vec![0xff, 0x00, 0x13]).await.expect("send");
    let said = until_closed(&mut s).await;
    assert!(said.contains("bad frame") && said.contains("client frame"), "{said}");

    // An oversized frame.
    let mut s = hello(&mallory, &mine).await;
    let _ = s.send_raw(vec![0u8; server::Limits::DEFAULT.max_frame_bytes + 1]).await;
    let said = until_closed(&mut s).await;
    assert!(!said.is_empty(), "closed with a reason");

    // A text frame.
    let mut s = hello(&mallory, &mine).await;
    s.send_text("e2e4").await.expect("send");
    let said = until_closed(&mut s).await;
    assert!(said.contains("binary frames only"), "{said}");

    // A socket that never says Hello.
    let mut s = mallory.socket_without_hello(&mine).await.expect("socket");
    let said = until_closed(&mut s).await;
    assert!(said.contains("no Hello within 400 ms"), "{said}");

    // A second Hello.
    let mut s = hello(&mallory, &mine).await;
    s.send_frame(&ClientFrame::Hello { version: protocol::codec::VERSION, since: None })
        .await
        .expect("send");
    let said = until_closed(&mut s).await;
    assert!(said.contains("Hello comes once"), "{said}");

    // A forged signature: refused, the socket stays.
    let mut s = hello(&mallory, &mine).await;
    let mut forged = Author::new(mallory_id.clone(), mine).write(
        Channel::Public,
        None,
        Payload::Action(vec![1]),
    );
    forged.signature.s[0] ^= 1;
    s.send(&forged).await.expect("send");
    let why = next_refusal(&mut s).await;
    assert!(why.contains("signature"), "{why}");

    // A message of another match.
    let other = Author::new(mallory_id.clone(), hidden).write(
        Channel::Public,
        None,
        Payload::Action(vec![1]),
    );
    s.send(&other).await.expect("send");
    let why = next_refusal(&mut s).await;
    assert!(why.contains("match"), "{why}");

    // A message written by another party (carol's, as the relay delivered it): closed.
    let mut watch = hello(&mallory, &mine).await;
    let carols = loop {
        match watch.next().await {
            Some(Ok(ServerFrame::Entry(e))) => {
                if e.message.verify().is_ok_and(|b| b.author == carol.session().key) {
                    break e.message;
                }
            }
            Some(Ok(_)) => {}
            other => panic!("no entry of carol's: {other:?}"),
        }
    };
    watch.send(&carols).await.expect("send");
    let said = until_closed(&mut watch).await;
    assert!(said.contains("nobody writes for another party"), "{said}");

    // A flood of messages the relay refuses: the socket is closed at the limit. Exactly one
    // past it (8, `hostile_limits`): a frame still arriving after the server closed would have its
    // TCP stack answer with a reset, which can overtake the close frame and its reason.
    let mut s = hello(&mallory, &mine).await;
    for _ in 0..=8 {
        if s.send_frame(&ClientFrame::Message(vec![7; 40])).await.is_err() {
            break;
        }
    }
    let said = until_closed(&mut s).await;
    assert!(said.contains("max_refusals_per_connection"), "{said}");

    // A stranger watching a hidden game.
    let eve = Session::sign_in(&net.base, &identity("eve"), None).await.expect("sign in");
    let mut s = hello(&eve, &hidden).await;
    let said = until_closed(&mut s).await;
    assert!(said.contains("hides information"), "{said}");
    // ... but may watch an open one.
    let mut s = hello(&eve, &mine).await;
    assert!(matches!(s.next().await, Some(Ok(ServerFrame::Welcome { .. }))));
    drop(s);

    // A sign-in with a signature over another challenge, and a name with a control character.
    let (_, c) = net.post_raw("/api/auth/challenge", &json!({})).await;
    let c: serde_json::Value = serde_json::from_str(&c).expect("json");
    let relay: protocol::PublicKey = c["server"].as_str().expect("server").parse().expect("key");
    let origin = protocol::wire::origin(&net.base).expect("origin");
    let signature = protocol::wire::sign_in(&identity("eve"), &relay, &origin, &[0; 32]);
    let login = json!({
        "key": identity("eve").public().to_string(),
        "challenge": c["challenge"],
        "signature": client::net::signature_hex(&signature),
        "origin": origin,
    });
    let (status, body) = net.post_raw("/api/auth/login", &login).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("does not sign this challenge"), "{body}");
    // A name with a control character: the client will not sign it; sent unsigned or signed
    // anyway, the server refuses it naming why (docs/PROTOCOL.md, display names).
    let err =
        Session::sign_in(&net.base, &identity("eve"), Some("\u{0007}bell")).await.unwrap_err();
    assert!(matches!(&err, NetError::Name(_)), "{err}");
    let eve_id = identity("eve");
    let raw = "\u{0007}bell";
    let bytes = protocol::names::name_bytes(&eve_id.public(), raw, 1);
    let forged_name = json!({
        "key": eve_id.public().to_string(), "name": raw, "issued_ms": 1,
        "signature": client::net::signature_hex(&eve_id.sign(protocol::tags::DISPLAY_NAME, &bytes)),
    });
    for (name, want) in [(json!("bell"), "signed by its key"), (forged_name, "U+0007")] {
        let (_, c) = net.post_raw("/api/auth/challenge", &json!({})).await;
        let c: serde_json::Value = serde_json::from_str(&c).expect("json");
        let challenge = protocol::hex::decode_array::<32>(c["challenge"].as_str().expect("c"))
            .expect("a challenge");
        let signature = protocol::wire::sign_in(&eve_id, &relay, &origin, &challenge);
        let login = json!({
            "key": eve_id.public().to_string(),
            "challenge": c["challenge"],
            "signature": client::net::signature_hex(&signature),
            "origin": origin,
            "name": name,
        });
        let (status, body) = net.post_raw("/api/auth/login", &login).await;
        assert_eq!(status, 400, "{body}");
        assert!(body.contains(want), "{body}");
    }

    // Too many connections of one key.
    let mut open = Vec::new();
    let mut refused = None;
    for _ in 0..10 {
        match eve.socket(&mine, None).await {
            Ok(s) => open.push(s),
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    let err = refused.expect("a connection beyond the limit is refused");
    assert!(err.to_string().contains("max_connections_per_key"), "{err}");
    drop(open);

    // The honest matches finish, valid.
    for tx in resign.lock().expect("lock").drain(..) {
        tx.try_send(client::seat::SeatCommand::Resign).expect("mallory's seat hears");
    }
    for agent in [&alice, &mallory_agent] {
        let (_, record) = net.finished(agent).await;
        let v = verifier::verify_match(&record);
        assert!(v.verdict.is_valid(), "{:#?}", v.verdict);
    }
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_flood_gets_429_naming_the_limit() {
    let net = Net::start_with("flood", |c| {
        c.limits.max_requests_per_second_per_address = 20;
    })
    .await;
    let mut limited = None;
    for _ in 0..100 {
        let r = net.get_raw("/api/info").await;
        if r.0 == 429 {
            limited = Some(r.1);
            break;
        }
    }
    let body = limited.expect("the 21st request in a second is refused");
    assert!(body.contains("max_requests_per_second_per_address"), "{body}");
    net.stop().await;
}

/// The host's own umpire service answers for every umpired start from one address: it is
/// spared that address's request rate once its token is known (a load test's ramp found its
/// seats and signatures refused with 429 and the starts canceled 30 s later, the umpire
/// blamed). Anyone else from the same address is still held to the rate, and a token that
/// merely claims the umpire's key is not taken for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_umpire_service_is_spared_its_addresses_request_rate() {
    let net = Net::start_with("umpire-rate", |c| {
        c.limits.max_requests_per_second_per_address = 20;
    })
    .await;
    let umpire = net.umpire.session().clone();
    for i in 0..100 {
        umpire
            .get("/api/account")
            .await
            .unwrap_or_else(|e| panic!("the umpire service's request {i} was refused: {e}"));
    }
    // A stranger from the same address (once the umpire's second has passed, so that it can
    // sign in) is refused within its own second's flood.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let stranger = net.agent("stranger", bot(1), Accept::Nothing).await;
    let mut refused = None;
    for _ in 0..100 {
        if let Err(e) = stranger.session().get("/api/account").await {
            refused = Some(e);
            break;
        }
    }
    let err = refused.expect("a stranger over the address's rate is refused");
    assert!(err.to_string().contains("max_requests_per_second_per_address"), "{err}");
    // The umpire's key in a token the host never signed: not spared (a 429 or a 401, never
    // answered as the umpire's).
    let umpire_hex = net.umpire.session().key.to_string();
    let forged = format!("{}{}", umpire_hex.trim_start_matches("ed25519:"), "00".repeat(72));
    let mut statuses = std::collections::BTreeSet::new();
    for _ in 0..60 {
        let r = reqwest::Client::new()
            .get(format!("{}/api/account", net.base))
            .bearer_auth(&forged)
            .send()
            .await
            .expect("answered");
        statuses.insert(r.status().as_u16());
    }
    assert!(!statuses.contains(&200), "{statuses:?}");
    assert!(statuses.contains(&429), "the flood of forged tokens is rate limited: {statuses:?}");
    net.stop().await;
}

/// On a cluster a follower forwards the log's routes to the leader, so at the leader every
/// client of that follower arrives from the follower's address: one busy follower would use up
/// that address's request rate for all of them. The follower therefore attests the client's
/// address (an HMAC under a key derived from the host's relay key, which every node holds), and
/// the leader counts an attested request against that address. An attestation under another
/// key, for another route, or too old is worth nothing: the request counts against its peer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attested_forward_counts_against_the_client_not_the_forwarding_node() {
    use server::forwarding::{ATTESTATION_MAX_SKEW_MS, Attested, FORWARDED_BY, FORWARDED_FOR};
    let net = Net::start_with("forwarded-rate", |c| {
        c.limits.max_requests_per_second_per_address = 5;
    })
    .await;
    let node = "http://follower.test:8080";
    let client = reqwest::Client::new();
    let now_ms = || {
        u64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("after 1970")
                .as_millis(),
        )
        .expect("ms fit")
    };
    // Requests "forwarded for" `ip`, attested under `relay`'s forward key and issued `age` ms
    // ago, until one is refused: that refusal's text (it names the address counted).
    let flood = |relay: protocol::Identity, ip: &'static str, path: &'static str, age: u64| {
        let client = client.clone();
        let base = net.base.clone();
        async move {
            let key = server::forwarding::ForwardKey::of(&relay);
            for _ in 0..200 {
                let a = Attested {
                    node,
                    client: ip.parse().expect("an address"),
                    method: "GET",
                    path,
                    issued_ms: now_ms() - age,
                };
                let r = client
                    .get(format!("{base}/api/info"))
                    .header(FORWARDED_BY, node)
                    .header(FORWARDED_FOR, key.attest(&a))
                    .send()
                    .await
                    .expect("answered");
                if r.status() == 429 {
                    return r.text().await.expect("a body");
                }
                assert_eq!(r.status(), 200);
            }
            panic!("200 requests within the rate of 5 a second");
        }
    };
    let relay = identity("relay");
    let a = flood(relay.clone(), "192.0.2.1", "/api/info", 0).await;
    assert!(a.contains("192.0.2.1") && a.contains("max_requests_per_second_per_address"), "{a}");
    let b = flood(relay.clone(), "2001:db8::7", "/api/info", 0).await;
    assert!(b.contains("2001:db8::7"), "{b}");
    // Worth nothing, so counted against the peer (this test's own address):
    let stranger = identity("a stranger's relay key");
    for (bad, why) in [
        (flood(stranger, "192.0.2.2", "/api/info", 0).await, "another key"),
        (flood(relay.clone(), "192.0.2.3", "/api/ledger", 0).await, "another route"),
        (
            flood(relay.clone(), "192.0.2.4", "/api/info", ATTESTATION_MAX_SKEW_MS + 5_000).await,
            "issued too long ago",
        ),
    ] {
        assert!(bad.contains("127.0.0.1") && !bad.contains("192.0.2."), "{why}: {bad}");
        // The peer's second passes before the next case.
        tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    }
    net.stop().await;
}
