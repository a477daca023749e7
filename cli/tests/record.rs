//! `fogproof record show` and `fogproof record pgn` on fixed self-play records (the `client`
//! crate's deterministic self-play): exact output pinned in `cli/tests/data/record/`, plus
//! independent checks of every pinned file: the JSON against the record's own bytes; the chess
//! PGN's SAN replayed by shakmaty; the Kriegspiel PGN replayed by shakmaty with every comment
//! re-derived from R-K1/R-K2 (the oracle of `rules/tests/shakmaty_oracle`) and each filtered
//! view rebuilt from the full one; the Intrigue PGN replayed on the slow model of
//! `rules/tests/intrigue_slow` (start position from the setups, R-I2 comments, the end); the
//! 6x6 PGN replayed on the oracle of `rules/tests/secretchess6_slow` (red squares, scores,
//! passes, the end by score). Regenerate the pinned files with
//! `FOGPROOF_BLESS=1 cargo test -p fogproof-cli --test record` (they change whenever the bots,
//! the flow or the formats change); the independent checks then judge the new files.

#[path = "../../rules/tests/shakmaty_oracle/mod.rs"]
mod shakmaty_oracle;

#[path = "../../rules/tests/intrigue_slow/mod.rs"]
mod intrigue_slow;

#[path = "../../rules/tests/secretchess6_slow/mod.rs"]
mod secretchess6_slow;

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
    let played = sim::selfplay_with(sim::SelfplayConfig::new(variant, 1)).expect("selfplay");
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
fn show_prints_the_pinned_json() {
    let (path, _) = record(Variant::SecretChess6);
    let text = stdout_of(&["record", "show", path.to_str().expect("utf-8 path")]);
    pinned("secretchess6-1.show.json", &text);
}

/// The pinned JSON of `record show`, checked against the record's own bytes.
#[test]
fn show_json_is_every_entry_of_the_record_decoded() {
    let (_, bytes) = record(Variant::SecretChess6);
    let text = pinned_text("secretchess6-1.show.json");
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
    show_fields_are_the_records(&json, &bytes, &record);
}

