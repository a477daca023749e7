//! Network faults (real sockets, a cuttable proxy in front of each party): players and the
//! umpire that drop and come back finish their match with a valid record; a player that never
//! comes back loses on time, as the record proves; an umpire that never comes back voids the
//! game, and the verdict names the umpire and nobody else.

mod network;

use client::agent::Accept;
use network::{Net, bot};
use protocol::challenge::{ChallengeRequest, ColorChoice};
use rules::Variant;
use std::time::Duration;
use verifier::{FaultKind, MatchRole};

fn quick(config: &mut server::Config) {
    config.limits.min_initial_clock_ms = 1_000;
    config.deadlines.reveal_ms = 3_000;
    config.deadlines.answer_ms = 3_000;
    config.deadlines.countersign_ms = 1_000;
    config.deadlines.resume_grace_ms = 0;
}

async fn challenge(
    alice: &client::agent::Agent,
    bob: &client::agent::Agent,
    variant: &str,
    seconds: u64,
) {
    alice
        .challenge(&ChallengeRequest {
            color: ColorChoice::White,
            ..ChallengeRequest::addressed(
                variant.parse::<Variant>().expect("a variant"),
                seconds,
                0,
                bob.session().key,
            )
        })
        .await
        .expect("challenge");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_umpire_that_drop_and_return_finish_with_a_valid_record() {
    let net = Net::start_with("faults-return", quick).await;
    let (bob, bob_proxy) = net.agent_behind_proxy("bob", bot(11), Accept::Addressed).await;
    let (alice, alice_proxy) = net.agent_behind_proxy("alice", bot(12), Accept::Nothing).await;
    challenge(&alice, &bob, "kriegspiel", 600).await;
    let live = net.live_with(20).await;
    // Nothing of a hidden game is published while it is played.
    for what in ["record", "verdict", "pgn"] {
        let (status, body) = net.get_raw(&format!("/api/match/{live}/{what}")).await;
        assert_eq!(status, 409, "{what}: {body}");
        assert!(body.contains("published after the end"), "{body}");
    }
    alice_proxy.cut();
    tokio::time::sleep(Duration::from_millis(300)).await;
    bob_proxy.cut();
    net.umpire_proxy.cut();
    // Out for a while (within every deadline), then back.
    alice_proxy.block();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    alice_proxy.unblock();
    let (_, record) = net.finished(&alice).await;
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    assert_eq!(net.finished(&bob).await.1, record);
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_that_never_returns_loses_on_time() {
    let net = Net::start_with("faults-player-gone", quick).await;
    let (bob, _bob_proxy) = net.agent_behind_proxy("bob", bot(13), Accept::Addressed).await;
    let (alice, alice_proxy) = net.agent_behind_proxy("alice", bot(14), Accept::Nothing).await;
    challenge(&alice, &bob, "kriegspiel", 4).await;
    net.live_with(12).await;
    alice_proxy.block();
    let (_, record) = net.finished(&bob).await;
    let verified = verifier::verify_match(&record);
    // Alice is White (the challenge says so): the relay's signed timeout proves she fell
    // silent, so she (and only she) is named, and the sanction is Black's win.
    let alice_key = alice.session().key;
    assert!(!verified.verdict.faults().is_empty(), "{:#?}", verified.verdict);
    for f in verified.verdict.faults() {
        assert_eq!(f.culprit, Some(alice_key), "only the silent player is named: {f:#?}");
        assert!(matches!(f.kind, FaultKind::Timeout | FaultKind::MissingReveal), "{f:#?}");
    }
    let result = verified.result.expect("a forfeit, not a void game");
    assert_eq!(result.winner, Some(rules::Color::Black), "{result:?}");
    net.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_umpire_that_never_returns_voids_the_game_and_is_named() {
    let net = Net::start_with("faults-umpire-gone", quick).await;
    let bob = net.agent("bob", bot(15), Accept::Addressed).await;
    let alice = net.agent("alice", bot(16), Accept::Nothing).await;
    challenge(&alice, &bob, "kriegspiel", 600).await;
    net.live_with(20).await;
    net.umpire_proxy.block();
    let (_, record) = net.finished(&alice).await;
    if let Ok(p) = std::env::var("FOGPROOF_DUMP") {
        std::fs::write(p, &record).unwrap();
    }
    let verified = verifier::verify_match(&record);
    let umpire = net.umpire.session().key;
    assert!(!verified.verdict.is_valid(), "the umpire stopped: no valid result");
    assert_eq!(verified.result, None, "void: {:#?}", verified.verdict);
    for f in verified.verdict.faults() {
        assert_eq!(f.culprit, Some(umpire), "only the umpire is named: {f:#?}");
        assert_eq!(f.role, MatchRole::Umpire);
    }
    net.stop().await;
}
