//! `fogproof record show` and `fogproof record pgn` on fixed self-play records (the `client`
//! crate's deterministic self-play): exact output pinned in `cli/tests/data/record/`, plus
//! independent checks (the JSON against the record's own bytes, the chess PGN's SAN replayed by
//! shakmaty, the Kriegspiel filtered views against the full view). Regenerate the pinned files
//! with `FOGPROOF_BLESS=1 cargo test -p fogproof-cli --test record` (they change whenever the
//! bots, the flow or the formats change).

use protocol::codec::Canonical;
use protocol::message::Payload;
use protocol::record::MatchRecord;
use rules::Variant;
use serde_json::json;
use shakmaty::{Chess, Position as _, san::San};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("run fogproof")
}

/// Writes the self-play record of `variant` from seed 1 and returns its path and bytes.
fn record(variant: Variant) -> (PathBuf, Vec<u8>) {
    let played = client::selfplay_with(client::SelfplayConfig::new(variant, 1)).expect("selfplay");
    let dir = std::env::temp_dir().join(format!("fogproof-record-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{variant}.rec"));
    std::fs::write(&path, &played.bytes).expect("write record");
    (path, played.bytes)
}

fn stdout_of(args: &[&str]) -> String {
    let out = fogproof(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Compares with the pinned file, or rewrites it under `FOGPROOF_BLESS=1`.
fn pinned(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/record").join(name);
    if std::env::var_os("FOGPROOF_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("data dir");
        std::fs::write(&path, actual).expect("bless");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with FOGPROOF_BLESS=1)", path.display()));
    assert!(expected == actual, "{name} differs from the pinned output:\n{actual}");
}

fn names(b: rules::Bitboard) -> Vec<String> {
    b.map(|s| s.to_string()).collect()
}

/// A 6x6 action as docs/referee/secretchess6.md and docs/record.md write it.
fn six_action(a: &rules::secretchess6::Action) -> serde_json::Value {
    use rules::secretchess6::Action as A;
    match a {
        A::Setup { formation, false_squares } => json!({
            "action": "setup", "formation": formation.to_string(), "false_squares": names(*false_squares)
        }),
        A::Move { mv } => json!({ "action": "move", "mv": mv.to_string() }),
        A::LifeFreeze { piece } => json!({ "action": "life-freeze", "piece": piece.to_string() }),
        A::EndTurn => json!({ "action": "end-turn" }),
        A::TieBreak { formation, moves } => json!({
            "action": "tie-break",
            "formation": formation.to_string(),
            "moves": moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }),
    }
}

/// A 6x6 event as docs/referee/secretchess6.md writes it.
fn six_event(e: &rules::secretchess6::Event) -> serde_json::Value {
    use rules::secretchess6::Event as E;
    let scores = |s: &rules::ByColor<u32>| json!({ "white": s.white, "black": s.black });
    match e {
        E::SetupAccepted => json!({ "event": "setup-accepted" }),
        E::OpponentReady => json!({ "event": "opponent-ready" }),
        E::Board { turn, your_turn, pieces, red } => json!({
            "event": "board", "turn": turn, "your_turn": your_turn, "red": names(*red),
            "pieces": pieces.iter().map(|p| json!({
                "square": p.square.to_string(),
                "role": serde_json::to_value(p.role).unwrap(),
                "lifespan": p.lifespan, "powered": p.powered, "frozen": p.frozen,
            })).collect::<Vec<_>>(),
        }),
        E::Moved { mv } => json!({ "event": "moved", "mv": mv.to_string() }),
        E::Passed { reason } => {
            json!({ "event": "passed", "reason": serde_json::to_value(reason).unwrap() })
        }
        E::Frozen { piece } => json!({ "event": "frozen", "piece": piece.to_string() }),
        E::Scores { turn, scores: s } => {
            json!({ "event": "scores", "turn": turn, "scores": scores(s) })
        }
        E::TieBreakNeeded { scores: s, opponent_turns } => json!({
            "event": "tie-break-needed", "scores": scores(s), "opponent_turns": opponent_turns,
        }),
        E::End { result, scores: s, tie_break } => json!({
            "event": "end",
            "result": { "winner": result.winner.map(|c| c.to_string()), "reason": result.reason.name() },
            "scores": scores(s),
            "tie_break": tie_break.as_ref().map(|t| json!({
                "formation_errors": scores(&t.formation_errors),
                "deciding_round": t.deciding_round,
            })),
        }),
    }
}

/// The moves of a PGN's movetext (numbers, comments, the result removed).
fn moves(pgn: &str) -> Vec<String> {
    let body = pgn.split("\n\n").nth(1).unwrap_or("");
    let mut out = Vec::new();
    let mut depth = 0;
    let mut word = String::new();
    for c in body.chars().chain([' ']) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if depth == 0 && c.is_whitespace() => {
                let w = std::mem::take(&mut word);
                let number = w.ends_with('.') && w.starts_with(|c: char| c.is_ascii_digit());
                let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&w.as_str());
                if !w.is_empty() && !number && !result {
                    out.push(w);
                }
            }
            c if depth == 0 => word.push(c),
            _ => {}
        }
    }
    out
}

fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    let start = format!("[{name} \"");
    pgn.lines().find_map(|l| l.strip_prefix(&start)).and_then(|l| l.strip_suffix("\"]"))
}

#[test]
fn show_prints_every_entry_decoded() {
    let (path, bytes) = record(Variant::SecretChess6);
    let text = stdout_of(&["record", "show", path.to_str().expect("utf-8 path")]);
    pinned("secretchess6-1.show.json", &text);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let record = MatchRecord::from_canonical(&bytes).expect("a record");
    let entries = json["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), record.entries.len());
    let disclosed = record.disclosures();
    let (mut actions, mut observations) = (0, 0);
    for (e, r) in entries.iter().zip(&record.entries) {
        assert_eq!(e["hash"].as_str(), Some(r.message.hash().to_string().as_str()));
        // Every sealed message of an honest record is disclosed, so none shows as undisclosed.
        assert!(e["payload"].get("undisclosed").is_none(), "{e}");
        // Every 6x6 action and observation in the shape docs/record.md gives (the referee's),
        // rebuilt here from the record's own bytes.
        let body = r.message.verify().expect("signed");
        let payload = match (&body.payload, disclosed.get(&r.message.hash())) {
            (Payload::Sealed(_), Some((_, d))) => Payload::from_canonical(&d.plaintext).unwrap(),
            (p, _) => p.clone(),
        };
        match payload {
            Payload::Action(bytes) => {
                let a = rules::secretchess6::Action::from_canonical(&bytes).expect("an action");
                assert_eq!(e["payload"]["action"], six_action(&a), "{e}");
                actions += 1;
            }
            Payload::Observation(bytes) => {
                let o = rules::secretchess6::Observation::from_canonical(&bytes).expect("events");
                let events: Vec<serde_json::Value> = o.events.iter().map(six_event).collect();
                assert_eq!(e["payload"]["observation"], json!({ "events": events }), "{e}");
                observations += 1;
            }
            _ => {}
        }
    }
    assert!(actions > 2 && observations > 2, "{actions} actions, {observations} observations");
    assert_eq!(json["terms"]["variant"], "secretchess6");
    assert_eq!(json["disclosures"].as_array().map(Vec::len), Some(record.disclosures().len()));
}

#[test]
fn chess_pgn_is_standard_san_that_replays_to_its_result() {
    let (path, _) = record(Variant::Chess);
    let pgn = stdout_of(&["record", "pgn", path.to_str().expect("utf-8 path"), "--view", "full"]);
    pinned("chess-1.full.pgn", &pgn);
    // Open game: both players' views are the full game.
    for view in ["white", "black"] {
        let p = stdout_of(&["record", "pgn", path.to_str().expect("utf-8 path"), "--view", view]);
        assert_eq!(moves(&p), moves(&pgn));
        assert_eq!(tag(&p, "View"), Some(view));
    }
    let mut pos = Chess::default();
    for san in moves(&pgn) {
        let m = San::from_ascii(san.as_bytes())
            .unwrap_or_else(|e| panic!("'{san}' is not SAN: {e}"))
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("'{san}' is not legal here: {e}"));
        pos = pos.play(m).expect("legal");
    }
    let result = tag(&pgn, "Result").expect("a Result tag");
    match tag(&pgn, "Termination") {
        Some("checkmate") => {
            assert!(pos.is_checkmate());
            assert_eq!(result, if pos.turn().is_white() { "0-1" } else { "1-0" });
        }
        Some("stalemate") => assert!(pos.is_stalemate()),
        Some("insufficient-material") => assert!(pos.is_insufficient_material()),
        _ => assert_eq!(result, "1/2-1/2"),
    }
    assert_eq!(tag(&pgn, "Variant"), Some("chess"));
    assert_eq!(tag(&pgn, "Verdict"), Some("valid"));
}

