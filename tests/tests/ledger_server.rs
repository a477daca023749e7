//! The server's ledger over real sockets: every finished match is appended and served at
//! `/ledger/` in the tlog-tiles layout, and a C2SP-style client (the ledger library reading the
//! tiles over HTTP) verifies its inclusion against the served checkpoint; the JSON APIs
//! (ledger, proof, ratings, tournaments) and their named errors; tournaments the server runs
//! with house bots to the end, recomputed offline from the served log by the bundle code; and a
//! player who does not show, forfeited by a no-show entry the log holds and the standings count.

mod network;

use client::agent::Accept;
use client::seat::Decider;
use ledger::checkpoint::Policy;
use ledger::entry::{EntryBody, LedgerEntry};
use ledger::note::{KeyKind, SignerKey, VerifierKey};
use ledger::store::{LogReader, ReadError};
use network::{Net, bot, identity};
use protocol::Identity;
use protocol::challenge::ChallengeRequest;
use rules::Variant;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// A blocking HTTP GET: status, lower-cased headers, body.
fn get(url: &str) -> (u16, String, Vec<u8>) {
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let mut s = std::net::TcpStream::connect(host).expect("connect");
    write!(s, "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").expect("write");
    let mut all = Vec::new();
    s.read_to_end(&mut all).expect("read");
    let at = all.windows(4).position(|w| w == b"\r\n\r\n").expect("headers") + 4;
    let head = String::from_utf8_lossy(&all[..at]).to_lowercase();
    assert!(!head.contains("transfer-encoding: chunked"), "a file has a length: {head}");
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, head, all[at..].to_vec())
}

/// The log as a C2SP client reads it: plain GETs under `<base>/ledger/`.
struct HttpLog(String);

impl LogReader for HttpLog {
    fn read(&self, path: &str, max_bytes: usize) -> Result<Vec<u8>, ReadError> {
        let (status, _, body) = get(&format!("{}/ledger/{path}", self.0));
        match status {
            200 if body.len() <= max_bytes => Ok(body),
            200 => Err(ReadError::TooLarge { path: path.into(), max_bytes }),
            _ => Err(ReadError::NotFound(path.into())),
        }
    }
}

fn log_key() -> SignerKey {
    SignerKey::from_seed("fogproof.test/ledger", KeyKind::Ed25519, [9; 32]).expect("key")
}

async fn start(name: &str, show_ms: u64) -> Net {
    Net::start_with(name, |c| {
        let mut l = server::LedgerConfig::new(c.data_dir.join("ledger"), log_key());
        l.append_interval_ms = 200;
        c.ledger = Some(l);
        c.limits.max_tournament_show_wait_ms = show_ms;
    })
    .await
}

async fn policy(net: &Net) -> Policy {
    let info = net.get_json("/api/ledger").await;
    let vkey = VerifierKey::parse(info["vkey"].as_str().expect("vkey")).expect("a vkey");
    assert_eq!(vkey, *log_key().verifier(), "the server names its log key");
    Policy::log_only(vkey)
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.expect("blocking task")
}