/// The rest of `record show`'s JSON, field by field, against the record's own bytes (decoded
/// by the protocol crate, keys and hashes written out here) and the verifier's verified match
/// (who is White, who is Black): docs/record.md's shape.
fn show_fields_are_the_records(json: &serde_json::Value, bytes: &[u8], record: &MatchRecord) {
    use protocol::hex::encode;
    use protocol::message::{MessageBody, Receipt};
    let key = |k: &protocol::PublicKey| format!("ed25519:{}", encode(&k.0));
    let verified = verifier::verify_match(bytes);
    assert!(verified.verdict.is_valid(), "an honest record");
    let players = verified.players.expect("players by color");
    assert!(verified.colors_known);
    let terms = protocol::terms::MatchTerms::from_canonical(&record.terms.terms).expect("terms");
    let umpire = terms.umpire.as_ref().expect("6x6 has an umpire");
    assert_eq!(json["version"], record.version);
    assert_eq!(json["match_id"], verified.match_id.expect("an id").to_string());
    assert_eq!(
        json["colours"],
        json!({ "white": key(&players.white), "black": key(&players.black) })
    );
    let t = &json["terms"];
    assert_eq!(t["ruleset"], terms.ruleset());
    assert_eq!(t["relay"], key(&terms.relay));
    assert_eq!(
        t["umpire"],
        json!({ "key": key(&umpire.key), "seal_key": encode(&umpire.seal_key.0) })
    );
    let tc = terms.time_control;
    assert_eq!(
        t["time_control"],
        json!({ "initial_ms": tc.initial_ms, "increment_ms": tc.increment_ms, "reveal_ms": tc.reveal_ms })
    );
    for (i, p) in terms.players.iter().enumerate() {
        let want = json!({ "key": key(&p.key), "seal_key": encode(&p.seal_key.0), "nonce": encode(&p.nonce) });
        assert_eq!(t["players"][i], want, "player {i}");
    }
    let entries = json["entries"].as_array().expect("entries");
    for (i, (e, r)) in entries.iter().zip(&record.entries).enumerate() {
        let body = MessageBody::from_canonical(&r.message.body).expect("a body");
        let receipt = Receipt::from_canonical(&r.receipt.receipt).expect("a receipt");
        let role = if body.author == players.white {
            "white"
        } else if body.author == players.black {
            "black"
        } else if body.author == umpire.key {
            "umpire"
        } else {
            assert_eq!(body.author, terms.relay, "entry {i}: an author the terms name");
            "relay"
        };
        let sealed = matches!(body.payload, Payload::Sealed(_));
        assert_eq!(receipt.channel, body.channel, "entry {i}: the receipt names its channel");
        let scalars = json!({
            "index": i, "position": receipt.position, "seq": body.seq,
            "time_ms": receipt.time_ms, "head": encode(&receipt.head.0),
            "after": encode(&receipt.after.0), "order": encode(&receipt.order().0),
            "author": key(&body.author), "role": role,
            "channel": body.channel.to_string(), "sealed": sealed,
            "re": body.re.map(|h| encode(&h.0)),
            "seen": body.seen.map(|s| json!({ "order": encode(&s.order.0) })),
        });
        for (name, want) in scalars.as_object().expect("an object") {
            assert_eq!(&e[name], want, "entry {i}: {name}");
        }
        match &body.payload {
            Payload::Commit { purpose, commitment } => assert_eq!(
                e["payload"],
                json!({ "commit": { "purpose": purpose, "commitment": encode(&commitment.0) } }),
                "entry {i}"
            ),
            Payload::Disclose(items) => {
                let want: Vec<serde_json::Value> = items
                    .iter()
                    .map(|d| {
                        json!({
                            "channel": d.channel.to_string(),
                            "seal_seed": encode(&d.seal_seed),
                            "key": encode(&d.key),
                        })
                    })
                    .collect();
                assert_eq!(e["payload"], json!({ "disclose": want }), "entry {i}");
            }
            Payload::Start => assert_eq!(e["payload"], "start"),
            Payload::Close { .. } => assert_eq!(e["payload"], "close"),
            Payload::Countersign => assert_eq!(e["payload"], "countersign"),
            _ => {}
        }
    }
    let want: Vec<serde_json::Value> = record
        .disclosures()
        .iter()
        .map(|(m, (entry, d))| json!({ "message": encode(&m.0), "entry": entry, "seal_seed": encode(&d.seal_seed) }))
        .collect();
    assert_eq!(json["disclosures"], json!(want));
}

#[test]
fn chess_pgn_is_pinned_and_every_view_is_the_full_game() {
    let (path, _) = record(Variant::Chess);
    let pgn = stdout_of(&["record", "pgn", path.to_str().expect("utf-8 path"), "--view", "full"]);
    pinned("chess-1.full.pgn", &pgn);
    // Open game: both players' views are the full game.
    for view in ["white", "black"] {
        let p = stdout_of(&["record", "pgn", path.to_str().expect("utf-8 path"), "--view", view]);
        assert_eq!(moves(&p), moves(&pgn));
        assert_eq!(tag(&p, "View"), Some(view));
    }
}

