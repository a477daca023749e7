//! The test vectors of `docs/LEDGER.md`, read from the document itself: each vector sits in a
//! fenced block after a `<!-- spec: NAME -->` marker, and this test rebuilds the same value from
//! the inputs the document states and compares, so the document and the code cannot drift.
//!
//! Byte dumps are hex, one field per line, with `;` starting a comment; enum tables, standings
//! and ratings are compared in the forms the document gives them.

use ed25519_dalek::SigningKey;
use ledger::bundle;
use ledger::entry::{
    Absence, ENTRY_VERSION, EntryBody, EntryFault, EntryVerdict, LedgerEntry, MatchContext,
    MatchEntry, RoundEntry, TournamentEntry, TournamentRound, sha256,
};
use ledger::history::{RoundState, TournamentState};
use ledger::merkle::leaf_hash;
use ledger::rating::{Params, RatedGame, Ratings, Score};
use ledger::tournament::definition::{
    Entrant, SignedDefinition, System, TieBreak, TournamentDefinition,
};
use ledger::tournament::{ByeKind, GameResult, Pairings};
use protocol::PublicKey;
use protocol::codec::Canonical;
use rules::{Color, EndReason, Variant};
use serde::Serialize;
use verifier::{FaultKind, MatchRole};

/// The document, as compiled into this test.
const DOC: &str = include_str!("../../docs/LEDGER.md");

/// The body of the first fenced block after `<!-- spec: NAME -->`.
fn block(name: &str) -> &'static str {
    let marker = format!("<!-- spec: {name} -->");
    let at = DOC.find(&marker).unwrap_or_else(|| panic!("docs/LEDGER.md has no {marker}"));
    let rest = &DOC[at + marker.len()..];
    let open = rest.find("```").unwrap_or_else(|| panic!("no block after {marker}"));
    let rest = &rest[open..];
    let body_start = rest.find('\n').expect("a fence line") + 1;
    let body = &rest[body_start..];
    let close = body.find("\n```").unwrap_or_else(|| panic!("block {name} is not closed"));
    &body[..=close]
}

/// The bytes of a hex dump: every line's text before `;`, whitespace removed, as hex.
fn dump(name: &str) -> Vec<u8> {
    let hex: String = block(name)
        .lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .flat_map(|l| l.chars().filter(|c| !c.is_whitespace()))
        .collect();
    protocol::hex::decode(&hex).unwrap_or_else(|| panic!("block {name} is not hex: {hex}"))
}

/// The one hex value in a block (a hash, a key).
fn value(name: &str) -> Vec<u8> {
    dump(name)
}