#[test]
fn kriegspiel_views_filter_the_full_game() {
    let (path, _) = record(Variant::Kriegspiel);
    let file = path.to_str().expect("utf-8 path");
    let full = stdout_of(&["record", "pgn", file, "--view", "full"]);
    let white = stdout_of(&["record", "pgn", file, "--view", "white"]);
    let black = stdout_of(&["record", "pgn", file, "--view", "black"]);
    pinned("kriegspiel-1.full.pgn", &full);
    pinned("kriegspiel-1.white.pgn", &white);
    pinned("kriegspiel-1.black.pgn", &black);
    let all = moves(&full);
    assert!(all.iter().all(|m| m != "??"));
    // Each filtered view is the full game with the opponent's moves masked (R-K1, R-K2).
    for (view, mine) in [(&white, 0), (&black, 1)] {
        let seen = moves(view);
        assert_eq!(seen.len(), all.len());
        for (i, (s, a)) in seen.iter().zip(&all).enumerate() {
            if i % 2 == mine {
                assert_eq!(s, a);
            } else {
                assert_eq!(s, "??");
            }
        }
    }
    // The opponent's illegal attempts stay hidden: White's view mentions only White's.
    let illegal = |pgn: &str| pgn.matches("illegal:").count();
    assert!(illegal(&white) + illegal(&black) >= illegal(&full));
    assert!(illegal(&white) < illegal(&full) || illegal(&black) == 0);
}

#[test]
fn pgn_of_hidden_setup_games_shows_only_the_viewers_secrets() {
    for variant in [Variant::Intrigue, Variant::SecretChess6] {
        let (path, _) = record(variant);
        let file = path.to_str().expect("utf-8 path");
        let full = stdout_of(&["record", "pgn", file, "--view", "full"]);
        let white = stdout_of(&["record", "pgn", file, "--view", "white"]);
        pinned(&format!("{variant}-1.full.pgn"), &full);
        pinned(&format!("{variant}-1.white.pgn"), &white);
        assert!(full.contains("[FEN \""), "{variant}: the full view gives the revealed start");
        assert!(!white.contains("[FEN \""), "{variant}: a player's view has no full position");
        assert!(white.contains("black sets up (secret)"), "{variant}");
        assert!(!full.contains("(secret)"), "{variant}");
    }
}

#[test]
fn bad_view_and_unreadable_file_are_errors() {
    let (path, _) = record(Variant::Chess);
    let out = fogproof(&["record", "pgn", path.to_str().expect("utf-8 path"), "--view", "grey"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "fogproof: bad view 'grey': expected white, black or full\n"
    );
    let out = fogproof(&["record", "show", "/nonexistent/record.rec"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("fogproof: cannot read"));
}

#[test]
fn pgn_of_a_record_with_a_fault_names_it_and_stops_there() {
    // An umpire that adds a pawn try to its first Kriegspiel announcement.
    let mut config = client::SelfplayConfig::new(Variant::Kriegspiel, 1);
    let lied = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = lied.clone();
    config.umpire_lie = Some(Box::new(move |_side, _i, bytes: &mut Vec<u8>| {
        if let Ok(rules::kriegspiel::Answer::Legal(mut a)) =
            rules::kriegspiel::Answer::from_canonical(bytes)
            && !flag.load(std::sync::atomic::Ordering::SeqCst)
        {
            a.pawn_tries += 1;
            *bytes = rules::kriegspiel::Answer::Legal(a).to_canonical();
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }));
    let played = client::selfplay_with(config).expect("selfplay");
    assert!(lied.load(std::sync::atomic::Ordering::SeqCst));
    let dir = std::env::temp_dir().join(format!("fogproof-record-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("kriegspiel-lie.rec");
    std::fs::write(&path, &played.bytes).expect("write record");
    let pgn = stdout_of(&["record", "pgn", path.to_str().expect("utf-8 path")]);
    assert_eq!(tag(&pgn, "Verdict"), Some("false-announcement by umpire"));
    assert_eq!(tag(&pgn, "Result"), Some("*"));
    // The replay stops at the lie: the game shown is the part before it.
    assert!(moves(&pgn).len() < 3, "{pgn}");
}
