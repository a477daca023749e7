//! The agent checks the relay's receipt times against its own clock (docs/PROTOCOL.md 16c,
//! `client::receipt_time`): a relay whose clock leaps forward mid-game post-dates the next
//! message it receipts, charging its sender time it did not take. The real server runs on a
//! clock the test moves 10 s ahead while White decides; White's agent reports the receipt as the
//! relay's fault, keeps the evidence beside its journal, and offers the message to its delivery
//! witness, whose signed notice shows it had the message well before the time the relay signed.

mod network;

use client::agent::Accept;
use client::seat::{Decider, SeatEvent};
use network::{Net, identity};
use protocol::challenge::{ChallengeRequest, ColorChoice};
use protocol::codec::Canonical;
use protocol::delivery::Delivered;
use protocol::relay::Entry;
use rules::Variant;
use server::clock::{Clock, TokioClock};
use server::delivering::{DeliveryWitness, RelayEndpoint};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// How far the relay's clock leaps.
const LEAP_MS: u64 = 10_000;

/// The system clock, plus whatever the test adds.
struct LeapingClock {
    inner: TokioClock,
    leap: Arc<AtomicU64>,
}

impl Clock for LeapingClock {
    fn now_ms(&self) -> u64 {
        self.inner.now_ms() + self.leap.load(Ordering::SeqCst)
    }

    fn instant_at(&self, ms: u64) -> tokio::time::Instant {
        self.inner.instant_at(ms.saturating_sub(self.leap.load(Ordering::SeqCst)))
    }
}

/// A random bot that moves the relay's clock ahead while it makes its `at`-th decision.
struct Leaper {
    bot: client::RandomBot,
    decisions: u32,
    at: u32,
    leap: Arc<AtomicU64>,
}

impl protocol::roles::Policy for Leaper {
    fn decide(
        &mut self,
        v: rules::Variant,
        side: rules::Color,
        ask: &protocol::roles::Ask,
    ) -> rules::AnyAction {
        self.decisions += 1;
        if self.decisions == self.at {
            self.leap.store(LEAP_MS, Ordering::SeqCst);
        }
        self.bot.decide(v, side, ask)
    }
}

fn events_of(rx: &mut mpsc::UnboundedReceiver<SeatEvent>) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        if let SeatEvent::Fault(f) = e {
            out.push(f);
        }
    }
    out
}

