//! No panics on any input bytes: every decoder returns an error or a value that re-encodes to
//! exactly the input. Plus the two postcard pitfalls on real protocol types.
mod common;

use proptest::prelude::*;
use protocol::Channel;
use protocol::codec::{Canonical, DecodeError, VERSION};
use protocol::keys::Identity;
use protocol::message::{Author, MessageBody, Payload, Receipt, SignedMessage, SignedReceipt};
use protocol::record::MatchRecord;
use protocol::relay::Entry;
use protocol::terms::{ColorAssignment, MatchTerms, SignedTerms};
use protocol::wire::{ClientFrame, ServerFrame};

/// Decodes `bytes` as `T`; on success the value must re-encode to the same bytes.
fn round_trips<T: Canonical>(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(value) = T::from_canonical(bytes) {
        prop_assert_eq!(value.to_canonical(), bytes.to_vec(), "{} re-encodes differently", T::NAME);
    }
    Ok(())
}

fn all_decoders(bytes: &[u8]) -> Result<(), TestCaseError> {
    round_trips::<MatchTerms>(bytes)?;
    round_trips::<SignedTerms>(bytes)?;
    round_trips::<Payload>(bytes)?;
    round_trips::<MessageBody>(bytes)?;
    round_trips::<SignedMessage>(bytes)?;
    round_trips::<Receipt>(bytes)?;
    round_trips::<SignedReceipt>(bytes)?;
    round_trips::<MatchRecord>(bytes)?;
    round_trips::<ClientFrame>(bytes)?;
    round_trips::<ServerFrame>(bytes)?;
    if let Ok(m) = SignedMessage::from_canonical(bytes) {
        let _ = m.verify(); // must not panic either
    }
    if let Ok(t) = SignedTerms::from_canonical(bytes) {
        let _ = t.verify();
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = Identity::from_key_file(text);
    }
    Ok(())
}

/// Valid encodings to mutate, so the fuzzing reaches deep into the types.
fn samples() -> Vec<Vec<u8>> {
    let c = common::cast();
    let (signed, agreed) = common::agreed(&c, ColorAssignment::Drawn, true);
    let mut alice = Author::new(c.alice.clone(), agreed.match_id);
    let m = alice.write(Channel::Public, None, Payload::Action(b"e2e4".to_vec()));
    let receipt = Receipt {
        version: VERSION,
        match_id: agreed.match_id,
        channel: Channel::WhiteUmpire,
        position: 300,
        time_ms: 1 << 40,
        message: m.signed_hash(),
        head: protocol::LogHead([3; 32]),
        after: protocol::LogHead([5; 32]),
    };
    let r = SignedReceipt::sign(&receipt, &c.relay);
    let record = MatchRecord {
        version: VERSION,
        terms: signed.clone(),
        entries: vec![Entry { message: m.clone(), receipt: r.clone() }],
    };
    let disclose = alice.write(
        Channel::Public,
        None,
        Payload::Disclose(vec![protocol::seal::SealDisclosure {
            channel: Channel::WhiteUmpire,
            seal_seed: [9; 32],
            key: [10; 32],
        }]),
    );
    vec![
        signed.terms.clone(),
        signed.to_canonical(),
        m.body.clone(),
        m.to_canonical(),
        disclose.to_canonical(),
        receipt.to_canonical(),
        r.to_canonical(),
        record.to_canonical(),
        ClientFrame::Hello { version: VERSION, since: Some(12) }.to_canonical(),
        ClientFrame::Message(m.to_canonical()).to_canonical(),
        ServerFrame::Welcome {
            version: VERSION,
            match_id: agreed.match_id,
            terms: signed.clone(),
            entries: 9,
            catch_up: 3,
        }
        .to_canonical(),
        ServerFrame::Entry(Entry { message: m.clone(), receipt: r.clone() }).to_canonical(),
        ServerFrame::refused(Some(m.hash()), "not now").to_canonical(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        all_decoders(&bytes)?;
    }

    #[test]
    fn mutated_encodings_never_panic(
        which in 0usize..13,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut bytes = samples()[which].clone();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len() + 1);
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => { bytes.remove(i); }
                _ => bytes.push(byte),
            }
        }
        all_decoders(&bytes)?;
    }
}

#[test]
fn samples_decode() {
    for s in samples() {
        let decoded = [
            MatchTerms::from_canonical(&s).is_ok(),
            SignedTerms::from_canonical(&s).is_ok(),
            MessageBody::from_canonical(&s).is_ok(),
            SignedMessage::from_canonical(&s).is_ok(),
            Receipt::from_canonical(&s).is_ok(),
            SignedReceipt::from_canonical(&s).is_ok(),
            MatchRecord::from_canonical(&s).is_ok(),
            ClientFrame::from_canonical(&s).is_ok(),
            ServerFrame::from_canonical(&s).is_ok(),
        ];
        assert!(decoded.iter().any(|ok| *ok), "a sample decodes as nothing");
    }
}

fn receipt_with_seq(seq: u64) -> Receipt {
    Receipt {
        version: VERSION,
        match_id: protocol::MatchId([1; 32]),
        channel: Channel::Public,
        position: seq,
        time_ms: 0,
        message: protocol::SignedHash([2; 32]),
        head: protocol::LogHead([4; 32]),
        after: protocol::LogHead([6; 32]),
    }
}

#[test]
fn overlong_varint_in_a_receipt_is_refused() {
    let bytes = receipt_with_seq(1).to_canonical();
    // version (1) | match id (32) | channel (1) | position varint at offset 34.
    assert_eq!(bytes[34], 0x01);
    let mut overlong = bytes[..34].to_vec();
    overlong.extend_from_slice(&[0x81, 0x00]);
    overlong.extend_from_slice(&bytes[35..]);
    // postcard alone would take this as seq = 1 ...
    let lax: Receipt =
        postcard::from_bytes(&overlong).expect("postcard 1.1.3 accepts overlong varints");
    assert_eq!(lax, receipt_with_seq(1));
    // ... the strict decoder does not.
    assert_eq!(
        Receipt::from_canonical(&overlong),
        Err(DecodeError::NonCanonical { what: "receipt" })
    );
}

#[test]
fn trailing_bytes_after_a_message_are_refused() {
    let c = common::cast();
    let m = Author::new(c.alice, protocol::MatchId([1; 32])).write(
        Channel::Public,
        None,
        Payload::Action(vec![1]),
    );
    let mut bytes = m.to_canonical();
    bytes.push(0);
    assert!(postcard::from_bytes::<SignedMessage>(&bytes).is_ok(), "postcard ignores the tail");
    assert_eq!(
        SignedMessage::from_canonical(&bytes),
        Err(DecodeError::TrailingBytes { what: "signed message", count: 1 })
    );
}
