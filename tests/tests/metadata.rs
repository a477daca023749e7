//! Issue 13, point 3: the opponent learns nothing the rules hide (R-K1, docs/PROTOCOL.md 11 and
//! 20). Each umpired variant is self-played twice through the real machines (player and umpire
//! roles, the sans-IO relay) from the same seeds, once as is and once with what the rules hide
//! changed on White's side: `k` illegal Kriegspiel attempts inserted in one turn, or in SIC and
//! 6x6 another legal move chosen at one turn. Every frame Black's agent would receive (the
//! server's `ServerFrame::Entry` of each entry on a channel Black reads, `relay::reads`) must
//! have the same kind, channel, author, numbers (the author's `seq`, the receipt's position),
//! whether it names a `seen` and an `re`, and byte length in both runs: only hashes, signatures,
//! ciphertexts and times may differ. With v2's one global sequence and one counter per author,
//! the positions of Black's receipts and the umpire's numbers counted the attempts exactly.

use client::RandomBot;
use protocol::codec::Canonical;
use protocol::keys::ByColor;
use protocol::message::{MessageBody, Payload, Receipt};
use protocol::record::MatchRecord;
use protocol::relay::reads;
use protocol::roles::{Ask, Policy};
use protocol::terms::ColorAssignment;
use protocol::wire::ServerFrame;
use protocol::{Channel, PublicKey};
use rules::{AnyAction, Color, Variant};
use sim::selfplay::derive;
use sim::{SelfplayConfig, selfplay_with};

/// What may differ between two runs is left out: hashes (`seen`, `re`, heads), signatures,
/// ciphertexts and times. Payloads in the clear are kept whole: they are public, and the same
/// in both runs until the game's public course differs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    kind: &'static str,
    channel: Channel,
    author: PublicKey,
    /// The author's number on the channel.
    seq: u64,
    /// The receipt's position in the channel.
    position: u64,
    seen: bool,
    re: bool,
    /// The frame's bytes less its time varint.
    frame_len: usize,
    /// The payload, where it is in the clear.
    clear: Option<Vec<u8>>,
}

fn varint_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

/// The frames Black's agent receives during play (up to the first disclosure: after the end
/// the record is public and every sealed message is disclosed anyway), with the index in the
/// record of each.
fn black_frames(record: &MatchRecord) -> Vec<(usize, Shape)> {
    let agreed = record.terms.verify().expect("terms");
    let colors = colors(record);
    let black = colors.black;
    let mut out = Vec::new();
    for (i, e) in record.entries.iter().enumerate() {
        let body = MessageBody::from_canonical(&e.message.body).expect("a body");
        if !reads(&agreed, &colors, &black, body.channel) {
            continue;
        }
        if matches!(body.payload, Payload::Disclose(_)) {
            break;
        }
        let receipt = Receipt::from_canonical(&e.receipt.receipt).expect("a receipt");
        assert_eq!(receipt.channel, body.channel);
        let frame = ServerFrame::Entry(e.clone()).to_canonical();
        let clear = match &body.payload {
            Payload::Sealed(_) => None,
            p => Some(p.to_canonical()),
        };
        out.push((
            i,
            Shape {
                kind: body.payload.kind(),
                channel: body.channel,
                author: body.author,
                seq: body.seq,
                position: receipt.position,
                seen: body.seen.is_some(),
                re: body.re.is_some(),
                frame_len: frame.len() - varint_len(receipt.time_ms),
                clear,
            },
        ));
    }
    out
}

fn colors(record: &MatchRecord) -> ByColor<PublicKey> {
    let agreed = record.terms.verify().expect("terms");
    // ColorAssignment::FirstIsWhite in every run here.
    ByColor { white: agreed.terms.players[0].key, black: agreed.terms.players[1].key }
}

/// White's policy: the self-play's own default bot for player 0 (same seed, so the same
/// choices), with the hidden part changed at its `at`-th choice: `k` attempts that are never
/// legal first (Kriegspiel), or another of the offered moves (`other`).
struct Changed {
    inner: RandomBot,
    at: usize,
    asked: usize,
    attempts: usize,
    other: bool,
    inserted: usize,
}

impl Changed {
    fn new(seed: u64, at: usize, attempts: usize, other: bool) -> Changed {
        Changed {
            inner: RandomBot::new(derive(seed, "bot-0")),
            at,
            asked: 0,
            attempts,
            other,
            inserted: 0,
        }
    }
}

/// A Kriegspiel attempt no position allows: a promotion from the third rank to the fourth.
fn never_legal(i: usize) -> AnyAction {
    let file = char::from(b'a' + u8::try_from(i % 8).expect("a file"));
    let attempt = rules::kriegspiel::parse_attempt(&format!("{file}3{file}4q")).expect("UCI text");
    AnyAction::Kriegspiel(attempt)
}