/// The pinned chess PGN is standard SAN that shakmaty replays to the tagged result.
#[test]
fn chess_pgn_is_standard_san_that_replays_to_its_result() {
    let pgn = pinned_text("chess-1.full.pgn");
    let mut pos = Chess::default();
    for san in moves(&pgn) {
        let m = San::from_ascii(san.trim_end_matches(['+', '#']).as_bytes())
            .unwrap_or_else(|e| panic!("'{san}' is not SAN: {e}"))
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("'{san}' is not legal here: {e}"));
        // Exactly shakmaty's SAN, check and mate suffixes included.
        let want = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
        assert_eq!(san, want, "the SAN of {m:?}");
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
    let mut config = sim::SelfplayConfig::new(Variant::Kriegspiel, 1);
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
    let played = sim::selfplay_with(config).expect("selfplay");
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

// ---- Independent checks of the pinned PGN files ----

/// A pinned file's text.
fn pinned_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/record").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A PGN's movetext: the comments before the first move, then each move with the comments
/// that follow it (whitespace inside a comment collapsed, since the layout wraps lines).
#[derive(Debug, PartialEq)]
struct Movetext {
    preamble: Vec<String>,
    plies: Vec<(String, Vec<String>)>,
}

fn movetext(pgn: &str) -> Movetext {
    let body = pgn.split("\n\n").nth(1).unwrap_or("");
    let mut m = Movetext { preamble: Vec::new(), plies: Vec::new() };
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c == '{' {
            let end = rest.find('}').expect("a closed comment");
            let text = rest[1..end].split_whitespace().collect::<Vec<_>>().join(" ");
            match m.plies.last_mut() {
                Some((_, comments)) => comments.push(text),
                None => m.preamble.push(text),
            }
            rest = &rest[end + 1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let w = &rest[..end];
            let number = w.ends_with('.') && w.starts_with(|c: char| c.is_ascii_digit());
            if !number && !["1-0", "0-1", "1/2-1/2", "*"].contains(&w) {
                m.plies.push((w.to_string(), Vec::new()));
            }
            rest = &rest[end..];
        }
    }
    m
}

/// The tag pairs, in order.
fn tags(pgn: &str) -> Vec<(String, String)> {
    pgn.lines()
        .take_while(|l| l.starts_with('['))
        .map(|l| {
            let (name, value) = l[1..l.len() - 1].split_once(' ').expect("a tag pair");
            (name.to_string(), value.trim_matches('"').to_string())
        })
        .collect()
}

/// A view's tags are the full view's with `View` changed and without the revealed start.
fn check_view_tags(full: &str, view: &str, side: &str) {
    let want: Vec<(String, String)> = tags(full)
        .into_iter()
        .filter(|(n, _)| n != "SetUp" && n != "FEN")
        .map(|(n, v)| if n == "View" { (n, side.to_string()) } else { (n, v) })
        .collect();
    assert_eq!(tags(view), want, "{side}'s view: tags");
}

/// The result tag of a win by `white` (or not).
fn score_of_winner(white: bool) -> &'static str {
    if white { "1-0" } else { "0-1" }
}

/// Kriegspiel's announcement as docs/record.md writes it (R-K2).
fn r_k2_text(a: &rules::kriegspiel::Announcement) -> String {
    let mut parts = Vec::new();
    if let Some(c) = a.capture {
        let kind = match c.kind {
            rules::kriegspiel::CaptureKind::Pawn => "pawn",
            rules::kriegspiel::CaptureKind::Piece => "piece",
        };
        let ep = if c.en_passant { ", en passant" } else { "" };
        parts.push(format!("capture at {} ({kind}{ep})", c.square));
    }
    if !a.checks.is_empty() {
        let kinds: Vec<&str> = a.checks.iter().map(|k| k.name()).collect();
        parts.push(format!("check: {}", kinds.join(", ")));
    }
    parts.push(format!("pawn tries: {}", a.pawn_tries));
    if let Some(end) = a.end {
        parts.push(end.name().to_string());
    }
    parts.join("; ")
}

