//! What a 6x6 side submits ([`Action`]) and what it is told ([`Observation`]), as typed values
//! with one meaning per value: a [`Formation`] can only hold K Q R B N once each and one empty
//! file, false squares and red squares are sets ([`Bitboard`]), moves are [`TurnMove`]s.
//!
//! Serde forms are plain (externally tagged, kebab-case), with squares, sets, moves and
//! formations as text in human-readable formats and compact in binary ones. Every binary
//! encoding is canonical: a formation or a set of squares has exactly one, so a commitment to a
//! setup cannot be opened by another spelling of it.

use super::position::{PassReason, TurnMove};
use crate::{Alphabet, Bitboard, ByColor, GameResult, Role, Square};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};
use std::fmt;

/// A formation (R-G1): the content of files a to f of a side's first rank, K Q R B N once each
/// and one empty file. Only a valid formation can be built, so everything holding one holds a
/// valid one.
///
/// Text: six characters, upper case, `1` for the empty file (`NBKQ1R`); [`Formation::parse`]
/// also reads lower case and `.`. Binary: the six files as `Option<Role>`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Formation(#[cfg_attr(feature = "ts", ts(type = "string"))] [Option<Role>; 6]);

/// A formation that breaks R-G1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormationError(pub String);

impl Formation {
    /// The roles a formation holds, once each (R-G1).
    pub const ROLES: [Role; 5] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// A formation from its six files, if they hold K Q R B N once each and one empty file.
    pub fn new(files: [Option<Role>; 6]) -> Result<Formation, FormationError> {
        let empty = files.iter().filter(|f| f.is_none()).count();
        let complete =
            Formation::ROLES.iter().all(|r| files.iter().filter(|f| **f == Some(*r)).count() == 1);
        if empty != 1 || !complete {
            let text: String = files
                .iter()
                .map(|f| {
                    f.and_then(|r| Alphabet::SIC.char(r)).map_or('1', |c| c.to_ascii_uppercase())
                })
                .collect();
            return Err(FormationError(format!(
                "'{text}' must hold K Q R B N once each and one empty file (R-G1)"
            )));
        }
        Ok(Formation(files))
    }

    /// Reads a formation: six files a to f, letters K Q R B N once each (either case) and one
    /// empty square written `1` (or `.`).
    pub fn parse(text: &str) -> Result<Formation, FormationError> {
        let mut out = [None; 6];
        let mut file = 0usize;
        let mut seen: Vec<Role> = Vec::new();
        for c in text.chars() {
            if c == '.' || c == '1' {
                file += 1;
                continue;
            }
            let role = Alphabet::SECRET_CHESS
                .role(c.to_ascii_lowercase())
                .ok_or_else(|| FormationError(format!("'{c}' is not one of K Q R B N")))?;
            if seen.contains(&role) {
                return Err(FormationError(format!(
                    "'{c}' appears twice: each of K Q R B N exactly once"
                )));
            }
            if file >= 6 {
                return Err(FormationError(format!("'{text}' is longer than six files")));
            }
            seen.push(role);
            out[file] = Some(role);
            file += 1;
        }
        if file != 6 || seen.len() != 5 {
            return Err(FormationError(format!(
                "'{text}' must cover six files with K Q R B N once each and one empty square"
            )));
        }
        Ok(Formation(out))
    }

    /// The six files, a to f.
    #[must_use]
    pub const fn files(&self) -> [Option<Role>; 6] {
        self.0
    }
}

impl fmt::Display for Formation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in self.0 {
            let c = file
                .and_then(|r| Alphabet::SECRET_CHESS.char(r))
                .map_or('1', |c| c.to_ascii_uppercase());
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Serialize for Formation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() { s.collect_str(self) } else { self.0.serialize(s) }
    }
}

impl<'de> Deserialize<'de> for Formation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Formation, D::Error> {
        if d.is_human_readable() {
            Formation::parse(&String::deserialize(d)?).map_err(D::Error::custom)
        } else {
            Formation::new(<[Option<Role>; 6]>::deserialize(d)?).map_err(D::Error::custom)
        }
    }
}

