//! The secrets a player commits to before it acts on them (issue 17: one classification, not a
//! match on 6x6's actions in every caller): which actions are committed secrets, and what a
//! game's setup phase holds. The protocol maps a [`Secret`] to its commitment purpose
//! (`protocol::flow::purpose_of`); the umpire and the verifier hold a sealed secret to the
//! commitment it opens.

use crate::{AnyAction, Variant, secretchess6};

/// A secret action: the umpire applies it only when its author committed to it publicly
/// first, and the verifier checks the sealed bytes against the opened commitment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Secret {
    /// A secret setup made as an action (6x6's formation and false squares, R-G1).
    Setup,
    /// A tie-break guess made as an action (6x6's R-G8).
    TieBreak,
}

impl AnyAction {
    /// The secret this action is, when it is one (a 6x6 setup or tie-break); `None` for moves
    /// and the choices made in play. An Intrigue setup is committed too, but it is never sent
    /// as an action (its owner answers for it and opens it, R-I1): `None`.
    #[must_use]
    pub const fn secret(&self) -> Option<Secret> {
        match self {
            AnyAction::SecretChess6(secretchess6::Action::Setup { .. }) => Some(Secret::Setup),
            AnyAction::SecretChess6(secretchess6::Action::TieBreak { .. }) => {
                Some(Secret::TieBreak)
            }
            _ => None,
        }
    }
}

impl Variant {
    /// How many secret setups are applied as actions before play: 6x6's two sealed setups
    /// (R-G1); none in the other games (Intrigue's setups are opened, SIC's drawn from seeds).
    /// Until they are in, nobody's move clock runs.
    #[must_use]
    pub const fn setup_actions(self) -> u8 {
        match self {
            Variant::SecretChess6 => 2,
            _ => 0,
        }
    }

    /// Whether each player commits publicly to a secret setup once it knows its color
    /// (Intrigue's hiding king and informer, R-I1; 6x6's formation, R-G1).
    #[must_use]
    pub const fn commits_setup(self) -> bool {
        matches!(self, Variant::Intrigue | Variant::SecretChess6)
    }

    /// Whether each player seals something to the umpire before play can begin (SIC's private
    /// seed, R-S2; 6x6's setup, R-G1).
    #[must_use]
    pub const fn seals_setup(self) -> bool {
        matches!(self, Variant::Sic | Variant::SecretChess6)
    }

    /// Whether the umpire's Turn that opens play (or ends a tie-break) answers the sealed
    /// message that completed it: the games whose secrets are actions
    /// ([`Variant::setup_actions`]).
    #[must_use]
    pub const fn sealed_secrets_are_actions(self) -> bool {
        self.setup_actions() > 0
    }
}

/// A setup action of `variant` the rules accept from `side` at the start, where setups are
/// actions (tests).
#[cfg(test)]
pub(crate) fn example_setup(variant: Variant, side: crate::Color) -> Option<AnyAction> {
    use crate::{Bitboard, Square, intrigue};
    match variant {
        Variant::Intrigue => {
            let rank = side.fold(0, 7);
            Some(AnyAction::Intrigue(intrigue::Action::Setup(intrigue::Setup {
                king: Square::new(4, rank)?,
                informer: Square::new(0, side.fold(1, 6))?,
                queen_on_king_square: false,
            })))
        }
        Variant::SecretChess6 => Some(AnyAction::SecretChess6(secretchess6::Action::Setup {
            formation: secretchess6::Formation::parse("RNBK1Q").ok()?,
            false_squares: Bitboard::EMPTY,
        })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyGame, GameOptions};

    /// Every 6x6 setup and tie-break is a secret, and no legal action of any game is: plays
    /// each game's first legal actions (and its setups) and classifies each.
    #[test]
    fn setups_and_tie_breaks_are_secrets_and_moves_are_not() {
        let seeds = crate::ByColor { white: [1; 32], black: [2; 32] };
        let mut setups = 0;
        for v in Variant::ALL {
            let seeds = (v == Variant::Sic).then_some(&seeds);
            let mut game = AnyGame::start(&GameOptions::default_for(v), seeds).expect("starts");
            for _ in 0..10 {
                let Some(&actor) = game.to_act().first() else { break };
                let legal = game.legal_actions();
                for a in &legal {
                    assert_eq!(a.secret(), None, "{v}: {a:?}");
                }
                let action = match legal.into_iter().next() {
                    Some(a) => a,
                    None => {
                        let Some(setup) = example_setup(v, actor) else { break };
                        let want = (v.setup_actions() > 0).then_some(Secret::Setup);
                        assert_eq!(setup.secret(), want, "{v}");
                        setups += 1;
                        setup
                    }
                };
                game = game.apply(actor, &action).expect("accepted").state;
            }
        }
        assert_eq!(setups, 4, "two Intrigue and two 6x6 setups");
        let tie_break = secretchess6::Action::TieBreak {
            formation: secretchess6::Formation::parse("RNBK1Q").expect("a formation"),
            moves: Vec::new(),
        };
        assert_eq!(AnyAction::SecretChess6(tie_break).secret(), Some(Secret::TieBreak));
        for a in [
            secretchess6::Action::EndTurn,
            secretchess6::Action::LifeFreeze { piece: crate::Square::new(0, 0).expect("a1") },
        ] {
            assert_eq!(AnyAction::SecretChess6(a).secret(), None);
        }
    }

    /// The setup-phase tables agree: a game with setup actions commits to them and seals them;
    /// a committed setup is a secret setup (R-I1, R-G1); sealing without committing is SIC's
    /// seed, which is drawn, not chosen.
    #[test]
    fn setup_tables_agree() {
        for v in Variant::ALL {
            if v.setup_actions() > 0 {
                assert!(v.commits_setup() && v.seals_setup(), "{v}");
                assert!(v.sealed_secrets_are_actions(), "{v}");
            }
            if v.commits_setup() || v.seals_setup() {
                assert!(v.has_secret_setup(), "{v}");
            }
            assert_eq!(v.seals_setup(), v.mode() == crate::Mode::Umpire && v.has_secret_setup());
        }
        assert_eq!(Variant::SecretChess6.setup_actions(), 2);
    }
}
