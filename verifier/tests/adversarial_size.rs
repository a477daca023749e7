//! Size: the record budget (PROTOCOL.md, limits) and records built to be slow.
//!
//! Each party may sign at most its share of the terms' `max_record_bytes`; the relay refuses a
//! message beyond it, the verifier names the author of one a relay accepted anyway, and a flood
//! spends only the flooder's share. A 50 MiB record of distinct commitments (the shape that made
//! the commitment checks quadratic) is judged in one linear pass.

mod envelope_support;

use envelope_support::{Harness, Who, messages, only_fault, relog, with_entries};
use protocol::Commitment;
use protocol::commitment::PUBLIC_CONTRIBUTION;
use protocol::message::Payload;
use protocol::record::{ENTRY_OVERHEAD_BYTES, MAX_RECORD_BYTES, RecordBudget};
use protocol::relay::RelayError;
use protocol::terms::Limits;
use protocol::{Channel, Color};
use verifier::envelope;
use verifier::{FaultKind, MatchRole};

const FLOOD_BYTES: usize = 16 * 1024;

fn small() -> Limits {
    Limits { max_record_bytes: 256 * 1024, ..Limits::DEFAULT }
}

/// White floods with 16 KiB moves, Black answers with small ones, until the relay refuses
/// White. Returns the harness and White's refused message.
fn flood() -> (Harness, protocol::message::SignedMessage) {
    let mut h = Harness::with_limits("chess", 1, small());
    h.setup();
    let (white, black) = (h.side(Color::White), h.side(Color::Black));
    for ply in 0.. {
        let m = h.write(white, Channel::Public, Payload::Action(vec![b'w'; FLOOD_BYTES]));
        let bytes = protocol::codec::Canonical::to_canonical(&m);
        let now = h.now + 10;
        match h.relay.accept(&bytes, now) {
            Ok(a) => {
                h.now = now;
                h.deliver(&a.entry);
            }
            Err(RelayError::RecordFull(over)) => {
                assert_eq!(over.author, h.key(white), "the flooder is refused");
                assert!(over.would_use_bytes > over.share_bytes);
                assert!(ply >= 3, "a share holds a few floods, not none ({ply})");
                return (h, m);
            }
            Err(e) => panic!("refused for another reason: {e}"),
        }
        h.send(black, Channel::Public, Payload::Action(format!("b{ply}").into_bytes()));
    }
    unreachable!("the loop returns")
}

#[test]
fn the_relay_refuses_a_message_beyond_its_authors_share() {
    let (h, _) = flood();
    let (white, black) = (h.side(Color::White), h.side(Color::Black));
    // Black's share is untouched by White's flood, and the refusal changed nothing.
    let mut budget = RecordBudget::new(&h.terms);
    for e in h.relay.entries() {
        let author = e.message.verify().expect("accepted").author;
        budget.charge(&author, e.message.encoded_len()).expect("every accepted entry fits");
    }
    let share = budget.share_bytes(&h.key(black));
    assert!(budget.used_bytes(&h.key(black)) < share / 4, "black spent little");
    assert!(budget.used_bytes(&h.key(white)) + FLOOD_BYTES as u64 > share, "white spent it all");
    let checked = envelope::check(&h.bytes()).expect("the honest relay's record passes");
    assert!(checked.entries.len() > 8);
}

#[test]
fn a_flooder_that_stops_times_out_and_the_honest_side_is_not_named() {
    let (mut h, _) = flood();
    let notice = h.next_timeout();
    let body = notice.message.verify().expect("the relay's notice");
    let Payload::Timeout { party, .. } = body.payload else { panic!("a timeout: {body:?}") };
    assert_eq!(party, protocol::Party::White, "the side that could not move");
    let checked = envelope::check(&h.bytes()).expect("a valid record: a timeout, no fault");
    assert_eq!(checked.timeouts().count(), 1);
}

