//! SIC's legal-move lists in binary formats (postcard: the protocol's canonical bytes), compact
//! and with one encoding per list; human-readable formats (JSON: the agent, the pages, the
//! TypeScript types) keep the sorted UCI texts (`["e2e4", "e7e8q"]`).
//!
//! The binary form groups the moves by origin square:
//!
//! ```text
//! list  = roles: [u8; 2]   the promotion roles, bit `Role::index()`, little-endian
//!         groups: varint count, then the groups in increasing origin index
//! group = from: u8         the origin's square index
//!         plain: [u8; 8]   bit i: a move to square i without promotion (little-endian mask)
//!         promote: [u8; 8] bit i: a move to square i with each of the list's promotion roles
//! ```
//!
//! One role set serves the whole list because SIC offers every promotion of a position the
//! same roles (R-S5: R, B, N always, the others by what the mover has on the board). A group is
//! 17 bytes whatever its moves, so a list of at most 17 movers (R-S1: 17 men per side) is at
//! most 2 + 1 + 17 × 17 = 292 bytes, where the UCI texts of the longest list took 3,572.
//!
//! Decoding is strict: every list has exactly one byte string, and bytes that spell no list SIC
//! can produce are refused, each with the reason ([`CompactError`]): groups out of order or
//! repeated, an empty group, a move from a square to itself, a square both a plain and a
//! promotion target, a promotion off the first and last ranks, promotion roles without
//! promotions or promotions without R, B and N, or a role no SIC pawn may become (P, K, the
//! Espionage Cannon, or no role at all). Encoding refuses, with the same reasons, an in-memory
//! list that is not a SIC move set sorted as the rules sort it (by [`Move::uci_order`], no
//! repeats), so that whatever is written decodes to the same list.
//!
//! Limits: origins strictly increase, so a list has at most 64 groups; a group has at most 63
//! targets (plain and promotion targets are disjoint and exclude the origin), at most 16 of them
//! promotion targets (the first and last ranks) with at most 11 roles each, so at most 47 + 176
//! moves: whatever the input claims, a decoded list is bounded by its structure.

use crate::{Alphabet, Bitboard, BoardSize, Color, Move, Role, Square};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The roles a SIC pawn may promote to always (R-S5), and those it may only sometimes.
use super::movegen::{ALWAYS_PROMOTE as ALWAYS, SCARCE_PROMOTE};

/// The bit of `roles` in a role set.
const fn role_bits(roles: &[Role]) -> u16 {
    let mut bits = 0;
    let mut i = 0;
    while i < roles.len() {
        bits |= 1 << roles[i].index();
        i += 1;
    }
    bits
}

/// The squares a promotion can reach: the first and last ranks.
const PROMOTION_SQUARES: u64 = BoardSize::Eight.rank_bb(BoardSize::Eight.last_rank(Color::White)).0
    | BoardSize::Eight.rank_bb(BoardSize::Eight.last_rank(Color::Black)).0;

