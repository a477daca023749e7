//! The announcement tag (`umpire::circuit_with_tag`): the same answer as the plain circuit, a
//! tag the opponent's check accepts, and any changed announcement or tag bit refused.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rules::chess::Position;
use rules::{Move, Square};
use twoparty::encode::{inputs_from_position, tag_ok};
use twoparty::umpire::{
    Part, TAG_BITS, TAG_KEY_BITS, circuit, circuit_part, circuit_with_tag, out, tag_key_bits,
};

#[test]
fn the_tag_binds_the_announcement_to_the_opponents_key() {
    let (plain, tagged) = (circuit(), circuit_with_tag());
    assert!(tagged.and_gates() > plain.and_gates());
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let mut pos = Position::start();
    let (mut legal_seen, mut illegal_seen) = (0, 0);
    for i in 0..120 {
        let legal = pos.legal_moves();
        if legal.is_empty() || pos.halfmoves() > 90 {
            pos = Position::start();
            continue;
        }
        let attempt = if i % 3 == 0 {
            let sq = |x: u32| Square::from_index((x % 64) as u8).expect("on the board");
            Move::new(sq(rng.next_u32()), sq(rng.next_u32()))
        } else {
            legal[rng.next_u32() as usize % legal.len()]
        };
        let (m, o) = inputs_from_position(&pos, attempt, (pos.halfmoves(), pos.halfmoves()));
        let key: Vec<bool> = (0..TAG_KEY_BITS).map(|_| rng.next_u32() & 1 == 1).collect();
        let want = plain.eval(&[m.bits(), o.bits()]);
        let mut ob = o.bits();
        ob.extend(&key);
        let got = tagged.eval(&[m.bits(), ob]);
        let (outputs, tag) = got.split_at(out::COUNT);
        assert_eq!(outputs, want.as_slice(), "the tag leaves the answer alone");
        if outputs[out::LEGAL] {
            legal_seen += 1
        } else {
            illegal_seen += 1
        }
        assert!(tag_ok(outputs, tag, &key), "the honest tag is accepted");
        for k in 0..out::COUNT {
            let mut forged = outputs.to_vec();
            forged[k] = !forged[k];
            assert!(!tag_ok(&forged, tag, &key), "output bit {k} changed and accepted");
        }
        for k in 0..tag.len() {
            let mut forged = tag.to_vec();
            forged[k] = !forged[k];
            assert!(!tag_ok(outputs, &forged, &key), "tag bit {k} changed and accepted");
        }
        let mv = legal[rng.next_u32() as usize % legal.len()];
        pos = pos.play(&mv).expect("legal");
    }
    assert!(legal_seen > 30 && illegal_seen > 10, "{legal_seen} legal, {illegal_seen} illegal");
}

/// The split computation's two halves carry their own tags: the mover forwards "legal" to the
/// opponent (who then joins the announcement computation) and the announcement; a flipped
/// verdict or announcement bit is refused.
#[test]
fn each_half_of_the_split_computation_carries_its_own_tag() {
    let whole = circuit();
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut pos = Position::start();
    let (mut legal_seen, mut illegal_seen) = (0, 0);
    for part in [Part::Legality, Part::Announcement] {
        let tagged = circuit_part(part, true);
        let plain = circuit_part(part, false);
        assert_eq!(tagged.outputs.len(), part.outputs() + TAG_BITS);
        assert!(tagged.and_gates() > plain.and_gates());
        for i in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() || pos.halfmoves() > 90 {
                pos = Position::start();
                continue;
            }
            let attempt = if i % 3 == 0 {
                let sq = |x: u32| Square::from_index((x % 64) as u8).expect("on the board");
                Move::new(sq(rng.next_u32()), sq(rng.next_u32()))
            } else {
                legal[rng.next_u32() as usize % legal.len()]
            };
            let (m, o) = inputs_from_position(&pos, attempt, (pos.halfmoves(), pos.halfmoves()));
            let want = whole.eval(&[m.bits(), o.bits()]);
            let key: Vec<bool> =
                (0..tag_key_bits(part.outputs())).map(|_| rng.next_u32() & 1 == 1).collect();
            let mut ob = o.bits();
            ob.extend(&key);
            let got = tagged.eval(&[m.bits(), ob]);
            let (outputs, tag) = got.split_at(part.outputs());
            match part {
                Part::Legality => {
                    assert_eq!(outputs, &want[..1], "the verdict");
                    if want[out::LEGAL] { legal_seen += 1 } else { illegal_seen += 1 }
                }
                _ if want[out::LEGAL] => assert_eq!(outputs, want.as_slice(), "the announcement"),
                _ => {}
            }
            assert!(tag_ok(outputs, tag, &key), "the honest tag is accepted");
            for k in 0..outputs.len() {
                let mut forged = outputs.to_vec();
                forged[k] = !forged[k];
                assert!(
                    !tag_ok(&forged, tag, &key),
                    "{part:?} output bit {k} changed and accepted"
                );
            }
            let mv = legal[rng.next_u32() as usize % legal.len()];
            pos = pos.play(&mv).expect("legal");
        }
    }
    assert!(legal_seen > 20 && illegal_seen > 10, "{legal_seen} legal, {illegal_seen} illegal");
}