/// Hex, 16 bytes a line, for failure messages (what the document should say).
fn show(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_bytes(name: &str, computed: &[u8]) {
    let documented = dump(name);
    assert!(
        documented == computed,
        "docs/LEDGER.md's {name} differs from the code's bytes, which are:\n{}",
        show(computed)
    );
}

// ---------------------------------------------------------------------------------------------
// The definition vector.

fn organiser() -> SigningKey {
    SigningKey::from_bytes(&[0x07; 32])
}

fn spec_definition() -> TournamentDefinition {
    TournamentDefinition {
        name: "Spec Cup".into(),
        variant: Variant::Kriegspiel,
        ruleset: "kriegspiel/1899-icc".into(),
        system: System::Swiss { rounds: 2 },
        players: vec![
            Entrant { key: PublicKey([0x11; 32]), name: "Ann".into(), rating: Some(2000) },
            Entrant { key: PublicKey([0x22; 32]), name: "Ben".into(), rating: None },
            Entrant { key: PublicKey([0x33; 32]), name: "Cat".into(), rating: Some(1500) },
        ],
        tie_breaks: vec![TieBreak::Buchholz, TieBreak::SonnebornBerger, TieBreak::DirectEncounter],
        time_control: "15+10".into(),
    }
}

fn signed_definition() -> SignedDefinition {
    spec_definition().sign(&organiser()).unwrap()
}

#[test]
fn the_definition_vector_is_the_documented_one() {
    let def = spec_definition();
    let bytes = def.to_bytes().unwrap();
    assert_bytes("definition-bytes", &bytes);
    assert_eq!(TournamentDefinition::from_bytes(&bytes).unwrap(), def);

    // The documented signing input: its prefix block, then the definition bytes.
    let mut input = dump("definition-signing-prefix");
    assert_eq!(input[..4], 33u32.to_be_bytes());
    assert_eq!(&input[4..], b"fogproof/v1/tournament-definition");
    input.extend_from_slice(&bytes);

    let signed = signed_definition();
    assert_eq!(value("organiser-key"), signed.organiser.0);
    assert_bytes("definition-signature", &signed.signature.to_bytes());
    // The signature is Ed25519 over exactly the documented signing input.
    let sig = ed25519_dalek::Signature::from_bytes(&signed.signature.to_bytes());
    organiser().verifying_key().verify_strict(&input, &sig).unwrap();

    let file = signed.to_canonical();
    assert_bytes("definition-file", &file);
    assert_eq!(value("tournament-id"), sha256(&file));
    let decoded: SignedDefinition = protocol::codec::decode(&file).unwrap();
    assert_eq!(decoded.verify().unwrap(), def);
}

// ---------------------------------------------------------------------------------------------
// The entry vectors.

fn tournament_id() -> [u8; 32] {
    sha256(&signed_definition().to_canonical())
}

fn entry(body: EntryBody) -> LedgerEntry {
    LedgerEntry { version: ENTRY_VERSION, body }
}

fn check_entry(name: &str, e: &LedgerEntry) {
    let bytes = e.to_bytes().unwrap();
    assert_bytes(&format!("{name}-entry"), &bytes);
    assert_eq!(&LedgerEntry::from_bytes(&bytes).unwrap(), e);
    assert_eq!(value(&format!("{name}-leaf")), leaf_hash(&bytes), "{name}'s leaf hash");
}

#[test]
fn the_entry_vectors_are_the_documented_ones() {
    let id = tournament_id();
    let file = signed_definition().to_canonical();
    let (t, _) = TournamentEntry::from_definition_file(&file, 1_700_000_000_000).unwrap();
    assert_eq!(t.name, "Spec Cup");
    check_entry("tournament", &entry(EntryBody::Tournament(t)));

    check_entry(
        "round",
        &entry(EntryBody::Round(RoundEntry {
            tournament: id,
            round: 1,
            absent: vec![Absence { player: 2, bye: ByeKind::Half }],
            started_at_ms: 1_700_000_060_000,
        })),
    );

    check_entry(
        "match",
        &entry(EntryBody::Match(MatchEntry {
            match_id: [0xa1; 32],
            record_sha256: [0xb2; 32],
            variant: "kriegspiel".into(),
            ruleset: "kriegspiel/1899-icc".into(),
            white: PublicKey([0x11; 32]),
            black: PublicKey([0x22; 32]),
            colors_known: true,
            umpire: Some(PublicKey([0x55; 32])),
            relay: PublicKey([0x66; 32]),
            verdict: EntryVerdict::Faults {
                faults: vec![EntryFault {
                    kind: FaultKind::MissingReveal,
                    role: MatchRole::Black,
                    culprit: Some(PublicKey([0x22; 32])),
                }],
                total: 1,
            },
            result: Some(rules::GameResult {
                winner: Some(Color::White),
                reason: EndReason::Forfeit,
            }),
            rated: true,
            context: MatchContext {
                tournament: Some(TournamentRound { tournament: id, round: 1 }),
                finished_at_ms: 1_700_000_120_000,
            },
            verifier_version: "0.1.0".into(),
        })),
    );
}

#[test]
fn the_transcript_vector_is_the_documented_one() {
    let terms = b"example terms";
    let frame = protocol::transcript::Frame::new(protocol::tags::MATCH_ID)
        .append("terms", terms)
        .into_bytes();
    assert_bytes("transcript-frame", &frame);
    let id = protocol::terms::match_id(terms);
    assert_eq!(value("transcript-hash"), id.0);
    assert_eq!(sha256(&frame), id.0);
}

// ---------------------------------------------------------------------------------------------
// Enum tags.

/// The postcard tag of an enum value (a one-byte varint for every enum here).
fn tag<T: Serialize>(v: &T) -> u8 {
    postcard::to_allocvec(v).unwrap()[0]
}

/// `(tag, name)` per variant, in the code's order; the `match`es make adding a variant without
/// adding it here a compile error.
fn code_enums() -> Vec<(&'static str, Vec<(u8, String)>)> {
    fn list<T: Serialize + std::fmt::Debug>(vs: &[T]) -> Vec<(u8, String)> {
        vs.iter()
            .map(|v| {
                let name = format!("{v:?}");
                (tag(v), name.split([' ', '(', '{']).next().unwrap_or("").to_string())
            })
            .collect()
    }
    let body = |b: &EntryBody| match b {
        EntryBody::Match(_)
        | EntryBody::Tournament(_)
        | EntryBody::Round(_)
        | EntryBody::NoShow(_) => (),
    };
    let _ = body;
    let entry_bodies: Vec<(u8, String)> = vec![
        (0, "Match".into()),
        (1, "Tournament".into()),
        (2, "Round".into()),
        (3, "NoShow".into()),
    ];
    // EntryBody's tags, checked on real values (Match's 0 and Tournament's 1 are also in the
    // entry vectors' bytes).
    let sample_no_show = EntryBody::NoShow(ledger::entry::NoShowEntry {
        tournament: [0; 32],
        round: 1,
        white: PublicKey([1; 32]),
        black: PublicKey([2; 32]),
        white_absent: true,
        black_absent: false,
        deadline_ms: 0,
    });
    assert_eq!(tag(&sample_no_show), 3);
    let sample_round = EntryBody::Round(RoundEntry {
        tournament: [0; 32],
        round: 1,
        absent: vec![],
        started_at_ms: 0,
    });
    assert_eq!(tag(&sample_round), 2);
    let verdict = |v: &EntryVerdict| match v {
        EntryVerdict::Valid | EntryVerdict::Faults { .. } => (),
    };
    let _ = verdict;
    assert_eq!(tag(&EntryVerdict::Valid), 0);
    assert_eq!(tag(&EntryVerdict::Faults { faults: vec![], total: 0 }), 1);
    let system = |s: &System| match s {
        System::RoundRobin { .. } | System::Swiss { .. } => (),
    };
    let _ = system;
    assert_eq!(tag(&System::RoundRobin { double: false }), 0);
    assert_eq!(tag(&System::Swiss { rounds: 1 }), 1);

    let tie_breaks = [
        TieBreak::Buchholz,
        TieBreak::BuchholzCut1,
        TieBreak::MedianBuchholz,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
        TieBreak::Wins,
        TieBreak::ProgressiveScore,
    ];
    for t in tie_breaks {
        match t {
            TieBreak::Buchholz
            | TieBreak::BuchholzCut1
            | TieBreak::MedianBuchholz
            | TieBreak::SonnebornBerger
            | TieBreak::DirectEncounter
            | TieBreak::Wins
            | TieBreak::ProgressiveScore => (),
        }
    }
    let byes = [ByeKind::PairingAllocated, ByeKind::Half, ByeKind::Zero, ByeKind::Full];
    for b in byes {
        match b {
            ByeKind::PairingAllocated | ByeKind::Half | ByeKind::Zero | ByeKind::Full => (),
        }
    }
    let roles = [
        MatchRole::White,
        MatchRole::Black,
        MatchRole::Umpire,
        MatchRole::Relay,
        MatchRole::Record,
    ];
    for r in roles {
        match r {
            MatchRole::White
            | MatchRole::Black
            | MatchRole::Umpire
            | MatchRole::Relay
            | MatchRole::Record => (),
        }
    }
    let colors = [Color::White, Color::Black];
    use FaultKind as F;
    let faults = [
        F::MalformedRecord,
        F::TruncatedRecord,
        F::BadTerms,
        F::BadSignature,
        F::WrongMatch,
        F::NonCanonical,
        F::BadReceipt,
        F::BrokenChain,
        F::Equivocation,
        F::BadOpening,
        F::DuplicateCommitment,
        F::BadSetup,
        F::IllegalAction,
        F::FalseAdjudication,
        F::FalseAnnouncement,
        F::FalseInformerAnswer,
        F::MissingReveal,
        F::Timeout,
        F::FalseClaim,
        F::BadDisclosure,
        F::NotAllowed,
        F::DroppedMessage,
    ];
    for f in faults {
        match f {
            F::MalformedRecord
            | F::TruncatedRecord
            | F::BadTerms
            | F::BadSignature
            | F::WrongMatch
            | F::NonCanonical
            | F::BadReceipt
            | F::BrokenChain
            | F::Equivocation
            | F::BadOpening
            | F::DuplicateCommitment
            | F::BadSetup
            | F::IllegalAction
            | F::FalseAdjudication
            | F::FalseAnnouncement
            | F::FalseInformerAnswer
            | F::MissingReveal
            | F::Timeout
            | F::FalseClaim
            | F::BadDisclosure
            | F::NotAllowed
            | F::DroppedMessage => (),
        }
    }
    vec![
        ("EntryBody", entry_bodies),
        ("EntryVerdict", vec![(0, "Valid".into()), (1, "Faults".into())]),
        ("System", vec![(0, "RoundRobin".into()), (1, "Swiss".into())]),
        ("TieBreak", list(&tie_breaks)),
        ("ByeKind", list(&byes)),
        ("Color", list(&colors)),
        ("EndReason", list(&EndReason::ALL)),
        ("MatchRole", list(&roles)),
        ("FaultKind", list(&faults)),
    ]
}

#[test]
fn the_enum_tag_tables_are_the_code_s() {
    let documented: Vec<(String, Vec<(u8, String)>)> = block("enum-tags")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, rest) = l.split_once(':').expect("`Enum: 0 A, 1 B` lines");
            let variants = rest
                .split(',')
                .map(|v| {
                    let (n, variant) = v.trim().split_once(' ').expect("`tag Name`");
                    (n.parse::<u8>().expect("a tag"), variant.trim().to_string())
                })
                .collect();
            (name.trim().to_string(), variants)
        })
        .collect();
    let code = code_enums();
    assert_eq!(documented.len(), code.len(), "one line per enum");
    for ((doc_name, doc_variants), (code_name, code_variants)) in documented.iter().zip(&code) {
        assert_eq!(doc_name, code_name);
        assert_eq!(doc_variants, code_variants, "the tags of {code_name}");
    }
}

