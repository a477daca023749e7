//! The game layer of a match: the six `rules` games behind one closed enum, with actions and
//! observations as canonical bytes (docs/PROTOCOL.md, "Match flow").
//!
//! Actions and observations on the wire are the games' own serde types encoded with the strict
//! postcard codec of [`crate::codec`] (one encoding per value; trailing or non-canonical bytes
//! are refused). The verifier compares observations by byte equality, so every encoding here
//! is canonical. One exception: 6x6 Secret Chess's `Action` and `Event` are internally tagged
//! serde enums (for their JSON), which postcard cannot decode, so the wire uses the mirror types
//! of [`sc6`], converted one-to-one (exhaustively, so a new rules variant fails to compile here).
//!
//! | variant | action bytes | observation bytes | start observation |
//! |---|---|---|---|
//! | chess | `rules::Move` | `rules::chess::Played` | none |
//! | kriegspiel | `rules::Move` (an attempt) | `rules::kriegspiel::Answer` | none |
//! | sic | `rules::Move` | `rules::sic::Observation` | `rules::sic::View` of each side |
//! | intrigue | `rules::intrigue::Action` | `rules::intrigue::Observation` | none |
//! | secretchess6 | [`sc6::Action`] | [`sc6::Observation`] | none |
//! | espionage | `rules::Move` | `rules::espionage::Observation` | none |

use crate::Side;
use crate::codec::{Canonical, DecodeError};
use crate::message::{Claim, Outcome};
use rules::{ActionError, ByColor, Color, Game, GameResult, Variant};
use std::collections::BTreeMap;
use thiserror::Error;

/// Largest encoded action or observation (a limit on what comes from outside; a payload is at
/// most 64 KiB and an observation travels inside one).
pub const MAX_GAME_BYTES: usize = 60 * 1024;

macro_rules! canonical {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl Canonical for $ty {
            const NAME: &'static str = $name;
            const MAX_BYTES: usize = MAX_GAME_BYTES;
        })*
    };
}

canonical! {
    rules::Move => "move",
    rules::chess::Played => "chess observation",
    rules::kriegspiel::Answer => "kriegspiel answer",
    rules::sic::Observation => "sic observation",
    rules::sic::View => "sic view",
    rules::intrigue::Action => "intrigue action",
    rules::intrigue::Observation => "intrigue observation",
    sc6::Action => "secretchess6 action",
    sc6::Observation => "secretchess6 observation",
    rules::espionage::Observation => "espionage observation",
}

/// The rules colour of a protocol side.
pub fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

