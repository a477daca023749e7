//! The network end to end (real sockets on 127.0.0.1, port 0): a server, its umpire service
//! and two bot agents play a match of every variant; the record the API serves verifies valid
//! with the result the game reached, and holds every entry each agent received.

mod network;

use network::{Net, bot};
use serde_json::json;

async fn play(variant: &str, seed: u64) {
    let net = Net::start(&format!("play-{variant}-{seed}")).await;
    let bob = net.agent("bob", bot(seed * 2 + 1), client::agent::Accept::Addressed).await;
    let alice = net.agent("alice", bot(seed * 2), client::agent::Accept::Nothing).await;
    alice
        .challenge(json!({
            "variant": variant,
            "clock_limit": 600,
            "clock_increment": 0,
            "opponent": bob.session().key.to_string(),
        }))
        .await
        .expect("challenge");
    let (id, record) = net.finished(&alice).await;
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{variant}: {:#?}", verified.verdict);
    assert!(verified.result.is_some(), "{variant}: a result");
    // Every party's copy agrees: bob's seat checked the same record against what it received.
    let (_, bob_record) = net.finished(&bob).await;
    assert_eq!(bob_record, record);
    let served =
        net.get_bytes(&format!("/api/match/{}/record", protocol::hex::encode(&id.0))).await;
    assert_eq!(served, record);
    let verdict =
        net.get_json(&format!("/api/match/{}/verdict", protocol::hex::encode(&id.0))).await;
    assert_eq!(verdict["status"], "valid", "{verdict}");
    // The PGN of each view, as the library writes it from the same record.
    for (view, colour) in
        [("full", None), ("white", Some(rules::Color::White)), ("black", Some(rules::Color::Black))]
    {
        let served = net
            .get_bytes(&format!("/api/match/{}/pgn?view={view}", protocol::hex::encode(&id.0)))
            .await;
        assert_eq!(
            String::from_utf8(served).unwrap(),
            verifier::pgn::pgn(&record, colour).unwrap(),
            "{view}"
        );
    }
    let (status, _) =
        net.get_raw(&format!("/api/match/{}/pgn?view=umpire", protocol::hex::encode(&id.0))).await;
    assert_eq!(status, 400);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kriegspiel_is_played_to_the_end_over_the_network() {
    play("kriegspiel", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_is_played_to_the_end_over_the_network() {
    play("chess", 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sic_is_played_to_the_end_over_the_network() {
    play("sic", 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intrigue_is_played_to_the_end_over_the_network() {
    play("intrigue", 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secretchess6_is_played_to_the_end_over_the_network() {
    play("secretchess6", 5).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn espionage_is_played_to_the_end_over_the_network() {
    play("espionage", 6).await;
}