impl Policy for Changed {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        let choice = matches!(ask, Ask::Choose(options) if options.len() > 1);
        if choice && self.asked == self.at && self.inserted < self.attempts {
            self.inserted += 1;
            return never_legal(self.inserted);
        }
        let picked = self.inner.decide(variant, side, ask);
        if !choice {
            return picked;
        }
        self.asked += 1;
        match ask {
            Ask::Choose(options) if self.other && self.asked == self.at + 1 => {
                let i = options.iter().position(|o| *o == picked).unwrap_or(0);
                options[(i + 1) % options.len()].clone()
            }
            _ => picked,
        }
    }
}

fn run(variant: Variant, seed: u64, white: Option<Changed>) -> MatchRecord {
    let mut config = SelfplayConfig::new(variant, seed);
    config.colors = ColorAssignment::FirstIsWhite;
    config.policies[0] = Some(Box::new(white.unwrap_or_else(|| Changed::new(seed, 0, 0, false))));
    let s = selfplay_with(config).unwrap_or_else(|e| panic!("{variant}/{seed}: {e}"));
    assert!(s.refused.is_empty(), "{variant}/{seed}: relay refused {:?}", s.refused);
    assert!(s.faults.is_empty(), "{variant}/{seed}: faults {:?}", s.faults);
    assert!(s.summary.result.is_some(), "{variant}/{seed}: no result");
    let verdict = verifier::verify(&s.bytes);
    assert!(verdict.is_valid(), "{variant}/{seed}: {verdict:?}");
    s.record
}

/// Entries on White's private channel before the first disclosure.
fn white_channel(record: &MatchRecord) -> usize {
    record
        .entries
        .iter()
        .map(|e| MessageBody::from_canonical(&e.message.body).expect("a body"))
        .take_while(|b| !matches!(b.payload, Payload::Disclose(_)))
        .filter(|b| b.channel == Channel::WhiteUmpire)
        .count()
}

#[test]
fn kriegspiel_illegal_attempts_leave_no_trace_in_what_the_opponent_receives() {
    for (seed, at, k) in [(1, 3, 3), (4, 0, 1), (4, 6, 5)] {
        let plain = run(Variant::Kriegspiel, seed, None);
        let tried = run(Variant::Kriegspiel, seed, Some(Changed::new(seed, at, k, false)));
        // The attempts happened: k more attempts on White's channel, each answered there.
        assert_eq!(
            white_channel(&tried),
            white_channel(&plain) + 2 * k,
            "seed {seed}: {k} attempts and their answers"
        );
        let (a, b) = (black_frames(&plain), black_frames(&tried));
        assert!(a.len() > 10, "seed {seed}: a game to compare");
        assert_eq!(a.len(), b.len(), "seed {seed}: as many frames");
        for ((i, x), (j, y)) in a.iter().zip(&b) {
            assert_eq!(x, y, "seed {seed}: Black's frames {i} and {j} differ in shape");
        }
        // And the runs do differ where the attempts were: the record, not Black's view.
        assert_ne!(plain.entries.len(), tried.entries.len());
    }
}

/// SIC and 6x6 hide the moves themselves: White plays another legal move at one turn, and
/// Black's frames keep their shape until the game's public course differs (a payload in the
/// clear: a `Turn`, a claim), with the turn changed included.
#[test]
fn sic_and_6x6_hidden_moves_leave_no_trace_in_what_the_opponent_receives() {
    for (variant, seed, at) in
        [(Variant::Sic, 4, 2), (Variant::Sic, 5, 5), (Variant::SecretChess6, 1, 3)]
    {
        let plain = run(variant, seed, None);
        let other = run(variant, seed, Some(Changed::new(seed, at, 0, true)));
        // Where the records part: White's changed move, on her channel.
        let split = plain
            .entries
            .iter()
            .zip(&other.entries)
            .position(|(x, y)| x.message != y.message)
            .expect("another move was played");
        let body = MessageBody::from_canonical(&plain.entries[split].message.body).expect("body");
        assert_eq!(body.channel, Channel::WhiteUmpire, "{variant}/{seed}: the change is hidden");
        let (a, b) = (black_frames(&plain), black_frames(&other));
        let mut compared_after = 0;
        for ((i, x), (_, y)) in a.iter().zip(&b) {
            if (x.clear.is_some() || y.clear.is_some()) && x.clear != y.clear {
                break; // the public course parted: from here on the games differ openly
            }
            assert_eq!(x, y, "{variant}/{seed}: Black's frame {i} differs in shape");
            if *i > split {
                compared_after += 1;
            }
        }
        assert!(
            compared_after >= 2,
            "{variant}/{seed}: the answers to the changed move were compared ({compared_after})"
        );
    }
}

