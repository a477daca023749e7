//! A seat: what one side knows of a game, built only from what that side was told (its own
//! actions, its observations and, in open and owner games, the public moves), never from the
//! full state. One implementation serves the player machine (`protocol::roles::Player`), a bot
//! API and a UI: [`Seat`] takes the side's inputs; [`Seat::view`] is its serde-able snapshot
//! ([`SeatView`]), with a board string a UI can draw.
//!
//! Inputs, by adjudication mode (`Variant::mode`):
//! - open (chess, espionage): [`Seat::played`] for every public move; the full game is public
//!   (R-E5), so the seat holds it.
//! - owner (intrigue): [`Seat::acted`] with its own secret setup, [`Seat::told`] with the
//!   opponent's public setup report and its answers about captured pawns, [`Seat::played`] for
//!   every public move, [`Seat::revealed`] with the opponent's opened setup (R-I2).
//! - umpire (kriegspiel, sic, secretchess6): [`Seat::acted`] with each action it sends,
//!   [`Seat::told`] with each observation the umpire tells it, in order.
//!
//! The board string ([`SeatView::board`]) is the FEN-like position string of RULES.md R-C4 as
//! the seat may see it, in the style of pychess-variants' fog of war (a chessgroundx board is
//! fed its first field): `*` for a square the seat knows nothing about, `?` for an enemy man
//! whose kind it does not know, digits for squares it knows are empty. Per game:
//! - chess, espionage: the full position string (everything is public);
//! - kriegspiel: `board side`, own men only, every other square `*` (R-K1: a player sees only
//!   its own men);
//! - sic: `board side`, own men, each enemy man that has moved as `?` on its square (R-S10),
//!   `*` where an unmoved enemy man may stand, digits elsewhere;
//! - intrigue: the view position string of R-I6 (the opponent's secrets as `?`);
//! - secretchess6: `board side moved false-squares frozen scores turn` (the position string of
//!   `docs/referee/secretchess6.md`) with the enemy territory all `*`, only one's own moved
//!   men, false squares and frozen men, and `?` for scores not told (`hidden-scores`).

mod intrigue;
mod kriegspiel;
mod secretchess6;
mod sic;

use crate::{
    ActionError, Alphabet, AnyAction, AnyGame, AnyObservation, Bitboard, BoardSize, ByColor, Color,
    GameOptions, GameResult, Move, Piece, Square, Variant,
};
use serde::{Deserialize, Serialize};

pub use intrigue::IntrigueKnowledge;
pub use kriegspiel::KriegspielKnowledge;
pub use secretchess6::SecretChess6Knowledge;
pub use sic::SicKnowledge;

/// One side's knowledge of a game (see the module docs).
#[derive(Clone, Debug)]
pub struct Seat {
    side: Color,
    /// The last observation this side was told or computed.
    last: Option<AnyObservation>,
    inner: Inner,
}

#[derive(Clone, Debug)]
enum Inner {
    /// Chess and Espionage: the game itself, every move public.
    Open {
        game: AnyGame,
        moves: Vec<Move>,
    },
    Kriegspiel(kriegspiel::KriegspielSeat),
    Sic(Box<sic::SicSeat>),
    Intrigue(Box<intrigue::IntrigueSeat>),
    SecretChess6(secretchess6::SixSeat),
}

/// The serde-able snapshot of a [`Seat`]: what the side knows now, never hidden truth.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SeatView {
    /// The game.
    pub variant: Variant,
    /// Whose seat this is.
    pub side: Color,
    /// The sides the seat knows may act now (both in a simultaneous phase; none once over).
    pub to_act: Vec<Color>,
    /// The position as the seat may see it (module docs): `*` fog, `?` an enemy man of
    /// unknown kind.
    pub board: String,
    /// Its legal actions now, where the rules give them: the legal moves, in Kriegspiel every
    /// attempt its own men allow that was not refused this turn, 6x6 Life Freeze choices.
    /// Empty when it is not to act, and during free-form phases (secret setups, tie-break).
    pub legal: Vec<AnyAction>,
    /// The result, once the seat knows it.
    pub result: Option<GameResult>,
    /// The last thing it was told.
    pub last: Option<AnyObservation>,
    /// What it knows, per game.
    pub knows: Knows,
}