/// Why a binary legal-move list was refused, or why an in-memory list cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// Groups must be in increasing origin index, one per origin.
    #[error("the group of {from} follows that of {after}: groups go in increasing square order")]
    OriginsOutOfOrder {
        /// The origin out of place.
        from: Square,
        /// The origin before it.
        after: Square,
    },
    /// A group with no move: the list would have two spellings.
    #[error("the group of {from} has no move")]
    EmptyGroup {
        /// The origin.
        from: Square,
    },
    /// No SIC move stays on its square.
    #[error("a move from {from} to itself")]
    MoveToItself {
        /// The origin.
        from: Square,
    },
    /// A target both without and with promotion: SIC's pawns always promote on the last rank
    /// (R-S5) and no other piece promotes.
    #[error("{from}{to} is listed both as a plain move and as a promotion")]
    PlainAndPromotion {
        /// The origin.
        from: Square,
        /// The target.
        to: Square,
    },
    /// Pawns promote on the first or last rank only.
    #[error("a promotion from {from} to {to}, which is not on the first or last rank")]
    PromotionOffLastRank {
        /// The origin.
        from: Square,
        /// The target.
        to: Square,
    },
    /// A role set where no move promotes (it must be empty then).
    #[error("promotion roles {bits:#06x} but no promotion")]
    RolesWithoutPromotion {
        /// The role bits.
        bits: u16,
    },
    /// Promotions whose roles lack R, B or N (R-S5: those three are always allowed).
    #[error("promotion roles {bits:#06x} lack the rook, bishop or knight that R-S5 always allows")]
    MissingAlwaysRole {
        /// The role bits.
        bits: u16,
    },
    /// A role bit that is no role a SIC pawn can promote to.
    #[error("promotion roles {bits:#06x} include a role no SIC pawn may promote to")]
    NotPromotable {
        /// The role bits.
        bits: u16,
    },
    /// The in-memory list is not sorted by UCI text, or repeats a move.
    #[error("the move list is not sorted by UCI text without repeats at {mv:?}")]
    NotSorted {
        /// The first move out of order or repeated.
        mv: Move,
    },
    /// The in-memory list's promotions do not all offer the same roles.
    #[error("the promotions do not all offer the same roles")]
    PromotionRolesDiffer,
}

/// One origin's moves (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Group {
    from: Square,
    plain: [u8; 8],
    promote: [u8; 8],
}

/// The binary form of a list (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Compact {
    roles: [u8; 2],
    groups: Vec<Group>,
}

impl Compact {
    /// The list's binary form, refused unless it is a SIC move set sorted as the rules sort it.
    fn of(moves: &[Move]) -> Result<Compact, CompactError> {
        let key = |m: &Move| m.uci_order(Alphabet::SIC);
        if let Some(w) = moves.windows(2).find(|w| key(&w[0]) >= key(&w[1])) {
            return Err(CompactError::NotSorted { mv: w[1] });
        }
        let (mut plain, mut promote) = ([0u64; 64], [0u64; 64]);
        let (mut roles, mut promotions) = (0u16, 0usize);
        for m in moves {
            let to = 1u64 << m.to.index();
            match m.promotion {
                None => plain[m.from.index()] |= to,
                Some(role) => {
                    promote[m.from.index()] |= to;
                    roles |= 1 << role.index();
                    promotions += 1;
                }
            }
        }
        // Sorted without repeats, each promotion target has at most one move per role of
        // `roles`; so the count is targets × roles exactly when every target has them all.
        let targets: u32 = promote.iter().map(|p| p.count_ones()).sum();
        if promotions != targets as usize * roles.count_ones() as usize {
            return Err(CompactError::PromotionRolesDiffer);
        }
        let groups = (0..64u8)
            .filter(|&i| plain[usize::from(i)] | promote[usize::from(i)] != 0)
            .map(|i| Group {
                from: Square::from_index(i).expect("below 64"),
                plain: plain[usize::from(i)].to_le_bytes(),
                promote: promote[usize::from(i)].to_le_bytes(),
            })
            .collect();
        let compact = Compact { roles: roles.to_le_bytes(), groups };
        compact.check()?;
        Ok(compact)
    }

