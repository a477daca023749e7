//! The match flow: which message, on which channel, by whom, in which order, for each
//! adjudication mode. The normative text is docs/PROTOCOL.md, section 18 ("Match flow"); this
//! module holds its constants and the small functions the player, umpire and verifier share.
//!
//! ```text
//! 1 commit   public   each player: Commit(public-contribution) [+ Commit(private-seed) in SIC]
//! 2 reveal   public   each player, once both players' step-1 commitments are in:
//!                     Reveal(public-contribution)             -> colors (fixed or drawn)
//! 3 setup    open:    nothing
//!            owner:   each player Commit(intrigue-setup); then White, then Black (after White's),
//!                     public Observation(intrigue::Observation::Setup of its own setup)
//!            umpire:  sic: each player Sealed(Open(private-seed)) on its channel; the umpire
//!                     Sealed(Ack(that message)); once both are in, the umpire Sealed(Observation(
//!                     start view)) to each player
//!                     secretchess6: each player public Commit(secretchess6-setup), then
//!                     Sealed(Action(setup)); the umpire answers as in step 4
//! 4 play     open:    the side to act: public Action
//!            owner:   the side to act: public Action(Move); if it took a pawn, its owner
//!                     answers at once: public Observation(intrigue::Observation::Move, the
//!                     rules' report of that move with its inspection); if the pawn was the
//!                     informer, the owner then sends public Open(intrigue-setup)
//!            umpire:  the side to act: Sealed(Action) on its channel; the umpire applies it in
//!                     relay order and sends Sealed(Observation) to each side told something,
//!                     the actor's channel first. 6x6 tie-break: public Commit(tiebreak), then
//!                     Sealed(Action(tie-break)).
//! 5 end      everyone who saw the end: public Claim (players; the umpire too in umpired
//!            games); then each player public Open of every commitment not yet opened.
//!            Seal seeds go into the record as disclosures.
//! ```

use crate::Color;
use crate::message::{Claim, ClaimReason, Outcome};
use rules::{Secret, Variant};

pub use crate::commitment::{PRIVATE_SEED, PUBLIC_CONTRIBUTION, Purpose};
pub use rules::Mode;

/// Purpose of an Intrigue player's secret setup commitment; the value is the canonical bytes of
/// its `rules::intrigue::Action::Setup`.
pub const INTRIGUE_SETUP: Purpose = Purpose::IntrigueSetup;

/// Purpose of a 6x6 player's secret setup commitment; the value is the canonical bytes of its
/// `rules::secretchess6::Action::Setup`, exactly the bytes it then seals to the umpire.
pub const SECRETCHESS6_SETUP: Purpose = Purpose::SecretChess6Setup;

/// Purpose of a 6x6 player's tie-break commitment; the value is the canonical bytes of its
/// `rules::secretchess6::Action::TieBreak`, exactly the bytes it then seals to the umpire.
pub const TIEBREAK: Purpose = Purpose::TieBreak;

/// The claim reason of a player who forfeits: it sent an action the rules refuse (other than a
/// Kriegspiel attempt, which is answered), or missed a reveal deadline.
pub const FORFEIT: ClaimReason = ClaimReason::Game(rules::EndReason::Forfeit);

/// The claim reason after a relay `Timeout` for a move.
pub const TIMEOUT: ClaimReason = ClaimReason::Game(rules::EndReason::Timeout);

/// What a player commits in step 1, before colors are known.
pub fn early_commitments(variant: Variant) -> &'static [Purpose] {
    if variant == Variant::Sic {
        &[PUBLIC_CONTRIBUTION, PRIVATE_SEED]
    } else {
        &[PUBLIC_CONTRIBUTION]
    }
}

/// The secret setup commitment a player makes in step 3, once it knows its color
/// ([`Variant::commits_setup`]).
pub fn setup_commitment(variant: Variant) -> Option<Purpose> {
    if !variant.commits_setup() {
        return None;
    }
    // The purposes' names are hashed into every commitment: one arm per game that has one.
    match variant {
        Variant::Intrigue => Some(INTRIGUE_SETUP),
        Variant::SecretChess6 => Some(SECRETCHESS6_SETUP),
        _ => None,
    }
}

/// The commitment a secret action of `variant` opens ([`rules::AnyAction::secret`]): its setup
/// commitment, or the tie-break's. `None` only where the game commits to no such secret.
pub fn purpose_of(variant: Variant, secret: Secret) -> Option<Purpose> {
    match secret {
        Secret::Setup => setup_commitment(variant),
        Secret::TieBreak => Some(TIEBREAK),
    }
}

/// The claim that `side` lost for `reason` (a forfeit or a timeout).
pub fn loss_of(side: Color, reason: ClaimReason) -> Claim {
    let outcome = match side {
        Color::White => Outcome::BlackWins,
        Color::Black => Outcome::WhiteWins,
    };
    Claim { outcome, reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitments_per_variant() {
        assert_eq!(early_commitments(Variant::Sic), &[PUBLIC_CONTRIBUTION, PRIVATE_SEED]);
        assert_eq!(early_commitments(Variant::Kriegspiel), &[PUBLIC_CONTRIBUTION]);
        assert_eq!(setup_commitment(Variant::Intrigue), Some(INTRIGUE_SETUP));
        assert_eq!(setup_commitment(Variant::Chess), None);
        assert_eq!(purpose_of(Variant::SecretChess6, Secret::TieBreak), Some(TIEBREAK));
        assert_eq!(Variant::Intrigue.mode(), Mode::Owner);
        assert_eq!(loss_of(Color::White, FORFEIT).outcome, Outcome::BlackWins);
    }

    /// Every game with a committed setup has a setup purpose, distinct per game and from the
    /// tie-break's; every game with setup actions maps its secret setup to that purpose.
    #[test]
    fn every_committed_setup_has_its_purpose() {
        let mut seen = std::collections::BTreeSet::new();
        for v in Variant::ALL {
            let purpose = setup_commitment(v);
            assert_eq!(purpose.is_some(), v.commits_setup(), "{v}");
            if let Some(p) = purpose {
                assert!(seen.insert(p.name()), "{v}: {p}");
                assert_ne!(p, TIEBREAK);
                assert!(p.name().starts_with(v.id()), "{v}: {p}");
            }
            if v.setup_actions() > 0 {
                assert_eq!(purpose_of(v, Secret::Setup), purpose, "{v}");
                assert!(purpose.is_some(), "{v}");
            }
        }
        assert_eq!(seen.len(), 2, "Intrigue and 6x6");
    }
}