/// What a seat knows beyond the board, per game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Knows {
    /// Orthodox chess: every move played.
    Chess {
        /// The moves, in order.
        moves: Vec<Move>,
    },
    /// Kriegspiel: own men, the announcements, the attempts refused this turn.
    Kriegspiel(KriegspielKnowledge),
    /// SIC: own men with their tracking ids, the enemy men that moved, captures, checks.
    Sic(SicKnowledge),
    /// Intrigue: own setup, the opponent's public choice, the answers, a revealed setup.
    Intrigue(IntrigueKnowledge),
    /// 6x6: own setup and men, red squares, scores, turn, Life Freezes, the tie-break.
    #[serde(rename = "secretchess6")]
    SecretChess6(SecretChess6Knowledge),
    /// Espionage Chess: every move played.
    Espionage {
        /// The moves, in order.
        moves: Vec<Move>,
    },
}

impl Knows {
    /// Every move played, in order, where the seat knows them all (the open games: chess,
    /// Espionage); `None` in the games with hidden moves.
    #[must_use]
    pub fn open_moves(&self) -> Option<&[Move]> {
        match self {
            Knows::Chess { moves } | Knows::Espionage { moves } => Some(moves),
            Knows::Kriegspiel(_) | Knows::Sic(_) | Knows::Intrigue(_) | Knows::SecretChess6(_) => {
                None
            }
        }
    }
}

impl Seat {
    /// The seat of `side` in a game with these options, before anything happened.
    #[must_use]
    pub fn new(options: &GameOptions, side: Color) -> Seat {
        let inner = match *options {
            GameOptions::Chess | GameOptions::Espionage => {
                let game = AnyGame::start(options, None).expect("open games start without seeds");
                Inner::Open { game, moves: Vec::new() }
            }
            GameOptions::Kriegspiel(_) => Inner::Kriegspiel(kriegspiel::KriegspielSeat::new(side)),
            GameOptions::Sic(_) => Inner::Sic(Box::new(sic::SicSeat::new(side))),
            GameOptions::Intrigue => Inner::Intrigue(Box::new(intrigue::IntrigueSeat::new(side))),
            GameOptions::SecretChess6(o) => {
                Inner::SecretChess6(secretchess6::SixSeat::new(side, o))
            }
        };
        Seat { side, last: None, inner }
    }

    /// Whose seat this is.
    #[must_use]
    pub const fn side(&self) -> Color {
        self.side
    }

    /// The game.
    #[must_use]
    pub fn variant(&self) -> Variant {
        match &self.inner {
            Inner::Open { game, .. } => game.variant(),
            Inner::Kriegspiel(_) => Variant::Kriegspiel,
            Inner::Sic(_) => Variant::Sic,
            Inner::Intrigue(_) => Variant::Intrigue,
            Inner::SecretChess6(_) => Variant::SecretChess6,
        }
    }

    /// The side sent `action` (to the umpire, or its Intrigue setup into its commitment).
    /// Actions of another game are ignored.
    pub fn acted(&mut self, action: &AnyAction) {
        match (&mut self.inner, action) {
            (Inner::Kriegspiel(s), AnyAction::Kriegspiel(m)) => s.acted(*m),
            (Inner::Sic(s), AnyAction::Sic(m)) => s.acted(*m),
            (Inner::Intrigue(s), AnyAction::Intrigue(crate::intrigue::Action::Setup(setup))) => {
                s.set_up(*setup);
            }
            (Inner::SecretChess6(s), AnyAction::SecretChess6(a)) => s.acted(a),
            _ => {}
        }
    }

    /// The side was told `observation`: an umpire's answer or report (umpired games), or an
    /// Intrigue owner's public statement (a setup report, an answer about a captured pawn).
    /// Observations of another game are ignored.
    pub fn told(&mut self, observation: &AnyObservation) {
        match (&mut self.inner, observation) {
            (Inner::Kriegspiel(s), AnyObservation::Kriegspiel(a)) => s.told(a),
            (Inner::Sic(s), AnyObservation::SicStart(v)) => s.start(v),
            (Inner::Sic(s), AnyObservation::Sic(o)) => s.told(o),
            (Inner::Intrigue(s), AnyObservation::Intrigue(o)) => s.told(o),
            (Inner::SecretChess6(s), AnyObservation::SecretChess6(o)) => s.told(o),
            _ => return,
        }
        self.last = Some(observation.clone());
    }