/// The files in `dir` whose name ends with `suffix`.
fn files(dir: &std::path::Path, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("the agent's directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_dated_receipt_is_reported_with_evidence_and_offered_to_the_witness() {
    let leap = Arc::new(AtomicU64::new(0));
    let clock = LeapingClock { inner: TokioClock::system(), leap: leap.clone() };
    let net = Net::start_with_clock("receipt-time", |_| {}, Arc::new(clock)).await;
    // A witness on the true clock, delivering to this relay.
    let witness_id = identity("delivery-witness");
    let witness_key = witness_id.public();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let witness_url = format!("http://{}", listener.local_addr().expect("addr"));
    let relay = RelayEndpoint { key: identity("relay").public(), url: net.base.clone() };
    server::delivering::spawn_witness(
        listener,
        Arc::new(DeliveryWitness::new(witness_id, vec![relay])),
    );

    let (alice_tx, mut alice_rx) = mpsc::unbounded_channel();
    let (bob_tx, mut bob_rx) = mpsc::unbounded_channel();
    let l = leap.clone();
    let alice_decider: client::agent::DeciderFactory = Arc::new(move |_| {
        let bot = client::RandomBot::new(sim::selfplay::derive(41, "bot"));
        let policy = Leaper { bot, decisions: 0, at: 4, leap: l.clone() };
        (Decider::Policy(Box::new(policy)), Some(alice_tx.clone()))
    });
    let bob_decider: client::agent::DeciderFactory = Arc::new(move |_| {
        let bot = client::RandomBot::new(sim::selfplay::derive(42, "bot"));
        (Decider::Policy(Box::new(bot)), Some(bob_tx.clone()))
    });
    let bob = net.agent("bob", bob_decider, Accept::Addressed).await;
    let alice = net.agent("alice", alice_decider, Accept::Nothing).await;
    alice.use_delivery_witness(&witness_url);
    alice
        .challenge(&ChallengeRequest {
            color: ColorChoice::White,
            ..ChallengeRequest::addressed(Variant::Chess, 600, 0, bob.session().key)
        })
        .await
        .expect("challenge");
    let (_, record) = net.finished(&alice).await;
    assert_eq!(leap.load(Ordering::SeqCst), LEAP_MS, "the relay's clock leapt mid-game");
    let record = protocol::record::MatchRecord::from_canonical(&record).expect("record");
    let relay_key = identity("relay").public();

    // White's agent: exactly one finding (the leap is reported once), naming the relay.
    let alice_dir = net.dir.join("alice");
    let kept = files(&alice_dir, ".receipt-time.json");
    assert_eq!(kept.len(), 1, "one finding: {kept:?}");
    let evidence: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&kept[0]).expect("read")).expect("json");
    assert_eq!(evidence["skew"], "post-dated", "{evidence:#}");
    assert_eq!(evidence["relay"], relay_key.to_string());
    let by = evidence["by_ms"].as_u64().expect("by_ms");
    // At most the leap, give or take the millisecond the two clocks each round to (a round
    // trip under a millisecond, with TCP_NODELAY, measured 10,001).
    assert!((LEAP_MS / 2..=LEAP_MS + 1).contains(&by), "post-dated by {by} ms: {evidence:#}");
    // The evidence holds the relay's signed entry: White's own message, in the final record.
    let entry_hex = evidence["entry"].as_str().expect("entry");
    let entry =
        Entry::from_canonical(&protocol::hex::decode(entry_hex).expect("hex")).expect("entry");
    let receipt = entry.receipt.open(&relay_key).expect("signed by the relay");
    assert_eq!(evidence["receipt_time_ms"].as_u64(), Some(receipt.time_ms));
    let body = entry.message.verify().expect("signed");
    assert_eq!(body.author, alice.session().key);
    assert!(record.entries.iter().any(|e| e.to_canonical() == entry.to_canonical()));
    // The seat said so, naming the relay.
    let mut said = events_of(&mut alice_rx);
    // The witness's answer comes in a task of its own.
    for _ in 0..1_000 {
        if said.iter().any(|f| f.contains("delivery witness")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        said.extend(events_of(&mut alice_rx));
    }
    let findings: Vec<_> =
        said.iter().filter(|f| f.contains("relay fault (receipt time)")).collect();
    assert_eq!(findings.len(), 1, "{said:#?}");
    assert!(findings[0].contains("post-dated") && findings[0].contains(&relay_key.to_string()));
    assert!(said.iter().any(|f| f.contains("offered to the delivery witness")), "{said:#?}");

    // The witness's notice: signed, for that very message, at a time well before the one the
    // relay signed (the witness's clock did not leap).
    let notices = files(&alice_dir, ".notice");
    let notice = notices
        .iter()
        .map(|p| Delivered::from_canonical(&std::fs::read(p).expect("read")).expect("notice"))
        .find(|n| n.message.signed_hash() == entry.message.signed_hash())
        .expect("a notice for the message");
    let (signed, _) = notice.check(&[witness_key], &body.match_id).expect("a valid notice");
    assert!(
        signed.witness_time_ms + LEAP_MS / 2 < receipt.time_ms,
        "the witness had it at {}, the relay says {}",
        signed.witness_time_ms,
        receipt.time_ms
    );

    // Black's agent saw the leap too, at its own next message, and blamed only the relay.
    let bob_said = events_of(&mut bob_rx);
    for f in bob_said.iter().filter(|f| f.contains("receipt time")) {
        assert!(f.contains(&relay_key.to_string()), "{f}");
    }
    net.stop().await;
}