// ------------------------------------------------------------------ through the real server

mod network;

use client::agent::{Accept, DeciderFactory};
use client::seat::{Decider, SeatCommand, SeatEvent};
use network::Net;
use protocol::challenge::{ChallengeRequest, ColorChoice};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

type SeatEnds = (mpsc::Sender<SeatCommand>, mpsc::UnboundedReceiver<SeatEvent>);

/// A seat decided by the test: its questions and entries come out, its answers go in.
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

/// What a seat saw until its next question: the entries delivered to it, then the options.
async fn next_ask(
    events: &mut mpsc::UnboundedReceiver<SeatEvent>,
    seen: &mut Vec<protocol::relay::Entry>,
) -> Vec<AnyAction> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), events.recv()).await {
            Ok(Some(SeatEvent::Ask(Ask::Choose(options)))) => return options,
            Ok(Some(SeatEvent::Entry(e))) => seen.push(*e),
            Ok(Some(_)) => {}
            other => panic!("no question: {other:?}"),
        }
    }
}

fn option(options: &[AnyAction], uci: &str) -> AnyAction {
    options
        .iter()
        .find(|a| a.as_move().map(|m| m.uci(rules::Alphabet::ORTHODOX)).as_deref() == Some(uci))
        .unwrap_or_else(|| panic!("{uci} is not offered"))
        .clone()
}