    /// Every rule of the module documentation, so that one list has one encoding and every
    /// encoding is a list SIC can produce.
    fn check(&self) -> Result<(), CompactError> {
        let bits = u16::from_le_bytes(self.roles);
        let mut any_promotion = false;
        let mut last: Option<Square> = None;
        for g in &self.groups {
            let from = g.from;
            if let Some(after) = last.filter(|&l| l >= from) {
                return Err(CompactError::OriginsOutOfOrder { from, after });
            }
            last = Some(from);
            let (plain, promote) = (u64::from_le_bytes(g.plain), u64::from_le_bytes(g.promote));
            if plain | promote == 0 {
                return Err(CompactError::EmptyGroup { from });
            }
            if (plain | promote) & (1 << from.index()) != 0 {
                return Err(CompactError::MoveToItself { from });
            }
            if let Some(to) = Bitboard(plain & promote).first() {
                return Err(CompactError::PlainAndPromotion { from, to });
            }
            if let Some(to) = Bitboard(promote & !PROMOTION_SQUARES).first() {
                return Err(CompactError::PromotionOffLastRank { from, to });
            }
            any_promotion |= promote != 0;
        }
        if bits & !(role_bits(&ALWAYS) | role_bits(&SCARCE_PROMOTE)) != 0 {
            return Err(CompactError::NotPromotable { bits });
        }
        let always = role_bits(&ALWAYS);
        match (any_promotion, bits) {
            (false, 0) => Ok(()),
            (false, bits) => Err(CompactError::RolesWithoutPromotion { bits }),
            (true, bits) if bits & always != always => {
                Err(CompactError::MissingAlwaysRole { bits })
            }
            (true, _) => Ok(()),
        }
    }

    /// The moves, sorted as the rules sort them. Assumes [`Compact::check`] passed.
    fn moves(&self) -> Vec<Move> {
        let bits = u16::from_le_bytes(self.roles);
        let roles: Vec<Role> = ALWAYS
            .into_iter()
            .chain(SCARCE_PROMOTE)
            .filter(|r| bits & (1 << r.index()) != 0)
            .collect();
        let mut moves = Vec::new();
        for g in &self.groups {
            let plain = Bitboard(u64::from_le_bytes(g.plain));
            let promote = Bitboard(u64::from_le_bytes(g.promote));
            moves.extend(plain.map(|to| Move::new(g.from, to)));
            for to in promote {
                moves.extend(
                    roles.iter().map(|&r| Move { promotion: Some(r), ..Move::new(g.from, to) }),
                );
            }
        }
        // The keys are distinct (one move per target and role), so an unstable sort is exact.
        moves.sort_unstable_by_key(|m| m.uci_order(Alphabet::SIC));
        moves
    }
}

/// The list's binary form as bytes-to-be (for tests of the layout).
#[cfg(test)]
fn encode(moves: &[Move]) -> Result<Vec<u8>, CompactError> {
    let c = Compact::of(moves)?;
    let mut out = c.roles.to_vec();
    out.push(u8::try_from(c.groups.len()).expect("at most 64 groups"));
    for g in c.groups {
        out.push(u8::try_from(g.from.index()).expect("below 64"));
        out.extend(g.plain);
        out.extend(g.promote);
    }
    Ok(out)
}

/// `#[serde(with = "...")]` for a legal-move list: UCI texts when human-readable, the compact
/// binary form otherwise.
pub(crate) mod legal {
    use super::*;
    use serde::de::Error as _;
    use serde::ser::Error as _;