/// The protocol side of a rules colour.
pub fn side(color: Color) -> Side {
    match color {
        Color::White => Side::White,
        Color::Black => Side::Black,
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
    /// The terms name a variant the rules crate does not know.
    #[error(transparent)]
    UnknownVariant(#[from] rules::UnknownVariant),
    /// An option the variant does not have, or a bad value.
    #[error("option '{name}': {problem}")]
    BadOption {
        /// The option's name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// The machine's identity is not the party the terms say, or its seal key for this match
    /// is not the one the terms carry.
    #[error("keys: {0}")]
    Keys(String),
    /// SIC needs both setup seeds; other games take none.
    #[error("{variant}: {problem}")]
    Setup {
        /// The variant.
        variant: Variant,
        /// What is wrong.
        problem: &'static str,
    },
    /// The action bytes are not a canonical action of this game.
    #[error("action bytes: {0}")]
    Decode(#[from] DecodeError),
    /// The rules refused the action (not a Kriegspiel illegal attempt, which is answered).
    #[error("refused by the rules: {0}")]
    Rules(#[from] ActionError),
}

/// What the six games are told, per side, as canonical bytes (`None`: told nothing).
pub type Told = ByColor<Option<Vec<u8>>>;

/// One of the six games, as the umpire (or a verifier) holds it: the full state.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Orthodox chess (open).
    Chess(rules::chess::State),
    /// Kriegspiel (umpired).
    Kriegspiel(rules::kriegspiel::State),
    /// Secret Intelligence Chess (umpired).
    Sic(Box<rules::sic::State>),
    /// Intrigue (owner-answered).
    Intrigue(rules::intrigue::State),
    /// 6x6 Secret Chess (umpired).
    SecretChess6(Box<rules::secretchess6::State>),
    /// Espionage Chess (open).
    Espionage(rules::espionage::State),
}

/// Whose move clock runs in `game` by the rules: what an umpire's [`crate::message::Payload::Turn`]
/// must say (the umpire machine sends it; the verifier compares it).
pub fn turn_of(game: &AnyGame) -> crate::message::Owed {
    use crate::message::Owed;
    if game.result().is_some() {
        return Owed::Nobody;
    }
    match game.to_act().as_slice() {
        [c] => Owed::Side(side(*c)),
        [] => Owed::Nobody,
        _ => Owed::Both,
    }
}

/// How a variant is adjudicated (ARCHITECTURE.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Moves public, everyone checks (chess, espionage).
    Open,
    /// Moves public, the owner of a captured pawn answers (intrigue).
    Owner,
    /// Actions sealed to the umpire, which answers each side (kriegspiel, sic, secretchess6).
    Umpire,
}

/// The adjudication mode of a variant.
pub fn mode(variant: Variant) -> Mode {
    match variant {
        Variant::Chess | Variant::Espionage => Mode::Open,
        Variant::Intrigue => Mode::Owner,
        Variant::Kriegspiel | Variant::Sic | Variant::SecretChess6 => Mode::Umpire,
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

/// The most moves a SIC legal-move list can hold: 17 men per side (R-S1: K, 2 R, 2 B, 2 N,
/// 8 P and a pair), each with at most 35 moves. The most mobile man is the Spy, which moves as
/// N, B or R (8 + 13 + 14 = 35 from a central square; `spy-original` adds only one-step
/// captures onto squares of those same sets); the Queen has 27, M 22, A 21, D 18, H 17, C and
/// Y 16, R 14, B 13, K and N 8 (no castling). A pawn has at most 3 squares on its seventh rank,
/// each with at most 11 promotion roles (R-S5: R, B, N and eight others), so 33, and 1 + 11 + 2
/// = 14 on its sixth (a quick double step may promote). A swap (R-S9) is a move to a square
/// the mover reaches by its own movement, so it adds no square to these sets.
pub const SIC_MAX_LEGAL_MOVES: usize = 17 * 35;

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
/// a square name as text 3 (`"e4"` with its length), a move as SIC text at most 6 (`e7e8q`).
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
        // The start `View`: side 1, to move 1, own men (1 + 17 × (square 3, role 1, id 3,
        // unmoved 1)) = 137, moved enemy men (1 + 17 × 6) = 103, captured and lost roles
        // (1 + 17) × 2 = 36, legal moves (2 + 595 × 6) = 3572, move number 5, result 4:
        // 3860; in `Observation(...)` 1 + 2 more: 3863. An `OpponentMoved` report is
        // smaller (1 + 9 + lost 5 + check 2 + 3572 + end 4 = 3593), an ack 33.
        (Variant::Sic, FromUmpire) => 4096,
        // `Action(TieBreak { formation, moves })`: 1 + (1 + 6) + (1 + 48 × 6) = 297, in
        // `Action` 1 + 2 more: 300. A setup is 1 + 7 + (1 + 3 × 3) = 18, a move 7.
        (Variant::SecretChess6, ToUmpire) => 512,
        // Events: Board 1 + turn 5 + 1 + pieces (1 + 5 × 8) + red (1 + 18 × 3) = 103, Scores
        // 16, Passed 2, Moved 7, Frozen 4, End 31, TieBreakNeeded 16, the setup's 1. One
        // observation is the action's events (at most Moved + Scores, or a setup's ack and a
        // Board: 104), then per pass in a row at most Board + Passed + Scores (121), then a
        // final Board and an End: 104 + 12 × 121 + 103 + 31 = 1690, with the event count and
        // the `Observation` tag and length: 1695.
        (Variant::SecretChess6, FromUmpire) => 2048,
    }
}

fn flag(name: &str, value: &str) -> Result<bool, GameError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(GameError::BadOption {
            name: name.to_owned(),
            problem: format!("'{other}' is not true or false"),
        }),
    }
}

fn count(name: &str, value: &str) -> Result<u8, GameError> {
    value.parse::<u8>().ok().filter(|n| *n <= rules::secretchess6::MAX_LIFE_FREEZES).ok_or_else(
        || GameError::BadOption {
            name: name.to_owned(),
            problem: format!(
                "'{value}' is not a number from 0 to {}",
                rules::secretchess6::MAX_LIFE_FREEZES
            ),
        },
    )
}

fn unknown(variant: Variant, name: &str, known: &str) -> GameError {
    GameError::BadOption {
        name: name.to_owned(),
        problem: format!("{variant} has no such option (known: {known})"),
    }
}

fn decode<T: Canonical>(bytes: &[u8]) -> Result<T, GameError> {
    Ok(T::from_canonical(bytes)?)
}

fn told<O: Canonical>(t: ByColor<Option<O>>) -> Told {
    t.map(|o| o.map(|o| o.to_canonical()))
}

impl AnyGame {
    /// The start of a game from the terms' variant id and options (docs/PROTOCOL.md lists the
    /// options: kriegspiel `touch-move`; sic `spy` = `default` | `original`; secretchess6
    /// `life-freezes-white`, `life-freezes-black` (0..8), `false-square-white`,
    /// `false-square-black`, `hidden-scores`; flags are `true` or `false`). `seeds` are SIC's
    /// two setup seeds ([`crate::seed::setup_seed`]) and must be `None` for the other games.
    /// Intrigue and 6x6 start in their setup phase: the setup choices are applied as actions.
    pub fn start(
        variant: &str,
        options: &BTreeMap<String, String>,
        seeds: Option<&ByColor<[u8; 32]>>,
    ) -> Result<AnyGame, GameError> {
        let v: Variant = variant.parse()?;
        if (v == Variant::Sic) != seeds.is_some() {
            let problem = if v == Variant::Sic {
                "needs both sides' setup seeds"
            } else {
                "takes no setup seeds"
            };
            return Err(GameError::Setup { variant: v, problem });
        }
        Ok(match v {
            Variant::Chess | Variant::Espionage | Variant::Intrigue => {
                if let Some(name) = options.keys().next() {
                    return Err(unknown(v, name, "none"));
                }
                match v {
                    Variant::Chess => AnyGame::Chess(rules::chess::State::start()),
                    Variant::Espionage => AnyGame::Espionage(rules::espionage::State::new()),
                    _ => AnyGame::Intrigue(rules::intrigue::State::new()),
                }
            }
            Variant::Kriegspiel => {
                let mut o = rules::kriegspiel::Options::default();
                for (name, value) in options {
                    match name.as_str() {
                        "touch-move" => o.touch_move = flag(name, value)?,
                        _ => return Err(unknown(v, name, "touch-move")),
                    }
                }
                AnyGame::Kriegspiel(rules::kriegspiel::State::start(o))
            }
            Variant::Sic => {
                let mut spy = rules::sic::SpyRule::Default;
                for (name, value) in options {
                    match (name.as_str(), value.as_str()) {
                        ("spy", "default") => spy = rules::sic::SpyRule::Default,
                        ("spy", "original") => spy = rules::sic::SpyRule::Original,
                        ("spy", other) => {
                            return Err(GameError::BadOption {
                                name: name.clone(),
                                problem: format!("'{other}' is not default or original"),
                            });
                        }
                        _ => return Err(unknown(v, name, "spy")),
                    }
                }
                let s = seeds.expect("checked above: sic has seeds");
                AnyGame::Sic(Box::new(rules::sic::State::new(&s.white, &s.black, spy)))
            }
            Variant::SecretChess6 => {
                let mut o = rules::secretchess6::Options::default();
                for (name, value) in options {
                    match name.as_str() {
                        "life-freezes-white" => o.life_freezes.white = count(name, value)?,
                        "life-freezes-black" => o.life_freezes.black = count(name, value)?,
                        "false-square-white" => o.false_square.white = flag(name, value)?,
                        "false-square-black" => o.false_square.black = flag(name, value)?,
                        "hidden-scores" => o.hidden_scores = flag(name, value)?,
                        _ => {
                            return Err(unknown(
                                v,
                                name,
                                "life-freezes-white, life-freezes-black, false-square-white, \
                                 false-square-black, hidden-scores",
                            ));
                        }
                    }
                }
                AnyGame::SecretChess6(Box::new(rules::secretchess6::State::new(o)))
            }
        })
    }

    /// Which game this is.
    pub fn variant(&self) -> Variant {
        match self {
            AnyGame::Chess(_) => Variant::Chess,
            AnyGame::Kriegspiel(_) => Variant::Kriegspiel,
            AnyGame::Sic(_) => Variant::Sic,
            AnyGame::Intrigue(_) => Variant::Intrigue,
            AnyGame::SecretChess6(_) => Variant::SecretChess6,
            AnyGame::Espionage(_) => Variant::Espionage,
        }
    }

    /// What each side is told when play can begin, before any action: in SIC each side's
    /// [`rules::sic::View`] (its pieces and, for White, its first legal moves); nothing in the
    /// other games (a Kriegspiel player knows the standard start; 6x6 boards come with the
    /// setup observations).
    pub fn start_observations(&self) -> Told {
        match self {
            AnyGame::Sic(s) => told(ByColor::new_with(|c| Some(s.view(c)))),
            _ => ByColor::default(),
        }
    }

    /// Applies `action_bytes` (canonical bytes of the game's action type) by `actor`: the new
    /// game and the canonical bytes of what each side is told. `self` is unchanged on error.
    pub fn apply(&self, actor: Color, action_bytes: &[u8]) -> Result<(AnyGame, Told), GameError> {
        Ok(match self {
            AnyGame::Chess(s) => {
                let t = s.apply(actor, &decode::<rules::Move>(action_bytes)?)?;
                (AnyGame::Chess(t.state), told(t.told))
            }
            AnyGame::Kriegspiel(s) => {
                let t = s.apply(actor, &decode::<rules::Move>(action_bytes)?)?;
                (AnyGame::Kriegspiel(t.state), told(t.told))
            }
            AnyGame::Sic(s) => {
                let t = s.apply(actor, &decode::<rules::Move>(action_bytes)?)?;
                (AnyGame::Sic(Box::new(t.state)), told(t.told))
            }
            AnyGame::Intrigue(s) => {
                let t = s.apply(actor, &decode::<rules::intrigue::Action>(action_bytes)?)?;
                (AnyGame::Intrigue(t.state), told(t.told))
            }
            AnyGame::SecretChess6(s) => {
                let a = decode::<sc6::Action>(action_bytes)?;
                let t = s.apply(actor, &a.into())?;
                let told = t.told.map(|o| o.map(|o| sc6::Observation::from(o).to_canonical()));
                (AnyGame::SecretChess6(Box::new(t.state)), told)
            }
            AnyGame::Espionage(s) => {
                let t = s.apply(actor, &decode::<rules::Move>(action_bytes)?)?;
                (AnyGame::Espionage(t.state), told(t.told))
            }
        })
    }

    /// The legal actions of the side to act (canonical bytes), as the full state knows them:
    /// moves (Kriegspiel: the legal moves, not the attempts), 6x6 moves, Life Freeze and
    /// end-turn choices. Empty during free-form phases (setups, tie-break) and once over.
    pub fn legal_actions(&self) -> Vec<Vec<u8>> {
        let moves = |v: Vec<rules::Move>| v.iter().map(Canonical::to_canonical).collect();
        if self.result().is_some() {
            return Vec::new();
        }
        match self {
            AnyGame::Chess(s) => moves(s.position().legal_moves().to_vec()),
            AnyGame::Kriegspiel(s) => moves(s.position().legal_moves().to_vec()),
            AnyGame::Sic(s) => moves(s.legal_moves_of(s.position().turn())),
            AnyGame::Intrigue(s) => s.position().map_or_else(Vec::new, |p| {
                p.legal_moves()
                    .into_iter()
                    .map(|m| rules::intrigue::Action::Move(m).to_canonical())
                    .collect()
            }),
            AnyGame::SecretChess6(s) => s
                .legal_actions()
                .into_iter()
                .map(|(_, a)| sc6::Action::from(a).to_canonical())
                .collect(),
            AnyGame::Espionage(s) => moves(s.legal_moves()),
        }
    }

    /// The sides that may act now (both during a simultaneous setup; none once over).
    pub fn to_act(&self) -> Vec<Color> {
        match self {
            AnyGame::Chess(s) => s.to_act(),
            AnyGame::Kriegspiel(s) => s.to_act(),
            AnyGame::Sic(s) => s.to_act(),
            AnyGame::Intrigue(s) => s.to_act(),
            AnyGame::SecretChess6(s) => s.to_act(),
            AnyGame::Espionage(s) => s.to_act(),
        }
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        match self {
            AnyGame::Chess(s) => s.result(),
            AnyGame::Kriegspiel(s) => s.result(),
            AnyGame::Sic(s) => s.result(),
            AnyGame::Intrigue(s) => s.result(),
            AnyGame::SecretChess6(s) => s.result(),
            AnyGame::Espionage(s) => s.result(),
        }
    }
}

/// 6x6 Secret Chess on the wire: postcard-friendly mirrors of `rules::secretchess6::Action`
/// and `Observation` (whose serde form is internally tagged JSON), field for field.
pub mod sc6 {
    use rules::secretchess6 as g;
    use rules::{ByColor, GameResult};
    use serde::{Deserialize, Serialize};

    /// Mirror of [`g::Action`].
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Action {
        /// [`g::Action::Setup`].
        Setup {
            /// Formation, files a to f.
            formation: String,
            /// False squares.
            false_squares: Vec<String>,
        },
        /// [`g::Action::Move`].
        Move {
            /// The move text.
            mv: String,
        },
        /// [`g::Action::LifeFreeze`].
        LifeFreeze {
            /// The piece's square.
            piece: String,
        },
        /// [`g::Action::EndTurn`].
        EndTurn,
        /// [`g::Action::TieBreak`].
        TieBreak {
            /// The opponent's formation.
            formation: String,
            /// The opponent's turns.
            moves: Vec<String>,
        },
    }

    impl From<Action> for g::Action {
        fn from(a: Action) -> g::Action {
            match a {
                Action::Setup { formation, false_squares } => {
                    g::Action::Setup { formation, false_squares }
                }
                Action::Move { mv } => g::Action::Move { mv },
                Action::LifeFreeze { piece } => g::Action::LifeFreeze { piece },
                Action::EndTurn => g::Action::EndTurn,
                Action::TieBreak { formation, moves } => g::Action::TieBreak { formation, moves },
            }
        }
    }

    impl From<g::Action> for Action {
        fn from(a: g::Action) -> Action {
            match a {
                g::Action::Setup { formation, false_squares } => {
                    Action::Setup { formation, false_squares }
                }
                g::Action::Move { mv } => Action::Move { mv },
                g::Action::LifeFreeze { piece } => Action::LifeFreeze { piece },
                g::Action::EndTurn => Action::EndTurn,
                g::Action::TieBreak { formation, moves } => Action::TieBreak { formation, moves },
            }
        }
    }

    /// Mirror of [`g::Event`].
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Event {
        /// [`g::Event::SetupAccepted`].
        SetupAccepted,
        /// [`g::Event::OpponentReady`].
        OpponentReady,
        /// [`g::Event::Board`].
        Board {
            /// Turn number.
            turn: u32,
            /// Whether this side acts now.
            your_turn: bool,
            /// Own pieces.
            pieces: Vec<g::OwnPiece>,
            /// Red squares.
            red: Vec<String>,
        },
        /// [`g::Event::Moved`].
        Moved {
            /// The move.
            mv: String,
        },
        /// [`g::Event::Passed`].
        Passed {
            /// Why.
            reason: g::PassReason,
        },
        /// [`g::Event::Frozen`].
        Frozen {
            /// The frozen piece.
            piece: String,
        },
        /// [`g::Event::Scores`].
        Scores {
            /// The turn scored.
            turn: u32,
            /// Both totals.
            scores: ByColor<u32>,
        },
        /// [`g::Event::TieBreakNeeded`].
        TieBreakNeeded {
            /// Final scores.
            scores: ByColor<u32>,
            /// The opponent's number of turns.
            opponent_turns: u32,
        },
        /// [`g::Event::End`].
        End {
            /// The result.
            result: GameResult,
            /// Final scores.
            scores: ByColor<u32>,
            /// The tie-break report.
            tie_break: Option<g::TieBreakReport>,
        },
    }

    impl From<g::Event> for Event {
        fn from(e: g::Event) -> Event {
            match e {
                g::Event::SetupAccepted => Event::SetupAccepted,
                g::Event::OpponentReady => Event::OpponentReady,
                g::Event::Board { turn, your_turn, pieces, red } => {
                    Event::Board { turn, your_turn, pieces, red }
                }
                g::Event::Moved { mv } => Event::Moved { mv },
                g::Event::Passed { reason } => Event::Passed { reason },
                g::Event::Frozen { piece } => Event::Frozen { piece },
                g::Event::Scores { turn, scores } => Event::Scores { turn, scores },
                g::Event::TieBreakNeeded { scores, opponent_turns } => {
                    Event::TieBreakNeeded { scores, opponent_turns }
                }
                g::Event::End { result, scores, tie_break } => {
                    Event::End { result, scores, tie_break }
                }
            }
        }
    }

    impl From<Event> for g::Event {
        fn from(e: Event) -> g::Event {
            match e {
                Event::SetupAccepted => g::Event::SetupAccepted,
                Event::OpponentReady => g::Event::OpponentReady,
                Event::Board { turn, your_turn, pieces, red } => {
                    g::Event::Board { turn, your_turn, pieces, red }
                }
                Event::Moved { mv } => g::Event::Moved { mv },
                Event::Passed { reason } => g::Event::Passed { reason },
                Event::Frozen { piece } => g::Event::Frozen { piece },
                Event::Scores { turn, scores } => g::Event::Scores { turn, scores },
                Event::TieBreakNeeded { scores, opponent_turns } => {
                    g::Event::TieBreakNeeded { scores, opponent_turns }
                }
                Event::End { result, scores, tie_break } => {
                    g::Event::End { result, scores, tie_break }
                }
            }
        }
    }

    /// Mirror of [`g::Observation`]: the events in order.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    pub struct Observation {
        /// The events.
        pub events: Vec<Event>,
    }

    impl From<g::Observation> for Observation {
        fn from(o: g::Observation) -> Observation {
            Observation { events: o.events.into_iter().map(Event::from).collect() }
        }
    }

    impl From<Observation> for g::Observation {
        fn from(o: Observation) -> g::Observation {
            g::Observation { events: o.events.into_iter().map(g::Event::from).collect() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Canonical;
    use rules::{Move, Square};

    fn sq(name: &str) -> Square {
        Square::parse(name, rules::BoardSize::Eight).expect("a square")
    }

    fn none() -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    #[test]
    fn chess_move_round_trip_and_strict_decoding() {
        let g = AnyGame::start("chess", &none(), None).unwrap();
        let e2e4 = Move::new(sq("e2"), sq("e4")).to_canonical();
        let (g2, told) = g.apply(Color::White, &e2e4).unwrap();
        let played = rules::chess::Played::from_canonical(told.white.as_ref().unwrap()).unwrap();
        assert_eq!(played.mv, Move::new(sq("e2"), sq("e4")));
        assert_eq!(told.white, told.black);
        assert_eq!(g2.to_act(), vec![Color::Black]);
        let mut trailing = e2e4.clone();
        trailing.push(0);
        assert!(matches!(
            g.apply(Color::White, &trailing),
            Err(GameError::Decode(DecodeError::TrailingBytes { .. }))
        ));
        assert!(matches!(g.apply(Color::Black, &e2e4), Err(GameError::Rules(_))));
    }

    #[test]
    fn kriegspiel_illegal_attempt_is_told_to_the_mover_only() {
        let g = AnyGame::start("kriegspiel", &none(), None).unwrap();
        let (_, told) =
            g.apply(Color::White, &Move::new(sq("e2"), sq("e5")).to_canonical()).unwrap();
        let answer = rules::kriegspiel::Answer::from_canonical(told.white.as_ref().unwrap());
        assert_eq!(answer, Ok(rules::kriegspiel::Answer::Illegal));
        assert_eq!(told.black, None);
    }

    #[test]
    fn sic_needs_seeds_and_secretchess6_setup_round_trips() {
        assert!(matches!(AnyGame::start("sic", &none(), None), Err(GameError::Setup { .. })));
        let seeds = ByColor { white: [0; 32], black: [1; 32] };
        let sic = AnyGame::start("sic", &none(), Some(&seeds)).unwrap();
        let views = sic.start_observations();
        let white = rules::sic::View::from_canonical(views.white.as_ref().unwrap()).unwrap();
        assert!(!white.legal.is_empty());
        let g = AnyGame::start("secretchess6", &none(), None).unwrap();
        let setup = sc6::Action::Setup { formation: "RNB1QK".into(), false_squares: vec![] };
        let (g, told) = g.apply(Color::White, &setup.to_canonical()).unwrap();
        let obs = sc6::Observation::from_canonical(told.white.as_ref().unwrap()).unwrap();
        assert_eq!(obs.events, vec![sc6::Event::SetupAccepted]);
        assert_eq!(g.to_act(), vec![Color::Black]);
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
        let legal = vec![promo; SIC_MAX_LEGAL_MOVES];
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
        assert_eq!(needs(&obs(view.to_canonical())), 3862 + 1);
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
        assert_eq!(report.to_canonical().len(), 3593);
        assert!(needs(&obs(report.to_canonical())) <= size(Variant::Sic, FromUmpire));
        assert!(needs(&ack) <= size(Variant::Sic, FromUmpire));
        // 6x6.
        let tie_break = sc6::Action::TieBreak {
            formation: "RNB1QK".into(),
            moves: vec!["b1c4+".into(); SC6_MAX_TURNS],
        };
        let setup = sc6::Action::Setup {
            formation: "RNB1QK".into(),
            false_squares: vec!["a4".into(), "b4".into(), "c4".into()],
        };
        assert_eq!(needs(&act(tie_break.to_canonical())), 300 + 1);
        for a in [tie_break, setup] {
            assert!(needs(&act(a.to_canonical())) <= size(Variant::SecretChess6, ToUmpire));
        }
        let scores = ByColor { white: u32::MAX, black: u32::MAX };
        let board = sc6::Event::Board {
            turn: u32::MAX,
            your_turn: true,
            pieces: vec![
                rules::secretchess6::OwnPiece {
                    square: "f3".into(),
                    role: rules::Role::Knight,
                    lifespan: Some(4),
                    powered: true,
                    frozen: true,
                };
                5
            ],
            red: vec!["f3".into(); 18],
        };
        let passes = (0..SC6_MAX_PASSES_IN_A_ROW).flat_map(|_| {
            [
                board.clone(),
                sc6::Event::Passed { reason: rules::secretchess6::PassReason::NoLegalMove },
                sc6::Event::Scores { turn: u32::MAX, scores },
            ]
        });
        let mut events = vec![
            sc6::Event::SetupAccepted,
            board.clone(),
            sc6::Event::Moved { mv: "b1c4+".into() },
            sc6::Event::Scores { turn: u32::MAX, scores },
        ];
        events.extend(passes);
        events.push(board.clone());
        events.push(sc6::Event::End {
            result: GameResult::draw(rules::EndReason::TieBreak),
            scores,
            tie_break: Some(rules::secretchess6::TieBreakReport {
                formation_errors: scores,
                deciding_round: Some(u32::MAX),
            }),
        });
        let worst = sc6::Observation { events };
        assert!(needs(&obs(worst.to_canonical())) <= size(Variant::SecretChess6, FromUmpire));
        assert!(needs(&ack) <= size(Variant::SecretChess6, FromUmpire));
        // The games that seal nothing refuse every plaintext.
        for v in [Variant::Chess, Variant::Espionage, Variant::Intrigue] {
            assert_eq!((size(v, ToUmpire), size(v, FromUmpire)), (0, 0));
        }
    }

    #[test]
    fn options_are_checked() {
        let opt = |k: &str, v: &str| BTreeMap::from([(k.to_owned(), v.to_owned())]);
        assert!(AnyGame::start("kriegspiel", &opt("touch-move", "true"), None).is_ok());
        assert!(AnyGame::start("kriegspiel", &opt("touch-move", "yes"), None).is_err());
        assert!(AnyGame::start("chess", &opt("touch-move", "true"), None).is_err());
        assert!(AnyGame::start("secretchess6", &opt("life-freezes-white", "9"), None).is_err());
        assert!(matches!(
            AnyGame::start("shogi", &none(), None),
            Err(GameError::UnknownVariant(_))
        ));
    }
}
