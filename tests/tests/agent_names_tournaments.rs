//! Display names and tournaments through a player's agent and its local API (issue 16):
//! - a name set through the agent's local API is signed by the key, refused with the reason
//!   when it could impersonate (control, bidi, too long), shown by the host's lobby and match
//!   information with its signature, and in the agent's `gameFull`; the server refuses a name
//!   its key did not sign, another key's, and an older one;
//! - an agent joins a tournament through its local API (lichess's
//!   `POST /api/tournament/{id}/join`), plays every game it is paired in through that API
//!   against house bots, and the standings count its games.

mod network;

use client::agent::{Accept, Agent, AgentConfig};
use client::local::{Hub, Status};
use client::net::NetError;
use client::seat::Decider;
use ledger::note::{KeyKind, SignerKey};
use network::{Net, bot, http, identity};
use protocol::Identity;
use protocol::names::SignedName;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// An agent with its hub and local API on loopback, as `fogproof agent` runs them.
struct Local {
    agent: Agent,
    hub: Arc<Hub>,
    base: String,
}

async fn local_agent(net: &Net, label: &str, name: Option<&str>) -> Local {
    let hub = Hub::new(net.dir.join(label).join("records"));
    let agent = Agent::connect(AgentConfig {
        server_key: None,
        server: net.base.clone(),
        identity: identity(label),
        name: name.map(str::to_owned),
        dir: net.dir.join(label),
        umpire: false,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: hub.factory(),
    })
    .await
    .expect("signs in");
    hub.attach(agent.clone());
    let runner = agent.clone();
    tokio::spawn(async move { runner.run().await });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(client::local::serve(listener, hub.clone(), false, std::future::pending::<()>()));
    tokio::time::sleep(Duration::from_millis(200)).await;
    Local { agent, hub, base }
}

