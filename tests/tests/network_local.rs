//! The player-facing half of the agent over real sockets (127.0.0.1, port 0): matches decided
//! through a `client::local::Hub` (as `fogproof play` and `fogproof agent` run them) and its
//! lichess-shaped HTTP API, against the house bot or another hub.
//!
//! - draw offers: an offer declined by a move lapses, a later offer by the other side is not an
//!   agreement, two standing offers are; the record verifies valid with the agreed draw;
//! - a Kriegspiel game played to the end over the HTTP API: the event stream, `gameFull` then
//!   `gameState` lines that show only the player's own men, answers checked against what was
//!   offered, requests from web pages or foreign host names refused;
//! - a resignation over the API.

mod network;

use client::agent::{Accept, Agent, AgentConfig};
use client::local::{Hub, Snapshot, Status};
use network::{Net, http, identity};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// An agent deciding through a hub.
async fn hub_agent(net: &Net, name: &str) -> (Agent, Arc<Hub>) {
    let dir = net.dir.join(name);
    let hub = Hub::new(dir.clone());
    let agent = Agent::connect(AgentConfig {
        server_key: None,
        server: net.base.clone(),
        identity: identity(name),
        name: Some(name.into()),
        dir,
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
    tokio::time::sleep(Duration::from_millis(200)).await;
    (agent, hub)
}

/// A house bot agent accepting what is addressed to it.
async fn house_bot(net: &Net, name: &str) -> Agent {
    let factory: client::agent::DeciderFactory = Arc::new(|_| {
        (client::seat::Decider::Policy(Box::new(client::HouseBot::new([9; 32]))), None)
    });
    net.agent(name, factory, Accept::Addressed).await
}

async fn wait<T>(what: &str, f: impl Fn() -> Option<T>) -> T {
    for _ in 0..6_000 {
        if let Some(t) = f() {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Waits for a question newer than `after`; returns the snapshot.
async fn asked(hub: &Hub, id: &str, after: u64) -> Snapshot {
    wait("a question", || hub.snapshot(id).filter(|s| s.ask.is_some() && s.asked > after)).await
}

/// Plays the first move offered; returns the question's number.
async fn move_first(hub: &Hub, id: &str, after: u64) -> u64 {
    let s = asked(hub, id, after).await;
    hub.play(id, &s.offered[0]).expect("an offered move is taken");
    s.asked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_lapse_with_a_move_and_two_standing_offers_are_a_draw() {
    let net = Net::start("local-draw").await;
    let (_alice, a) = hub_agent(&net, "alice").await;
    let (_bob, b) = hub_agent(&net, "bob").await;
    let bob_key = b.key().expect("bob's key");
    let c = a
        .challenge(
            &bob_key,
            &json!({ "variant": "chess", "clock_limit": 600, "clock_increment": 0, "color": "white" }),
        )
        .await
        .expect("challenge");
    let cid = c["id"].as_str().expect("id").to_owned();
    // Bob accepts by id (found on his event stream or the server's lists).
    let mut accepted = false;
    for _ in 0..100 {
        if b.accept(&cid).await.is_ok() {
            accepted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(accepted, "bob accepts {cid}");
    let id = wait("the match", || a.match_of_challenge(&cid)).await;
    wait("both seats", || b.snapshot(&id).and(a.snapshot(&id))).await;
    let white_offers = |hub: &Hub| hub.snapshot(&id).and_then(|s| s.draw_offer);

    // 1. White moves, then offers a draw; Black sees the offer.
    let mut qa = move_first(&a, &id, 0).await;
    wait("white's move to be answered", || b.snapshot(&id).filter(|s| s.ask.is_some())).await;
    a.draw(&id, true).expect("offer");
    wait("black to see white's offer", || {
        (white_offers(&b) == Some(rules::Color::White)).then_some(())
    })
    .await;
    // 2. Black declines by moving: the offer lapses (PROTOCOL.md 13.1).
    let mut qb = move_first(&b, &id, 0).await;
    wait("the offer to lapse", || white_offers(&a).is_none().then_some(())).await;
    // 3. White moves; Black offers: one offer stands, not an agreement.
    qa = move_first(&a, &id, qa).await;
    let s = asked(&b, &id, qb).await;
    b.draw(&id, true).expect("offer");
    wait("white to see black's offer", || {
        (white_offers(&a) == Some(rules::Color::Black)).then_some(())
    })
    .await;
    // 4. Black moves on (its own move withdraws its offer), White moves.
    b.play(&id, &s.offered[0]).expect("move");
    qb = s.asked;
    move_first(&a, &id, qa).await;
    assert!(a.snapshot(&id).expect("game").claim.is_none(), "no draw was agreed");
    // 5. Black offers, White accepts: the game is drawn by agreement.
    asked(&b, &id, qb).await;
    b.draw(&id, true).expect("offer");
    wait("white to see black's offer", || {
        (white_offers(&a) == Some(rules::Color::Black)).then_some(())
    })
    .await;
    a.draw(&id, true).expect("accept");
    for hub in [&a, &b] {
        let end =
            wait("the record", || hub.snapshot(&id).filter(|s| s.status == Status::Finished)).await;
        let claim = end.claim.expect("a claim");
        assert_eq!(client::local::score(&claim), "1/2-1/2");
        assert_eq!(claim.reason.to_string(), "agreement");
        let bytes = std::fs::read(end.record.expect("saved")).expect("record file");
        match verifier::verify(&bytes) {
            verifier::Verdict::Valid { result } => {
                assert_eq!(result, rules::GameResult::draw(rules::EndReason::Agreement));
            }
            other => panic!("{other:#?}"),
        }
        assert_eq!(end.verdict.as_ref().map(|v| v["status"].clone()), Some(json!("valid")));
    }
    net.stop().await;
}

/// An NDJSON stream read as it comes (a chunked HTTP response), skipping keep-alive lines.
struct Stream {
    reader: BufReader<tokio::net::TcpStream>,
    lines: std::collections::VecDeque<Value>,
    partial: Vec<u8>,
}

impl Stream {
    async fn open(url: &str) -> Stream {
        let rest = url.strip_prefix("http://").expect("http url");
        let (host, path) = rest.split_once('/').expect("path");
        let mut s = tokio::net::TcpStream::connect(host).await.expect("connect");
        let head = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        s.write_all(head.as_bytes()).await.expect("write");
        let mut reader = BufReader::new(s);
        let mut line = String::new();
        reader.read_line(&mut line).await.expect("status line");
        assert!(line.contains(" 200 "), "{url}: {line}");
        loop {
            line.clear();
            reader.read_line(&mut line).await.expect("header");
            if line == "\r\n" {
                break;
            }
        }
        Stream { reader, lines: Default::default(), partial: Vec::new() }
    }

    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(v) = self.lines.pop_front() {
                return Some(v);
            }
            let mut size = String::new();
            if self.reader.read_line(&mut size).await.ok()? == 0 {
                return None;
            }
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            if n == 0 {
                return None;
            }
            let mut chunk = vec![0; n + 2];
            self.reader.read_exact(&mut chunk).await.ok()?;
            self.partial.extend_from_slice(&chunk[..n]);
            while let Some(at) = self.partial.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.partial.drain(..=at).collect();
                let text = String::from_utf8_lossy(&line);
                if !text.trim().is_empty() {
                    self.lines.push_back(serde_json::from_str(text.trim()).expect("json line"));
                }
            }
        }
    }
}

/// A raw request with extra headers: its status and body.
async fn raw(url: &str, method: &str, headers: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let mut s = tokio::net::TcpStream::connect(host).await.expect("connect");
    let head = format!(
        "{method} /{path} HTTP/1.1\r\nConnection: close\r\nContent-Length: 0\r\n{headers}\r\n"
    );
    s.write_all(head.as_bytes()).await.expect("write");
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.expect("read");
    let text = String::from_utf8_lossy(&all).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, text)
}

/// Serves a hub's local API on 127.0.0.1, port 0.
async fn local_api(hub: Arc<Hub>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(client::local::serve(listener, hub, false, std::future::pending()));
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kriegspiel_is_played_over_the_local_api_seeing_only_the_players_own_men() {
    let net = Net::start("local-kriegspiel").await;
    let house = house_bot(&net, "house").await;
    let (_me, hub) = hub_agent(&net, "me").await;
    let api = local_api(hub.clone()).await;

    let (status, body) = http(&format!("{api}/api/account"), "GET", None).await;
    assert_eq!(status, 200);
    let account: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(account["id"], json!(hub.key()));
    // Never a browser page, never a foreign host name (DNS rebinding).
    let host = api.trim_start_matches("http://");
    let (status, _) = raw(
        &format!("{api}/api/account"),
        "GET",
        &format!("Host: {host}\r\nOrigin: https://evil.example\r\n"),
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = raw(&format!("{api}/api/account"), "GET", "Host: evil.example:80\r\n").await;
    assert_eq!(status, 403);
    // The agent's own page (same origin) may call it; another local page (port) may not.
    let (status, _) = raw(
        &format!("{api}/api/account"),
        "GET",
        &format!("Host: {host}\r\nOrigin: http://{host}\r\n"),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = raw(
        &format!("{api}/api/account"),
        "GET",
        &format!("Host: {host}\r\nOrigin: http://127.0.0.1:1\r\n"),
    )
    .await;
    assert_eq!(status, 403);
    // Its pages: the page at / and at the page's own routes, the bundle under /assets/, and a
    // JSON 404 for an unknown API call (never the page).
    for path in ["/", "/game/00"] {
        let (status, text) =
            raw(&format!("{api}{path}"), "GET", &format!("Host: {host}\r\n")).await;
        assert_eq!(status, 200, "{path}");
        assert!(text.contains("text/html") && text.contains("/assets/agent.js"), "{path}: {text}");
    }
    let (status, text) =
        raw(&format!("{api}/assets/agent.js"), "GET", &format!("Host: {host}\r\n")).await;
    assert_eq!(status, 200);
    assert!(text.contains("text/javascript"), "{text}");
    let (status, text) = raw(&format!("{api}/api/nope"), "GET", &format!("Host: {host}\r\n")).await;
    assert_eq!(status, 404);
    assert!(text.contains("no such call"), "{text}");

    let mut events = Stream::open(&format!("{api}/api/stream/event")).await;
    let challenge = json!({ "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0 });
    let opponent = house.session().key.to_string();
    let (status, body) =
        http(&format!("{api}/api/challenge/{opponent}"), "POST", Some(&challenge)).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let (status, body) =
        http(&format!("{api}/api/challenge/not-a-key"), "POST", Some(&challenge)).await;
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    let id = loop {
        let e = events.next().await.expect("an event");
        if e["type"] == "gameStart" {
            break e["game"]["id"].as_str().expect("id").to_owned();
        }
    };
    let mut game = Stream::open(&format!("{api}/api/bot/game/stream/{id}")).await;
    let full = game.next().await.expect("gameFull");
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["variant"]["key"], "kriegspiel");
    let mut state = full["state"].clone();
    let mut answered = None;
    let (mut attempts, mut checked_refusals) = (0, false);
    loop {
        if let Some(side) = state["side"].as_str() {
            // The board shows the player's own men and fog, never an enemy man (R-K1).
            let board = state["view"]["board"].as_str().expect("board");
            let field = board.split_whitespace().next().expect("field");
            let enemy = field.chars().any(|c| {
                c.is_ascii_alphabetic()
                    && if side == "white" { c.is_ascii_lowercase() } else { c.is_ascii_uppercase() }
            });
            assert!(!enemy, "{side} is shown an enemy man: {board}");
        }
        if state["stage"] == "finished" {
            break;
        }
        let ask = &state["ask"];
        if ask.is_object() && ask["id"] != json!(answered) {
            assert_eq!(ask["kind"], "attempt");
            answered = ask["id"].as_u64();
            if !checked_refusals {
                checked_refusals = true;
                let (status, body) =
                    http(&format!("{api}/api/bot/game/{id}/move/a1a8"), "POST", None).await;
                assert_eq!(status, 400);
                assert!(String::from_utf8_lossy(&body).contains("not among the attempts"));
                let (status, _) = http(
                    &format!("{api}/api/bot/game/{id}/setup"),
                    "POST",
                    Some(&json!({ "king": "e1", "informer": "d2" })),
                )
                .await;
                assert_eq!(status, 400, "a setup is not what is asked");
            }
            let moves = ask["moves"].as_array().expect("moves");
            let pick = moves[attempts % moves.len()].as_str().expect("text");
            let (status, body) =
                http(&format!("{api}/api/bot/game/{id}/move/{pick}"), "POST", None).await;
            assert_eq!(status, 200, "{pick}: {}", String::from_utf8_lossy(&body));
            attempts += 1;
        }
        state = game.next().await.expect("a gameState");
        assert_eq!(state["type"], "gameState");
    }
    assert!(state["result"].is_string(), "{state}");
    assert_eq!(state["verdict"]["status"], "valid", "{state}");
    let record = std::fs::read(state["record"].as_str().expect("path")).expect("record");
    assert!(verifier::verify(&record).is_valid());
    // Over: nothing more is taken.
    let (status, body) = http(&format!("{api}/api/bot/game/{id}/move/e2e4"), "POST", None).await;
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resignation_over_the_local_api_ends_the_game_validly() {
    let net = Net::start("local-resign").await;
    let house = house_bot(&net, "house").await;
    let (_me, hub) = hub_agent(&net, "me").await;
    let api = local_api(hub.clone()).await;
    let body =
        json!({ "variant": "chess", "clock_limit": 600, "clock_increment": 0, "color": "black" });
    let opponent = house.session().key.to_string();
    let (status, c) = http(&format!("{api}/api/challenge/{opponent}"), "POST", Some(&body)).await;
    assert_eq!(status, 200);
    let c: Value = serde_json::from_slice(&c).expect("json");
    let cid = c["challenge"]["id"].as_str().expect("id").to_owned();
    let id = wait("the match", || hub.match_of_challenge(&cid)).await;
    // Black: the house bot moves first; answer once, then resign.
    let s = asked(&hub, &id, 0).await;
    assert_eq!(s.view.as_ref().map(|v| v.side), Some(rules::Color::Black));
    let first = s.offered[0].clone();
    let (status, _) = http(&format!("{api}/api/bot/game/{id}/move/{first}"), "POST", None).await;
    assert_eq!(status, 200);
    asked(&hub, &id, s.asked).await;
    let (status, _) = http(&format!("{api}/api/bot/game/{id}/resign"), "POST", None).await;
    assert_eq!(status, 200);
    let end = wait("the end", || hub.snapshot(&id).filter(|s| s.status == Status::Finished)).await;
    let claim = end.claim.expect("claim");
    assert_eq!(
        (client::local::score(&claim), claim.reason.to_string().as_str()),
        ("1-0", "resignation")
    );
    let record = std::fs::read(end.record.expect("saved")).expect("record");
    assert!(verifier::verify(&record).is_valid());
    let (status, _) = http(&format!("{api}/api/bot/game/{id}/resign"), "POST", None).await;
    assert!(status == 200 || status == 409, "resigning a finished game changes nothing: {status}");
    net.stop().await;
}
