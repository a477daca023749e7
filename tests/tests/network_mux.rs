//! One connection per party (`GET /api/socket`, issue 14): an agent plays all its matches over
//! one multiplexed socket to verified ends, a cut connection resumes every match on a new one,
//! and what is wrong with one match's frames ends that match's subscription only, while what
//! is wrong with the socket's framing closes the socket (every match is opened again on a new
//! one).

mod network;

use client::agent::{Accept, Agent};
use client::net::{MatchSocket, Session};
use network::{Net, bot, identity};
use protocol::MatchId;
use protocol::challenge::ChallengeRequest;
use protocol::wire::{ClientFrame, ServerFrame};
use rules::Variant;
use std::collections::BTreeSet;
use std::time::Duration;

/// The live matches of `key` with at least `entries` stored entries each, once there are `n`.
async fn live_matches(
    net: &Net,
    key: &protocol::PublicKey,
    n: usize,
    entries: u64,
) -> Vec<MatchId> {
    for _ in 0..6_000 {
        let found: Vec<MatchId> = net
            .live_stored()
            .into_iter()
            .filter(|(_, parties, stored)| parties.contains(key) && *stored >= entries)
            .map(|(id, _, _)| id)
            .collect();
        if found.len() >= n {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{key} plays fewer than {n} live matches with {entries} entries");
}

fn connections(net: &Net, key: &protocol::PublicKey) -> usize {
    net.server.as_ref().expect("running").shared.connections.of(key)
}

/// Waits for `n` finished matches of `agent`; their records.
async fn finished(agent: &Agent, n: usize) -> Vec<(MatchId, Vec<u8>)> {
    for _ in 0..18_000 {
        let records = agent.records();
        if records.len() >= n {
            return records
                .into_iter()
                .map(|(id, r)| (id, r.unwrap_or_else(|e| panic!("{id}: {e}"))))
                .collect();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("fewer than {n} matches finished within 180 s");
}

async fn challenge(from: &Agent, to: &Agent, variant: &str) {
    from.challenge(&ChallengeRequest::addressed(
        variant.parse::<Variant>().expect("a variant"),
        600,
        0,
        to.session().key,
    ))
    .await
    .expect("challenge");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_party_plays_its_matches_over_one_connection_to_verified_ends_and_a_cut_resumes_them_all()
{
    let net = Net::start("mux-many").await;
    let bob = net.agent("bob", bot(31), Accept::Addressed).await;
    let (alice, alice_proxy) = net.agent_behind_proxy("alice", bot(32), Accept::Nothing).await;
    const N: usize = 3;
    for _ in 0..N {
        challenge(&alice, &bob, "kriegspiel").await;
    }
    let key = alice.session().key;
    let live = live_matches(&net, &key, N, 12).await;
    // Three matches, and each party holds two connections: its event stream and its one
    // socket (a socket per match would make four). The umpire service, counted apart, also
    // holds one socket for all.
    assert_eq!(connections(&net, &key), 2, "alice's connections");
    assert_eq!(connections(&net, &bob.session().key), 2, "bob's connections");
    // Alice's connection drops and stays away a moment; her agent comes back on a new socket
    // and opens every match again from the last position it holds.
    alice_proxy.block();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let still_live: BTreeSet<MatchId> =
        net.live_stored().into_iter().map(|(id, _, _)| id).collect();
    assert!(live.iter().any(|id| still_live.contains(id)), "a match was live during the cut");
    alice_proxy.unblock();
    let mine = finished(&alice, N).await;
    let theirs: std::collections::BTreeMap<MatchId, Vec<u8>> =
        finished(&bob, N).await.into_iter().collect();
    for (id, record) in &mine {
        let v = verifier::verify_match(record);
        assert!(v.verdict.is_valid(), "{id}: {:#?}", v.verdict);
        assert!(v.result.is_some(), "{id}: a result");
        // Bob's seat checked the same record against what it received.
        assert_eq!(theirs.get(id), Some(record), "{id}");
    }
    for id in &live {
        assert!(mine.iter().any(|(m, _)| m == id), "{id} finished");
    }
    net.stop().await;
}

/// Reads `s` until `want` says yes to a frame; panics on the end, an error, or 10 s.
async fn until(s: &mut MatchSocket, what: &str, want: impl Fn(&ServerFrame) -> bool) {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.next()).await {
            Ok(Some(Ok(f))) if want(&f) => return,
            Ok(Some(Ok(_))) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// Reads `s` until it ends; the reason it ended with.
async fn ended(s: &mut MatchSocket) -> String {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.next()).await {
            Err(_) => panic!("the subscription stayed open"),
            Ok(None) => return String::new(),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(e))) => return e.to_string(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_of_one_match_ends_its_subscription_only_and_a_framing_fault_closes_the_socket() {
    let net = Net::start_with("mux-faults", |c| c.limits.max_refusals_per_connection = 3).await;
    // Mallory's own agent plays two honest chess matches with carol (open games: anyone may
    // follow them); alice and bob play a hidden one.
    let carol = net.agent("carol", bot(41), Accept::Addressed).await;
    let mallory_agent = net.agent("mallory", bot(42), Accept::Nothing).await;
    let bob = net.agent("bob", bot(43), Accept::Addressed).await;
    let alice = net.agent("alice", bot(44), Accept::Nothing).await;
    challenge(&mallory_agent, &carol, "chess").await;
    challenge(&mallory_agent, &carol, "chess").await;
    challenge(&alice, &bob, "kriegspiel").await;
    let mallory_id = identity("mallory");
    let mallory = Session::sign_in(&net.base, &mallory_id, None).await.expect("sign in");
    let both = live_matches(&net, &mallory.key, 2, 4).await;
    let (one, two) = (both[0], both[1]);
    let hidden = net.live_of(&alice.session().key, 8).await;

    // Both matches on one socket of mallory's (beside her agent's).
    let mut a = mallory.open(&one, None).await.expect("open");
    let mut b = mallory.open(&two, None).await.expect("open");
    until(&mut a, "a welcome", |f| matches!(f, ServerFrame::Welcome { .. })).await;
    until(&mut b, "b welcome", |f| matches!(f, ServerFrame::Welcome { .. })).await;
    // A hidden game she does not play: that subscription is refused, the others go on.
    let mut h = mallory.open(&hidden, None).await.expect("open");
    let said = ended(&mut h).await;
    assert!(said.contains("hides information"), "{said}");

    // Carol's message, sent again by mallory on match one: its subscription ends ("nobody
    // writes for another party") ...
    let carols = loop {
        match tokio::time::timeout(Duration::from_secs(10), a.next()).await {
            Ok(Some(Ok(ServerFrame::Entry(e))))
                if e.message.verify().is_ok_and(|m| m.author == carol.session().key) =>
            {
                break e.message;
            }
            Ok(Some(Ok(_))) => {}
            other => panic!("no entry of carol's: {other:?}"),
        }
    };
    a.send(&carols).await.expect("send");
    let said = ended(&mut a).await;
    assert!(said.contains("nobody writes for another party"), "{said}");
    // ... while match two goes on on the same socket.
    until(&mut b, "b goes on", |f| matches!(f, ServerFrame::Entry(_))).await;

    // Match one again on the same socket: refused messages past the limit end it alone.
    let mut a = mallory.open(&one, None).await.expect("open");
    until(&mut a, "a welcome again", |f| matches!(f, ServerFrame::Welcome { .. })).await;
    for _ in 0..5 {
        a.send_frame(&ClientFrame::Message(vec![7; 40])).await.expect("send");
    }
    let said = ended(&mut a).await;
    assert!(said.contains("max_refusals_per_connection"), "{said}");
    until(&mut b, "b still goes on", |f| matches!(f, ServerFrame::Entry(_))).await;
    assert_eq!(connections(&net, &mallory.key), 3, "her agent's stream and socket, and this one");

    // A frame that is no ClientFrame: the socket closes, so match two's subscription ends ...
    b.send_raw(vec![0xff, 0x00, 0x13]).await.expect("send");
    let said = ended(&mut b).await;
    assert!(said.contains("bad frame"), "{said}");
    // ... and opening it again at once takes a new socket, which catches up from the start.
    let mut b = mallory.open(&two, None).await.expect("open again");
    until(
        &mut b,
        "b welcome on a new socket",
        |f| matches!(f, ServerFrame::Welcome { catch_up, .. } if *catch_up > 0),
    )
    .await;
    drop(b);

    // Nothing of this touched the honest matches: they end valid.
    for (agent, n) in [(&mallory_agent, 2), (&alice, 1)] {
        for (id, record) in finished(agent, n).await {
            let v = verifier::verify_match(&record);
            assert!(v.verdict.is_valid(), "{id}: {:#?}", v.verdict);
        }
    }
    net.stop().await;
}

/// An `Open` that races the old socket's close (sent behind a frame that makes the server
/// close the socket, before the client has read the close) is opened again on the session's
/// new socket: the match socket gets its `Welcome`, not the old socket's end. Many times over,
/// each on a fresh socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_racing_the_old_sockets_close_is_opened_again_on_a_new_socket() {
    let net = Net::start("mux-reopen").await;
    let carol = net.agent("carol", bot(51), Accept::Addressed).await;
    let mallory_agent = net.agent("mallory", bot(52), Accept::Nothing).await;
    challenge(&mallory_agent, &carol, "chess").await;
    let mallory = Session::sign_in(&net.base, &identity("mallory"), None).await.expect("sign in");
    let id = live_matches(&net, &mallory.key, 1, 2).await[0];
    let mut old = mallory.open(&id, None).await.expect("open");
    until(&mut old, "the first welcome", |f| matches!(f, ServerFrame::Welcome { .. })).await;
    for round in 0..25 {
        // A frame that is no ClientFrame closes the socket; the Open queued right behind it
        // goes out on the same socket, which the server no longer reads.
        old.send_raw(vec![0xff, 0x00, 0x13]).await.expect("send");
        let mut new = mallory.open(&id, None).await.expect("open again");
        until(
            &mut new,
            &format!("round {round}: a welcome on a new socket"),
            |f| matches!(f, ServerFrame::Welcome { catch_up, .. } if *catch_up > 0),
        )
        .await;
        // The old subscription ended (the new one replaced it, then its socket closed).
        ended(&mut old).await;
        old = new;
    }
    drop(old);
    for (id, record) in finished(&mallory_agent, 1).await {
        assert!(verifier::verify_match(&record).verdict.is_valid(), "{id}");
    }
    net.stop().await;
}
