//! Layer 2 never panics and is deterministic on mutated records: honest self-play records,
//! checked by layer 1, then changed at the level layer 2 reads (payload bytes flipped or cut,
//! entries dropped, duplicated, swapped or re-attributed, claims changed). Also: any change to
//! an umpire's sealed observation is pinned on the umpire, since observations are compared
//! byte for byte.

use proptest::prelude::*;
use protocol::message::{Outcome, Payload};
use rules::Variant;
use std::sync::OnceLock;
use verifier::envelope::Checked;
use verifier::{MatchRole, Verdict};

fn checked(variant: Variant) -> Checked {
    let played = sim::selfplay_with(sim::SelfplayConfig::new(variant, 5)).expect("selfplay");
    verifier::envelope::check(&played.bytes).expect("honest records pass layer 1")
}

fn base() -> &'static [Checked] {
    static BASE: OnceLock<Vec<Checked>> = OnceLock::new();
    BASE.get_or_init(|| Variant::ALL.into_iter().map(checked).collect())
}

fn game_bytes(p: &mut Payload) -> Option<&mut Vec<u8>> {
    match p {
        Payload::Action(b) | Payload::Observation(b) => Some(b),
        _ => None,
    }
}

/// Applies mutation `kind` at entry `i` (byte `j`, value `x`).
fn mutate(c: &mut Checked, kind: u8, i: usize, j: usize, x: u8) {
    let n = c.entries.len();
    if n == 0 {
        return;
    }
    let i = i % n;
    let keys = [c.colors.white, c.colors.black, c.terms.terms.relay];
    match kind % 7 {
        0 => {
            if let Some(b) = game_bytes(&mut c.entries[i].payload)
                && !b.is_empty()
            {
                let j = j % b.len();
                b[j] ^= x | 1;
            }
        }
        1 => {
            if let Some(b) = game_bytes(&mut c.entries[i].payload) {
                b.truncate(j % (b.len() + 1));
            }
        }
        2 => {
            c.entries.remove(i);
        }
        3 => {
            let e = c.entries[i].clone();
            c.entries.insert(i, e);
        }
        4 => {
            if i + 1 < n {
                c.entries.swap(i, i + 1);
            }
        }
        5 => {
            if let Payload::Claim(claim) = &mut c.entries[i].payload {
                claim.outcome = [Outcome::WhiteWins, Outcome::BlackWins, Outcome::Draw][j % 3];
                if x & 1 == 1 {
                    claim.reason = rules::EndReason::Resignation.into();
                }
            }
        }
        _ => c.entries[i].body.author = keys[j % keys.len()],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mutated_records_never_panic_and_replay_deterministically(
        which in 0usize..6,
        mutations in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<u8>()), 1..4),
    ) {
        let mut c = base()[which].clone();
        for (kind, i, j, x) in mutations {
            mutate(&mut c, kind, i, j, x);
        }
        let first = verifier::replay::replay(&c);
        let again = verifier::replay::replay(&c);
        prop_assert_eq!(first, again);
    }

    #[test]
    fn a_changed_umpire_observation_is_always_the_umpires_fault(
        which in 0usize..3,
        i in any::<usize>(),
        j in any::<usize>(),
        x in 1u8..=255,
    ) {
        // The umpired games: Kriegspiel, SIC and 6x6.
        let umpired = [Variant::Kriegspiel, Variant::Sic, Variant::SecretChess6][which];
        let at = Variant::ALL.iter().position(|v| *v == umpired).expect("a variant");
        let mut c = base()[at].clone();
        let umpire = c.terms.terms.umpire.as_ref().map(|u| u.key).expect("an umpire");
        let observed: Vec<usize> = c
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.author() == umpire && matches!(e.payload, Payload::Observation(_)))
            .map(|(k, _)| k)
            .collect();
        let k = observed[i % observed.len()];
        let Payload::Observation(b) = &mut c.entries[k].payload else { unreachable!() };
        let j = j % b.len();
        b[j] ^= x;
        let verdict = verifier::replay::replay(&c);
        let Verdict::Faults(faults) = &verdict else {
            return Err(TestCaseError::fail(format!("valid after a change: {verdict:?}")));
        };
        prop_assert_eq!(faults[0].role, MatchRole::Umpire);
        prop_assert_eq!(faults[0].entry, Some(c.entries[k].index));
    }
}