#[test]
fn kriegspiel_pgn_replays_and_every_comment_is_what_r_k1_r_k2_tell() {
    use shakmaty::{Position as _, san::SanPlus, uci::UciMove};
    let full = pinned_text("kriegspiel-1.full.pgn");
    let game = movetext(&full);
    assert!(game.preamble.is_empty());
    let mut line = shakmaty_oracle::Line::from_fen(rules::chess::START_FEN);
    let mut last = None;
    for (i, (san, comments)) in game.plies.iter().enumerate() {
        let at = format!("ply {} ({san})", i + 1);
        assert_eq!(comments.len(), 1, "{at}: one comment per move");
        let mut parts: Vec<&str> = comments[0].split("; ").collect();
        // R-K1: every attempt listed was illegal, and by a man of the mover.
        if let Some(list) = parts[0].strip_prefix("illegal: ") {
            for uci in list.split(' ') {
                let attempt: UciMove = uci.parse().unwrap_or_else(|e| panic!("{at}: {uci}: {e}"));
                assert!(attempt.to_move(&line.pos).is_err(), "{at}: {uci} is legal");
                let UciMove::Normal { from, .. } = attempt else { panic!("{at}: {uci}") };
                let mover = line.pos.board().color_at(from);
                assert_eq!(mover, Some(line.pos.turn()), "{at}: {uci} moves no man of the mover");
            }
            parts.remove(0);
        }
        let m = shakmaty::san::San::from_ascii(san.trim_end_matches(['+', '#']).as_bytes())
            .unwrap_or_else(|e| panic!("{at}: not SAN: {e}"))
            .to_move(&line.pos)
            .unwrap_or_else(|e| panic!("{at}: not legal: {e}"));
        assert_eq!(san, &SanPlus::from_move(line.pos.clone(), m).to_string(), "{at}: the SAN");
        let (next, answer) = shakmaty_oracle::r_k2_announcement(&line, m);
        let rules::kriegspiel::Answer::Legal(a) = answer else { unreachable!("a legal move") };
        assert_eq!(parts.join("; "), r_k2_text(&a), "{at}: the announcement (R-K2)");
        assert!(line.end().is_none(), "{at}: the game had already ended");
        last = a.end;
        line = next;
    }
    assert_eq!(last.map(|e| e.name()), tag(&full, "Termination"));
    if last == Some(rules::kriegspiel::End::Checkmate) {
        let winner_white = line.pos.turn() == shakmaty::Color::Black;
        assert_eq!(tag(&full, "Result"), Some(score_of_winner(winner_white)));
    }
}

#[test]
fn kriegspiel_views_are_the_full_game_as_each_side_heard_it() {
    let full = pinned_text("kriegspiel-1.full.pgn");
    let all = movetext(&full);
    for (side, mine) in [("white", 0), ("black", 1)] {
        let view = pinned_text(&format!("kriegspiel-1.{side}.pgn"));
        check_view_tags(&full, &view, side);
        // Its own moves and attempts as played; each opponent move as `??` with only what both
        // were told (R-K2), never the opponent's illegal attempts (R-K1).
        let plies = all
            .plies
            .iter()
            .enumerate()
            .map(|(i, (san, comments))| {
                if i % 2 == mine {
                    (san.clone(), comments.clone())
                } else {
                    let heard = comments
                        .iter()
                        .map(|c| {
                            let parts: Vec<&str> =
                                c.split("; ").filter(|p| !p.starts_with("illegal: ")).collect();
                            parts.join("; ")
                        })
                        .collect();
                    ("??".to_string(), heard)
                }
            })
            .collect();
        assert_eq!(movetext(&view), Movetext { preamble: Vec::new(), plies }, "{side}'s view");
    }
}

/// R-I1's start: the orthodox armies without kings, a queen on the king's square if chosen,
/// each king's hiding square and informer in the extra fields (R-I6).
fn intrigue_start(setups: &[(String, String, bool); 2]) -> String {
    let rank = |white: bool, queen_on_king: bool| {
        let r = if queen_on_king { "rnb1qbnr" } else { "rnbq1bnr" };
        if white { r.to_uppercase() } else { r.to_string() }
    };
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1 {},{} {},{}",
        rank(false, setups[1].2),
        rank(true, setups[0].2),
        setups[0].0,
        setups[1].0,
        setups[0].1,
        setups[1].1
    )
}