/// A JSON answer with what differs between two matches anyway left out: strings longer than
/// a word (ids, keys) and display names become their length, times (`*_ms`) become 0, and a map
/// keyed by keys (the `names` of the players) the sorted list of its entries' shapes. Counts,
/// flags, short words (`running`, `status`) and every other key and array length stay.
fn json_shape(v: &Value) -> Value {
    match v {
        Value::Object(m) if !m.is_empty() && m.keys().all(|k| k.starts_with("ed25519:")) => {
            let mut entries: Vec<Value> = m.values().map(json_shape).collect();
            entries.sort_by_key(Value::to_string);
            Value::Array(entries)
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match v {
                        _ if k.ends_with("_ms") => json!(0),
                        Value::String(name) if k == "name" => json!(name.len()),
                        v => json_shape(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(json_shape).collect()),
        Value::String(s) if s.len() > 16 => json!(s.len()),
        other => other.clone(),
    }
}

/// Every public answer about the live match `id` (hex), as shapes.
async fn public_shapes(net: &Net, id: &str) -> Vec<(String, Value)> {
    let lobby = net.get_json("/api/lobby").await;
    let mine: Vec<Value> = lobby["live"]
        .as_array()
        .expect("live")
        .iter()
        .filter(|m| m["id"] == id)
        .map(json_shape)
        .collect();
    assert_eq!(mine.len(), 1, "the match is in the lobby");
    let mut out = vec![("/api/lobby".to_owned(), Value::Array(mine))];
    out.push(("/api/match".into(), json_shape(&net.get_json(&format!("/api/match/{id}")).await)));
    for route in ["record", "verdict", "pgn", "replay"] {
        let (status, _) = net.get_raw(&format!("/api/match/{id}/{route}")).await;
        out.push((route.into(), json!(status)));
    }
    let (status, _) = net.get_raw(&format!("/game/{id}")).await;
    out.push(("/game".into(), json!(status)));
    out
}

/// The shape of a frame a seat received, its author by role (the two runs have other keys).
fn role_shape(agreed: &protocol::terms::AgreedTerms, e: &protocol::relay::Entry) -> Shape {
    let body = MessageBody::from_canonical(&e.message.body).expect("a body");
    let receipt = Receipt::from_canonical(&e.receipt.receipt).expect("a receipt");
    let role = if agreed.terms.umpire.as_ref().is_some_and(|u| u.key == body.author) {
        0
    } else if body.author == agreed.terms.relay {
        1
    } else {
        2 + agreed.terms.players.iter().position(|p| p.key == body.author).expect("a player")
    };
    let frame = ServerFrame::Entry(e.clone()).to_canonical();
    Shape {
        kind: body.payload.kind(),
        channel: body.channel,
        author: PublicKey([u8::try_from(role).expect("a role"); 32]),
        seq: body.seq,
        position: receipt.position,
        seen: body.seen.is_some(),
        re: body.re.is_some(),
        frame_len: frame.len() - varint_len(receipt.time_ms),
        clear: match &body.payload {
            Payload::Sealed(_) | Payload::Commit { .. } | Payload::Reveal { .. } => None,
            p => Some(p.to_canonical()),
        },
    }
}

/// A Kriegspiel match on the real server: 1. e4 a6 2. Qh5 (Black's f-pawn is pinned), Black
/// tries f7-f6 and f7-f5 if `attempts` (each answered "illegal" to Black alone), then plays
/// g7-g6, and White resigns. Returns the frames White's agent received up to its resignation
/// (setup entries sorted: the two players commit and reveal concurrently) and the public
/// answers while Black is to move, after its attempts.
async fn server_run(net: &Net, tag: &str, attempts: bool) -> (Vec<Shape>, Vec<(String, Value)>) {
    let (white_seat, black_seat) = (Remote::default(), Remote::default());
    let black = net.agent(&format!("{tag}-black"), black_seat.factory(), Accept::Addressed).await;
    let white = net.agent(&format!("{tag}-white"), white_seat.factory(), Accept::Nothing).await;
    white
        .challenge(&ChallengeRequest {
            color: ColorChoice::White,
            ..ChallengeRequest::addressed(Variant::Kriegspiel, 600, 0, black.session().key)
        })
        .await
        .expect("challenge");
    let (w_tx, mut w_ev) = white_seat.take().await;
    let (b_tx, mut b_ev) = black_seat.take().await;
    let (mut w_seen, mut b_seen) = (Vec::new(), Vec::new());
    let play = |tx: &mpsc::Sender<SeatCommand>, action: AnyAction| {
        let tx = tx.clone();
        async move { tx.send(SeatCommand::Decide(action)).await.expect("seat") }
    };
    play(&w_tx, option(&next_ask(&mut w_ev, &mut w_seen).await, "e2e4")).await;
    play(&b_tx, option(&next_ask(&mut b_ev, &mut b_seen).await, "a7a6")).await;
    play(&w_tx, option(&next_ask(&mut w_ev, &mut w_seen).await, "d1h5")).await;
    let mut options = next_ask(&mut b_ev, &mut b_seen).await;
    if attempts {
        for uci in ["f7f6", "f7f5"] {
            play(&b_tx, option(&options, uci)).await;
            options = next_ask(&mut b_ev, &mut b_seen).await;
        }
    }
    let id = net.live_of(&black.session().key, 1).await;
    let public = public_shapes(net, &protocol::hex::encode(&id.0)).await;
    play(&b_tx, option(&options, "g7g6")).await;
    let _ = next_ask(&mut w_ev, &mut w_seen).await;
    w_tx.send(SeatCommand::Resign).await.expect("resign");
    // White's frames up to its own resignation (what follows is the end, public anyway).
    let white_key = white.session().key;
    loop {
        match tokio::time::timeout(Duration::from_secs(30), w_ev.recv()).await {
            Ok(Some(SeatEvent::Entry(e))) => {
                let body = MessageBody::from_canonical(&e.message.body).expect("a body");
                w_seen.push(*e);
                if body.author == white_key && matches!(body.payload, Payload::Claim(_)) {
                    break;
                }
            }
            Ok(Some(_)) => {}
            other => panic!("no resignation: {other:?}"),
        }
    }
    let (_, record) = net.finished(&white).await;
    assert!(verifier::verify_match(&record).verdict.is_valid());
    let record = MatchRecord::from_canonical(&record).expect("record");
    let agreed = record.terms.verify().expect("terms");
    // The setup messages (the players commit and reveal at once, so which comes first is a
    // race, not a secret) in a fixed order, their positions left out; the rest in the order
    // received.
    let (mut setup, mut rest): (Vec<Shape>, Vec<Shape>) = w_seen
        .iter()
        .map(|e| role_shape(&agreed, e))
        .partition(|s| matches!(s.kind, "start" | "commit" | "reveal"));
    setup.sort_by_key(|s| (s.kind, s.author.0[0], s.seq, s.frame_len));
    for s in &mut setup {
        s.position = 0;
    }
    setup.append(&mut rest);
    (setup, public)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_server_attempts_change_no_frame_the_opponent_receives_nor_any_public_answer() {
    let net = Net::start("metadata").await;
    let (plain, plain_public) = server_run(&net, "m0", false).await;
    let (tried, tried_public) = server_run(&net, "m2", true).await;
    assert!(plain.len() > 10, "a game to compare: {plain:?}");
    assert_eq!(plain.len(), tried.len(), "as many frames: {plain:#?} {tried:#?}");
    for (i, (x, y)) in plain.iter().zip(&tried).enumerate() {
        assert_eq!(x, y, "White's frame {i} differs in shape");
    }
    assert_eq!(plain_public, tried_public, "a public answer differs in shape or count");
    net.stop().await;
}
