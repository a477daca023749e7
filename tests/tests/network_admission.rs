//! Admission control and what the host publishes (issue 14), against a real server on
//! 127.0.0.1:
//!
//! - renderings of finished matches and uploads to `/api/verify` take a place or get a `503`
//!   with `Retry-After`; an upload too long is refused from its `Content-Length` before its
//!   body is read, and one waiting for a verification place has not had its body read;
//! - sign-in challenges are bounded per address besides the global pool;
//! - seeks are bounded over all keys and expire unanswered;
//! - a key named by others (as umpire) keeps its own quota, and terms a challenger leaves
//!   unsigned do not hold up the house bot that accepted them;
//! - with a small capacity, the excess matches get `503` and `Retry-After`, and every admitted
//!   match ends validly;
//! - a Kriegspiel player's illegal attempts show in no public answer about the live match;
//! - a receipt is stamped when its frame was read from the socket, not when the match task got
//!   to it;
//! - an umpire that has fallen behind gets no new match (`503`, `Retry-After`, naming its
//!   backlog) while unumpired games and other umpires' are admitted, and its match ends
//!   validly;
//! - a deadline whose timer the host could not fire on time (a storage commit held the match)
//!   is checked again after the host caught up, and nobody is timed out for the host's delay.

mod network;

use client::agent::{Accept, Agent, DeciderFactory};
use client::seat::{Decider, SeatCommand, SeatEvent};
use network::{Net, bot, identity, paced_bot};
use protocol::Identity;
use protocol::challenge::ChallengeRequest;
use protocol::codec::Canonical;
use protocol::roles::Ask;
use rules::AnyAction;
use rules::Variant;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

/// A bare HTTP/1.1 exchange: the status, the response head (lower case) and the body.
async fn exchange(s: &mut tokio::net::TcpStream) -> (u16, String, Vec<u8>) {
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.expect("read");
    let at = all.windows(4).position(|w| w == b"\r\n\r\n").expect("headers") + 4;
    let head = String::from_utf8_lossy(&all[..at]).to_lowercase();
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, head, all[at..].to_vec())
}

/// Sends a request's head (and `body`) without waiting for the answer.
async fn send_request(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> tokio::net::TcpStream {
    let host = base.strip_prefix("http://").expect("http url");
    let mut s = tokio::net::TcpStream::connect(host).await.expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).await.expect("write");
    s.write_all(body).await.expect("write");
    s
}

async fn request(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut s = send_request(base, method, path, headers, body).await;
    exchange(&mut s).await
}

fn json_headers(len: usize, token: Option<&str>) -> Vec<(&'static str, String)> {
    let mut h =
        vec![("Content-Type", "application/json".to_owned()), ("Content-Length", len.to_string())];
    if let Some(t) = token {
        h.push(("Authorization", format!("Bearer {t}")));
    }
    h
}