/// Parses `white sets up: king hides on a8, informer e2, queen on the king's square: yes`.
fn intrigue_setup(comment: &str, side: &str) -> (String, String, bool) {
    let rest = comment
        .strip_prefix(&format!("{side} sets up: king hides on "))
        .unwrap_or_else(|| panic!("not {side}'s setup: {comment}"));
    let (king, rest) = rest.split_once(", informer ").expect("an informer");
    let (informer, queen) = rest.split_once(", queen on the king's square: ").expect("a queen");
    (king.to_string(), informer.to_string(), queen == "yes")
}

/// R-C2's automatic draws and R-I3's ends of an Intrigue position, by name.
fn intrigue_end(p: &intrigue_slow::Slow, halfmove: u32, seen: &[String]) -> Option<&'static str> {
    let us = p.white;
    if p.moves().is_empty() {
        let mated = p.king(us).is_some_and(|k| p.attacked(k, !us));
        return Some(if mated { "checkmate" } else { "stalemate" });
    }
    let others: Vec<(char, usize)> = (0..64)
        .filter(|&i| p.sq[i] != '.' && !p.sq[i].eq_ignore_ascii_case(&'k'))
        .map(|i| (p.sq[i].to_ascii_lowercase(), (i % 8 + i / 8) % 2))
        .collect();
    let insufficient = match others.as_slice() {
        [] | [('n', _)] => true,
        [(_, color), ..] => others.iter().all(|&(r, c)| r == 'b' && c == *color),
    };
    if insufficient {
        return Some("insufficient-material");
    }
    if seen.iter().filter(|k| **k == seen[seen.len() - 1]).count() >= 3 {
        return Some("repetition");
    }
    (halfmove >= 100).then_some("fifty-move")
}

#[test]
fn intrigue_pgn_replays_on_the_slow_model_from_the_setups() {
    use intrigue_slow::{Slow, at, fc, is_white};
    let full = pinned_text("intrigue-1.full.pgn");
    let game = movetext(&full);
    assert_eq!(game.preamble.len(), 2, "both setups");
    let setups =
        [intrigue_setup(&game.preamble[0], "white"), intrigue_setup(&game.preamble[1], "black")];
    let fen = intrigue_start(&setups);
    assert_eq!(tag(&full, "FEN"), Some(fen.as_str()), "the FEN tag is R-I1's start");
    let mut p = Slow::parse(&fen);
    let key = |p: &Slow| format!("{:?}", (p.sq, p.white, &p.castle, p.hidden, p.informer));
    let mut seen = vec![key(&p)];
    let mut halfmove = 0;
    let mut end = None;
    let name = |i: usize| format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1);
    let role = |c: char| match c.to_ascii_lowercase() {
        'p' => "pawn",
        'n' => "knight",
        'b' => "bishop",
        'r' => "rook",
        'q' => "queen",
        _ => "king",
    };
    let side = |c: char| if is_white(c) { "white" } else { "black" };
    for (i, (uci, comments)) in game.plies.iter().enumerate() {
        let ply = format!("ply {} ({uci})", i + 1);
        assert_eq!(end, None, "{ply}: the game had already ended");
        let m = p
            .moves()
            .into_iter()
            .find(|&(f, t, pr)| format!("{}{}{}", name(f), name(t), pr).trim() == uci);
        let m = m.unwrap_or_else(|| panic!("{ply}: not a legal move"));
        let (from, to, _) = m;
        let mover = p.sq[from];
        let (f0, r0) = fc(from);
        let (f1, _) = fc(to);
        let pawn = mover.eq_ignore_ascii_case(&'p');
        let victim = if pawn && f0 != f1 && p.sq[to] == '.' { at(f1, r0) } else { Some(to) };
        let taken = victim.map(|v| (v, p.sq[v])).filter(|(_, c)| *c != '.');
        // R-I2: a captured pawn's owner says whether it was the informer, and if so its king
        // appears on its hiding square, removing what stands there.
        let want: Vec<String> = taken
            .filter(|(_, c)| c.eq_ignore_ascii_case(&'p'))
            .map(|(v, c)| {
                let owner = usize::from(!is_white(c));
                if p.informer[owner] != Some(v) {
                    return format!("the pawn was not {}'s informer", side(c));
                }
                let hiding = p.hidden[owner].expect("an informer's king hides");
                let mut plain = p.clone();
                plain.informer = [None, None];
                let there = plain.apply(m).0.sq[hiding];
                let removed = if there == '.' {
                    String::new()
                } else {
                    format!(", removing the {} {}", side(there), role(there))
                };
                format!(
                    "the pawn was {}'s informer: its king appears on {}{removed}",
                    side(c),
                    name(hiding)
                )
            })
            .into_iter()
            .collect();
        assert_eq!(comments, &want, "{ply}: what R-I2 tells");
        let (next, ended) = p.apply(m);
        halfmove = if pawn || taken.is_some() { 0 } else { halfmove + 1 };
        if halfmove == 0 {
            seen.clear();
        }
        seen.push(key(&next));
        p = next;
        end = if ended { Some("king-captured") } else { intrigue_end(&p, halfmove, &seen) };
    }
    assert_eq!(end, tag(&full, "Termination"), "the end");
    let result = tag(&full, "Result");
    match end {
        Some("stalemate" | "insufficient-material" | "repetition" | "fifty-move") => {
            assert_eq!(result, Some("1/2-1/2"));
        }
        Some("checkmate") => assert_eq!(result, Some(score_of_winner(!p.white))),
        // R-I4: the appearing side, now to move, took the king.
        Some("king-captured") => assert_eq!(result, Some(score_of_winner(p.white))),
        other => panic!("an end this check does not judge: {other:?}"),
    }
}

