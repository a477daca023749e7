//! The byte layer of a match's game: the six `rules` games' actions and observations as
//! canonical bytes (docs/PROTOCOL.md, "Match flow"), the padded sizes of sealed game payloads,
//! and the claims that state a result. What the games are, their options and each side's
//! knowledge live in `rules` ([`rules::AnyGame`], [`rules::GameOptions`], [`rules::seat`]).
//!
//! Actions and observations on the wire are the games' own serde types (the values inside
//! [`rules::AnyAction`] and [`rules::AnyObservation`], without the enum's tag: the terms name
//! the game) encoded with the strict postcard codec of [`crate::codec`]: one encoding per
//! value, trailing or non-canonical bytes refused. The verifier compares observations by byte
//! equality, so every encoding here is canonical.
//!
//! Which value of which game a variant's bytes hold is `rules`' table ([`rules::codec`]); this
//! module supplies the byte format (the `Strict` codec over [`Canonical`], every value at most
//! [`MAX_GAME_BYTES`]); the values' names in errors come with [`rules::codec::WireValue`].

use crate::codec::{Canonical, DecodeError};
use crate::message::{Claim, Outcome};
use crate::terms::MatchTerms;
use rules::{
    ActionError, AnyAction, AnyGame, AnyObservation, ByColor, Color, GameResult, StartError,
    Variant,
};
use thiserror::Error;

/// Largest encoded action or observation (a limit on what comes from outside; a payload is at
/// most 64 KiB and an observation travels inside one).
pub const MAX_GAME_BYTES: usize = 60 * 1024;

/// Every game value ([`rules::codec::WireValue`]: actions and observations, named there) has
/// canonical bytes, at most [`MAX_GAME_BYTES`].
impl<T: rules::codec::WireValue> Canonical for T {
    const NAME: &'static str = <T as rules::codec::WireValue>::NAME;
    const MAX_BYTES: usize = MAX_GAME_BYTES;
}

/// The games' values on the wire: their canonical bytes, decoded strictly ([`crate::codec`]).
struct Strict;

impl rules::codec::ValueCodec for Strict {
    type Error = DecodeError;

    fn encode<T: rules::codec::WireValue>(&self, value: &T) -> Vec<u8> {
        value.to_canonical()
    }

    fn decode<T: rules::codec::WireValue>(&self, bytes: &[u8]) -> Result<T, DecodeError> {
        T::from_canonical(bytes)
    }
}

/// The claim that states a rules result: outcome by winner, reason by its kebab-case name.
pub fn claim_of(result: &GameResult) -> Claim {
    let outcome = match result.winner {
        Some(Color::White) => Outcome::WhiteWins,
        Some(Color::Black) => Outcome::BlackWins,
        None => Outcome::Draw,
    };
    Claim { outcome, reason: result.reason.into() }
}