#[test]
fn a_relay_that_receipts_beyond_the_share_gets_the_signer_named() {
    let (h, refused) = flood();
    let mut all = messages(&h.record());
    all.push(refused);
    let bytes = with_entries(&h, relog(&h, &all));
    let Err(faults) = envelope::check(&bytes) else { panic!("a message over the share passed") };
    let white = h.key(h.side(Color::White));
    let f = only_fault(&faults, FaultKind::NotAllowed, Some(white), MatchRole::White);
    assert!(f.evidence.contains("share of the terms' max_record_bytes"), "{f:#?}");
}

#[test]
fn shares_and_reserve_keep_a_full_record_within_the_limit() {
    // Fill every party's share to the last message that fits, with the largest receipts the
    // relay can write: the record stays within max_record_bytes.
    let h = Harness::with_limits("kriegspiel", 1, small());
    let budget = RecordBudget::new(&h.terms);
    let header = protocol::record::MatchRecord::header_bytes(&h.signed).len() as u64;
    // The players' shares and the umpire's (no longer equal thirds: docs/PROTOCOL.md 13.6).
    let umpire = h.terms.terms.umpire.as_ref().expect("kriegspiel has an umpire").key;
    let shares = budget.share_bytes(&h.key(Who::P0))
        + budget.share_bytes(&h.key(Who::P1))
        + budget.share_bytes(&umpire);
    let reserve = budget.share_bytes(&h.terms.terms.relay);
    assert!(header + shares + reserve <= small().max_record_bytes);
    // The largest receipt the relay can sign (the longest varints), with the entry's frame
    // header and the receipt's own length prefix, fits the overhead charged per message.
    let m = &h.relay.entries()[0].message;
    let receipt = h.receipt(m, u64::MAX, u64::MAX, &h.head_before(0), &h.order_before(0));
    let entry = protocol::relay::Entry { message: m.clone(), receipt };
    let frame = protocol::record::MatchRecord::entry_frame(&entry).len() as u64;
    assert!(frame - m.encoded_len() as u64 <= ENTRY_OVERHEAD_BYTES, "{frame}");
}

/// 50 MiB of distinct commitments, each a re-commitment of White's public contribution (the
/// shape that made the commitment checks quadratic): the verdict names White, after one pass
/// over the record (each re-commitment is a `DuplicateCommitment`).
#[test]
fn a_50_mib_record_of_commitments_is_judged_in_one_pass() {
    let limits = Limits {
        max_messages_per_side: u32::MAX,
        max_record_bytes: MAX_RECORD_BYTES,
        ..Limits::DEFAULT
    };
    let mut h = Harness::with_limits("chess", 1, limits);
    let white = Who::P0;
    let c = h.commit_payload(white, PUBLIC_CONTRIBUTION);
    h.send(white, Channel::Public, c);
    let mut all = messages(&h.record());
    let target = 50 * 1024 * 1024;
    let mut size = h.bytes().len();
    let mut n = 0u64;
    while size < target {
        let mut commitment = [0u8; 32];
        commitment[..8].copy_from_slice(&n.to_le_bytes());
        let payload =
            Payload::Commit { purpose: PUBLIC_CONTRIBUTION, commitment: Commitment(commitment) };
        let m = h.write(white, Channel::Public, payload);
        size += m.encoded_len() + 180;
        all.push(m);
        n += 1;
    }
    let bytes = with_entries(&h, relog(&h, &all));
    assert!(bytes.len() >= target - 2 * 1024 * 1024, "{} bytes", bytes.len());
    let start = std::time::Instant::now();
    let Err(faults) = envelope::check(&bytes) else { panic!("commitments nobody owes passed") };
    eprintln!("{} bytes, {} entries: judged in {:?}", bytes.len(), all.len(), start.elapsed());
    assert!(
        faults.iter().all(|f| f.culprit == Some(h.key(white))),
        "only the author of the flood is named: {faults:#?}"
    );
    assert!(faults.iter().any(|f| f.kind == FaultKind::DuplicateCommitment), "{:?}", faults[0]);
}