    pub fn serialize<S: Serializer>(moves: &[Move], s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            // As `collect_seq` over the texts, without a `String` per move.
            use serde::ser::SerializeSeq;
            let mut seq = s.serialize_seq(Some(moves.len()))?;
            for m in moves {
                seq.serialize_element(m.uci_text(Alphabet::SIC).as_str())?;
            }
            seq.end()
        } else {
            Compact::of(moves).map_err(S::Error::custom)?.serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Move>, D::Error> {
        if d.is_human_readable() {
            Vec::<String>::deserialize(d)?
                .iter()
                .map(|t| {
                    Move::parse_uci(t, BoardSize::Eight, Alphabet::SIC).map_err(D::Error::custom)
                })
                .collect()
        } else {
            let compact = Compact::deserialize(d)?;
            compact.check().map_err(D::Error::custom)?;
            Ok(compact.moves())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name, BoardSize::Eight).expect("a square")
    }

    fn mv(text: &str) -> Move {
        Move::parse_uci(text, BoardSize::Eight, Alphabet::SIC).expect("a move")
    }

    fn sorted(texts: &[&str]) -> Vec<Move> {
        let mut moves: Vec<Move> = texts.iter().map(|t| mv(t)).collect();
        moves.sort_by_key(|m| m.uci_order(Alphabet::SIC));
        moves
    }

    fn mask(squares: &[&str]) -> [u8; 8] {
        squares.iter().map(|s| sq(s)).collect::<Bitboard>().0.to_le_bytes()
    }

    /// The layout: roles, count, then per origin in index order its square and two masks.
    #[test]
    fn the_layout_is_roles_then_groups_in_square_order() {
        let moves = sorted(&[
            "b1c3", "b1a3", "a2a3", "a2a4", "g7g8r", "g7g8b", "g7g8n", "g7h8r", "g7h8b", "g7h8n",
        ]);
        let bytes = encode(&moves).unwrap();
        let roles = role_bits(&ALWAYS).to_le_bytes();
        let mut want = vec![roles[0], roles[1], 3];
        want.push(1); // b1
        want.extend(mask(&["a3", "c3"]));
        want.extend([0; 8]);
        want.push(8); // a2
        want.extend(mask(&["a3", "a4"]));
        want.extend([0; 8]);
        want.push(54); // g7
        want.extend([0; 8]);
        want.extend(mask(&["g8", "h8"]));
        assert_eq!(bytes, want);
        let c = Compact::of(&moves).unwrap();
        assert_eq!(c.moves(), moves);
        assert_eq!(encode(&[]).unwrap(), [0, 0, 0], "no move: no roles, no group");
    }

    /// Builds a binary form directly (bypassing [`Compact::of`]) to check what decoding refuses.
    fn compact(roles: &[Role], groups: &[(&str, &[&str], &[&str])]) -> Compact {
        Compact {
            roles: role_bits(roles).to_le_bytes(),
            groups: groups
                .iter()
                .map(|(from, plain, promote)| Group {
                    from: sq(from),
                    plain: mask(plain),
                    promote: mask(promote),
                })
                .collect(),
        }
    }

    #[test]
    fn decoding_refuses_what_sic_cannot_list_and_says_why() {
        use CompactError as E;
        let ok = compact(&ALWAYS, &[("b1", &["c3"], &[]), ("g7", &[], &["g8"])]);
        assert_eq!(ok.check(), Ok(()));
        let cases: Vec<(Compact, CompactError)> = vec![
            (
                compact(&[], &[("c3", &["c4"], &[]), ("b1", &["a3"], &[])]),
                E::OriginsOutOfOrder { from: sq("b1"), after: sq("c3") },
            ),
            (
                compact(&[], &[("b1", &["a3"], &[]), ("b1", &["c3"], &[])]),
                E::OriginsOutOfOrder { from: sq("b1"), after: sq("b1") },
            ),
            (compact(&[], &[("b1", &[], &[])]), E::EmptyGroup { from: sq("b1") }),
            (compact(&[], &[("b1", &["b1", "c3"], &[])]), E::MoveToItself { from: sq("b1") }),
            (
                compact(&ALWAYS, &[("g7", &["g8"], &["g8"])]),
                E::PlainAndPromotion { from: sq("g7"), to: sq("g8") },
            ),
            (
                compact(&ALWAYS, &[("g6", &[], &["g7"])]),
                E::PromotionOffLastRank { from: sq("g6"), to: sq("g7") },
            ),
            (
                compact(&ALWAYS, &[("b1", &["c3"], &[])]),
                E::RolesWithoutPromotion { bits: role_bits(&ALWAYS) },
            ),
            (compact(&[], &[("g7", &[], &["g8"])]), E::MissingAlwaysRole { bits: 0 }),
            (
                compact(&[Role::Queen, Role::Rook, Role::Bishop], &[("g7", &[], &["g8"])]),
                E::MissingAlwaysRole { bits: role_bits(&[Role::Queen, Role::Rook, Role::Bishop]) },
            ),
        ];
        for (c, want) in cases {
            assert_eq!(c.check(), Err(want.clone()), "{c:?}");
            // The message names the problem.
            assert!(!want.to_string().is_empty());
        }
        for role in [Role::Pawn, Role::King, Role::Cannon] {
            let mut roles = ALWAYS.to_vec();
            roles.push(role);
            let c = compact(&roles, &[("g7", &[], &["g8"])]);
            assert_eq!(c.check(), Err(E::NotPromotable { bits: role_bits(&roles) }), "{role:?}");
        }
        // A bit past the last role.
        let mut c = compact(&ALWAYS, &[("g7", &[], &["g8"])]);
        c.roles = (role_bits(&ALWAYS) | (1 << 15)).to_le_bytes();
        assert!(matches!(c.check(), Err(E::NotPromotable { .. })));
    }

    #[test]
    fn encoding_refuses_a_list_that_would_not_decode_to_itself() {
        use CompactError as E;
        let unsorted = vec![mv("b1c3"), mv("b1a3")];
        assert_eq!(Compact::of(&unsorted), Err(E::NotSorted { mv: mv("b1a3") }));
        let repeated = vec![mv("b1a3"), mv("b1a3")];
        assert_eq!(Compact::of(&repeated), Err(E::NotSorted { mv: mv("b1a3") }));
        // g8 with R, B, N; h8 with R, B only.
        let uneven = sorted(&["g7g8r", "g7g8b", "g7g8n", "g7h8r", "g7h8b"]);
        assert_eq!(Compact::of(&uneven), Err(E::PromotionRolesDiffer));
        let both = sorted(&["g7g8", "g7g8r", "g7g8b", "g7g8n"]);
        assert_eq!(Compact::of(&both), Err(E::PlainAndPromotion { from: sq("g7"), to: sq("g8") }));
        assert_eq!(Compact::of(&[mv("b1b1")]), Err(E::MoveToItself { from: sq("b1") }));
        let pawn = sorted(&["g7g8r", "g7g8b", "g7g8n", "g7g8p"]);
        assert!(matches!(Compact::of(&pawn), Err(E::NotPromotable { .. })));
    }

    /// Promotions carry the roles R-S5 allows in the position: all eleven, or ten when the
    /// mover has a queen; the list round-trips either way.
    #[test]
    fn promotion_lists_round_trip_with_the_roles_of_the_position() {
        use super::super::{Position, SpyRule};
        for (fen, roles) in
            [("4k3/1P4P1/8/8/8/8/8/4K3 w - - 0 1", 11), ("4k3/1P4P1/8/8/8/8/8/3QK3 w - - 0 1", 10)]
        {
            let pos = Position::from_fen_with(fen, SpyRule::Default).expect("a position");
            let legal = pos.legal_moves();
            let c = Compact::of(&legal).expect("a SIC list");
            assert_eq!(u16::from_le_bytes(c.roles).count_ones(), roles, "{fen}");
            let promoting: Vec<Square> =
                c.groups.iter().filter(|g| g.promote != [0; 8]).map(|g| g.from).collect();
            assert_eq!(promoting, [sq("b7"), sq("g7")], "{fen}");
            assert_eq!(c.moves(), legal, "{fen}");
        }
    }

    /// Every list of the rules' own games round-trips (more in the protocol's property tests,
    /// which go through postcard).
    #[test]
    fn the_legal_lists_of_a_game_round_trip() {
        use crate::Game;
        let mut state =
            super::super::State::new(&[0; 32], &[1; 32], super::super::SpyRule::Default);
        for ply in 0..60 {
            let side = state.position().turn();
            let legal = state.legal_moves_of(side);
            let c = Compact::of(&legal).unwrap_or_else(|e| panic!("ply {ply}: {e}"));
            assert_eq!(c.moves(), legal);
            let Some(m) = legal.get(ply * 7 % legal.len().max(1)) else { break };
            state = state.apply(side, m).expect("legal").state;
        }
    }
}