    /// A public move of an open or owner game, by `actor`: applied to what the seat knows.
    /// Returns what both sides are told (in Intrigue, the report as this side's knowledge
    /// computes it: exact for its own pawns, whose answers it knows), or the rules' refusal.
    pub fn played(
        &mut self,
        actor: Color,
        action: &AnyAction,
    ) -> Result<AnyObservation, ActionError> {
        let told = match &mut self.inner {
            Inner::Open { game, moves } => {
                let t = game.apply(actor, action)?;
                *game = t.state;
                if let Some(m) = action.as_move() {
                    moves.push(*m);
                }
                t.told[self.side].clone().ok_or(ActionError::GameOver)?
            }
            Inner::Intrigue(s) => match action {
                AnyAction::Intrigue(crate::intrigue::Action::Move(m)) => {
                    AnyObservation::Intrigue(s.played(actor, *m)?)
                }
                other => return Err(ActionError::WrongGame(other.variant())),
            },
            _ => return Err(ActionError::WrongPhase("moves of this game are not public")),
        };
        self.last = Some(told.clone());
        Ok(told)
    }

    /// Intrigue: the opponent opened its secret setup (its informer was taken, R-I2, or the
    /// game is over). Ignored in other games.
    pub fn revealed(&mut self, setup: &crate::intrigue::Setup) {
        if let Inner::Intrigue(s) = &mut self.inner {
            s.revealed(*setup);
        }
    }

    /// SIC: whether the next observation is the start view (nothing told yet).
    #[must_use]
    pub fn expects_start(&self) -> bool {
        matches!(&self.inner, Inner::Sic(s) if !s.started())
    }

    /// The sides the seat knows may act now.
    #[must_use]
    pub fn to_act(&self) -> Vec<Color> {
        match &self.inner {
            Inner::Open { game, .. } => game.to_act(),
            Inner::Kriegspiel(s) => s.to_act(),
            Inner::Sic(s) => s.to_act(),
            Inner::Intrigue(s) => s.to_act(),
            Inner::SecretChess6(s) => s.to_act(),
        }
    }

    /// Whether this side may act now.
    #[must_use]
    pub fn my_turn(&self) -> bool {
        self.to_act().contains(&self.side)
    }

    /// Its legal actions now (see [`SeatView::legal`]), in a fixed order.
    #[must_use]
    pub fn legal_actions(&self) -> Vec<AnyAction> {
        if !self.my_turn() {
            return Vec::new();
        }
        match &self.inner {
            Inner::Open { game, .. } => game.legal_actions(),
            Inner::Kriegspiel(s) => s.legal().into_iter().map(AnyAction::Kriegspiel).collect(),
            Inner::Sic(s) => s.legal().iter().copied().map(AnyAction::Sic).collect(),
            Inner::Intrigue(s) => s.legal(),
            Inner::SecretChess6(s) => s.legal().into_iter().map(AnyAction::SecretChess6).collect(),
        }
    }

    /// The result, once the seat knows it.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        match &self.inner {
            Inner::Open { game, .. } => game.result(),
            Inner::Kriegspiel(s) => s.result(),
            Inner::Sic(s) => s.result(),
            Inner::Intrigue(s) => s.result(),
            Inner::SecretChess6(s) => s.result(),
        }
    }

    /// Intrigue: the report of the last move as this side computes it (what it publishes as
    /// the owner of a captured pawn, R-I2). `None` in other games or before any move.
    #[must_use]
    pub fn intrigue_report(&self) -> Option<&crate::intrigue::MoveReport> {
        match &self.inner {
            Inner::Intrigue(s) => s.last_report(),
            _ => None,
        }
    }

    /// 6x6: the number of turns the opponent had, while the tie-break is asked of this side
    /// (R-G8).
    #[must_use]
    pub fn tie_break_turns(&self) -> Option<u32> {
        match &self.inner {
            Inner::SecretChess6(s) => s.tie_break_turns(),
            _ => None,
        }
    }

    /// The seat's snapshot.
    #[must_use]
    pub fn view(&self) -> SeatView {
        let (board, knows) = match &self.inner {
            Inner::Open { game, moves } => {
                let board = game.fen().unwrap_or_default();
                let knows = match game.variant() {
                    Variant::Espionage => Knows::Espionage { moves: moves.clone() },
                    _ => Knows::Chess { moves: moves.clone() },
                };
                (board, knows)
            }
            Inner::Kriegspiel(s) => (s.board(), Knows::Kriegspiel(s.knowledge())),
            Inner::Sic(s) => (s.board(), Knows::Sic(s.knowledge())),
            Inner::Intrigue(s) => (s.board(), Knows::Intrigue(s.knowledge())),
            Inner::SecretChess6(s) => (s.board(), Knows::SecretChess6(s.knowledge())),
        };
        SeatView {
            variant: self.variant(),
            side: self.side,
            to_act: self.to_act(),
            board,
            legal: self.legal_actions(),
            result: self.result(),
            last: self.last.clone(),
            knows,
        }
    }
}