// ---------------------------------------------------------------------------------------------
// The standings vector.

fn standings_state() -> TournamentState {
    let names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"];
    let ratings = [Some(2000), Some(1900), Some(1800), None, Some(1700), Some(1600)];
    let definition = TournamentDefinition {
        name: "Spec Swiss".into(),
        variant: Variant::Chess,
        ruleset: "chess/fide".into(),
        system: System::Swiss { rounds: 3 },
        players: (0..6u8)
            .map(|i| Entrant {
                key: PublicKey([i + 1; 32]),
                name: names[usize::from(i)].into(),
                rating: ratings[usize::from(i)],
            })
            .collect(),
        tie_breaks: vec![
            TieBreak::DirectEncounter,
            TieBreak::Buchholz,
            TieBreak::BuchholzCut1,
            TieBreak::MedianBuchholz,
            TieBreak::SonnebornBerger,
            TieBreak::Wins,
            TieBreak::ProgressiveScore,
        ],
        time_control: "5+3".into(),
    };
    let (ann, ben, cat, dan, eve, fay) = (0, 1, 2, 3, 4, 5);
    // Leaf indices: the tournament entry 0, round 1's entry 1 and its games 2 and 3, round 2's
    // entry 4 and games 5 to 7, round 3's entry 8 and games 9 and 10.
    let round = |round: u32,
                 entry_index: u64,
                 absent: Vec<(usize, ByeKind)>,
                 games: Vec<(usize, usize, GameResult)>,
                 bye: Option<usize>| RoundState {
        round,
        entry_index,
        absent,
        pairings: Pairings { games: games.iter().map(|&(w, b, _)| (w, b)).collect(), bye },
        results: (entry_index + 1..).zip(&games).map(|(at, g)| Some((g.2, at))).collect(),
    };
    TournamentState {
        id: [0x5e; 32],
        entry_index: 0,
        definition_file: Vec::new(),
        definition,
        rounds: vec![
            round(
                1,
                1,
                vec![(dan, ByeKind::Half)],
                vec![(ann, ben, GameResult::Draw), (cat, eve, GameResult::WhiteWins)],
                Some(fay),
            ),
            round(
                2,
                4,
                vec![],
                vec![
                    (ann, cat, GameResult::WhiteWins),
                    (eve, ben, GameResult::WhiteWinsByForfeit),
                    (dan, fay, GameResult::DoubleForfeit),
                ],
                None,
            ),
            round(
                3,
                8,
                vec![(ann, ByeKind::Zero), (fay, ByeKind::Full)],
                vec![(cat, dan, GameResult::Draw), (ben, eve, GameResult::BlackWins)],
                None,
            ),
        ],
    }
}