/// A side's action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SixAction"))]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// R-G1: the secret formation of the first rank and the false squares in the enemy
    /// territory (at most two, three with the False Square item; checked by the rules, which
    /// know the side and the options).
    Setup {
        /// The formation, files a to f.
        formation: Formation,
        /// The false squares.
        false_squares: Bitboard,
    },
    /// A move (step 3); passes are never submitted, the umpire makes them.
    Move {
        /// `b1d3`, or `b1c4+` for a knight's powering move.
        mv: TurnMove,
    },
    /// R-G9 Life Freeze, after one's move (and its scoring): the piece on `piece` skips its
    /// owner's next lifespan reduction.
    LifeFreeze {
        /// The square of one's own piece (not the king).
        piece: Square,
    },
    /// Ends the turn without using Life Freeze (only asked while a side has copies left).
    EndTurn,
    /// R-G8 tie-break: the guess of the opponent's original formation and of its move in
    /// each of its turns ([`TurnMove::Pass`] for a skipped turn). Both stages are submitted
    /// together, before anything is revealed.
    TieBreak {
        /// The opponent's formation.
        formation: Formation,
        /// The opponent's turns in order.
        moves: Vec<TurnMove>,
    },
}

/// One own piece as shown in a board update (R-G6): lifespans only for pieces that moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SixOwnPiece"))]
pub struct OwnPiece {
    /// Its square.
    pub square: Square,
    /// Its kind.
    pub role: Role,
    /// Its lifespan once it has moved (R-G3).
    pub lifespan: Option<u8>,
    /// A powered-up knight (R-G4).
    pub powered: bool,
    /// Under Life Freeze (R-G9).
    pub frozen: bool,
}

/// How the tie-break went (R-G8), told at the end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TieBreakReport {
    /// Each side's formation errors: the files (of six) where its guess differs.
    pub formation_errors: ByColor<u32>,
    /// The round (1 = each side's first turn) that decided the second stage, if it did.
    pub deciding_round: Option<u32>,
}

/// Something a side is told.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SixEvent"))]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    /// One's own setup was accepted.
    SetupAccepted,
    /// The opponent has submitted (its setup or its tie-break), and nothing else about it.
    OpponentReady,
    /// Board update (R-G6): one's own pieces and the red squares of one's own territory
    /// (threatened squares and enemy false squares, indistinguishable). Sent to both sides
    /// when play starts and to each side at the start of each of its turns.
    Board {
        /// The current turn number.
        turn: u32,
        /// Whether this side is to act now.
        your_turn: bool,
        /// One's own pieces after the lifespan reduction, in square order.
        pieces: Vec<OwnPiece>,
        /// The red squares.
        red: Bitboard,
    },
    /// One's move was accepted.
    Moved {
        /// The move as played.
        mv: TurnMove,
    },
    /// One's turn went straight to scoring.
    Passed {
        /// Why.
        reason: PassReason,
    },
    /// One's Life Freeze was placed.
    Frozen {
        /// The frozen piece's square.
        piece: Square,
    },
    /// The scores after a turn (R-G7), unless `hidden-scores`.
    Scores {
        /// The turn just scored.
        turn: u32,
        /// Both totals.
        scores: ByColor<u32>,
    },
    /// The scores are level at the end: submit the tie-break (R-G8).
    TieBreakNeeded {
        /// The final scores.
        scores: ByColor<u32>,
        /// How many turns the opponent had (the length of the move list to submit).
        opponent_turns: u32,
    },
    /// The game is over.
    End {
        /// The result.
        result: GameResult,
        /// The final scores.
        scores: ByColor<u32>,
        /// The tie-break, if there was one.
        tie_break: Option<TieBreakReport>,
    },
}

/// What one side is told after an action: events in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SixObservation"))]
pub struct Observation {
    /// The events.
    pub events: Vec<Event>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formation_has_one_spelling_in_binary_and_reads_loosely_as_text() {
        let f = Formation::parse("nbkq.r").expect("a formation");
        assert_eq!(f, Formation::parse("NBKQ1R").expect("a formation"));
        assert_eq!(f.to_string(), "NBKQ1R");
        for bad in ["NBKQR", "NBKQ1RR", "NNKQ1R", "NBKQ11", "PBKQ1R"] {
            assert!(Formation::parse(bad).is_err(), "{bad}");
        }
        // Six files that are not a formation cannot be built from files either.
        let mut files = f.files();
        files[4] = Some(Role::Queen);
        assert!(Formation::new(files).is_err());
        files[4] = Some(Role::Pawn);
        assert!(Formation::new(files).is_err());
        assert_eq!(Formation::new(f.files()), Ok(f));
    }
}
