//! Differential test of the chess move generator against shakmaty (a dev-dependency only; it
//! is GPL): over many positions reached by seeded random playouts from several starts, both
//! must list the same legal moves (UCI, castling as the king's move `e1g1`), print the same
//! position string, agree on check and on whether en passant is legal (R-C2's repetition key),
//! and write every move played in the same SAN.

use rules::Analysis;
use rules::chess::Position;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

/// SplitMix64: a tiny seeded generator, so every run visits the same positions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z % n as u64) as usize
    }
}

const STARTS: [&str; 7] = [
    rules::chess::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    // Pawn races and en passant chances, and a rook ending with castling rights.
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
];

fn theirs(pos: &Chess) -> Vec<String> {
    let mut v: Vec<String> =
        pos.legal_moves().iter().map(|m| UciMove::from_standard(*m).to_string()).collect();
    v.sort();
    v
}

#[test]
fn legal_moves_match_shakmaty_over_random_playouts() {
    let mut rng = Rng(0x05ee_d0fc_4e55);
    let mut positions = 0;
    for start in STARTS {
        for _game in 0..100 {
            let mut ours = Position::from_fen(start).unwrap();
            let mut reference: Chess = Fen::from_ascii(start.as_bytes())
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for _ply in 0..160 {
                positions += 1;
                let fen = ours.to_fen();
                assert_eq!(
                    fen,
                    Fen::from_position(&reference, EnPassantMode::Always).to_string(),
                    "position strings differ"
                );
                let moves = ours.legal_uci();
                assert_eq!(moves, theirs(&reference), "legal moves of {fen}");
                assert_eq!(ours.count_legal(), moves.len(), "bulk count of {fen}");
                assert_eq!(ours.is_check(), reference.is_check(), "check in {fen}");
                assert_eq!(
                    ours.legal_ep_square().map(|s| s.to_string()),
                    reference.ep_square(EnPassantMode::Legal).map(|s| s.to_string()),
                    "legal en passant in {fen}"
                );
                if moves.is_empty() {
                    break;
                }
                let pick = &moves[rng.below(moves.len())];
                let m = rules::Move::parse_uci(
                    pick,
                    rules::BoardSize::Eight,
                    rules::Alphabet::ORTHODOX,
                )
                .unwrap();
                let theirs_move = pick.parse::<UciMove>().unwrap().to_move(&reference).unwrap();
                assert_eq!(
                    ours.san(&m),
                    Some(SanPlus::from_move(reference.clone(), theirs_move).to_string()),
                    "SAN of {pick} in {fen}"
                );
                ours = ours.play(&m).unwrap();
                reference.play_unchecked(theirs_move);
            }
        }
    }
    assert!(positions > 50_000, "visited only {positions} positions");
}
