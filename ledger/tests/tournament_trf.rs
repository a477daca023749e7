//! TRF-16: fixed columns, round trip, and errors that name the line.

use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
use ledger::tournament::standings::standings;
use ledger::tournament::trf::{Trf, TrfError};
use ledger::tournament::{ByeKind, Game, GameResult, Round};
use protocol::PublicKey;
use rules::Variant;

fn def() -> TournamentDefinition {
    TournamentDefinition {
        name: "TRF Cup".into(),
        variant: Variant::Chess,
        ruleset: "chess/fide".into(),
        system: System::Swiss { rounds: 3 },
        players: vec![
            Entrant { key: PublicKey([1; 32]), name: "Low".into(), rating: Some(1500) },
            Entrant { key: PublicKey([2; 32]), name: "High".into(), rating: Some(2100) },
            Entrant { key: PublicKey([3; 32]), name: "Unrated".into(), rating: None },
            Entrant { key: PublicKey([4; 32]), name: "Mid".into(), rating: Some(1800) },
            Entrant { key: PublicKey([5; 32]), name: "Late".into(), rating: Some(1700) },
        ],
        tie_breaks: vec![],
        time_control: "90+30".into(),
    }
}

fn normalise(mut rounds: Vec<Round>) -> Vec<Round> {
    for r in &mut rounds {
        r.games.sort_by_key(|g| (g.white, g.black));
        r.byes.sort();
    }
    rounds
}

#[test]
fn columns_follow_trf16() {
    // Starting numbers by rating: High 1, Mid 2, Late 3, Low 4, Unrated 5.
    let rounds = vec![Round {
        games: vec![
            Game { white: 1, black: 0, result: GameResult::WhiteWins },
            Game { white: 3, black: 2, result: GameResult::Draw },
        ],
        byes: vec![(4, ByeKind::Zero)],
    }];
    let text = Trf::from_tournament(&def(), &rounds).write();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "012 TRF Cup");
    assert_eq!(lines[3], "XXR 3");
    let high = lines[4];
    assert_eq!(&high[0..8], "001    1");
    assert_eq!(high[14..47].trim_end(), "High");
    assert_eq!(&high[48..52], "2100");
    assert_eq!(&high[80..84], " 1.0");
    // Round 1 block at columns 92-99 (1-based): opponent 4, white, won.
    assert_eq!(&high[91..99], "   4 w 1");
    let late = lines[6];
    assert_eq!(&late[91..99], "0000 - Z");
    let unrated = lines[8];
    assert_eq!(&unrated[48..52], "   0");
    assert_eq!(&unrated[91..99], "   2 b =");
}

#[test]
fn round_trip_with_byes_forfeits_and_a_pending_game() {
    let d = def();
    let rounds = vec![
        Round {
            games: vec![
                Game { white: 1, black: 0, result: GameResult::WhiteWins },
                Game { white: 3, black: 2, result: GameResult::Draw },
            ],
            byes: vec![(4, ByeKind::Zero)],
        },
        Round {
            games: vec![
                Game { white: 0, black: 3, result: GameResult::BlackWinsByForfeit },
                Game { white: 2, black: 4, result: GameResult::DoubleForfeit },
            ],
            byes: vec![(1, ByeKind::Half)],
        },
        Round {
            games: vec![
                Game { white: 4, black: 1, result: GameResult::BlackWins },
                Game { white: 3, black: 0, result: GameResult::Pending },
            ],
            byes: vec![(2, ByeKind::PairingAllocated)],
        },
    ];
    let trf = Trf::from_tournament(&d, &rounds);
    let text = trf.write();
    let back = Trf::parse(&text).expect("parses");
    assert_eq!(back.name, "TRF Cup");
    assert_eq!(back.total_rounds, 3);
    assert_eq!(back.players, trf.players);
    assert_eq!(normalise(back.rounds.clone()), normalise(trf.rounds.clone()));
    assert_eq!(back.write(), text, "writing what was read gives the same text");
    // Points: High 1 + ½ + 1 = 2½ (5 half-points).
    assert_eq!(back.half_points()[0], 5);
}