/// Both seats of a game followed from the full game's transitions (a replay of a finished
/// game, a test): each is fed exactly what its side was told, as a player machine feeds its own.
#[derive(Clone, Debug)]
pub struct Seats {
    /// White's and Black's seats.
    pub seats: ByColor<Seat>,
    /// Intrigue: each side's secret setup, opened to the other when its informer is taken.
    setups: ByColor<Option<crate::intrigue::Setup>>,
}

impl Seats {
    /// Both seats of a game with these options, told the game's start observations.
    #[must_use]
    pub fn new(options: &GameOptions, start: &ByColor<Option<AnyObservation>>) -> Seats {
        let mut seats = ByColor::new_with(|c| Seat::new(options, c));
        for c in Color::ALL {
            if let Some(o) = &start[c] {
                seats[c].told(o);
            }
        }
        Seats { seats, setups: ByColor::default() }
    }

    /// Feeds one transition: `actor` did `action` and the rules told each side `told`. In
    /// open and owner games both seats apply the public move themselves; what each computed is
    /// returned (Intrigue: exact for the moves that inspect none of its own pawns' secrets,
    /// which a test can compare with `told`). Then, in Intrigue, the owner's answer about a
    /// captured pawn goes to the mover, with its opened setup if the pawn was the informer
    /// (R-I2).
    pub fn follow(
        &mut self,
        actor: Color,
        action: &AnyAction,
        told: &ByColor<Option<AnyObservation>>,
    ) -> Result<ByColor<Option<AnyObservation>>, ActionError> {
        let variant = self.seats.white.variant();
        let public = matches!(variant.mode(), crate::Mode::Open | crate::Mode::Owner);
        let setup = matches!(action, AnyAction::Intrigue(crate::intrigue::Action::Setup(_)));
        let mut computed = ByColor::default();
        if !public || setup {
            self.seats[actor].acted(action);
            if let AnyAction::Intrigue(crate::intrigue::Action::Setup(s)) = action {
                self.setups[actor] = Some(*s);
            }
            for c in Color::ALL {
                if let Some(o) = &told[c] {
                    self.seats[c].told(o);
                }
            }
            return Ok(computed);
        }
        for c in Color::ALL {
            computed[c] = Some(self.seats[c].played(actor, action)?);
        }
        if let Some(AnyObservation::Intrigue(crate::intrigue::Observation::Move(r))) = &told[actor]
            && let Some(i) = r.inspection
        {
            let mover = !i.owner;
            self.seats[mover]
                .told(&AnyObservation::Intrigue(crate::intrigue::Observation::Move(r.clone())));
            if i.informer
                && let Some(setup) = self.setups[i.owner]
            {
                self.seats[mover].revealed(&setup);
            }
        }
        Ok(computed)
    }
}

/// How a seat sees one square.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Sight {
    /// Known to be empty.
    Empty,
    /// Known to hold this man.
    Man(Piece),
    /// Known to hold an enemy man of unknown kind: `?`.
    Unknown,
    /// Nothing known: `*`.
    Fog,
}

/// The board field of a position string as a seat sees it: ranks from the top, digits for
/// runs of known-empty squares, letters for known men, `?` and `*`.
pub(crate) fn board_field(
    size: BoardSize,
    alphabet: Alphabet,
    sight: impl Fn(Square) -> Sight,
) -> String {
    let w = size.width();
    let mut out = String::new();
    for rank in (0..w).rev() {
        let mut empty = 0u8;
        for file in 0..w {
            let sq = Square::new(file, rank).expect("file and rank are on the board");
            let c = match sight(sq) {
                Sight::Empty => {
                    empty += 1;
                    continue;
                }
                Sight::Man(p) => alphabet.piece_char(p).unwrap_or('?'),
                Sight::Unknown => '?',
                Sight::Fog => '*',
            };
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            out.push(c);
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

/// A comma-separated square list, `-` for none (position-string style).
pub(crate) fn square_list(b: Bitboard) -> String {
    if b.is_empty() { "-".to_owned() } else { b.map(|s| s.name()).collect::<Vec<_>>().join(",") }
}

#[cfg(test)]
mod tests {
    use super::Seat;
    use crate::{Color, GameOptions, Mode, Variant};

    /// A seat knows every move exactly in the open games.
    #[test]
    fn open_moves_are_known_in_the_open_games_only() {
        for v in Variant::ALL {
            let seat = Seat::new(&GameOptions::default_for(v), Color::Black);
            let moves = seat.view().knows.open_moves().map(<[_]>::len);
            let expected = (v.mode() == Mode::Open).then_some(0);
            assert_eq!(moves, expected, "{v}");
        }
    }
}
