//! What the host site's lists read, over real sockets: `GET /api/games` gives each finished
//! match its verdict summary (players by color, result, reason, faults and culprits), the same
//! as the match's full verdict and the offline verifier's run on its record says.

mod network;

use client::agent::Accept;
use network::{Net, bot};
use protocol::challenge::{ChallengeRequest, ColorChoice};
use rules::Variant;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_carry_their_verdict_summary() {
    let net = Net::start("web-games").await;
    let bob = net.agent("bob", bot(21), Accept::Addressed).await;
    let alice = net.agent("alice", bot(22), Accept::Nothing).await;
    alice
        .challenge(&ChallengeRequest {
            color: ColorChoice::Black,
            ..ChallengeRequest::addressed(Variant::Chess, 600, 0, bob.session().key)
        })
        .await
        .expect("challenge");
    let (id, record) = net.finished(&alice).await;
    let id = protocol::hex::encode(&id.0);
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);

    // The list waits for the server's own verdict to be stored.
    let mut row = serde_json::Value::Null;
    for _ in 0..500 {
        let games = net.get_json("/api/games?limit=5").await;
        if let Some(g) = games["games"].as_array().and_then(|l| l.iter().find(|g| g["id"] == id)) {
            row = g.clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let summary = &row["verdict"];
    assert_eq!(summary["status"], "valid", "{row}");
    // Alice chose black: the summary says so, by key.
    assert_eq!(summary["black"], alice.session().key.to_string());
    assert_eq!(summary["white"], bob.session().key.to_string());
    let verifier::Verdict::Valid { result } = verified.verdict else { unreachable!() };
    assert_eq!(summary["score"], result.score());
    assert_eq!(summary["reason"], result.reason.name());
    assert_eq!(row["result"], result.score());
    assert_eq!(summary["faults"], 0);
    assert_eq!(summary["culprits"], json!([]));
    // The same as the full verdict the game page reads.
    let full = net.get_json(&format!("/api/match/{id}/verdict")).await;
    assert_eq!(full["white"]["key"], summary["white"]);
    assert_eq!(full["result"]["reason"], summary["reason"]);
    net.stop().await;
}