/// Why a game could not be built or an action was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GameError {
    /// Terms the one gate refuses ([`crate::terms::MatchTerms::validate`]).
    #[error("terms: {0}")]
    Terms(#[from] crate::terms::TermsError),
    /// The machine's identity is not the party the terms say, or its seal key for this match
    /// is not the one the terms carry.
    #[error("keys: {0}")]
    Keys(String),
    /// SIC needs both setup seeds; other games take none.
    #[error(transparent)]
    Setup(#[from] StartError),
    /// The action bytes are not a canonical action of this game.
    #[error("action bytes: {0}")]
    Decode(#[from] DecodeError),
    /// The rules refused the action (not a Kriegspiel illegal attempt, which is answered).
    #[error("refused by the rules: {0}")]
    Rules(#[from] ActionError),
}

/// What the six games are told, per side, as canonical bytes (`None`: told nothing).
pub type Told = ByColor<Option<Vec<u8>>>;

/// The canonical bytes of an action (the game's own action value; the terms name the game).
pub fn encode_action(action: &AnyAction) -> Vec<u8> {
    action.encode_with(&Strict)
}

/// Decodes an action of `variant`, strictly.
pub fn decode_action(variant: Variant, bytes: &[u8]) -> Result<AnyAction, DecodeError> {
    AnyAction::decode_with(variant, &Strict, bytes)
}

/// The canonical bytes of an observation (the game's own value).
pub fn encode_observation(observation: &AnyObservation) -> Vec<u8> {
    observation.encode_with(&Strict)
}

/// Decodes an observation of `variant` after an action, strictly (not a start view: see
/// [`decode_start_observation`]).
pub fn decode_observation(variant: Variant, bytes: &[u8]) -> Result<AnyObservation, DecodeError> {
    AnyObservation::decode_with(variant, &Strict, bytes)
}

/// Decodes what a side is told when play begins ([`AnyGame::start_observations`]): SIC's
/// start view, the one game that tells anything then.
pub fn decode_start_observation(bytes: &[u8]) -> Result<AnyObservation, DecodeError> {
    AnyObservation::decode_start_with(&Strict, bytes)
}

/// The canonical bytes of what each side is told.
pub fn encode_told(told: &ByColor<Option<AnyObservation>>) -> Told {
    told.as_ref().map(|o| o.as_ref().map(encode_observation))
}

/// The start of the terms' game: their typed options ([`MatchTerms::game`]), and
/// SIC's two setup seeds ([`crate::seed::setup_seed`]; `None` for the other games).
pub fn start(terms: &MatchTerms, seeds: Option<&ByColor<[u8; 32]>>) -> Result<AnyGame, GameError> {
    Ok(AnyGame::start(&terms.game, seeds)?)
}

/// Applies `action_bytes` (canonical bytes of the game's action type) by `actor`: the new
/// game and the canonical bytes of what each side is told. `game` is unchanged on error.
pub fn apply(
    game: &AnyGame,
    actor: Color,
    action_bytes: &[u8],
) -> Result<(AnyGame, Told), GameError> {
    let action = decode_action(game.variant(), action_bytes)?;
    let t = game.apply(actor, &action)?;
    let told = encode_told(&t.told);
    Ok((t.state, told))
}

/// The legal actions of the side to act as canonical bytes ([`AnyGame::legal_actions`]).
pub fn legal_actions(game: &AnyGame) -> Vec<Vec<u8>> {
    game.legal_actions().iter().map(encode_action).collect()
}

/// Whose move clock runs in `game` by the rules: what an umpire's [`crate::message::Payload::Turn`]
/// must say (the umpire machine sends it; the verifier compares it).
pub fn turn_of(game: &AnyGame) -> crate::message::Owed {
    use crate::message::Owed;
    if game.result().is_some() {
        return Owed::Nobody;
    }
    match game.to_act().as_slice() {
        [c] => Owed::Side(*c),
        [] => Owed::Nobody,
        _ => Owed::Both,
    }
}

/// Which way a sealed payload travels on a private channel. Public: every message names its
/// author, and the umpire's key is in the terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SealDirection {
    /// A player's payload sealed to the umpire (actions, setups, tie-breaks, SIC's private seed).
    ToUmpire,
    /// The umpire's payload sealed to a player (observations and acks).
    FromUmpire,
}

/// The most men a SIC side has (R-S1: K, 2 R, 2 B, 2 N, 8 P and a pair; a promotion replaces
/// its pawn), so the most groups in a SIC legal-move list's binary form (one per origin square
/// with a legal move, `rules::sic` `compact`): whatever the moves, a list is at most
/// 2 + 1 + 17 × 17 = 292 bytes.
pub const SIC_MAX_MEN: usize = 17;

/// The most turns a 6x6 side can have, so the longest honest tie-break move list (R-G8: one
/// guess per opponent turn). A side with a man besides its king has at most 4 + 10 + 8 = 22
/// turns: at most 4 turns start with no moved man alive (its unmoved men then stand on its
/// first rank with the two ranks before them empty, so it moves one for the first time, R-G2),
/// and every other turn starts with a moved man alive, which each such turn ages (R-G3), for at
/// most 1 + 2 + 3 + 4 = 10 turns over Q, B, R, N plus one per Life Freeze copy (at most
/// [`rules::secretchess6::MAX_LIFE_FREEZES`] = 8). With only its king it passes, but only
/// while the opponent still has men: at most 22 + 1 more turns. 45, rounded up.
pub const SC6_MAX_TURNS: usize = 48;

/// The most turns passed in a row in one 6x6 observation (the umpire plays passes itself, R-G2).
/// A side blocked with men passes at most 5 times in a row: nothing in its territory changes
/// but deaths, and every moved man dies within its lifespan (at most 4) plus one frozen
/// reduction; once they are all dead its unmoved men on the first rank can move. A side with
/// only its king passes for ever, but only in turns alternating with a blocked opponent's:
/// so at most 5 + 6 = 11 passes in a row. 12 for safety.
pub const SC6_MAX_PASSES_IN_A_ROW: usize = 12;

/// The size every sealed plaintext of `variant` travelling in `direction` is padded to
/// ([`crate::seal`], docs/PROTOCOL.md "Padding"): the worst case of every payload an honest
/// party seals there, plus the pad marker, rounded up to a power of two. Sizes in postcard
/// bytes: a payload tag 1, a length varint 1 (below 128) or 2 (below 16384), a `u32` at most 5,
/// a square 1 (its index), a set of squares the varint of its mask, a SIC legal-move list its
/// compact form: promotion roles 2, a group count 1 and 17 bytes per origin square (the square
/// and two 64-bit masks), at most [`SIC_MAX_MEN`] groups, so 292.
/// Nothing sealed here depends on anything but the variant and the direction, both public.
/// A new kind of sealed payload, or a rules change that lengthens an observation, must be
/// counted here and in the worst-case test below, or honest parties will fail to seal it.
///
/// Chess, Espionage and Intrigue seal nothing (the coordinator refuses sealed payloads there):
/// 0, so that any attempt to seal is refused.
pub fn sealed_plaintext_bytes(variant: Variant, direction: SealDirection) -> usize {
    use SealDirection::{FromUmpire, ToUmpire};
    match (variant, direction) {
        (Variant::Chess | Variant::Espionage | Variant::Intrigue, _) => 0,
        // `Action(Move)`: 1 + 1 + (from 1, to 1, promotion 2) = 6.
        (Variant::Kriegspiel, ToUmpire) => 16,
        // `Observation(Answer)`: 1 + 1 + Answer. `Illegal` is 1; `Legal` is 1 + capture
        // (1 + square 1, kind 1, en passant 1) + checks (1 + 2 at most: a double check) +
        // pawn tries (at most 16, one byte) + end (2) = 11; so 13. The ack is not used.
        (Variant::Kriegspiel, FromUmpire) => 16,
        // `Open { "private-seed", { 32-byte value, 32-byte nonce } }`: 1 + 13 + 33 + 32 = 79,
        // the largest (an `Action(Move)` is 6 with SIC's moves in postcard).
        (Variant::Sic, ToUmpire) => 128,
        // The start `View`: side 1, to move 1, own men (1 + 17 × (square 1, role 1, id 1,
        // unmoved 1)) = 69, moved enemy men (1 + 17 × 2) = 35, captured and lost roles
        // (1 + 17) × 2 = 36, legal moves 292 (17 groups), move number 5, result 4: 443; in
        // `Observation(...)` 1 + 2 more: 446, with the marker 447. An `OpponentMoved` report
        // is smaller (1 + 3 + lost 3 + check 2 + 292 + end 4 = 305), an ack 33. (As UCI
        // texts, before the compact form, the 595-move list alone was 3572 bytes: 4096.)
        (Variant::Sic, FromUmpire) => 512,
        // `Action(TieBreak { formation, moves })`: 1 + formation (5 × 2 + 1) + (1 + 48 ×
        // (tag 1, from 1, to 1, power 1)) = 205, in `Action` 1 + 2 more: 208. A setup is
        // 1 + 11 + false squares (a mask below 2^46: 7) = 19, a move 5, a Life Freeze 2.
        (Variant::SecretChess6, ToUmpire) => 256,
        // Events: Board 1 + turn 5 + 1 + pieces (1 + 5 × (square 1, role 1, lifespan 2,
        // powered 1, frozen 1)) + red (a mask below 2^46: 7) = 45, Scores 16, Passed 2, Moved
        // 5, Frozen 2, End 31, TieBreakNeeded 16, the setup's 1. One observation is the
        // action's events (at most Moved + Scores, or a setup's ack and a Board: 46), then per
        // pass in a row at most Board + Passed + Scores (63), then a final Board and an End:
        // 46 + 12 × 63 + 45 + 31 = 878, with the event count and the `Observation` tag and
        // length: 882.
        (Variant::SecretChess6, FromUmpire) => 1024,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Canonical;
    use rules::secretchess6::{self as six, Formation, TurnMove};
    use rules::{Bitboard, GameOptions, Move, Square};

    fn sq(name: &str) -> Square {
        Square::parse(name, rules::BoardSize::Eight).expect("a square")
    }

    fn start(variant: Variant) -> AnyGame {
        AnyGame::start(&GameOptions::default_for(variant), None).expect("a game")
    }

    #[test]
    fn chess_move_round_trip_and_strict_decoding() {
        let g = start(Variant::Chess);
        let e2e4 = Move::new(sq("e2"), sq("e4")).to_canonical();
        assert_eq!(e2e4, [12, 28, 0], "from and to as index bytes, no promotion");
        let (g2, told) = apply(&g, Color::White, &e2e4).unwrap();
        let played = rules::chess::Played::from_canonical(told.white.as_ref().unwrap()).unwrap();
        assert_eq!(played.mv, Move::new(sq("e2"), sq("e4")));
        assert_eq!(told.white, told.black);
        assert_eq!(g2.to_act(), vec![Color::Black]);
        let mut trailing = e2e4.clone();
        trailing.push(0);
        assert!(matches!(
            apply(&g, Color::White, &trailing),
            Err(GameError::Decode(DecodeError::TrailingBytes { .. }))
        ));
        assert!(matches!(apply(&g, Color::Black, &e2e4), Err(GameError::Rules(_))));
    }

    #[test]
    fn kriegspiel_illegal_attempt_is_told_to_the_mover_only() {
        let g = start(Variant::Kriegspiel);
        let (_, told) =
            apply(&g, Color::White, &Move::new(sq("e2"), sq("e5")).to_canonical()).unwrap();
        let answer = rules::kriegspiel::Answer::from_canonical(told.white.as_ref().unwrap());
        assert_eq!(answer, Ok(rules::kriegspiel::Answer::Illegal));
        assert_eq!(told.black, None);
    }

    #[test]
    fn sic_start_views_and_secretchess6_setup_round_trip() {
        let seeds = ByColor { white: [0; 32], black: [1; 32] };
        let sic = AnyGame::start(&GameOptions::default_for(Variant::Sic), Some(&seeds)).unwrap();
        let views = encode_told(&sic.start_observations());
        let white = decode_start_observation(views.white.as_ref().unwrap()).unwrap();
        assert!(matches!(white, AnyObservation::SicStart(v) if !v.legal.is_empty()));
        let g = start(Variant::SecretChess6);
        let setup = six::Action::Setup {
            formation: Formation::parse("RNB1QK").unwrap(),
            false_squares: Bitboard::EMPTY,
        };
        let (g, told) = apply(&g, Color::White, &setup.to_canonical()).unwrap();
        let obs = decode_observation(Variant::SecretChess6, told.white.as_ref().unwrap()).unwrap();
        let events = vec![six::Event::SetupAccepted];
        assert_eq!(obs, AnyObservation::SecretChess6(six::Observation { events }));
        assert_eq!(g.to_act(), vec![Color::Black]);
    }

    /// Canonical 6x6 actions (issue 6, parse don't validate): a setup has one encoding per
    /// meaning. A formation is six `Option<Role>` files that must hold K Q R B N once each; the
    /// false squares are one 64-bit mask; a move is its squares' index bytes. Everything else
    /// that would spell the same setup (another order, a repeat, another case, an overlong
    /// number) does not decode.
    #[test]
    fn secretchess6_actions_have_one_encoding_per_meaning() {
        let six_sq = |n: &str| Square::parse(n, rules::BoardSize::Six).unwrap();
        let setup = six::Action::Setup {
            formation: Formation::parse("NBKQ1R").unwrap(),
            false_squares: [six_sq("c4"), six_sq("a4")].into_iter().collect(),
        };
        let bytes = setup.to_canonical();
        // Tag 0; files N B K Q - R as Some(role index) or None; the mask of a4 (24) and c4 (26).
        let files = [1, 1, 1, 2, 1, 5, 1, 4, 0, 1, 3];
        let mask = (1u64 << 24) | (1 << 26);
        let mut want = vec![0];
        want.extend(files);
        want.extend(postcard::to_allocvec(&mask).unwrap());
        assert_eq!(bytes, want);
        assert_eq!(six::Action::from_canonical(&bytes), Ok(setup));
        // Not a formation: two kings (the knight's file says king), or a pawn.
        for (file, role) in [(1, 5), (1, 0)] {
            let mut bad = bytes.clone();
            bad[1 + file] = role;
            assert!(
                matches!(six::Action::from_canonical(&bad), Err(DecodeError::Malformed { .. })),
                "{bad:?}"
            );
        }
        // Another spelling of the same mask: an overlong varint.
        let mut overlong = bytes[..12].to_vec();
        let mut varint = postcard::to_allocvec(&mask).unwrap();
        let last = varint.len() - 1;
        varint[last] |= 0x80;
        varint.push(0);
        overlong.extend(varint);
        assert!(matches!(
            six::Action::from_canonical(&overlong),
            Err(DecodeError::NonCanonical { .. })
        ));
        // A move is the enum with index bytes; a powered leap differs from a plain one.
        let mv = six::Action::Move { mv: TurnMove::parse("a1d2+").unwrap() };
        assert_eq!(mv.to_canonical(), [1, 1, 0, 11, 1]);
        assert_eq!(six::Action::from_canonical(&[1, 1, 0, 11, 2]).ok(), None, "a bool is 0 or 1");
    }

    /// The encoded size of `payload` plus the pad marker: what must fit the padded size.
    fn needs(payload: &crate::message::Payload) -> usize {
        payload.to_canonical().len() + 1
    }

    fn obs(bytes: Vec<u8>) -> crate::message::Payload {
        crate::message::Payload::Observation(bytes)
    }

    fn act(bytes: Vec<u8>) -> crate::message::Payload {
        crate::message::Payload::Action(bytes)
    }

    /// The largest value of every payload each variant seals, built field by field as the
    /// bounds' comments count them, fits its padded size (and the comments' sums are exact).
    #[test]
    fn the_worst_case_of_every_sealed_payload_fits_its_padded_size() {
        use SealDirection::{FromUmpire, ToUmpire};
        let size = sealed_plaintext_bytes;
        let promo = Move { promotion: Some(rules::Role::Queen), ..Move::new(sq("e7"), sq("e8")) };
        let ack = crate::message::Payload::Ack { message: crate::MessageHash([0xff; 32]) };
        // Kriegspiel.
        use rules::kriegspiel::{Announcement, Answer, Capture, CaptureKind, CheckKind, End};
        let answer = Answer::Legal(Announcement {
            capture: Some(Capture { square: sq("h8"), kind: CaptureKind::Piece, en_passant: true }),
            checks: vec![CheckKind::ShortDiagonal, CheckKind::Knight],
            pawn_tries: 16,
            end: Some(End::InsufficientMaterial),
        });
        assert_eq!(needs(&act(promo.to_canonical())), 6 + 1);
        assert_eq!(needs(&obs(answer.to_canonical())), 13 + 1);
        assert!(needs(&obs(answer.to_canonical())) <= size(Variant::Kriegspiel, FromUmpire));
        assert!(needs(&obs(Answer::Illegal.to_canonical())) <= 16);
        assert!(needs(&act(promo.to_canonical())) <= size(Variant::Kriegspiel, ToUmpire));
        // SIC.
        let open = crate::message::Payload::Open {
            purpose: crate::commitment::PRIVATE_SEED,
            opening: crate::commitment::Opening { value: vec![0xff; 32], nonce: [0xff; 32] },
        };
        assert_eq!(needs(&open), 79 + 1);
        assert!(needs(&open) <= size(Variant::Sic, ToUmpire));
        assert!(needs(&act(promo.to_canonical())) <= size(Variant::Sic, ToUmpire));
        let result = Some(GameResult::win(Color::Black, rules::EndReason::Abandonment));
        // The compact list's size depends only on its number of origins: one per man, each
        // here with a plain move and a promotion (to every role R-S5 may allow) for good
        // measure. Sorted as the rules sort a list, or it does not encode.
        let promotable = [
            rules::Role::Rook,
            rules::Role::Bishop,
            rules::Role::Knight,
            rules::Role::Queen,
            rules::Role::Marshall,
            rules::Role::Archbishop,
            rules::Role::DragonKing,
            rules::Role::DragonHorse,
            rules::Role::Centaur,
            rules::Role::Spy,
            rules::Role::Decoy,
        ];
        let index = |i: usize| Square::from_index(u8::try_from(i).unwrap()).unwrap();
        let mut legal: Vec<Move> = (8..8 + SIC_MAX_MEN)
            .flat_map(|from| {
                let plain = Move::new(index(from), index(from + 24));
                let promote = promotable.map(|r| Move {
                    promotion: Some(r),
                    ..Move::new(index(from), index(from % 8))
                });
                std::iter::once(plain).chain(promote)
            })
            .collect();
        legal.sort_by_key(|m| m.uci(rules::Alphabet::SIC));
        let view = rules::sic::View {
            side: Color::Black,
            to_move: Color::Black,
            own: vec![
                rules::sic::OwnPiece {
                    square: sq("h8"),
                    role: rules::Role::Decoy,
                    id: sq("h8"),
                    unmoved: true
                };
                17
            ],
            enemy_moved: vec![rules::sic::TrackedPiece { square: sq("h8"), id: sq("h8") }; 17],
            captured: vec![rules::Role::Decoy; 17],
            lost: vec![rules::Role::Decoy; 17],
            legal: legal.clone(),
            fullmove: u32::MAX,
            result,
        };
        assert_eq!(needs(&obs(view.to_canonical())), 446 + 1);
        assert!(needs(&obs(view.to_canonical())) <= size(Variant::Sic, FromUmpire));
        let report = rules::sic::Observation::OpponentMoved(rules::sic::OpponentReport {
            from: sq("h8"),
            to: sq("h8"),
            id: sq("h8"),
            lost: Some(rules::sic::LostPiece { square: sq("h8"), role: rules::Role::Decoy }),
            check: Some(rules::sic::CheckReport::Decoy),
            legal,
            end: result,
        });
        assert_eq!(report.to_canonical().len(), 305);
        assert!(needs(&obs(report.to_canonical())) <= size(Variant::Sic, FromUmpire));
        assert!(needs(&ack) <= size(Variant::Sic, FromUmpire));
        // 6x6. Squares of the 6x6 board have indices up to 45 (f6), so masks stay below 2^46.
        let six_sq = |n: &str| Square::parse(n, rules::BoardSize::Six).expect("a 6x6 square");
        let widest = six_sq("f6");
        let formation = Formation::parse("RNB1QK").unwrap();
        let mv = TurnMove::Move { from: widest, to: widest, power: true };
        let tie_break = six::Action::TieBreak { formation, moves: vec![mv; SC6_MAX_TURNS] };
        let falses: Bitboard = ["a4", "b4", "f6"].into_iter().map(six_sq).collect();
        let setup = six::Action::Setup { formation, false_squares: falses };
        assert_eq!(needs(&act(tie_break.to_canonical())), 208 + 1);
        assert_eq!(needs(&act(setup.to_canonical())), 19 + 2 + 1);
        for a in
            [tie_break, setup, six::Action::Move { mv }, six::Action::LifeFreeze { piece: widest }]
        {
            assert!(needs(&act(a.to_canonical())) <= size(Variant::SecretChess6, ToUmpire));
        }
        let scores = ByColor { white: u32::MAX, black: u32::MAX };
        let territory = rules::secretchess6::territory(Color::Black);
        let board = six::Event::Board {
            turn: u32::MAX,
            your_turn: true,
            pieces: vec![
                six::OwnPiece {
                    square: widest,
                    role: rules::Role::Knight,
                    lifespan: Some(4),
                    powered: true,
                    frozen: true,
                };
                5
            ],
            red: territory,
        };
        assert_eq!(
            obs(six::Observation { events: vec![board.clone()] }.to_canonical())
                .to_canonical()
                .len(),
            45 + 3
        );
        let passes = (0..SC6_MAX_PASSES_IN_A_ROW).flat_map(|_| {
            [
                board.clone(),
                six::Event::Passed { reason: rules::secretchess6::PassReason::NoLegalMove },
                six::Event::Scores { turn: u32::MAX, scores },
            ]
        });
        let mut events = vec![six::Event::SetupAccepted, board.clone()];
        events.extend(passes);
        events.push(board.clone());
        events.push(six::Event::End {
            result: GameResult::win(Color::Black, rules::EndReason::TieBreak),
            scores,
            tie_break: Some(six::TieBreakReport {
                formation_errors: scores,
                deciding_round: Some(u32::MAX),
            }),
        });
        let worst = six::Observation { events };
        assert_eq!(needs(&obs(worst.to_canonical())), 882 + 1);
        assert!(needs(&obs(worst.to_canonical())) <= size(Variant::SecretChess6, FromUmpire));
        let moved = six::Observation {
            events: vec![six::Event::Moved { mv }, six::Event::Scores { turn: u32::MAX, scores }],
        };
        assert!(
            moved.to_canonical().len() < 46,
            "a move's own events are no larger than a setup's"
        );
        assert!(needs(&ack) <= size(Variant::SecretChess6, FromUmpire));
        // The games that seal nothing refuse every plaintext.
        for v in [Variant::Chess, Variant::Espionage, Variant::Intrigue] {
            assert_eq!((size(v, ToUmpire), size(v, FromUmpire)), (0, 0));
        }
    }

    /// The canonical bytes of an `OpponentMoved` report with the legal moves `texts` and
    /// nothing else (from a1 to a1, id a1, nothing lost, no check, no end), and the offset of
    /// the legal-move list in them.
    fn report_with(texts: &[&str]) -> (Vec<u8>, usize) {
        let mut legal: Vec<Move> = texts
            .iter()
            .map(|t| Move::parse_uci(t, rules::BoardSize::Eight, rules::Alphabet::SIC).unwrap())
            .collect();
        legal.sort_by_key(|m| m.uci(rules::Alphabet::SIC));
        let report = rules::sic::Observation::OpponentMoved(rules::sic::OpponentReport {
            from: sq("a1"),
            to: sq("a1"),
            id: sq("a1"),
            lost: None,
            check: None,
            legal,
            end: None,
        });
        let bytes = report.to_canonical();
        // The variant tag, three squares, two `None`s; then the list; then the `None` end.
        assert_eq!(bytes[..6], [1, 0, 0, 0, 0, 0]);
        assert_eq!(bytes.last(), Some(&0));
        assert_eq!(rules::sic::Observation::from_canonical(&bytes), Ok(report));
        (bytes, 6)
    }

    /// SIC's legal-move lists on the wire (`rules::sic` `compact`): promotion roles, a group
    /// count, then per origin in increasing index its square and two 64-bit masks (plain
    /// targets, promotion targets), little-endian. Every way to spell a list otherwise, or to
    /// spell a list SIC cannot produce, does not decode.
    #[test]
    fn sic_legal_lists_have_one_encoding_and_bytes_sic_cannot_list_do_not_decode() {
        let (bytes, at) =
            report_with(&["b1a3", "b1c3", "g7g8r", "g7g8b", "g7g8n", "g7h8r", "g7h8b", "g7h8n"]);
        let rbn = ((1u16 << 1) | (1 << 2) | (1 << 3)).to_le_bytes();
        let bit = |s: &str| 1u64 << sq(s).index();
        let mut want = vec![rbn[0], rbn[1], 2, 1];
        want.extend((bit("a3") | bit("c3")).to_le_bytes());
        want.extend(0u64.to_le_bytes());
        want.push(54);
        want.extend(0u64.to_le_bytes());
        want.extend((bit("g8") | bit("h8")).to_le_bytes());
        assert_eq!(bytes[at..bytes.len() - 1], want[..]);
        let group = |i: usize| at + 3 + 17 * i;
        let decode = |b: &[u8]| rules::sic::Observation::from_canonical(b);
        let malformed = |b: &[u8], why: &str| {
            assert!(
                matches!(decode(b), Err(DecodeError::Malformed { .. })),
                "{why}: {:?}",
                decode(b)
            );
        };
        // Groups out of order: swap the two.
        let mut swapped = bytes.clone();
        let (a, b) = (group(0), group(1));
        let first: Vec<u8> = swapped[a..b].to_vec();
        swapped.copy_within(b..b + 17, a);
        swapped[a + 17..a + 34].copy_from_slice(&first);
        malformed(&swapped, "groups out of order");
        // The same origin twice.
        let mut twice = bytes.clone();
        twice[group(1)] = 1;
        malformed(&twice, "one origin twice");
        // An empty group: b1's plain targets cleared.
        let mut empty = bytes.clone();
        empty[group(0) + 1..group(0) + 9].fill(0);
        malformed(&empty, "an empty group");
        // A move to its own square: b1 to b1.
        let mut itself = bytes.clone();
        itself[group(0) + 1] |= 1 << 1;
        malformed(&itself, "a move from b1 to b1");
        // g8 both plain and promoting.
        let mut both = bytes.clone();
        both[group(1) + 8] |= 1 << 6;
        malformed(&both, "g7g8 plain and promoting");
        // A promotion onto g6.
        let mut off = bytes.clone();
        off[group(1) + 9 + 5] |= 1 << 6;
        malformed(&off, "a promotion off the last ranks");
        // Roles: without the knight; with a pawn; with the Cannon; none at all.
        for (roles, why) in [
            ((1u16 << 2) | (1 << 3), "no knight"),
            (0b1111, "a pawn"),
            ((1 << 13) | 0b1110, "the Cannon"),
            ((1 << 15) | 0b1110, "no role"),
            (0, "promotions without roles"),
        ] {
            let mut b = bytes.clone();
            b[at..at + 2].copy_from_slice(&roles.to_le_bytes());
            malformed(&b, why);
        }
        // Roles where nothing promotes.
        let (plain, at) = report_with(&["b1a3"]);
        let mut b = plain.clone();
        b[at..at + 2].copy_from_slice(&rbn);
        malformed(&b, "roles without promotions");
        // Not a square: origin 64.
        let mut b = plain.clone();
        b[at + 3] = 64;
        malformed(&b, "origin 64");
        // An overlong group count is postcard's to refuse: the codec's re-encoding does.
        let mut b = plain[..at + 2].to_vec();
        b.extend([0x81, 0x00]);
        b.extend(&plain[at + 3..]);
        assert!(matches!(decode(&b), Err(DecodeError::NonCanonical { .. })), "{:?}", decode(&b));
        // And the list with no move is three bytes: no roles, no group.
        let (none, at) = report_with(&[]);
        assert_eq!(none[at..], [0, 0, 0, 0]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// Random SIC games (random setups, either Spy rule, random legal moves): every view and
        /// every report round-trips through its canonical bytes, and fits the padded size.
        #[test]
        fn sic_views_and_reports_round_trip_and_fit(
            white in proptest::prelude::any::<[u8; 32]>(),
            black in proptest::prelude::any::<[u8; 32]>(),
            original in proptest::prelude::any::<bool>(),
            picks in proptest::collection::vec(proptest::prelude::any::<u16>(), 0..150),
        ) {
            use rules::{Game, sic};
            let spy = if original { sic::SpyRule::Original } else { sic::SpyRule::Default };
            let mut state = sic::State::new(&white, &black, spy);
            let fits = |bytes: Vec<u8>| needs(&obs(bytes)) <= sealed_plaintext_bytes(Variant::Sic, SealDirection::FromUmpire);
            for pick in picks {
                for side in Color::ALL {
                    let view = state.view(side);
                    let bytes = view.to_canonical();
                    proptest::prop_assert_eq!(sic::View::from_canonical(&bytes), Ok(view));
                    proptest::prop_assert!(fits(bytes));
                }
                let side = state.position().turn();
                let legal = state.legal_moves_of(side);
                if legal.is_empty() {
                    break;
                }
                let m = legal[usize::from(pick) % legal.len()];
                let t = state.apply(side, &m).expect("a listed move is legal");
                for told in [t.told.white, t.told.black].into_iter().flatten() {
                    let bytes = told.to_canonical();
                    proptest::prop_assert_eq!(sic::Observation::from_canonical(&bytes), Ok(told));
                    proptest::prop_assert!(fits(bytes));
                }
                state = t.state;
            }
        }
    }
}
