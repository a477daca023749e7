//! Delivery notices through the real server and a real delivery witness (docs/PROTOCOL.md,
//! delivery notices): a relay that drops White's messages (a proxy in front of the server that
//! drops White's `Message` frames and passes everything else) cannot make White lose.
//!
//! - When the witness reaches the relay, the messages offered only to the witness are delivered
//!   by it, receipted, and the game goes on to a valid record.
//! - When the relay drops the forwarded message too (the witness cannot reach it), the relay
//!   times White out: the record alone convicts White, and with White's notices the verdict is
//!   the relay's dropped message, the game void.

mod network;

use client::agent::Accept;
use network::{Net, bot, identity};
use protocol::challenge::{ChallengeRequest, ColorChoice};
use protocol::codec::Canonical;
use protocol::delivery::Delivered;
use protocol::wire::ClientFrame;
use rules::Variant;
use server::delivering::{DeliveryWitness, RelayEndpoint};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use verifier::{FaultKind, MatchRole};

/// A proxy that drops the `Message` frames a party sends over its match sockets while `drop`
/// is set (counting them), and passes everything else both ways.
#[derive(Clone)]
struct Dropper {
    base: String,
    drop: Arc<AtomicBool>,
    dropped: Arc<AtomicUsize>,
}

impl Dropper {
    /// On `listener`: one of the server's own proxy origins ([`Net::spare_listener`]), so the
    /// agent behind it can sign in (a sign-in names the origin it was made at).
    async fn start(listener: tokio::net::TcpListener, target: std::net::SocketAddr) -> Dropper {
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let d = Dropper { base, drop: Arc::default(), dropped: Arc::default() };
        let (drop, dropped) = (d.drop.clone(), d.dropped.clone());
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let (drop, dropped) = (drop.clone(), dropped.clone());
                tokio::spawn(async move {
                    let Ok(outbound) = tokio::net::TcpStream::connect(target).await else { return };
                    let (from_client, to_client) = inbound.into_split();
                    let (mut from_server, to_server) = outbound.into_split();
                    let mut to_client = to_client;
                    let down = tokio::spawn(async move {
                        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
                    });
                    upstream(from_client, to_server, &drop, &dropped).await;
                    down.abort();
                });
            }
        });
        d
    }
}