/// A call to a local API: the status and the JSON answer (null if none).
async fn call(url: &str, method: &str, body: Option<&Value>) -> (u16, Value) {
    let (status, bytes) = http(url, method, body).await;
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// The first game the hub holds, once there is one.
async fn first_game(hub: &Hub) -> String {
    for _ in 0..3000 {
        if let Some((id, _)) = hub.games().into_iter().next() {
            return id;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no game started within 30 s");
}

async fn until_status(hub: &Hub, id: &str, status: Status) {
    for _ in 0..6000 {
        if hub.snapshot(id).is_some_and(|s| s.status == status) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {id} not {} within 60 s: {:?}", status.name(), hub.snapshot(id).map(|s| s.status));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_set_through_the_agent_is_signed_and_shown_by_the_host_and_in_game_full() {
    let net = Net::start("agent-names").await;
    let bob = net.agent("bob", bot(3), Accept::Addressed).await;
    let alice = local_agent(&net, "alice", None).await;
    let key = alice.agent.session().key.to_string();
    let account = format!("{}/api/account", alice.base);

    // Names that could impersonate are refused by the agent with the reason; nothing is sent.
    let long = "x".repeat(33);
    for (bad, why) in [
        ("Eve\u{202E}gro", "U+202E"),
        ("A\u{200B}lice", "U+200B"),
        ("bell\u{0007}", "U+0007"),
        ("   ", "empty"),
        (long.as_str(), "at most 32 characters"),
        ("ed25519 162a", "pose as a key"),
    ] {
        let (status, v) = call(&account, "POST", Some(&json!({ "name": bad }))).await;
        assert_eq!(status, 400, "{bad:?}: {v}");
        assert!(v["error"].as_str().expect("error").contains(why), "{bad:?}: {v}");
    }
    let (_, v) = call(&account, "GET", None).await;
    assert_eq!(v["username"], json!(key), "no name yet: the key");
    assert!(v["name"].is_null(), "{v}");
    let (_, host) = net.get_raw("/api/lobby").await;
    assert!(!host.contains("U+"), "nothing reached the server");

    // A name: normalised, signed by the key, checked by anyone.
    let (status, v) =
        call(&account, "POST", Some(&json!({ "name": "  Alice  Zoe\u{0308} " }))).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["name"], "Alice Zoë");
    let signed: SignedName = serde_json::from_value(v["signedName"].clone()).expect("a statement");
    assert_eq!(signed.key.to_string(), key);
    signed.verify().expect("its key signed it");
    let (_, v) = call(&account, "GET", None).await;
    assert_eq!(
        (v["username"].clone(), v["name"].clone()),
        (json!("Alice Zoë"), json!("Alice Zoë"))
    );

    // The host's lobby shows the seek with the name and its signature.
    let (status, v) = call(
        &format!("{}/api/challenge/open", alice.base),
        "POST",
        Some(&json!({ "variant": "chess", "clock_limit": 300, "clock_increment": 0 })),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let seek = v["challenge"]["id"].as_str().expect("id").to_owned();
    let lobby = net.get_json("/api/lobby").await;
    let shown = lobby["seeks"]
        .as_array()
        .expect("seeks")
        .iter()
        .find(|s| s["id"] == json!(seek))
        .cloned()
        .expect("the seek is shown");
    assert_eq!(shown["challenger"]["id"], json!(key));
    assert_eq!(shown["challenger"]["name"], "Alice Zoë", "{shown}");
    let served: SignedName =
        serde_json::from_value(lobby["names"][&key].clone()).expect("the lobby's names");
    assert_eq!(served, signed, "the statement itself, which anyone checks");
    let (status, _) =
        call(&format!("{}/api/challenge/{seek}/cancel", alice.base), "POST", None).await;
    assert_eq!(status, 200);

    // The server keeps only what the key signed, and never an older statement.
    let session = alice.agent.session();
    let refused = |r: Result<Value, NetError>| match r {
        Err(NetError::Refused { status, message, .. }) => (status, message),
        other => panic!("not refused: {other:?}"),
    };
    let tampered = SignedName { name: "Alice Z".into(), ..signed.clone() };
    let (status, why) = refused(session.post("/api/account", &json!({ "name": tampered })).await);
    assert_eq!(status, 400, "{why}");
    assert!(why.contains("did not sign"), "{why}");
    let bobs =
        SignedName::sign(&identity("bob"), "Alice Zoë", signed.issued_ms + 1).expect("signs");
    let (status, why) = refused(session.post("/api/account", &json!({ "name": bobs })).await);
    assert_eq!(status, 403, "{why}");
    let older =
        SignedName::sign(&identity("alice"), "Old Alice", signed.issued_ms - 1).expect("signs");
    let (status, why) = refused(session.post("/api/account", &json!({ "name": older })).await);
    assert_eq!(status, 409, "{why}");
    let (status, why) = refused(session.post("/api/account", &json!({ "name": "Alice" })).await);
    assert_eq!(status, 400, "{why}");
    assert!(why.contains("signed by its key"), "{why}");
    let (_, v) = call(&account, "GET", None).await;
    assert_eq!(v["name"], "Alice Zoë", "unchanged by the refused statements");

    // A game against Bob (who signed "bob" at sign-in): gameFull names both players.
    let (status, v) = call(
        &format!("{}/api/challenge/{}", alice.base, bob.session().key),
        "POST",
        Some(&json!({ "variant": "chess", "clock_limit": 300, "clock_increment": 0, "color": "white" })),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let id = first_game(&alice.hub).await;
    let info = net.get_json(&format!("/api/match/{id}")).await;
    assert_eq!(info["names"][&key]["name"], "Alice Zoë", "{info}");
    assert_eq!(info["names"][bob.session().key.to_string()]["name"], "bob", "{info}");
    for _ in 0..3000 {
        if alice.hub.snapshot(&id).is_some_and(|s| s.view.is_some()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (status, _) = call(&format!("{}/api/bot/game/{id}/resign", alice.base), "POST", None).await;
    assert_eq!(status, 200);
    until_status(&alice.hub, &id, Status::Finished).await;
    // The stream of a finished game is its gameFull alone.
    let (status, body) =
        http(&format!("{}/api/bot/game/stream/{id}", alice.base), "GET", None).await;
    assert_eq!(status, 200);
    let text = String::from_utf8(body).expect("utf-8");
    let full: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["white"]["id"], json!(key));
    assert_eq!(full["white"]["name"], "Alice Zoë", "{full}");
    assert_eq!(full["white"]["username"], "Alice Zoë");
    assert_eq!(full["white"]["fingerprint"], json!(alice.agent.session().key.fingerprint()));
    assert_eq!(full["black"]["name"], "bob", "{full}");
    assert_eq!(full["state"]["names"][&key]["name"], "Alice Zoë");
    net.stop().await;
}

fn log_key() -> SignerKey {
    SignerKey::from_seed("fogproof.test/ledger", KeyKind::Ed25519, [9; 32]).expect("key")
}

fn house_bot(seed: u64) -> client::agent::DeciderFactory {
    Arc::new(move |_| {
        let bot = client::HouseBot::new(sim::selfplay::derive(seed, "house"));
        (Decider::Policy(Box::new(bot)), None)
    })
}

/// Publishes a single round-robin of `players` (chess, 10+0) as an organiser; its id (hex).
async fn publish(net: &Net, players: &[protocol::PublicKey]) -> String {
    use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
    let org_seed = [43; 32];
    let def = TournamentDefinition {
        name: "Agent Cup".into(),
        variant: rules::Variant::Chess,
        ruleset: rules::Variant::Chess.ruleset().into(),
        system: System::RoundRobin { double: false },
        players: players
            .iter()
            .enumerate()
            .map(|(i, k)| Entrant { key: *k, name: format!("P{}", i + 1), rating: None })
            .collect(),
        tie_breaks: vec![TieBreak::SonnebornBerger],
        time_control: "10+0".into(),
    };
    let file = protocol::codec::Canonical::to_canonical(
        &def.sign(&ed25519_dalek::SigningKey::from_bytes(&org_seed)).expect("signed"),
    );
    let organiser = client::net::Session::sign_in(&net.base, &Identity::from_seed(&org_seed), None)
        .await
        .expect("sign in");
    let v = organiser
        .post("/api/tournament", &json!({ "definition": protocol::hex::encode(&file) }))
        .await
        .expect("published");
    v["id"].as_str().expect("id").to_owned()
}

/// The local API's entry for tournament `id`, in whichever of lichess's groups it is.
async fn listed(base: &str, id: &str) -> Value {
    let (status, v) = call(&format!("{base}/api/tournament"), "GET", None).await;
    assert_eq!(status, 200, "{v}");
    ["created", "started", "finished"]
        .iter()
        .flat_map(|g| v[*g].as_array().cloned().unwrap_or_default())
        .find(|t| t["id"] == json!(id))
        .unwrap_or_else(|| panic!("tournament {id} is not listed: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_joins_a_tournament_through_its_local_api_and_plays_its_pairings_to_the_end() {
    let net = Net::start_with("agent-tournament", |c| {
        let mut l = server::LedgerConfig::new(c.data_dir.join("ledger"), log_key());
        l.append_interval_ms = 200;
        c.ledger = Some(l);
        c.limits.max_tournament_show_wait_ms = 60_000;
    })
    .await;
    let h1 = net.agent("th1", house_bot(1), Accept::Addressed).await;
    let h2 = net.agent("th2", house_bot(2), Accept::Addressed).await;
    let me = local_agent(&net, "tplayer", Some("Tess")).await;
    let my_key = me.agent.session().key;
    let id = publish(&net, &[my_key, h1.session().key, h2.session().key]).await;
    h1.join_tournament(&id).await.expect("joined");
    h2.join_tournament(&id).await.expect("joined");

    // Listed through the local API: this key is an entrant, not yet in.
    let t = listed(&me.base, &id).await;
    assert_eq!((t["entrant"].clone(), t["joined"].clone()), (json!(true), json!(false)), "{t}");
    assert_eq!(t["playing"], json!(false));
    assert_eq!(t["fullName"], "Agent Cup");
    assert_eq!(t["status"], "joining", "round 1 waits for every entrant");
    let (status, v) =
        call(&format!("{}/api/tournament/{}/join", me.base, "zz"), "POST", None).await;
    assert_eq!(status, 404, "{v}");
    let (status, v) = call(&format!("{}/api/tournament/{id}/join", me.base), "POST", None).await;
    assert_eq!(status, 200, "{v}");
    let t = listed(&me.base, &id).await;
    assert_eq!((t["joined"].clone(), t["playing"].clone()), (json!(true), json!(true)), "{t}");
    let saved = std::fs::read_to_string(net.dir.join("tplayer").join("tournaments")).expect("file");
    assert_eq!(saved.trim(), id, "remembered across restarts");

    // Every game the tournament pairs it in starts like any other; a bot plays it through the
    // local API (moves while asked, then resigns after a dozen, to keep the test short).
    let mut played: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    let end = std::time::Instant::now() + Duration::from_secs(400);
    let finished = loop {
        assert!(std::time::Instant::now() < end, "the tournament did not finish in 400 s");
        for (game, status) in me.hub.games() {
            if status != Status::Started {
                continue;
            }
            let (_, s) = call(&format!("{}/api/bot/game/{game}", me.base), "GET", None).await;
            let Some(moves) = s["ask"]["moves"].as_array().filter(|m| !m.is_empty()) else {
                continue;
            };
            let n = played.entry(game.clone()).or_insert(0);
            *n += 1;
            if *n > 12 {
                call(&format!("{}/api/bot/game/{game}/resign", me.base), "POST", None).await;
                continue;
            }
            let text = moves[*n as usize % moves.len()].as_str().expect("a move").to_owned();
            call(&format!("{}/api/bot/game/{game}/move/{text}", me.base), "POST", None).await;
        }
        let t = net.get_json(&format!("/api/tournament/{id}")).await;
        if t["status"] == "finished" {
            break t;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    // It played both of its games (round-robin of three: two each, one bye), each a match
    // through its local API, none forfeited.
    assert_eq!(played.len(), 2, "{played:?}");
    let me_text = my_key.to_string();
    let mine: Vec<Value> = finished["pairings"]["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .flat_map(|r| r["games"].as_array().cloned().unwrap_or_default())
        .filter(|g| g["white"]["key"] == json!(me_text) || g["black"]["key"] == json!(me_text))
        .collect();
    assert_eq!(mine.len(), 2, "{}", finished["pairings"]);
    for g in &mine {
        let result = g["result"].as_str().expect("a result");
        assert!(!result.contains("forfeit"), "{g}");
    }
    for game in played.keys() {
        assert!(
            me.hub.snapshot(game).is_some_and(|s| matches!(s.status, Status::Finished)),
            "{game} ended with its record"
        );
    }
    // The standings count its games: each game one point in all, each pairing-allocated bye
    // (a round-robin of three: one round off for each) one point (FIDE); it lost its two games
    // (it resigns), so its points are its bye's.
    let rounds = finished["pairings"]["rounds"].as_array().expect("rounds");
    let byes_of =
        |k: &str| rounds.iter().filter(|r| r["pairing_allocated_bye"]["key"] == json!(k)).count();
    let all_byes = rounds.iter().filter(|r| !r["pairing_allocated_bye"].is_null()).count();
    assert_eq!(byes_of(&me_text), 1, "{}", finished["pairings"]);
    let standings = finished["standings"].as_array().expect("standings");
    let total: f64 = standings
        .iter()
        .map(|s| s["points"].as_str().expect("points").parse::<f64>().expect("a number"))
        .sum();
    assert_eq!(total, 3.0 + all_byes as f64, "{standings:?}");
    let mine = standings.iter().find(|s| s["player"]["key"] == json!(me_text)).expect("a standing");
    assert_eq!(mine["points"], json!(byes_of(&me_text).to_string()), "{standings:?}");
    assert_eq!(finished["names"][&me_text]["name"], "Tess", "the tournament shows the name");
    // Over: withdrawing is refused by the server, through the agent, with its status.
    let (status, v) =
        call(&format!("{}/api/tournament/{id}/withdraw", me.base), "POST", None).await;
    assert_eq!(status, 409, "{v}");
    net.stop().await;
}
