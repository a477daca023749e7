//! Notation shared by every game: piece letters (R-C3) and position strings / UCI moves (R-C4).

use rules::{Alphabet, BoardSize, Color, Move, Role, Square, Variant};

#[test]
fn r_c3_piece_letters_per_game() {
    // Upper case is White, lower case Black, in every game.
    let white_king = Alphabet::ORTHODOX.piece('K').expect("K");
    assert_eq!((white_king.color, white_king.role), (Color::White, Role::King));
    assert_eq!(Alphabet::ORTHODOX.piece('k').map(|p| p.color), Some(Color::Black));
    // C is a Centaur in Secret Intelligence Chess but a Cannon in Espionage Chess.
    assert_eq!(Variant::Sic.alphabet().role('c'), Some(Role::Centaur));
    assert_eq!(Variant::Espionage.alphabet().role('c'), Some(Role::Cannon));
    // SIC's full list: M A C H D S Y on top of K Q R B N P.
    for (c, role) in [
        ('m', Role::Marshall),
        ('a', Role::Archbishop),
        ('h', Role::DragonHorse),
        ('d', Role::DragonKing),
        ('s', Role::Spy),
        ('y', Role::Decoy),
    ] {
        assert_eq!(Alphabet::SIC.role(c), Some(role), "{c}");
        assert_eq!(Alphabet::SIC.char(role), Some(c), "{role:?}");
    }
    // Letters a game does not have are refused, not guessed.
    assert_eq!(Alphabet::ORTHODOX.piece('M'), None);
    assert_eq!(Variant::SecretChess6.alphabet().role('p'), None, "6x6 has no pawns");
    assert_eq!(Alphabet::ESPIONAGE.role('y'), None);
}

#[test]
fn r_c4_uci_moves_are_board_size_aware() {
    let e7e8q = Move::parse_uci("e7e8q", BoardSize::Eight, Alphabet::ORTHODOX).expect("valid");
    assert_eq!(e7e8q.promotion, Some(Role::Queen));
    assert_eq!(e7e8q.uci(Alphabet::ORTHODOX), "e7e8q");
    // g7 exists on 7x7, h1 does not; f6 is the last square of 6x6.
    assert!(Move::parse_uci("g7g6", BoardSize::Seven, Alphabet::ESPIONAGE).is_ok());
    let err = Move::parse_uci("h1h2", BoardSize::Seven, Alphabet::ESPIONAGE).unwrap_err();
    assert!(err.to_string().contains("from-square is not on the board"), "{err}");
    assert!(Move::parse_uci("a1f6", BoardSize::Six, Alphabet::SECRET_CHESS).is_ok());
    assert!(Move::parse_uci("a1a7", BoardSize::Six, Alphabet::SECRET_CHESS).is_err());
    // Cannon promotion letter exists only in Espionage.
    let c = Move::parse_uci("a5a6c", BoardSize::Seven, Alphabet::ESPIONAGE).expect("valid");
    assert_eq!(c.promotion, Some(Role::Cannon));
    assert!(Move::parse_uci("a7a8c", BoardSize::Eight, Alphabet::ORTHODOX).is_err());
    assert_eq!(Square::parse("a9", BoardSize::Eight), None);
}

#[test]
fn r_c4_every_variant_round_trips_its_start_position() {
    for v in Variant::ALL {
        let fen = rules::analysis::start_fen(v);
        assert_eq!(rules::analysis::normalize(v, &fen).expect("start parses"), fen, "{v}");
    }
}