/// Every entry of the served log, in order.
fn entries(base: &str) -> Vec<LedgerEntry> {
    let reader = HttpLog(base.to_owned());
    let cp = ledger::checkpoint::SignedCheckpoint::parse(&reader.checkpoint().expect("checkpoint"))
        .expect("parses");
    let size = cp.checkpoint.size;
    let mut out = Vec::new();
    for b in 0..size.div_ceil(256) {
        for bytes in ledger::log::read_bundle(&reader, b, size).expect("bundle") {
            out.push(LedgerEntry::from_bytes(&bytes).expect("entry"));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_match_is_served_in_the_log_and_its_inclusion_verifies() {
    let net = start("ledger-proof", 60_000).await;
    let bob = net.agent("bob", bot(21), Accept::Addressed).await;
    let alice = net.agent("alice", bot(20), Accept::Nothing).await;
    alice
        .challenge(&ChallengeRequest {
            rated: true,
            ..ChallengeRequest::addressed(Variant::Chess, 600, 0, bob.session().key)
        })
        .await
        .expect("challenge");
    let (id, record) = net.finished(&alice).await;
    let hex = protocol::hex::encode(&id.0);
    // Appended within seconds of the end.
    let mut proof = Value::Null;
    for _ in 0..200 {
        let (status, body) = net.get_raw(&format!("/api/ledger/proof/{hex}")).await;
        if status == 200 {
            proof = serde_json::from_str(&body).expect("json");
            break;
        }
        assert_eq!(status, 404, "{body}");
        assert!(body.contains("is not in the log"), "{body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!proof.is_null(), "appended within 10 s");
    let policy = policy(&net).await;
    // The served checkpoint: text, never cached, signed by the log key.
    let base = net.base.clone();
    let (status, head, cp) = blocking({
        let base = base.clone();
        move || get(&format!("{base}/ledger/checkpoint"))
    })
    .await;
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/plain; charset=utf-8"), "{head}");
    assert!(head.contains("cache-control: no-cache"), "{head}");
    let signed = ledger::checkpoint::SignedCheckpoint::parse(&cp).expect("a checkpoint");
    let trusted = policy.verify(&signed).expect("signed by the log key");
    assert!(trusted.signed.checkpoint.size >= 1);
    // A client that knows only the tiles finds the entry, proves it and checks the proof.
    let record_for_check = record.clone();
    let (proven, served_record, bundle_head) = blocking({
        let base = base.clone();
        let policy = policy.clone();
        move || {
            let reader = HttpLog(base.clone());
            let p = ledger::service::prove_in(&reader, &id.0).expect("proven from the tiles");
            let (_, entry) = p.verify(&policy).expect("the proof verifies");
            let m = entry.as_match().expect("a match entry").clone();
            let served = reader.record(&m.record_sha256).expect("the record is served");
            let size = p.checkpoint.checkpoint.size;
            let (_, head, _) =
                get(&format!("{base}/ledger/{}", ledger::store::bundle_path(0, size.min(256))));
            (m, served, head)
        }
    })
    .await;
    assert_eq!(proven.match_id, id.0);
    assert_eq!(proven.record_sha256, ledger::entry::sha256(&record_for_check));
    // The host appended with the verification its match task made at the end (not verifying
    // the record twice): the entry is the one the ledger makes of the record on its own.
    let own = blocking({
        let record = record.clone();
        move || ledger::entry::MatchEntry::from_record_in(&record, None).expect("an entry")
    })
    .await;
    assert_eq!(proven, own);
    let (_, metrics) = net.get_raw("/metrics").await;
    let reused = metrics
        .lines()
        .find_map(|l| l.strip_prefix("fogproof_ledger_verifications_reused_total "))
        .and_then(|v| v.trim().parse::<f64>().ok());
    assert!(reused.is_some_and(|n| n >= 1.0), "{metrics}");
    assert_eq!(served_record, record, "the record under /ledger/records/ is the match's");
    assert!(bundle_head.contains("content-type: application/octet-stream"), "{bundle_head}");
    assert!(bundle_head.contains("cache-control: public"), "{bundle_head}");
    // Entry bundles are stored gzipped and served as stored (tlog-tiles: Content-Encoding).
    assert!(bundle_head.contains("content-encoding: gzip"), "{bundle_head}");
    // The API's proof is the same tlog-proof, and verifies too.
    let api_proof =
        ledger::proof::TlogProof::parse(proof["tlog_proof"].as_str().expect("text").as_bytes())
            .expect("a tlog-proof");
    let (_, entry) = api_proof.verify(&policy).expect("verifies");
    assert_eq!(entry.as_match().expect("a match").match_id, id.0);
    assert_eq!(proof["entry"]["match_id"], json!(hex));
    assert_eq!(proof["index"], json!(api_proof.index));
    let (_, head, _) = blocking({
        let base = base.clone();
        let path = proof["record"].as_str().expect("record path").to_owned();
        move || get(&format!("{base}{path}"))
    })
    .await;
    assert!(head.contains("immutable"), "records are immutable: {head}");
    // Ratings from the log: both players, one game each (if the game is rated: a rated
    // challenge, a result, and both players moved).
    let ratings = net.get_json("/api/ratings/chess").await;
    let list = ratings["ratings"].as_array().expect("a list");
    assert_eq!(proof["entry"]["rated"], json!(entry.as_match().expect("a match").rated));
    if entry.as_match().expect("a match").rated {
        assert_eq!(list.len(), 2, "{ratings}");
        for r in list {
            assert_eq!(r["games"], json!(1));
            assert!(r["rating"].as_f64().is_some());
        }
    }
    // Appended once, whatever the number of appender rounds since.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let all = blocking({
        let base = base.clone();
        move || entries(&base)
    })
    .await;
    assert_eq!(all.iter().filter(|e| e.as_match().is_some_and(|m| m.match_id == id.0)).count(), 1);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_named_errors() {
    let net = start("ledger-errors", 60_000).await;
    let (s, body) = net.get_raw("/api/ratings/checkers").await;
    assert_eq!(s, 404);
    assert!(body.contains("unknown variant"), "{body}");
    let (s, body) = net.get_raw("/api/tournament/not-an-id").await;
    assert_eq!(s, 404);
    assert!(body.contains("no such tournament"), "{body}");
    let (s, body) = net.get_raw(&format!("/api/tournament/{}", "ab".repeat(32))).await;
    assert_eq!(s, 404);
    assert!(body.contains("no such tournament in the log"), "{body}");
    let (s, body) = net.get_raw(&format!("/api/ledger/proof/{}", "cd".repeat(32))).await;
    assert_eq!(s, 404);
    assert!(body.contains("is not in the log"), "{body}");
    // Path traversal, and anything that is not a log path, never reaches a file.
    for path in [
        "/ledger/../server/fogproof.sqlite",
        "/ledger/%2e%2e/server/fogproof.sqlite",
        "/ledger/tile/0/..%2F..%2F..%2Fserver%2Ffogproof.sqlite",
        "/ledger/records/..%2F..%2Fserver%2Ffogproof.sqlite",
        "/ledger/checkpoint.tmp",
        "/ledger//etc/passwd",
        "/ledger/tile/entries/000.p/0",
    ] {
        let (s, body) = net.get_raw(path).await;
        assert_eq!(s, 404, "{path}: {body}");
        assert!(!body.contains("SQLite"), "{path}");
    }
    let (s, body) = net.get_raw("/ledger/tile/0/x001/000").await;
    assert_eq!(s, 404);
    assert!(body.contains("no such file in the log"), "{body}");
    // Organiser requests: unsigned, forged, signed by another key than the definition's.
    let org = ed25519_dalek::SigningKey::from_bytes(&[31; 32]);
    let def = definition(&[identity("p1").public(), identity("p2").public()], "swiss", 1);
    let file = protocol::codec::Canonical::to_canonical(&def.sign(&org).expect("signed"));
    let body = json!({ "definition": protocol::hex::encode(&file) });
    let (s, text) = net.post_raw("/api/tournament", &body).await;
    assert_eq!(s, 401, "{text}");
    assert!(text.contains("sign in first"), "{text}");
    let other = client::net::Session::sign_in(&net.base, &identity("mallory"), None)
        .await
        .expect("sign in");
    let e = other.post("/api/tournament", &body).await.expect_err("not the organiser");
    assert!(e.to_string().contains("only its organiser publishes it"), "{e}");
    let organiser = client::net::Session::sign_in(&net.base, &Identity::from_seed(&[31; 32]), None)
        .await
        .expect("sign in");
    let mut forged = file.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    let e = organiser
        .post("/api/tournament", &json!({ "definition": protocol::hex::encode(&forged) }))
        .await
        .expect_err("a forged signature");
    assert!(e.to_string().contains("signature"), "{e}");
    let e = organiser
        .post("/api/tournament", &json!({ "definition": "zz" }))
        .await
        .expect_err("not hex");
    assert!(e.to_string().contains("expected hex"), "{e}");
    // Nothing refused reached the log.
    assert_eq!(net.get_json("/api/ledger").await["size"], json!(0));
    assert_eq!(net.get_json("/api/tournaments").await["tournaments"], json!([]));
    net.stop().await;
}

fn definition(
    players: &[protocol::PublicKey],
    system: &str,
    rounds: u32,
) -> ledger::tournament::definition::TournamentDefinition {
    use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
    TournamentDefinition {
        name: "Server Cup".into(),
        variant: rules::Variant::Chess,
        ruleset: rules::Variant::Chess.ruleset().into(),
        system: if system == "swiss" {
            System::Swiss { rounds }
        } else {
            System::RoundRobin { double: false }
        },
        players: players
            .iter()
            .enumerate()
            .map(|(i, k)| Entrant { key: *k, name: format!("P{}", i + 1), rating: None })
            .collect(),
        tie_breaks: vec![TieBreak::Buchholz, TieBreak::SonnebornBerger],
        time_control: "10+0".into(),
    }
}

fn house_bot(seed: u64) -> client::agent::DeciderFactory {
    Arc::new(move |_| {
        let bot = client::HouseBot::new(sim::selfplay::derive(seed, "house"));
        (Decider::Policy(Box::new(bot)), None)
    })
}

/// Publishes a tournament of `players` as the organiser; returns its id (hex).
async fn publish(net: &Net, players: &[protocol::PublicKey], system: &str, rounds: u32) -> String {
    let org_seed = [41; 32];
    let def = definition(players, system, rounds);
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
    let id = v["id"].as_str().expect("id").to_owned();
    assert_eq!(id, protocol::hex::encode(&ledger::entry::sha256(&file)));
    id
}

async fn until_finished(net: &Net, id: &str, secs: u64) -> Value {
    for _ in 0..secs * 10 {
        let t = net.get_json(&format!("/api/tournament/{id}")).await;
        if t["status"] == "finished" {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the tournament did not finish within {secs} s: {}",
        net.get_json(&format!("/api/tournament/{id}")).await
    );
}

/// Writes the tournament's bundle from the served log and recomputes it offline, as
/// `fogproof tournament bundle` and `tournament verify` do; returns its standings and pairings.
async fn bundle(net: &Net, id: &str, policy: Policy) -> (Value, Value) {
    let base = net.base.clone();
    let out = net.dir.join(format!("bundle-{id}"));
    let tid: [u8; 32] = protocol::hex::decode_array(id).expect("id");
    blocking(move || {
        ledger::bundle::write(&HttpLog(base), &tid, &out).expect("bundle written");
        let v = ledger::bundle::verify(&out, &policy).expect("the bundle verifies");
        assert!(v.rounds >= 1);
        let read = |f: &str| -> Value {
            serde_json::from_slice(&std::fs::read(out.join(f)).expect("file")).expect("json")
        };
        (read("standings.json"), read("pairings.json"))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_of_house_bots_runs_to_the_end_and_its_bundle_recomputes() {
    let net = start("ledger-rr", 60_000).await;
    let mut bots = Vec::new();
    for (i, name) in ["hb1", "hb2", "hb3", "hb4"].iter().enumerate() {
        bots.push(net.agent(name, house_bot(i as u64), Accept::Addressed).await);
    }
    let keys: Vec<_> = bots.iter().map(|b| b.session().key).collect();
    let id = publish(&net, &keys, "round-robin", 0).await;
    assert_eq!(net.get_json(&format!("/api/tournament/{id}")).await["status"], "joining");
    for b in &bots {
        b.join_tournament(&id).await.expect("joined");
    }
    let t = until_finished(&net, &id, 400).await;
    assert_eq!(t["rounds_started"], json!(3));
    let (standings, pairings) = bundle(&net, &id, policy(&net).await).await;
    assert_eq!(t["standings"], standings, "the API's standings are the bundle's");
    assert_eq!(t["pairings"], pairings, "the API's pairings are the bundle's");
    // Six games, each a match of the log (no forfeits: every bot showed).
    let games: Vec<&Value> = pairings["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .flat_map(|r| r["games"].as_array().expect("games"))
        .collect();
    assert_eq!(games.len(), 6);
    let log = blocking({
        let base = net.base.clone();
        move || entries(&base)
    })
    .await;
    for g in &games {
        let at = g["entry"].as_u64().expect("a result") as usize;
        assert!(matches!(log[at].body, EntryBody::Match(_)), "{g}");
        assert!(!g["result"].as_str().expect("result").contains("forfeit"), "{g}");
    }
    // Every game gave one point in all (none was forfeited), so the standings hold six.
    let total: f64 = standings
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| s["points"].as_str().expect("points").parse::<f64>().expect("a number"))
        .sum();
    assert_eq!(total, 6.0, "{standings}");
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_does_not_show_loses_by_a_forfeit_the_log_holds() {
    let net = start("ledger-noshow", 2_000).await;
    let mut bots = Vec::new();
    for (i, name) in ["nb1", "nb2", "nb3"].iter().enumerate() {
        bots.push(net.agent(name, house_bot(10 + i as u64), Accept::Addressed).await);
    }
    // The absentee joins (signed in) but its agent never brings a seat.
    let absentee = net.agent("absentee", house_bot(99), Accept::Nothing).await;
    let mut keys: Vec<_> = bots.iter().map(|b| b.session().key).collect();
    keys.push(absentee.session().key);
    let id = publish(&net, &keys, "swiss", 1).await;
    for b in &bots {
        b.join_tournament(&id).await.expect("joined");
    }
    absentee
        .session()
        .post(&format!("/api/tournament/{id}/join"), &json!({}))
        .await
        .expect("joined");
    let t = until_finished(&net, &id, 300).await;
    let (standings, pairings) = bundle(&net, &id, policy(&net).await).await;
    assert_eq!(t["standings"], standings);
    let games = pairings["rounds"][0]["games"].as_array().expect("games").clone();
    assert_eq!(games.len(), 2);
    let absent_key = absentee.session().key.to_string();
    let forfeited = games
        .iter()
        .find(|g| g["white"]["key"] == json!(absent_key) || g["black"]["key"] == json!(absent_key))
        .expect("the absentee was paired");
    let absent_is_white = forfeited["white"]["key"] == json!(absent_key);
    assert_eq!(
        forfeited["result"],
        json!(if absent_is_white { "0-1 forfeit" } else { "1-0 forfeit" })
    );
    let log = blocking({
        let base = net.base.clone();
        move || entries(&base)
    })
    .await;
    let at = forfeited["entry"].as_u64().expect("an entry") as usize;
    let EntryBody::NoShow(n) = &log[at].body else {
        panic!("the forfeit is a no-show entry: {:?}", log[at]);
    };
    assert_eq!((n.white_absent, n.black_absent), (absent_is_white, !absent_is_white));
    assert_eq!(n.round, 1);
    assert_eq!(log.iter().filter(|e| matches!(e.body, EntryBody::NoShow(_))).count(), 1);
    // Counted: the absentee has no point, its opponent a full one for the forfeit.
    let points = |key: &str| {
        standings
            .as_array()
            .expect("standings")
            .iter()
            .find(|s| s["player"]["key"] == json!(key))
            .map(|s| s["points"].clone())
            .expect("a standing")
    };
    assert_eq!(points(&absent_key), json!("0"));
    let opponent =
        if absent_is_white { &forfeited["black"]["key"] } else { &forfeited["white"]["key"] };
    assert_eq!(points(opponent.as_str().expect("key")), json!("1"));
    net.stop().await;
}

/// Stores a finished match made of `terms` bytes and `entries` (canonical relay entries).
async fn store_finished(
    store: &dyn server::store::Store,
    id: protocol::MatchId,
    terms: Vec<u8>,
    players: [protocol::PublicKey; 2],
    entries: &[Vec<u8>],
    at: u64,
) {
    use server::store::{EntryRow, Finish, MatchRow, MatchStatus};
    let row = MatchRow {
        id,
        terms,
        variant: "chess".into(),
        players,
        rated: false,
        challenge: None,
        created_ms: at,
        status: MatchStatus::Live,
        finish: None,
    };
    let rows: Vec<EntryRow> = entries
        .iter()
        .enumerate()
        .map(|(i, b)| EntryRow { match_id: id, seq: i as u64, bytes: b.clone() })
        .collect();
    store.create_match(&row, &rows).await.expect("stored");
    let finish = Finish {
        finished_ms: at,
        record_sha256: [0; 32],
        verdict: "{}".into(),
        result: "*".into(),
    };
    store.finish_match(&id, &finish).await.expect("finished");
}

/// The appender never stops on a bad match: a record with faults goes into the log with its
/// verdict (the ledger's rule), bytes that name no match are marked refused and never tried
/// again, and the good match beside them is appended in the same round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_appender_logs_faulty_records_refuses_unreadable_ones_and_goes_on() {
    use protocol::codec::Canonical;
    let dir = std::env::temp_dir().join(format!("fogproof-appender-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store: Arc<dyn server::store::Store> = Arc::new(
        server::store::sqlite::SqliteStore::open(&dir.join("server")).await.expect("store"),
    );
    let mut config = server::Config::new(dir.join("server"), identity("relay"));
    let lc = server::LedgerConfig::new(dir.join("ledger"), log_key());
    config.ledger = Some(lc.clone());
    let l = Arc::new(server::ledger::ServerLedger::open(&lc).await.expect("ledger"));
    let shared = Arc::new(server::state::Shared::with_ledger(
        config,
        Arc::new(server::clock::TokioClock::system()),
        store.clone(),
        Some(l.clone()),
    ));
    // A good record, and the same game cut short (its last entries missing: the verifier finds
    // faults), under another match id it cannot have: only one of a match id goes in, so the
    // faulty copy is a second self-played game.
    let record = |seed| {
        let bytes = sim::selfplay(rules::Variant::Chess, seed).expect("selfplay").0;
        protocol::record::MatchRecord::from_canonical(&bytes).expect("a record")
    };
    let good = record(31);
    let mut cut = record(32);
    cut.entries.truncate(cut.entries.len() / 2);
    for (r, at) in [(&good, 1), (&cut, 2)] {
        let agreed = r.terms.verify().expect("terms");
        let players = [agreed.terms.players[0].key, agreed.terms.players[1].key];
        let entries: Vec<Vec<u8>> = r.entries.iter().map(Canonical::to_canonical).collect();
        store_finished(&*store, agreed.match_id, r.terms.to_canonical(), players, &entries, at)
            .await;
    }
    // Bytes that are no terms at all: nothing names a match.
    let k = identity("x").public();
    store_finished(&*store, protocol::MatchId([5; 32]), vec![1, 2, 3], [k, k], &[], 3).await;
    let n = server::ledger::append_finished(&shared, &l, 256).await.expect("the round ends");
    assert_eq!(n, 2, "the good and the faulty record are appended");
    let log = {
        let d = dir.join("ledger");
        blocking(move || {
            let reader = ledger::store::DirReader::new(d);
            let cp = ledger::checkpoint::SignedCheckpoint::parse(
                &reader.checkpoint().expect("checkpoint"),
            )
            .expect("parses");
            ledger::log::read_bundle(&reader, 0, cp.checkpoint.size)
                .expect("bundle")
                .iter()
                .map(|b| LedgerEntry::from_bytes(b).expect("entry"))
                .collect::<Vec<_>>()
        })
        .await
    };
    assert_eq!(log.len(), 2);
    let verdicts: Vec<bool> = log
        .iter()
        .map(|e| e.as_match().expect("match").verdict == ledger::entry::EntryVerdict::Valid)
        .collect();
    assert_eq!(verdicts, vec![true, false], "the cut record is logged with its faults");
    // Nothing is left to append, and the refused bytes are not tried again.
    assert!(store.unledgered(10).await.expect("store").is_empty());
    assert_eq!(server::ledger::append_finished(&shared, &l, 256).await.expect("round"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