#[test]
fn the_standings_vector_is_the_documented_one() {
    let state = standings_state();
    // As the bundle writes them: pretty JSON and a newline.
    let pretty = |v| serde_json::to_string_pretty(&v).unwrap() + "\n";
    let standings = pretty(bundle::standings_json(&state));
    assert!(
        standings == block("standings-json"),
        "docs/LEDGER.md's standings.json differs from the code's, which is:\n{standings}"
    );
    let pairings = pretty(bundle::pairings_json(&state));
    assert!(
        pairings == block("pairings-json"),
        "docs/LEDGER.md's pairings.json differs from the code's, which is:\n{pairings}"
    );
    // The worked table's contributions and values are the standings' own.
    let table: Vec<Vec<&str>> = block("standings-table")
        .lines()
        .skip(1)
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    let computed = ledger::tournament::standings::standings(
        &state.definition,
        &state.rounds.iter().map(RoundState::to_round).collect::<Vec<_>>(),
    )
    .unwrap();
    assert_eq!(table.len(), computed.len());
    for (row, s) in table.iter().zip(&computed) {
        assert_eq!(row[0], state.definition.players[s.player].name, "{row:?}");
        assert_eq!(row[1], s.half_points.to_string(), "{row:?}");
        let values: Vec<String> = s.tie_breaks.iter().map(u32::to_string).collect();
        assert_eq!(row[3], values.join(" "), "{row:?}");
        // Buchholz (the second tie-break) is the sum of the Buchholz contributions shown.
        let contributions: u32 = row[2].split_whitespace().map(|c| c.parse::<u32>().unwrap()).sum();
        assert_eq!(contributions, s.tie_breaks[1], "{row:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The rating vector.

/// Checks a rating block: a header line, then per state a line of the five values as
/// `ratings.json` prints them and a line of the three doubles' bit patterns.
fn check_rating_block(name: &str, states: &[(&str, ledger::rating::Rating)]) {
    let mut lines = block(name).lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().expect("a header line");
    assert!(header.starts_with("state"), "{header}");
    for (state, r) in states {
        let numbers = lines.next().unwrap_or_else(|| panic!("{name}: no line for {state}"));
        let bits = lines.next().unwrap_or_else(|| panic!("{name}: no bits line for {state}"));
        let computed = format!(
            "{state} {} {} {} {} {}",
            serde_json::to_string(&r.rating).unwrap(),
            serde_json::to_string(&r.deviation).unwrap(),
            serde_json::to_string(&r.volatility).unwrap(),
            r.games,
            r.provisional
        );
        let documented: Vec<&str> = numbers.split_whitespace().collect();
        assert_eq!(documented.join(" "), computed, "{name}'s {state}");
        let computed_bits = format!(
            "bits {:016x} {:016x} {:016x}",
            r.rating.to_bits(),
            r.deviation.to_bits(),
            r.volatility.to_bits()
        );
        assert_eq!(
            bits.split_whitespace().collect::<Vec<_>>().join(" "),
            computed_bits,
            "{name}'s {state} bits"
        );
    }
    assert!(lines.next().is_none(), "{name}: more lines than states");
}

fn chess_game(white: PublicKey, black: PublicKey, score: Score) -> RatedGame {
    RatedGame { variant: Variant::Chess, white, black, score }
}

#[test]
fn the_rating_vector_is_the_documented_one() {
    let (a, b, c) = (PublicKey([0x0a; 32]), PublicKey([0x0b; 32]), PublicKey([0x0c; 32]));
    let mut ratings = Ratings::new(Params::LICHESS);
    ratings.apply(&chess_game(a, b, Score::WhiteWins)).unwrap();
    let (a1, b1) = (ratings.get(Variant::Chess, &a), ratings.get(Variant::Chess, &b));
    ratings.apply(&chess_game(c, a, Score::Draw)).unwrap();
    let (a2, c2) = (ratings.get(Variant::Chess, &a), ratings.get(Variant::Chess, &c));
    check_rating_block("rating-vector", &[("A1", a1), ("B1", b1), ("A2", a2), ("C2", c2)]);
}

#[test]
fn the_libm_rating_vector_is_the_documented_one() {
    // A (white) draws B, then A (white) beats B: A's volatility after game 2 is where libm's
    // `log` and glibc's differ in the last bit (docs/LEDGER.md, S9).
    let (a, b) = (PublicKey([0x0a; 32]), PublicKey([0x0b; 32]));
    let mut ratings = Ratings::new(Params::LICHESS);
    ratings.apply(&chess_game(a, b, Score::Draw)).unwrap();
    let (a1, b1) = (ratings.get(Variant::Chess, &a), ratings.get(Variant::Chess, &b));
    ratings.apply(&chess_game(a, b, Score::WhiteWins)).unwrap();
    let (a2, b2) = (ratings.get(Variant::Chess, &a), ratings.get(Variant::Chess, &b));
    check_rating_block("rating-vector-libm", &[("A1", a1), ("B1", b1), ("A2", a2), ("B2", b2)]);
}

#[test]
fn json_numbers_print_as_documented() {
    // `value -> text`: what `ratings.json` prints for a double (serde_json's shortest form).
    let mut n = 0;
    for line in block("json-numbers").lines().filter(|l| !l.trim().is_empty()) {
        let (v, text) = line.split_once("->").expect("`value -> text` lines");
        let v: f64 = v.trim().parse().unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), text.trim(), "{v:e}");
        n += 1;
    }
    assert!(n >= 5);
}