/// Signs in over bare HTTP; the token.
async fn token_of(net: &Net, who: &Identity) -> String {
    let info = net.get_json("/api/info").await;
    let relay: protocol::PublicKey = info["relay"].as_str().unwrap().parse().unwrap();
    let (status, body) = net.post_raw("/api/auth/challenge", &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let c: Value = serde_json::from_str(&body).unwrap();
    let challenge: [u8; 32] =
        protocol::hex::decode_array(c["challenge"].as_str().unwrap()).expect("challenge");
    let origin = protocol::wire::origin(&net.base).expect("origin");
    let sig = protocol::wire::sign_in(who, &relay, &origin, &challenge);
    let (status, body) = net
        .post_raw(
            "/api/auth/login",
            &json!({
                "key": who.public().to_string(),
                "challenge": protocol::hex::encode(&challenge),
                "signature": client::net::signature_hex(&sig),
                "origin": origin,
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["token"].as_str().unwrap().to_owned()
}

fn seat(who: &Identity) -> Value {
    let (seal, nonce) = client::journal::fresh_seat(who).expect("seat");
    json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) })
}

fn retry_after(head: &str) -> Option<u32> {
    head.lines().find_map(|l| l.strip_prefix("retry-after:")).and_then(|v| v.trim().parse().ok())
}

fn shared(net: &Net) -> Arc<server::state::Shared> {
    net.server.as_ref().expect("running").shared.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_take_a_place_before_their_bodies_are_read() {
    let net = Net::start_with("admit-upload", |c| {
        c.limits.max_upload_bytes = 1_000;
        c.limits.max_concurrent_verifications = 1;
        c.limits.max_queued_verifications = 0;
    })
    .await;
    let base = net.base.clone();
    let octets = |n: usize| {
        vec![
            ("Content-Type", "application/octet-stream".to_owned()),
            ("Content-Length", n.to_string()),
        ]
    };
    // Too long by its Content-Length: refused at once, its body never sent.
    let (status, _, body) = request(&base, "POST", "/api/verify", &octets(5_000), &[]).await;
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("max_upload_bytes"));
    // Too long as it streams (no Content-Length): the read stops at the bound.
    let chunked = [("Transfer-Encoding", "chunked".to_owned())];
    let mut big = format!("{:x}\r\n", 3_000).into_bytes();
    big.extend(vec![7u8; 3_000]);
    big.extend_from_slice(b"\r\n0\r\n\r\n");
    let (status, _, body) = request(&base, "POST", "/api/verify", &chunked, &big).await;
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));

    // The one verification place is taken: an upload waits for it with its body unread...
    let s = shared(&net);
    let place = s.verifications.try_acquire().expect("the place is free");
    let mut waiting = send_request(&base, "POST", "/api/verify", &octets(10), &[]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // ...and the queue being full, the next one is told to come back.
    let (status, head, body) =
        request(&base, "POST", "/api/verify", &octets(10), b"0123456789").await;
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    assert!(retry_after(&head).is_some(), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("max_queued_verifications"));
    // The waiting upload has not been answered: its body was not needed yet.
    let mut probe = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(200), waiting.read(&mut probe)).await;
    assert!(early.is_err(), "answered before its body was sent");
    drop(place);
    waiting.write_all(b"0123456789").await.expect("the body, now");
    let (status, _, body) = exchange(&mut waiting).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let v: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(v["status"], "unreadable", "{v}");
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_challenges_are_bounded_per_address() {
    let net = Net::start_with("admit-signin", |c| {
        c.trust_forwarded_for = true;
        c.limits.max_sign_in_challenges_per_address = 3;
    })
    .await;
    let from = |ip: &str| {
        let mut h = json_headers(2, None);
        h.push(("X-Forwarded-For", ip.to_owned()));
        h
    };
    for _ in 0..3 {
        let (status, _, body) =
            request(&net.base, "POST", "/api/auth/challenge", &from("203.0.113.5"), b"{}").await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    }
    let (status, head, body) =
        request(&net.base, "POST", "/api/auth/challenge", &from("203.0.113.5"), b"{}").await;
    assert_eq!(status, 503);
    assert!(retry_after(&head).is_some(), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("max_sign_in_challenges_per_address"));
    // Another address still signs in: one address does not exhaust the pool.
    let (status, _, _) =
        request(&net.base, "POST", "/api/auth/challenge", &from("198.51.100.9"), b"{}").await;
    assert_eq!(status, 200);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeks_are_bounded_over_all_keys_and_expire_unanswered() {
    let net = Net::start_with("admit-seeks", |c| {
        c.limits.max_open_seeks = 2;
        c.limits.max_challenge_open_ms = 1_500;
    })
    .await;
    let (a, b) = (identity("seeker-a"), identity("seeker-b"));
    let (ta, tb) = (token_of(&net, &a).await, token_of(&net, &b).await);
    let seek = |who: &Identity| {
        json!({ "variant": "chess", "clock_limit": 600, "clock_increment": 0, "seat": seat(who) })
            .to_string()
    };
    for _ in 0..2 {
        let body = seek(&a);
        let (status, _, out) = request(
            &net.base,
            "POST",
            "/api/challenge",
            &json_headers(body.len(), Some(&ta)),
            body.as_bytes(),
        )
        .await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    }
    let body = seek(&b);
    let (status, head, out) = request(
        &net.base,
        "POST",
        "/api/challenge",
        &json_headers(body.len(), Some(&tb)),
        body.as_bytes(),
    )
    .await;
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&out));
    assert!(String::from_utf8_lossy(&out).contains("max_open_seeks"));
    assert!(retry_after(&head).is_some(), "{head}");
    // Unanswered, they expire, and make room.
    let mut gone = false;
    for _ in 0..100 {
        if net.get_json("/api/lobby").await["seeks"].as_array().is_some_and(Vec::is_empty) {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the seeks expired");
    let (status, _, out) = request(
        &net.base,
        "POST",
        "/api/challenge",
        &json_headers(body.len(), Some(&tb)),
        body.as_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_fills_another_keys_quota() {
    let net = Net::start_with("admit-quota", |c| {
        c.limits.max_live_matches_per_key = 2;
        // The house bot hears of every seek.
        c.house_bot = Some(identity("house").public());
    })
    .await;
    let victim = identity("victim");
    let victim_token = token_of(&net, &victim).await;
    // Throwaway pairs name the victim as the umpire of their Kriegspiel games and accept; the
    // victim never brings its seat.
    for i in 0..3 {
        let (a, b) = (identity(&format!("throwaway-a{i}")), identity(&format!("throwaway-b{i}")));
        let (ta, tb) = (token_of(&net, &a).await, token_of(&net, &b).await);
        let body = json!({
            "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
            "opponent": b.public().to_string(), "umpire": victim.public().to_string(),
            "seat": seat(&a),
        })
        .to_string();
        let (status, _, out) = request(
            &net.base,
            "POST",
            "/api/challenge",
            &json_headers(body.len(), Some(&ta)),
            body.as_bytes(),
        )
        .await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
        let id = serde_json::from_slice::<Value>(&out).unwrap()["challenge"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let body = seat(&b).to_string();
        let (status, _, out) = request(
            &net.base,
            "POST",
            &format!("/api/challenge/{id}/accept"),
            &json_headers(body.len(), Some(&tb)),
            body.as_bytes(),
        )
        .await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    }
    assert_eq!(server::state::lock(&shared(&net).lobby).pending.len(), 3);
    // The victim's own accept of a real challenge goes through.
    let friend = identity("friend");
    let tf = token_of(&net, &friend).await;
    let body = json!({
        "variant": "chess", "clock_limit": 600, "clock_increment": 0,
        "opponent": victim.public().to_string(), "seat": seat(&friend),
    })
    .to_string();
    let (_, _, out) = request(
        &net.base,
        "POST",
        "/api/challenge",
        &json_headers(body.len(), Some(&tf)),
        body.as_bytes(),
    )
    .await;
    let id = serde_json::from_slice::<Value>(&out).unwrap()["challenge"]["id"]
        .as_str()
        .expect("a challenge")
        .to_owned();
    let body = seat(&victim).to_string();
    let (status, _, out) = request(
        &net.base,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        &json_headers(body.len(), Some(&victim_token)),
        body.as_bytes(),
    )
    .await;
    assert_eq!(status, 200, "the victim's accept: {}", String::from_utf8_lossy(&out));

    // Seeks whose terms their makers never sign do not hold up the house bot that accepted.
    let house = net.agent("house", bot(41), Accept::Everything).await;
    let house_key = house.session().key;
    for (name, seeks) in [("idler-1", 2), ("idler-2", 1)] {
        let who = identity(name);
        let t = token_of(&net, &who).await;
        for _ in 0..seeks {
            let body = json!({
                "variant": "chess", "clock_limit": 600, "clock_increment": 0, "seat": seat(&who),
            })
            .to_string();
            let (status, _, out) = request(
                &net.base,
                "POST",
                "/api/challenge",
                &json_headers(body.len(), Some(&t)),
                body.as_bytes(),
            )
            .await;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
        }
    }
    // The bot accepted all three and signed; their makers sit on them.
    let s = shared(&net);
    let mut signed = 0;
    for _ in 0..500 {
        signed = server::state::lock(&s.lobby)
            .pending
            .values()
            .filter(|p| p.signatures.contains_key(&house_key))
            .count();
        if signed == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(signed, 3, "the house bot accepted and signed every seek");
    let honest = net.agent("honest", bot(42), Accept::Nothing).await;
    honest
        .challenge(&ChallengeRequest::addressed(Variant::Chess, 600, 0, house_key))
        .await
        .expect("challenge");
    let live = net.live_of(&honest.session().key, 1).await;
    assert!(s.live(&live).is_some_and(|h| h.parties.contains(&house_key)));
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_capacity_new_matches_wait_and_admitted_ones_end_validly() {
    let net = Net::start_with("admit-capacity", |c| {
        c.limits.max_live_matches = 2;
        c.limits.max_concurrent_renderings = 1;
    })
    .await;
    let mut players: Vec<(Agent, Agent)> = Vec::new();
    for i in 0..2u64 {
        // Paced, so that both matches are still live when the full server is tried: two bots
        // at full speed can finish a chess game before the third challenge is sent.
        let pace = Duration::from_millis(15);
        let b =
            net.agent(&format!("cap-b{i}"), paced_bot(50 + 2 * i, pace), Accept::Addressed).await;
        let a = net.agent(&format!("cap-a{i}"), paced_bot(51 + 2 * i, pace), Accept::Nothing).await;
        a.challenge(&ChallengeRequest::addressed(Variant::Chess, 600, 0, b.session().key))
            .await
            .expect("admitted");
        net.live_of(&a.session().key, 1).await;
        players.push((a, b));
    }
    // Full: a third challenge, and a seek, are told to come back; so is an accept.
    let (c, d) = (identity("cap-c"), identity("cap-d"));
    let (tc, td) = (token_of(&net, &c).await, token_of(&net, &d).await);
    for opponent in [Some(d.public().to_string()), None] {
        let body = json!({
            "variant": "chess", "clock_limit": 600, "clock_increment": 0,
            "opponent": opponent, "seat": seat(&c),
        })
        .to_string();
        let (status, head, out) = request(
            &net.base,
            "POST",
            "/api/challenge",
            &json_headers(body.len(), Some(&tc)),
            body.as_bytes(),
        )
        .await;
        assert_eq!(status, 503, "{}", String::from_utf8_lossy(&out));
        assert!(String::from_utf8_lossy(&out).contains("max_live_matches"));
        assert!(retry_after(&head).is_some(), "{head}");
    }
    let _ = td;
    // The admitted matches end validly (no fault in their verdicts).
    let mut finished = Vec::new();
    for (a, _) in &players {
        let (id, record) = net.finished(a).await;
        let verified = verifier::verify_match(&record);
        assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
        finished.push(id);
    }
    // Renderings take a place: with the only one held, a replay is told to come back.
    let s = shared(&net);
    let id = protocol::hex::encode(&finished[0].0);
    let held = s.renderings.try_acquire().expect("a free place");
    for route in ["replay", "pgn", "record"] {
        let (status, head, _) =
            request(&net.base, "GET", &format!("/api/match/{id}/{route}"), &[], &[]).await;
        assert_eq!(status, 503, "{route}");
        assert!(retry_after(&head).is_some(), "{route}: {head}");
    }
    drop(held);
    let (status, _, _) =
        request(&net.base, "GET", &format!("/api/match/{id}/replay"), &[], &[]).await;
    assert_eq!(status, 200);
    // With room again, a new challenge is admitted.
    let body = json!({
        "variant": "chess", "clock_limit": 600, "clock_increment": 0,
        "opponent": d.public().to_string(), "seat": seat(&c),
    })
    .to_string();
    let mut status = 0;
    for _ in 0..200 {
        status = request(
            &net.base,
            "POST",
            "/api/challenge",
            &json_headers(body.len(), Some(&tc)),
            body.as_bytes(),
        )
        .await
        .0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 200);
    net.stop().await;
}

/// Where a remote seat's answers go in and its questions come out.
type SeatEnds = (mpsc::Sender<SeatCommand>, mpsc::UnboundedReceiver<SeatEvent>);

/// A seat decided by the test: its questions come out, its answers go in.
#[derive(Clone, Default)]
struct Remote {
    slot: Arc<Mutex<Option<SeatEnds>>>,
}

impl Remote {
    fn factory(&self) -> DeciderFactory {
        let slot = self.slot.clone();
        Arc::new(move |_| {
            let (cmd_tx, cmd_rx) = mpsc::channel(16);
            let (ev_tx, ev_rx) = mpsc::unbounded_channel();
            *slot.lock().unwrap() = Some((cmd_tx, ev_rx));
            (Decider::Remote(cmd_rx), Some(ev_tx))
        })
    }

    async fn take(&self) -> SeatEnds {
        for _ in 0..2_000 {
            if let Some(s) = self.slot.lock().unwrap().take() {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no seat started");
    }
}

/// A match of `variant` between two agents whose seats the test decides, White challenging
/// Black by key: the agents (White, Black) and each seat's ends.
async fn remote_match(
    net: &Net,
    names: (&str, &str),
    variant: &str,
) -> (Agent, Agent, SeatEnds, SeatEnds) {
    remote_match_with(net, names, variant, 600, None).await
}

/// [`remote_match`] with a clock of `clock_s` seconds and, for an umpired game, its umpire
/// (trusted by both players; default: the server's).
async fn remote_match_with(
    net: &Net,
    names: (&str, &str),
    variant: &str,
    clock_s: u64,
    umpire: Option<protocol::PublicKey>,
) -> (Agent, Agent, SeatEnds, SeatEnds) {
    let (white_seat, black_seat) = (Remote::default(), Remote::default());
    let black = net.agent(names.1, black_seat.factory(), Accept::Addressed).await;
    let white = net.agent(names.0, white_seat.factory(), Accept::Nothing).await;
    let game = rules::GameOptions::default_for(variant.parse().expect("a variant"));
    let mut challenge = protocol::challenge::ChallengeRequest {
        color: protocol::challenge::ColorChoice::White,
        opponent: Some(black.session().key),
        ..protocol::challenge::ChallengeRequest::new(game, clock_s, 0)
    };
    if let Some(u) = umpire {
        black.trust_umpire(u);
        white.trust_umpire(u);
        challenge.umpire = Some(u);
    }
    white.challenge(&challenge).await.expect("challenge");
    let w = white_seat.take().await;
    let b = black_seat.take().await;
    (white, black, w, b)
}

/// Waits for the seat's next question; the options it offers.
async fn next_ask(events: &mut mpsc::UnboundedReceiver<SeatEvent>) -> Vec<AnyAction> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), events.recv()).await {
            Ok(Some(SeatEvent::Ask(Ask::Choose(options)))) => return options,
            Ok(Some(_)) => {}
            other => panic!("no question: {other:?}"),
        }
    }
}

/// The option that plays `uci`.
fn option(options: &[AnyAction], uci: &str) -> AnyAction {
    options
        .iter()
        .find(|a| a.as_move().map(|m| m.uci(rules::Alphabet::ORTHODOX)).as_deref() == Some(uci))
        .unwrap_or_else(|| panic!("{uci} is not offered"))
        .clone()
}

/// Every public answer about a live match, clocks left out.
async fn public_answers(net: &Net, id: &str) -> Vec<(String, String)> {
    let strip = |mut v: Value| {
        if let Value::Object(m) = &mut v {
            m.remove("white_ms");
            m.remove("black_ms");
        }
        v
    };
    let lobby = net.get_json("/api/lobby").await;
    let mine: Vec<Value> = lobby["live"]
        .as_array()
        .expect("live")
        .iter()
        .filter(|m| m["id"] == id)
        .cloned()
        .map(strip)
        .collect();
    assert_eq!(mine.len(), 1, "the match is in the lobby");
    let mut out = vec![("/api/lobby".to_owned(), serde_json::to_string(&mine).unwrap())];
    out.push((
        format!("/api/match/{id}"),
        strip(net.get_json(&format!("/api/match/{id}")).await).to_string(),
    ));
    for route in ["record", "verdict", "pgn", "replay"] {
        let path = format!("/api/match/{id}/{route}");
        let (status, body) = net.get_raw(&path).await;
        out.push((path, format!("{status} {body}")));
    }
    let (status, page) = net.get_raw(&format!("/game/{id}")).await;
    out.push(("/game/{id}".into(), format!("{status} {page}")));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kriegspiel_players_illegal_attempts_show_in_no_public_answer() {
    let net = Net::start("admit-hidden").await;
    let (white, black, (w_tx, mut w_ev), (b_tx, mut b_ev)) =
        remote_match(&net, ("k-white", "k-black"), "kriegspiel").await;
    let play = |tx: &mpsc::Sender<SeatCommand>, action: AnyAction| {
        let tx = tx.clone();
        async move { tx.send(SeatCommand::Decide(action)).await.expect("seat") }
    };
    // 1. e4 a6 2. Qh5: Black's f-pawn is pinned (f7-f6 and f7-f5 expose its king).
    play(&w_tx, option(&next_ask(&mut w_ev).await, "e2e4")).await;
    play(&b_tx, option(&next_ask(&mut b_ev).await, "a7a6")).await;
    play(&w_tx, option(&next_ask(&mut w_ev).await, "d1h5")).await;
    let options = next_ask(&mut b_ev).await;
    let id = net.live_of(&black.session().key, 1).await;
    let hex = protocol::hex::encode(&id.0);
    let stored = |net: &Net| {
        net.live_stored().into_iter().find(|(m, _, _)| *m == id).map(|(_, _, n)| n).unwrap()
    };
    // Black to move, no attempt yet.
    let before = public_answers(&net, &hex).await;
    let entries_before = stored(&net);
    // Two illegal attempts, each answered "illegal" to Black alone.
    play(&b_tx, option(&options, "f7f6")).await;
    let options = next_ask(&mut b_ev).await;
    play(&b_tx, option(&options, "f7f5")).await;
    let options = next_ask(&mut b_ev).await;
    let after = public_answers(&net, &hex).await;
    assert!(stored(&net) >= entries_before + 4, "the attempts and answers were logged");
    assert_eq!(before, after, "two illegal attempts changed what the public sees");
    let lobby = &before[0].1;
    assert!(!lobby.contains("\"entries\""), "no entry count: {lobby}");
    assert!(lobby.contains("\"running\":\"black\""), "the side to move is public: {lobby}");
    // The legal move: the turn passes, and that is public.
    play(&b_tx, option(&options, "g7g6")).await;
    let _ = next_ask(&mut w_ev).await;
    let moved = public_answers(&net, &hex).await;
    assert!(moved[0].1.contains("\"running\":\"white\""), "{}", moved[0].1);
    w_tx.send(SeatCommand::Resign).await.expect("resign");
    let (_, record) = net.finished(&white).await;
    assert!(verifier::verify_match(&record).verdict.is_valid());
    // Finished, the match shows everything.
    let done = net.get_json(&format!("/api/match/{hex}")).await;
    assert_eq!(done["status"], "finished", "{done}");
    net.stop().await;
}

/// How long the tests below hold the host's storage.
const HELD_MS: u64 = 1_500;

/// Receipt times (relay ms) of a chess match whose storage stalls `HELD_MS` after 1. e4 e5:
/// Black's move is accepted and waits for its commit while White's resignation reaches the
/// socket and waits in the match task's queue. The moves' times, the resignation's, and the
/// last entry's.
async fn a_stalled_resignation(name: &str, max_host_stall_ms: u64) -> (Vec<u64>, u64, u64) {
    use sqlx::Connection as _;
    let net = Net::start_with(name, |c| c.limits.max_host_stall_ms = max_host_stall_ms).await;
    let (white, _black, (w_tx, mut w_ev), (b_tx, mut b_ev)) =
        remote_match(&net, ("t-white", "t-black"), "chess").await;
    let options = next_ask(&mut w_ev).await;
    w_tx.send(SeatCommand::Decide(option(&options, "e2e4"))).await.expect("seat");
    let options = next_ask(&mut b_ev).await;
    // Another writer holds the database: the host's storage stalls.
    let db = net.dir.join("server").join("fogproof.sqlite");
    let mut writer = sqlx::sqlite::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
        .await
        .expect("a second connection");
    sqlx::query("BEGIN IMMEDIATE").execute(&mut writer).await.expect("the write lock");
    b_tx.send(SeatCommand::Decide(option(&options, "e7e5"))).await.expect("seat");
    tokio::time::sleep(Duration::from_millis(200)).await;
    w_tx.send(SeatCommand::Resign).await.expect("resign");
    tokio::time::sleep(Duration::from_millis(HELD_MS)).await;
    sqlx::query("ROLLBACK").execute(&mut writer).await.expect("released");
    drop(writer);
    let (_, record) = net.finished(&white).await;
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    let record = protocol::record::MatchRecord::from_canonical(&record).expect("record");
    let relay: protocol::PublicKey =
        net.get_json("/api/info").await["relay"].as_str().unwrap().parse().unwrap();
    let time_of = |pick: &dyn Fn(&protocol::message::MessageBody) -> bool| {
        record
            .entries
            .iter()
            .filter(|e| {
                protocol::message::MessageBody::from_canonical(&e.message.body)
                    .is_ok_and(|b| pick(&b))
            })
            .map(|e| e.receipt.open(&relay).expect("receipt").time_ms)
            .collect::<Vec<u64>>()
    };
    let white_key = white.session().key;
    let moves = time_of(&|b| matches!(b.payload, protocol::message::Payload::Action(_)));
    let resigned = time_of(&|b| {
        b.author == white_key && matches!(b.payload, protocol::message::Payload::Claim(_))
    });
    assert_eq!((moves.len(), resigned.len()), (2, 1), "e4 e5, then White resigned");
    let last = record.entries.last().expect("entries").receipt.open(&relay).expect("receipt");
    net.stop().await;
    (moves, resigned[0], last.time_ms)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receipt_is_stamped_when_its_frame_arrived_not_when_the_host_got_to_it() {
    // Relay time does not stand still for the stall here: only the stamping is tested.
    let (moves, resigned, last) = a_stalled_resignation("admit-arrival", 600_000).await;
    let gap = resigned - moves[1];
    assert!(
        gap < HELD_MS - 500,
        "the resignation's receipt counts the host's stall: {gap} ms after Black's move"
    );
    // Without the allowance, relay time ran on through the stall (the control for the test
    // below).
    assert!(last - moves[1] >= HELD_MS, "{} ms", last - moves[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_time_stands_still_while_the_hosts_storage_stalls() {
    let (moves, resigned, last) = a_stalled_resignation("admit-stall", 200).await;
    assert!(resigned - moves[1] < HELD_MS - 500);
    // Everything after the stall is stamped as if the host had been on time (up to the
    // allowance): nobody's clock was charged the stall.
    assert!(
        last - moves[1] < HELD_MS - 500,
        "relay time ran on through the host's stall: the last entry {} ms after Black's move",
        last - moves[1]
    );
}

/// A TCP proxy in front of the server whose server-to-party direction the test can hold: while
/// held, what the server sends waits in the proxy (the party behind it hears nothing, as if it
/// were slow), and arrives in order once released.
struct Holding {
    base: String,
    held: tokio::sync::watch::Sender<bool>,
}

impl Holding {
    fn run(listener: tokio::net::TcpListener, target: std::net::SocketAddr) -> Holding {
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (held, _) = tokio::sync::watch::channel(false);
        let gate = held.clone();
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let mut gate = gate.subscribe();
                tokio::spawn(async move {
                    let Ok(outbound) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    let (mut in_read, mut in_write) = inbound.into_split();
                    let (mut out_read, mut out_write) = outbound.into_split();
                    tokio::spawn(async move {
                        let _ = tokio::io::copy(&mut in_read, &mut out_write).await;
                        let _ = out_write.shutdown().await;
                    });
                    let mut buf = vec![0u8; 16 * 1024];
                    loop {
                        let n = match out_read.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        if gate.wait_for(|held| !*held).await.is_err()
                            || in_write.write_all(&buf[..n]).await.is_err()
                        {
                            break;
                        }
                    }
                    let _ = in_write.shutdown().await;
                });
            }
        });
        Holding { base, held }
    }

    fn hold(&self, on: bool) {
        self.held.send_replace(on);
    }
}

/// A challenge by `token`'s key over bare HTTP: the status, the response head and the body.
async fn challenge_as(net: &Net, token: &str, body: &Value) -> (u16, String, String) {
    let body = body.to_string();
    let (status, head, out) = request(
        &net.base,
        "POST",
        "/api/challenge",
        &json_headers(body.len(), Some(token)),
        body.as_bytes(),
    )
    .await;
    (status, head, String::from_utf8_lossy(&out).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_umpire_behind_gets_no_new_match_and_its_matches_end_validly() {
    const LAG_MS: u64 = 300;
    let net = Net::start_with("admit-umpire-lag", |c| c.limits.max_umpire_lag_ms = LAG_MS).await;
    let s = shared(&net);
    // An umpire of its own (any umpire key, not only the server's), behind a proxy the test
    // can hold.
    let proxy = Holding::run(net.spare_listener(), net.server.as_ref().expect("running").addr);
    let slow = identity("slow-umpire");
    let u = slow.public();
    let umpire = Agent::connect(client::agent::AgentConfig {
        server_key: None,
        server: proxy.base.clone(),
        identity: slow,
        name: Some("slow-umpire".into()),
        dir: net.dir.join("slow-umpire"),
        umpire: true,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: Arc::new(|_| (Decider::None, None)),
    })
    .await
    .expect("the umpire signs in");
    let runner = umpire.clone();
    tokio::spawn(async move { runner.run().await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (white, _black, (w_tx, mut w_ev), (b_tx, mut b_ev)) =
        remote_match_with(&net, ("lag-white", "lag-black"), "kriegspiel", 600, Some(u)).await;
    // Two more players, over bare HTTP: a challenge naming this umpire, open before it falls
    // behind.
    let (c, d) = (identity("lag-c"), identity("lag-d"));
    let (tc, td) = (token_of(&net, &c).await, token_of(&net, &d).await);
    let kriegspiel = |umpire: Option<protocol::PublicKey>| {
        let mut v = json!({
            "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
            "opponent": d.public().to_string(), "seat": seat(&c),
        });
        if let Some(u) = umpire {
            v["umpire"] = json!(u.to_string());
        }
        v
    };
    let (status, _, body) = challenge_as(&net, &tc, &kriegspiel(Some(u))).await;
    assert_eq!(status, 200, "{body}");
    let waiting: Value = serde_json::from_str(&body).expect("json");
    let waiting = waiting["challenge"]["id"].as_str().expect("an id").to_owned();
    // The umpire has answered everything so far (its own opening messages may still be on
    // their way when the match has started: wait for them, at most 10 s).
    for _ in 0..1_000 {
        if s.umpires.of(&u, tokio::time::Instant::now()).answers == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.umpires.of(&u, tokio::time::Instant::now()).answers, 0);
    // The umpire hears nothing from now on: White's first attempt waits for its answer.
    let options = next_ask(&mut w_ev).await;
    proxy.hold(true);
    w_tx.send(SeatCommand::Decide(option(&options, "e2e4"))).await.expect("seat");
    let mut owing = s.umpires.of(&u, tokio::time::Instant::now());
    for _ in 0..500 {
        if owing.oldest_ms > LAG_MS {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        owing = s.umpires.of(&u, tokio::time::Instant::now());
    }
    assert_eq!(owing.answers, 1, "the live match waits for its umpire: {owing:?}");
    assert!(owing.oldest_ms > LAG_MS, "{owing:?}");
    // New matches that need this umpire are told to come back, naming its backlog: a
    // challenge, and an accept of the challenge made before.
    let (status, head, body) = challenge_as(&net, &tc, &kriegspiel(Some(u))).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("max_umpire_lag_ms") && body.contains(&u.to_string()), "{body}");
    assert!(retry_after(&head).is_some(), "{head}");
    let accept = json!(seat(&d)).to_string();
    let (status, head, out) = request(
        &net.base,
        "POST",
        &format!("/api/challenge/{waiting}/accept"),
        &json_headers(accept.len(), Some(&td)),
        accept.as_bytes(),
    )
    .await;
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&out));
    assert!(String::from_utf8_lossy(&out).contains("max_umpire_lag_ms"));
    assert!(retry_after(&head).is_some(), "{head}");
    assert!(
        server::state::lock(&s.lobby).open.contains_key(&waiting),
        "the challenge waits, still open"
    );
    // Nobody else is held up: an unumpired game, and one under the server's own umpire.
    let chess = json!({
        "variant": "chess", "clock_limit": 600, "clock_increment": 0,
        "opponent": d.public().to_string(), "seat": seat(&c),
    });
    let (status, _, body) = challenge_as(&net, &tc, &chess).await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = challenge_as(&net, &tc, &kriegspiel(None)).await;
    assert_eq!(status, 200, "{body}");
    // The umpire catches up (well within the terms' answer time): new matches are admitted.
    proxy.hold(false);
    let b_options = next_ask(&mut b_ev).await;
    let mut status = 0;
    for _ in 0..200 {
        status = challenge_as(&net, &tc, &kriegspiel(Some(u))).await.0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 200, "admitted once the umpire caught up");
    // The held match goes on and ends validly: nobody, the umpire included, is at fault.
    b_tx.send(SeatCommand::Decide(option(&b_options, "a7a6"))).await.expect("seat");
    let _ = next_ask(&mut w_ev).await;
    w_tx.send(SeatCommand::Resign).await.expect("resign");
    let (_, record) = net.finished(&white).await;
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    assert_eq!(s.umpires.of(&u, tokio::time::Instant::now()).answers, 0, "nothing owed after");
    net.stop().await;
}

/// A chess match on a clock of `CLOCK_S` seconds whose storage stalls `STALL_MS` while White's
/// first move is stored, so that Black's whole clock runs out inside the stall (the host holds
/// the move: Black cannot have seen it), with no allowance for slow commits: whether Black
/// was asked (it answers at once), the verdict, and Black's key.
async fn a_deadline_inside_a_stall(
    name: &str,
    max_timer_lag_ms: u64,
) -> (bool, verifier::Verdict, protocol::PublicKey) {
    use sqlx::Connection as _;
    const CLOCK_S: u64 = 2;
    const STALL_MS: u64 = 5_000;
    let net = Net::start_with(name, |c| {
        c.limits.min_initial_clock_ms = 1_000;
        c.limits.max_host_stall_ms = 600_000;
        c.limits.max_timer_lag_ms = max_timer_lag_ms;
    })
    .await;
    let (white, black, (w_tx, mut w_ev), (b_tx, mut b_ev)) =
        remote_match_with(&net, ("d-white", "d-black"), "chess", CLOCK_S, None).await;
    let options = next_ask(&mut w_ev).await;
    let db = net.dir.join("server").join("fogproof.sqlite");
    let mut writer = sqlx::sqlite::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
        .await
        .expect("a second connection");
    sqlx::query("BEGIN IMMEDIATE").execute(&mut writer).await.expect("the write lock");
    w_tx.send(SeatCommand::Decide(option(&options, "e2e4"))).await.expect("seat");
    tokio::time::sleep(Duration::from_millis(STALL_MS)).await;
    sqlx::query("ROLLBACK").execute(&mut writer).await.expect("released");
    drop(writer);
    // Black is asked once the move is stored, unless the match ended first (on time).
    let answered = match ask_or_end(&white, &mut b_ev).await {
        Some(options) => {
            b_tx.send(SeatCommand::Decide(option(&options, "e7e5"))).await.expect("seat");
            true
        }
        None => false,
    };
    // White resigns at its turn, unless the match is over.
    if answered && ask_or_end(&white, &mut w_ev).await.is_some() {
        w_tx.send(SeatCommand::Resign).await.expect("resign");
    }
    let (_, record) = net.finished(&white).await;
    let verified = verifier::verify_match(&record);
    let key = black.session().key;
    net.stop().await;
    (answered, verified.verdict, key)
}

/// The seat's next question, or `None` once `white`'s match has ended.
async fn ask_or_end(
    white: &Agent,
    events: &mut mpsc::UnboundedReceiver<SeatEvent>,
) -> Option<Vec<AnyAction>> {
    for _ in 0..600 {
        if !white.records().is_empty() {
            return None;
        }
        match tokio::time::timeout(Duration::from_millis(100), events.recv()).await {
            Ok(Some(SeatEvent::Ask(Ask::Choose(options)))) => return Some(options),
            Ok(None) => return None,
            _ => {}
        }
    }
    panic!("no question and no end within 60 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_fell_inside_the_hosts_stall_is_checked_after_the_host_caught_up() {
    // With the timer rule: the stall is nobody's, Black moves, White resigns.
    let (answered, verdict, _) = a_deadline_inside_a_stall("admit-timer-lag", 1_500).await;
    assert!(answered, "Black was asked to move after the stall");
    match verdict {
        verifier::Verdict::Valid { result } => {
            assert_eq!(result.score(), "0-1", "White resigned, Black was not timed out");
        }
        faults => panic!("the host's stall was charged to someone: {faults:#?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_timer_rule_the_hosts_stall_would_time_out_an_honest_player() {
    // The control: with no allowance at all, Black's clock ran out inside the host's stall.
    let (_, verdict, black) = a_deadline_inside_a_stall("admit-timer-none", 600_000).await;
    match verdict {
        verifier::Verdict::Faults(faults) => assert!(
            faults
                .iter()
                .any(|f| f.kind == verifier::FaultKind::Timeout && f.culprit == Some(black)),
            "{faults:#?}"
        ),
        valid => panic!("Black was not timed out: {valid:?} (the control shows nothing)"),
    }
}

/// Strangers who name a key as umpire in challenges they accept between themselves charge
/// that key nothing until it takes a seat (issue 14: naming a key as umpire must not count
/// against it): an umpire that never answers them is not found behind, and a match that
/// wants it is still admitted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_naming_an_umpire_that_never_sat_do_not_put_it_behind() {
    const LAG_MS: u64 = 200;
    let net = Net::start_with("admit-umpire-named", |c| {
        c.limits.max_umpire_lag_ms = LAG_MS;
        c.limits.max_umpire_terms_owed = 2;
    })
    .await;
    let s = shared(&net);
    // An umpire key that is never online: it takes no seat in anything.
    let u = identity("named-umpire").public();
    let (c, d) = (identity("named-c"), identity("named-d"));
    let (tc, td) = (token_of(&net, &c).await, token_of(&net, &d).await);
    let kriegspiel = json!({
        "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
        "opponent": d.public().to_string(), "seat": seat(&c), "umpire": u.to_string(),
    });
    for _ in 0..4 {
        let (status, _, body) = challenge_as(&net, &tc, &kriegspiel).await;
        assert_eq!(status, 200, "{body}");
        let made: Value = serde_json::from_str(&body).expect("json");
        let id = made["challenge"]["id"].as_str().expect("an id").to_owned();
        let accept = json!(seat(&d)).to_string();
        let (status, _, out) = request(
            &net.base,
            "POST",
            &format!("/api/challenge/{id}/accept"),
            &json_headers(accept.len(), Some(&td)),
            accept.as_bytes(),
        )
        .await;
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    }
    tokio::time::sleep(Duration::from_millis(LAG_MS * 2)).await;
    let owing = s.umpires.of(&u, tokio::time::Instant::now());
    assert_eq!((owing.terms, owing.answers, owing.oldest_ms), (0, 0, 0), "{owing:?}");
    // Someone else's match under that umpire is still admitted.
    let (e, f) = (identity("named-e"), identity("named-f"));
    let te = token_of(&net, &e).await;
    let wanted = json!({
        "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0,
        "opponent": f.public().to_string(), "seat": seat(&e), "umpire": u.to_string(),
    });
    let (status, _, body) = challenge_as(&net, &te, &wanted).await;
    assert_eq!(status, 200, "{body}");
    net.stop().await;
}
