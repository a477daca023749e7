//! The network end to end (real sockets on 127.0.0.1, port 0): a server, its umpire service
//! and two bot agents play a match of every variant; the record the API serves verifies valid
//! with the result the game reached, and holds every entry each agent received.

mod network;

use network::{Net, bot};
use protocol::codec::Canonical;
use serde_json::json;

async fn play(variant: &str, seed: u64) {
    play_game(rules::GameOptions::default_for(variant.parse().expect("a variant")), seed).await;
}

/// A match of `game` (with its options, typed from the challenge to the record).
async fn play_game(game: rules::GameOptions, seed: u64) {
    let variant = game.variant();
    let net = Net::start(&format!("play-{variant}-{seed}")).await;
    let bob = net.agent("bob", bot(seed * 2 + 1), client::agent::Accept::Addressed).await;
    let alice = net.agent("alice", bot(seed * 2), client::agent::Accept::Nothing).await;
    // The typed request (protocol::challenge), as the agent and the server share it.
    let request = protocol::challenge::ChallengeRequest {
        opponent: Some(bob.session().key),
        ..protocol::challenge::ChallengeRequest::new(game, 600, 0)
    };
    alice.challenge(&request).await.expect("challenge");
    let (id, record) = net.finished(&alice).await;
    // The terms carry the options asked for, typed.
    let terms = protocol::record::MatchRecord::from_canonical(&record).expect("a record").terms;
    let terms = terms.verify().expect("signed terms").terms;
    assert_eq!(terms.game, game);
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
    for (view, color) in
        [("full", None), ("white", Some(rules::Color::White)), ("black", Some(rules::Color::Black))]
    {
        let served = net
            .get_bytes(&format!("/api/match/{}/pgn?view={view}", protocol::hex::encode(&id.0)))
            .await;
        assert_eq!(
            String::from_utf8(served).unwrap(),
            verifier::pgn::pgn(&record, color).unwrap(),
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
    // With its option (R-K4's touch-move), from the typed challenge to the verifier.
    let touch = rules::kriegspiel::Options { touch_move: true };
    play_game(rules::GameOptions::Kriegspiel(touch), 1).await;
}

/// The HTTP challenge (`POST /api/challenge`, `protocol::challenge::ChallengeRequest`): a bad
/// option value, an option the game lacks, a field the request does not have and a value of
/// the wrong type are each a 400 naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_challenge_is_a_400_naming_its_field() {
    let net = Net::start("play-bad-challenge").await;
    let alice = net.agent("alice", bot(1), client::agent::Accept::Nothing).await;
    let seal = protocol::seal::SealSecret::for_match(&network::identity("alice"), &[7; 32]);
    let seat = protocol::challenge::Seat::new(&seal.public(), &[7; 32]);
    let good = json!({
        "variant": "kriegspiel", "clock_limit": 600, "clock_increment": 0, "seat": seat,
    });
    let cases = [
        ("options", json!({ "touch-move": "maybe" }), "option 'touch-move'"),
        ("options", json!({ "spy": "original" }), "option 'spy'"),
        ("colour", json!("white"), "colour"),
        ("clock_limit", json!("600"), "clock_limit"),
        ("color", json!("purple"), "color"),
        ("opponent", json!("nobody"), "opponent"),
    ];
    for (field, value, named) in cases {
        let mut body = good.clone();
        body[field] = value;
        match alice.session().post("/api/challenge", &body).await {
            Err(client::net::NetError::Refused { status, message, .. }) => {
                assert_eq!(status, 400, "{field}: {message}");
                assert!(message.contains(named), "{field}: {message}");
            }
            other => panic!("{field}: {other:?}"),
        }
    }
    let mut no_seat = good.clone();
    no_seat.as_object_mut().expect("an object").remove("seat");
    match alice.session().post("/api/challenge", &no_seat).await {
        Err(client::net::NetError::Refused { status, message, .. }) => {
            assert_eq!((status, message.as_str()), (400, "seat: missing"));
        }
        other => panic!("no seat: {other:?}"),
    }
    // The good one is taken, and shows its options in their text form.
    let mut with_option = good;
    with_option["options"] = json!({ "touch-move": "true" });
    let made = alice.session().post("/api/challenge", &with_option).await.expect("a challenge");
    assert_eq!(made["challenge"]["options"], json!({ "touch-move": "true" }));
    net.stop().await;
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
