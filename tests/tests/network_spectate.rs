//! Watching live games (`GET /api/match/{id}/watch`, server/src/spectate.rs) over real sockets:
//! a live chess game's public moves stream as they are played and agree with its final record;
//! every game that hides information is refused with one and the same answer, whatever its
//! moves (R-K1: no live data of a hidden game).

mod network;

use client::agent::Accept;
use network::{Net, bot};
use protocol::challenge::ChallengeRequest;
use rules::Variant;
use serde_json::{Value, json};

/// A watch stream read line by line as it comes.
struct Watch {
    r: reqwest::Response,
    buf: String,
}

impl Watch {
    async fn open(base: &str, id: &str) -> Watch {
        let r = reqwest::get(format!("{base}/api/match/{id}/watch")).await.expect("GET watch");
        assert_eq!(r.status().as_u16(), 200, "watching a live chess game");
        Watch { r, buf: String::new() }
    }

    /// The next JSON line, `None` at the end of the stream.
    async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(nl) = self.buf.find('\n') {
                let line: String = self.buf.drain(..=nl).collect();
                if !line.trim().is_empty() {
                    return Some(serde_json::from_str(line.trim()).expect("a JSON line"));
                }
            }
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(60), self.r.chunk())
                .await
                .expect("a line within 60 s")
                .expect("read")?;
            self.buf.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_chess_game_can_be_watched_and_hidden_games_cannot() {
    let net = Net::start("spectate").await;
    let agents = [
        net.agent("white-c", bot(31), Accept::Addressed).await,
        net.agent("black-c", bot(32), Accept::Nothing).await,
        net.agent("white-k", bot(33), Accept::Addressed).await,
        net.agent("black-k", bot(34), Accept::Nothing).await,
        net.agent("white-i", bot(35), Accept::Addressed).await,
        net.agent("black-i", bot(36), Accept::Nothing).await,
    ];
    for (pair, variant) in [(0, "chess"), (1, "kriegspiel"), (2, "intrigue")] {
        agents[2 * pair + 1]
            .challenge(&ChallengeRequest::addressed(
                variant.parse::<Variant>().expect("a variant"),
                600,
                0,
                agents[2 * pair].session().key,
            ))
            .await
            .expect("challenge");
    }
    let chess = net.live_of(&agents[1].session().key, 4).await;
    let chess = protocol::hex::encode(&chess.0);
    let mut watch = Watch::open(&net.base, &chess).await;

    // The start, then each move as it is played, each with the board the rules give.
    let start = watch.next().await.expect("the start line");
    assert_eq!(start["type"], "start", "{start}");
    assert_eq!(start["variant"], "chess");
    let mut moves: Vec<String> =
        start["moves"].as_array().expect("moves").iter().map(ToString::to_string).collect();

    // Meanwhile, hidden games: one answer for all, whatever their moves; nothing streamed.
    let mut answers = Vec::new();
    for (agent, entries) in [(&agents[3], 4), (&agents[3], 12), (&agents[5], 4)] {
        let id = net.live_of(&agent.session().key, entries).await;
        let path = format!("/api/match/{}/watch", protocol::hex::encode(&id.0));
        let (status, body) = net.get_raw(&path).await;
        assert_eq!(status, 403, "{body}");
        answers.push(body);
    }
    let want = json!({ "error": server::spectate::HIDDEN }).to_string();
    for a in &answers {
        assert_eq!(a, &want);
    }
    // No such live game.
    let (status, _) = net.get_raw(&format!("/api/match/{}/watch", "ab".repeat(32))).await;
    assert_eq!(status, 404);

    let mut moves_seen = 0;
    let mut closed = false;
    let mut last = start.clone();
    while let Some(l) = watch.next().await {
        match l["type"].as_str() {
            Some("move") => {
                moves.push(l["uci"].to_string());
                moves_seen += 1;
                assert_eq!(l["ply"], moves.len(), "{l}");
                assert!(l["board"].as_str().is_some_and(|b| b.contains('/')), "{l}");
                last = l;
            }
            Some("closed") => closed = true,
            other => panic!("unexpected line {other:?}: {l}"),
        }
    }
    assert!(closed, "the stream says when the game is over");
    assert!(moves_seen > 0, "the watcher saw the game advance (start had {})", start["moves"]);

    // What the watcher saw is the game the final record holds.
    let (_, record) = net.finished(&agents[1]).await;
    let replay = verifier::views::replay(&record).expect("replay");
    let played: Vec<String> =
        replay.frames.iter().map(|f| Value::String(f.action.clone()).to_string()).collect();
    assert_eq!(moves, played, "the watched moves are the record's");
    assert_eq!(last["board"].as_str(), replay.frames.last().and_then(|f| f.full.as_deref()));
    net.stop().await;
}