#[test]
fn intrigue_white_view_hides_only_blacks_secret_setup() {
    let full = pinned_text("intrigue-1.full.pgn");
    let view = pinned_text("intrigue-1.white.pgn");
    check_view_tags(&full, &view, "white");
    let mut want = movetext(&full);
    // Black's king square and informer are secret (R-I1); its queen choice is public.
    let (_, _, queen) = intrigue_setup(&want.preamble[1], "black");
    let queen = if queen { "yes" } else { "no" };
    want.preamble[1] = format!("black sets up (secret); queen on the king's square: {queen}");
    assert_eq!(movetext(&view), want, "white's view");
}

/// A 6x6 setup comment: `white sets up 1RQBNK, false squares: none` (or `a4 b5`).
fn six_setup(comment: &str) -> (rules::Color, rules::secretchess6::Formation, rules::Bitboard) {
    let (side, rest) = comment.split_once(" sets up ").expect("a setup");
    let (formation, falses) = rest.split_once(", false squares: ").expect("false squares");
    let sq = |n: &str| rules::Square::parse(n, rules::BoardSize::Six).expect("a square");
    let falses =
        if falses == "none" { rules::Bitboard::EMPTY } else { falses.split(' ').map(sq).collect() };
    let side = rules::Color::parse(side).expect("a side");
    (side, rules::secretchess6::Formation::parse(formation).expect("a formation"), falses)
}

/// What docs/record.md's 6x6 comments say of `told` for the sides in `sides`: each board
/// update's red squares, the scores (in the full view as told to White), passes.
fn six_comment(told: &secretchess6_slow::game::Told, sides: &[rules::Color]) -> Vec<String> {
    use rules::secretchess6::Event;
    let mut parts = Vec::new();
    for &side in sides {
        for e in &told[side.index()] {
            match e {
                Event::Board { red, .. } => {
                    let names: Vec<String> = red.map(|s| s.to_string()).collect();
                    parts.push(format!("{side}'s red squares: {}", names.join(" ")));
                }
                Event::Scores { scores, .. } if side == sides[0] => {
                    parts.push(format!("scores {}-{}", scores.white, scores.black));
                }
                Event::Passed { reason } => {
                    let reason = match reason {
                        rules::secretchess6::PassReason::OnlyKing => "only-king",
                        rules::secretchess6::PassReason::NoLegalMove => "no-legal-move",
                    };
                    parts.push(format!("{side} passes ({reason})"));
                }
                _ => {}
            }
        }
    }
    if parts.is_empty() { Vec::new() } else { vec![parts.join("; ")] }
}

