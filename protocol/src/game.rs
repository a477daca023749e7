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
    Claim { outcome, reason: result.reason.name().to_owned() }
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