#[test]
fn errors_name_the_line_and_the_problem() {
    let d = def();
    let rounds = vec![Round {
        games: vec![Game { white: 1, black: 0, result: GameResult::WhiteWins }],
        byes: vec![],
    }];
    let text = Trf::from_tournament(&d, &rounds).write();

    // The loser's line claims a win too.
    let bad = text.replace("   1 b 0", "   1 b 1");
    let err = Trf::parse(&bad).expect_err("inconsistent");
    assert!(err.to_string().contains("results do not match"), "{err}");

    let bad = text.replacen("001    2", "001    x", 1);
    match Trf::parse(&bad) {
        Err(TrfError::Line { line, what }) => {
            assert_eq!(line, 6);
            assert!(what.contains("starting number"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    assert!(Trf::parse("012 Empty\n").is_err());
}

#[test]
fn odd_bytes_do_not_panic() {
    for text in ["é", "0é1 x", "001 é", "001    1 \u{fffd}\u{fffd}", "XXR lots", "001"] {
        let _ = Trf::parse(text);
    }
    assert!(matches!(Trf::parse("XXR lots\n001    1"), Err(TrfError::Line { line: 1, .. })));
}

#[test]
fn the_rank_column_is_the_final_rank_and_092_names_the_system() {
    // Starting numbers by rating: High 1, Mid 2, Late 3, Low 4, Unrated 5. After round 1: High
    // 1 point (rank 1); Mid and Unrated ½ (ranks 2 and 3, by pairing number as the standings
    // break the tie without tie-breaks); Late and Low 0 (ranks 4 and 5).
    let d = def();
    let rounds = vec![Round {
        games: vec![
            Game { white: 1, black: 0, result: GameResult::WhiteWins },
            Game { white: 3, black: 2, result: GameResult::Draw },
        ],
        byes: vec![(4, ByeKind::Zero)],
    }];
    let text = Trf::from_tournament(&d, &rounds).write();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[2], "092 Individual: Swiss-System");
    let ranks: Vec<&str> = lines[4..9].iter().map(|l| l[85..89].trim()).collect();
    // In starting-number order: High, Mid, Late, Low, Unrated.
    assert_eq!(ranks, ["1", "2", "4", "5", "3"]);
    // The same as the standings, player by player, with a tie-break and a second round.
    let mut d2 = def();
    d2.tie_breaks = vec![TieBreak::SonnebornBerger];
    let mut two = rounds.clone();
    two.push(Round {
        games: vec![
            // Low beats Unrated, Late beats Mid: High 1½, Late and Low 1, Mid and Unrated ½.
            Game { white: 0, black: 2, result: GameResult::WhiteWins },
            Game { white: 4, black: 3, result: GameResult::WhiteWins },
        ],
        byes: vec![(1, ByeKind::Half)],
    });
    let trf = Trf::from_tournament(&d2, &two);
    let standings = standings(&d2, &two).expect("standings");
    for s in &standings {
        let sn = d2.initial_ranking().iter().position(|&i| i == s.player).unwrap();
        assert_eq!(trf.players[sn].rank, Some(s.rank), "player {}", s.player);
    }
    assert!(
        trf.players.iter().enumerate().any(|(k, p)| p.rank != Some(k + 1)),
        "the case has ranks that differ from starting numbers"
    );
    // A round still being played does not count: the rank is the completed rounds' standings.
    let mut pending = two.clone();
    pending.push(Round {
        games: vec![Game { white: 1, black: 0, result: GameResult::Pending }],
        byes: vec![],
    });
    assert_eq!(Trf::from_tournament(&d2, &pending).players, trf.players);

    let mut rr = def();
    rr.system = System::RoundRobin { double: false };
    let text = Trf::from_tournament(&rr, &rounds).write();
    assert_eq!(text.lines().nth(2), Some("092 Individual: Round-Robin"));
    let back = Trf::parse(&text).expect("parses");
    assert_eq!(back.system, "Individual: Round-Robin");
    assert_eq!(back.write(), text);
}