/// Client to server: the HTTP head as is; on a WebSocket, frame by frame, dropping the
/// binary frames that carry a signed message (`ClientFrame::Message` on a match socket,
/// `ClientFrame::To` on the multiplexed one) while `drop` is set.
async fn upstream(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    drop: &AtomicBool,
    dropped: &AtomicUsize,
) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        match from.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let websocket =
        String::from_utf8_lossy(&buf[..head_end]).to_lowercase().contains("upgrade: websocket");
    if to.write_all(&buf[..head_end]).await.is_err() {
        return;
    }
    buf.drain(..head_end);
    if !websocket {
        let _ = to.write_all(&buf).await;
        let _ = tokio::io::copy(&mut from, &mut to).await;
        return;
    }
    loop {
        // One whole frame in `buf` (RFC 6455 5.2; a client's frames are masked).
        let frame_len = |b: &[u8]| -> Option<(usize, usize)> {
            if b.len() < 2 {
                return None;
            }
            let masked = b[1] & 0x80 != 0;
            let (len, header) = match b[1] & 0x7f {
                126 if b.len() >= 4 => (u16::from_be_bytes([b[2], b[3]]) as usize, 4),
                127 if b.len() >= 10 => {
                    (u64::from_be_bytes(b[2..10].try_into().ok()?) as usize, 10)
                }
                126 | 127 => return None,
                n => (n as usize, 2),
            };
            let header = header + if masked { 4 } else { 0 };
            (b.len() >= header + len).then_some((header, header + len))
        };
        while let Some((header, total)) = frame_len(&buf) {
            let frame: Vec<u8> = buf.drain(..total).collect();
            let binary = frame[0] & 0x0f == 2;
            let mut payload = frame[header..].to_vec();
            if frame[1] & 0x80 != 0 {
                let mask = &frame[header - 4..header];
                for (i, b) in payload.iter_mut().enumerate() {
                    *b ^= mask[i % 4];
                }
            }
            let message = binary
                && matches!(
                    ClientFrame::from_canonical(&payload),
                    Ok(ClientFrame::Message(_) | ClientFrame::To { .. })
                );
            if message && drop.load(Ordering::SeqCst) {
                dropped.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            if to.write_all(&frame).await.is_err() {
                return;
            }
        }
        match from.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A delivery witness on 127.0.0.1 delivering to the relay at `relay_url`; its URL and key.
async fn witness(relay_url: &str) -> (String, protocol::PublicKey) {
    let id = identity("delivery-witness");
    let key = id.public();
    let relay = RelayEndpoint { key: identity("relay").public(), url: relay_url.to_owned() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    server::delivering::spawn_witness(listener, Arc::new(DeliveryWitness::new(id, vec![relay])));
    (url, key)
}

/// The notices kept in `dir`.
fn notices(dir: &std::path::Path) -> Vec<Delivered> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("the agent's directory").flatten() {
        if e.path().extension().is_some_and(|x| x == "notice") {
            let bytes = std::fs::read(e.path()).expect("read");
            out.push(Delivered::from_canonical(&bytes).expect("a notice file"));
        }
    }
    out
}

async fn challenge(alice: &client::agent::Agent, bob: &client::agent::Agent, seconds: u64) {
    alice
        .challenge(&ChallengeRequest {
            color: ColorChoice::White,
            ..ChallengeRequest::addressed(Variant::Chess, seconds, 0, bob.session().key)
        })
        .await
        .expect("challenge");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_offered_only_to_the_witness_reach_the_relay_and_the_game_goes_on() {
    let net = Net::start("delivery-goes-on").await;
    let (witness_url, witness_key) = witness(&net.base).await;
    let dropper =
        Dropper::start(net.spare_listener(), net.server.as_ref().expect("running").addr).await;
    let bob = net.agent("bob", bot(31), Accept::Addressed).await;
    let alice = net.agent_via(&dropper.base, "alice", bot(32), Accept::Nothing).await;
    alice.use_delivery_witness(&witness_url);
    dropper.drop.store(true, Ordering::SeqCst);
    challenge(&alice, &bob, 600).await;
    // White's first messages reach the relay only through the witness.
    for _ in 0..3_000 {
        if dropper.dropped.load(Ordering::SeqCst) >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(dropper.dropped.load(Ordering::SeqCst) >= 3, "the proxy dropped White's messages");
    dropper.drop.store(false, Ordering::SeqCst);
    let (_, record) = net.finished(&alice).await;
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    let kept = notices(&net.dir.join("alice"));
    assert!(kept.len() >= 3, "a notice per message offered: {}", kept.len());
    let parsed = protocol::record::MatchRecord::from_canonical(&record).expect("record");
    for n in &kept {
        let (_, body) = n.check(&[witness_key], &verified.match_id.expect("id")).expect("valid");
        assert_eq!(body.author, alice.session().key);
        let signed = n.message.signed_hash();
        assert!(
            parsed.entries.iter().any(|e| e.message.signed_hash() == signed),
            "a message offered only to the witness is in the record"
        );
    }
    // The notices change nothing in a record that has no timeout.
    let judged = verifier::verify_with_notices(&record, &kept, &[witness_key]);
    assert_eq!(judged.verdict, verified.verdict);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_that_drops_whites_messages_is_named_and_white_never_loses() {
    let net = Net::start_with("delivery-dropped", |c| {
        c.deadlines.reveal_ms = 8_000;
        c.deadlines.countersign_ms = 1_000;
        c.deadlines.resume_grace_ms = 0;
    })
    .await;
    // The relay drops the forwarded copies too: the witness cannot reach it.
    let (witness_url, witness_key) = witness("http://127.0.0.1:1").await;
    let dropper =
        Dropper::start(net.spare_listener(), net.server.as_ref().expect("running").addr).await;
    let bob = net.agent("bob", bot(33), Accept::Addressed).await;
    let alice = net.agent_via(&dropper.base, "alice", bot(34), Accept::Nothing).await;
    alice.use_delivery_witness(&witness_url);
    dropper.drop.store(true, Ordering::SeqCst);
    challenge(&alice, &bob, 600).await;
    let (_, record) = net.finished(&bob).await;
    let alice_key = alice.session().key;
    // The record alone: White (alice) fell silent, by the relay's signed timeout.
    let alone = verifier::verify_match(&record);
    let result = alone.result.expect("a forfeit");
    assert_eq!(result.winner, Some(rules::Color::Black), "{:#?}", alone.verdict);
    // With White's notices: the relay's fault, the game void, White never named.
    let kept = notices(&net.dir.join("alice"));
    assert!(!kept.is_empty(), "White's agent kept its notices");
    let judged = verifier::verify_with_notices(&record, &kept, &[witness_key]);
    let faults = judged.verdict.faults();
    assert_eq!(
        faults.first().map(|f| (f.kind, f.role)),
        Some((FaultKind::DroppedMessage, MatchRole::Relay)),
        "{judged:#?}"
    );
    assert_eq!(faults[0].culprit, Some(identity("relay").public()));
    assert!(faults.iter().all(|f| f.culprit != Some(alice_key)), "{judged:#?}");
    assert_eq!(judged.verdict.sanctioned_result(), None, "void");
    // Notices by a witness the verifier does not trust prove nothing.
    let untrusted = verifier::verify_with_notices(&record, &kept, &[identity("other").public()]);
    assert_eq!(untrusted.verdict, alone.verdict);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_witness_refuses_what_it_cannot_check() {
    let net = Net::start("delivery-refusals").await;
    let (witness_url, _) = witness(&net.base).await;
    let url = format!("{witness_url}/deliver");
    // Not a delivery request.
    let (status, _) = network::http_bytes(&url, "POST", b"\x02junk").await;
    assert_eq!(status, 400);
    // Over the body limit.
    let big = vec![0u8; server::delivering::MAX_DELIVERY_REQUEST_BYTES + 1];
    let (status, _) = network::http_bytes(&url, "POST", &big).await;
    assert_eq!(status, 413);
    // The relay route refuses a message for no live match.
    let (status, _) = net.post_bytes("/api/match/00/deliver", b"x").await;
    assert_eq!(status, 400);
    net.stop().await;
}