#[test]
fn secretchess6_pgns_replay_on_the_oracle() {
    use rules::secretchess6::{Action, TurnMove};
    use secretchess6_slow::game::{Game6, Phase, Told};
    let full = pinned_text("secretchess6-1.full.pgn");
    let white = pinned_text("secretchess6-1.white.pgn");
    check_view_tags(&full, &white, "white");
    let game = movetext(&full);
    let [a, b] = [six_setup(&game.preamble[0]), six_setup(&game.preamble[1])];
    let (w, bl) = if a.0 == rules::Color::White { (a, b) } else { (b, a) };
    // The FEN tag: both formations on their first ranks, no false squares shown (R-G1 keeps
    // them secret from the position string's board), White to move, turn 1.
    let rank = |f: &rules::secretchess6::Formation, white: bool| {
        let mut out = String::new();
        let mut empty = 0;
        for r in f.files() {
            match r {
                None => empty += 1,
                Some(r) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    let c = rules::Alphabet::SECRET_CHESS.char(r).expect("K Q R B N");
                    out.push(if white { c.to_ascii_uppercase() } else { c });
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        out
    };
    let squares = |b: rules::Bitboard| {
        let v: Vec<String> = b.map(|s| s.to_string()).collect();
        if v.is_empty() { "-".to_string() } else { v.join(",") }
    };
    let fen = format!(
        "{}/6/6/6/6/{} w - {} - 0-0 1",
        rank(&bl.1, false),
        rank(&w.1, true),
        squares(w.2 | bl.2)
    );
    assert_eq!(tag(&full, "FEN"), Some(fen.as_str()), "the FEN tag");
    let options = rules::secretchess6::Options::default();
    let mut g = Game6::new(&options, [&w.1, &bl.1], [w.2, bl.2]);
    let mut told: Told = [Vec::new(), Vec::new()];
    told[1].push(g.board(false));
    g.start_turn(&mut told);
    let both = [rules::Color::White, rules::Color::Black];
    let only_white = [rules::Color::White];
    assert_eq!(game.preamble[2..], six_comment(&told, &both)[..], "the boards at the start");
    // White's view: its own setup as in the full view, Black's secret (R-G1).
    let setups = game.preamble[..2].iter().map(|c| {
        if c.starts_with("black ") { "black sets up (secret)".to_string() } else { c.clone() }
    });
    let mut white_view = Movetext { preamble: setups.collect(), plies: Vec::new() };
    white_view.preamble.extend(six_comment(&told, &only_white));
    for (i, (text, comments)) in game.plies.iter().enumerate() {
        let at = format!("ply {} ({text})", i + 1);
        let mover = if g.pos.white_to_move { rules::Color::White } else { rules::Color::Black };
        let action = Action::Move { mv: TurnMove::parse(text).expect("a move") };
        assert!(g.actions().contains(&(mover, action.clone())), "{at}: not a legal move");
        let (next, told) = g.apply(&action);
        assert_eq!(comments, &six_comment(&told, &both), "{at}: what each side was told");
        let shown = if mover == rules::Color::White { text.clone() } else { "??".to_string() };
        white_view.plies.push((shown, six_comment(&told, &only_white)));
        g = next;
    }
    let Phase::Over(result) = g.phase else { panic!("the game has not ended after the last move") };
    assert_eq!(tag(&full, "Termination"), Some(result.reason.name()));
    assert_eq!(tag(&full, "Result"), Some(result.score()));
    assert_eq!(movetext(&white), white_view, "white's view");
}
