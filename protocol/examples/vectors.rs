//! Generates the protocol test vectors (`protocol/tests/vectors.json`) from fixed seeds:
//! `cargo run -p fogproof-protocol --example vectors > protocol/tests/vectors.json`.
//! `tests/vectors.rs` recomputes them and also checks the formulas independently with SHA-256.

use protocol::codec::{Canonical, VERSION};
use protocol::commitment::{self, PRIVATE_SEED};
use protocol::game::{self, SealDirection};
use protocol::hex::encode as hex;
use protocol::keys::Identity;
use protocol::message::{self, Author, Payload, Receipt, SignedReceipt, seal_context};
use protocol::seal::{self, SealContext, SealSecret};
use protocol::terms::{
    ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl, UmpireTerms,
    match_id,
};
use protocol::transcript::{Frame, Transcript};
use protocol::{Channel, Color, seed, tags};
use serde_json::{Value, json};

/// Every vector, as JSON (all byte strings in lower-case hex).
pub fn generate() -> Value {
    let alice = Identity::from_seed(&[0xa1; 32]);
    let bob = Identity::from_seed(&[0xb0; 32]);
    let relay = Identity::from_seed(&[0x7e; 32]);
    let umpire = Identity::from_seed(&[0x55; 32]);
    let identity = |name: &str, seed: u8, id: &Identity| {
        json!({
            "name": name,
            "ed25519_seed": hex(&[seed; 32]),
            "public_key": hex(&id.public().0),
            "fingerprint": id.public().fingerprint(),
        })
    };

    let frame = Frame::new(tags::COMMITMENT).append("a", b"xy").append_u64("n", 7).into_bytes();
    let frame_hash =
        Transcript::new(tags::COMMITMENT).append("a", b"xy").append_u64("n", 7).finish();

    let player = |id: &Identity, n: u8| PlayerTerms {
        key: id.public(),
        seal_key: SealSecret::for_match(id, &[n; 32]).public(),
        nonce: [n; 32],
    };
    let terms = MatchTerms {
        version: VERSION,
        // SIC with its one option set (spy: original): the variant's id, then the option.
        game: rules::GameOptions::Sic(rules::sic::SpyRule::Original),
        players: [player(&alice, 0x01), player(&bob, 0x02)],
        colors: ColorAssignment::Drawn,
        rated: true,
        relay: relay.public(),
        umpire: Some(UmpireTerms {
            key: umpire.public(),
            seal_key: SealSecret::for_match(&umpire, &UMPIRE_NONCE).public(),
            nonce: UMPIRE_NONCE,
        }),
        time_control: TimeControl {
            initial_ms: 300_000,
            increment_ms: 2_000,
            reveal_ms: 60_000,
            answer_ms: 30_000,
        },
        limits: Limits::DEFAULT,
    };
    let terms_bytes = terms.to_canonical();
    let id = match_id(&terms_bytes);
    let signed_terms = SignedTerms::sign_all(&terms, &[&alice, &bob, &relay, &umpire])
        .expect("the vector cast holds every signer");

    let (value, nonce) = ([0x11u8; 32], [0x22u8; 32]);
    let c = commitment::commit(PRIVATE_SEED, &id, &alice.public(), &value, &nonce);

    let contributions = [[0x33u8; 32], [0x44u8; 32]];
    let colors = seed::draw_colors(&terms, &id, &contributions);
    let setup_white = seed::setup_seed(&[0x11; 32], &contributions[1], &id, Color::White);

    let mut author = Author::new(alice.clone(), id);
    let m0 = author.write(Channel::Public, None, Payload::Action(b"e2e4".to_vec()));
    let body0 = m0.verify().expect("vector message verifies");
    let time_ms = 1_700_000_000_000;
    let genesis = message::genesis_head(&id, Channel::Public);
    let head = message::next_head(&genesis, 0, time_ms, &m0.signed_hash());
    let genesis_order = message::genesis_order(&id);
    let receipt = Receipt {
        version: VERSION,
        match_id: id,
        channel: Channel::Public,
        position: 0,
        time_ms,
        message: m0.signed_hash(),
        head,
        after: genesis_order,
    };
    let order = receipt.order();
    let signed_receipt = SignedReceipt::sign(&receipt, &relay);
    let witness = Identity::from_seed(&[0x3e; 32]);
    // Alice's display name, as `fogproof keys name` signs it (section 16b); NFC-normalised.
    let display = protocol::names::SignedName::sign(&alice, "Zoe\u{308} Tester", 1_700_000_000_000)
        .expect("an allowed name");
    let delivered =
        protocol::delivery::Delivered::notarize(&witness, id, m0.clone(), 1_700_000_001_000);

    let inner = Payload::Action(b"g1f3".to_vec());
    let umpire_seal = SealSecret::for_match(&umpire, &UMPIRE_NONCE).public();
    // The terms are SIC's: a player's sealed payloads are padded to this many bytes.
    let padded_len = game::sealed_plaintext_bytes(rules::Variant::Sic, SealDirection::ToUmpire);
    let (m1, disclosure) = author
        .write_sealed(Channel::WhiteUmpire, None, &inner, &umpire_seal, &[0x66; 32], padded_len)
        .expect("sealing to the vector umpire works");
    let body1 = m1.verify().expect("vector sealed message verifies");
    // The sealed message is the first on White's channel: position 0 there, after the public
    // entry in the relay's order.
    let private_genesis = message::genesis_head(&id, Channel::WhiteUmpire);
    let private_head = message::next_head(&private_genesis, 0, time_ms + 1, &m1.signed_hash());
    let private_receipt = Receipt {
        version: VERSION,
        match_id: id,
        channel: Channel::WhiteUmpire,
        position: 0,
        time_ms: time_ms + 1,
        message: m1.signed_hash(),
        head: private_head,
        after: order,
    };
    let signed_private = SignedReceipt::sign(&private_receipt, &relay);
    let ctx: SealContext = seal_context(&body1);
    let Payload::Sealed(sealed) = &body1.payload else { unreachable!("write_sealed seals") };
    let setup = sealed.setup.expect("the first sealed message on a channel sets its context up");
    let key = seal::check_disclosure(&umpire_seal, &ctx, &setup, &disclosure.seal_seed)
        .expect("the disclosure reproduces the setup");
    let plaintext = key.open(&ctx, sealed, padded_len).expect("the vector opens");
    seal::check_disclosed_key(Channel::WhiteUmpire, &setup, &disclosure.key)
        .expect("the disclosed key is the committed one");
    // The exported AEAD key, through HPKE directly (the recipient's side).
    let umpire_secret = {
        let ikm = Transcript::new(tags::SEAL_KEY)
            .append("ed25519-seed", &[0x55; 32])
            .append("nonce", &UMPIRE_NONCE)
            .finish();
        <hpke::kem::X25519HkdfSha256 as hpke::Kem>::derive_keypair(&ikm).0
    };
    let exported = {
        use hpke::Deserializable;
        let enc = <hpke::kem::X25519HkdfSha256 as hpke::Kem>::EncappedKey::from_bytes(&setup.enc)
            .expect("enc is an X25519 point");
        let context = hpke::setup_receiver::<
            hpke::aead::ExportOnlyAead,
            hpke::kdf::HkdfSha256,
            hpke::kem::X25519HkdfSha256,
        >(&hpke::OpModeR::Base, &umpire_secret, &enc, &ctx.info())
        .expect("the umpire decapsulates");
        let mut k = [0u8; 32];
        context.export(tags::SEAL_KEY_EXPORT.as_bytes(), &mut k).expect("32 bytes export");
        k
    };

    json!({
        "generated": "by `cargo run -p fogproof-protocol --example vectors > protocol/tests/vectors.json`; do not edit",
        "identities": [
            identity("alice", 0xa1, &alice),
            identity("bob", 0xb0, &bob),
            identity("relay", 0x7e, &relay),
            identity("umpire", 0x55, &umpire),
        ],
        "key_file": alice.to_key_file("alice (test vector)").expect("one-line comment"),
        "transcript": {
            "tag": tags::COMMITMENT.as_str(),
            "fields": [["a", hex(b"xy")], ["n", hex(&7u64.to_le_bytes())]],
            "frame": hex(&frame),
            "sha256": hex(&frame_hash),
        },
        "terms": {
            "bytes": hex(&terms_bytes),
            "match_id": hex(&id.0),
            "signatures": signed_terms.signatures.iter().map(|s| hex(&s.to_bytes())).collect::<Vec<_>>(),
        },
        "commitment": {
            "purpose": PRIVATE_SEED,
            "author": hex(&alice.public().0),
            "value": hex(&value),
            "nonce": hex(&nonce),
            "commitment": hex(&c.0),
        },
        "colours": {
            "contribution_0": hex(&contributions[0]),
            "contribution_1": hex(&contributions[1]),
            "white": hex(&colors.white.0),
        },
        "setup_seed": {
            "private_seed": hex(&[0x11; 32]),
            "opponent_contribution": hex(&contributions[1]),
            "side": "white",
            "seed": hex(&setup_white),
        },
        "message": {
            "body": hex(&m0.body),
            "hash": hex(&m0.hash().0),
            "signature": hex(&m0.signature.to_bytes()),
            "signed_hash": hex(&m0.signed_hash().0),
            "signed_message": hex(&m0.to_canonical()),
            "seq": body0.seq,
        },
        "receipt": {
            "genesis_head": hex(&genesis.0),
            "genesis_order": hex(&genesis_order.0),
            "time_ms": time_ms,
            "head": hex(&head.0),
            "order": hex(&order.0),
            "bytes": hex(&signed_receipt.receipt),
            "signature": hex(&signed_receipt.signature.to_bytes()),
        },
        "private_receipt": {
            "signed_hash": hex(&m1.signed_hash().0),
            "seq": body1.seq,
            "genesis_head": hex(&private_genesis.0),
            "time_ms": time_ms + 1,
            "head": hex(&private_head.0),
            "order": hex(&private_receipt.order().0),
            "bytes": hex(&signed_private.receipt),
            "signature": hex(&signed_private.signature.to_bytes()),
        },
        "delivery_notice": {
            "witness_seed": hex(&[0x3e; 32]),
            "witness_key": hex(&witness.public().0),
            "witness_time_ms": 1_700_000_001_000_u64,
            "notice": hex(&delivered.notice.notice),
            "signature": hex(&delivered.notice.signature.to_bytes()),
            "file": hex(&delivered.to_canonical()),
        },
        "display_name": {
            "key_seed": hex(&[0xa1; 32]),
            "key": alice.public().to_string(),
            "name": display.name,
            "issued_ms": display.issued_ms,
            "name_bytes": hex(&protocol::names::name_bytes(&alice.public(), &display.name, display.issued_ms)),
            "signature": hex(&display.signature.to_bytes()),
            "json": serde_json::to_value(&display).expect("a signed name is JSON"),
        },
        "seal": {
            "info": hex(&ctx.info()),
            "aad": hex(&ctx.aad()),
            "plaintext": hex(&plaintext),
            "padded_len": padded_len,
            "padded": hex(&seal::pad(&plaintext, padded_len).expect("the vector fits")),
            "seal_seed": hex(&disclosure.seal_seed),
            "enc": hex(&setup.enc),
            "key": hex(&exported),
            "key_commitment": hex(&setup.key_commitment),
            "seq": ctx.seq,
            "salt": hex(&seal::seal_salt(&disclosure.seal_seed, ctx.seq)),
            "commitment": hex(&sealed.commitment),
            "nonce": hex(&seal::nonce(ctx.seq, &sealed.commitment)),
            "ciphertext": hex(&sealed.ciphertext),
            "message_body": hex(&m1.body),
            // The author's `Disclose` payload for the channel: { channel, seal_seed, key }.
            "disclose_payload": hex(&Payload::Disclose(vec![disclosure]).to_canonical()),
        },
    })
}

#[allow(dead_code, reason = "tests/vectors.rs includes this file for generate() only")]
/// The umpire's nonce in the vector terms (its seal key for the match derives from it).
pub const UMPIRE_NONCE: [u8; 32] = [0x5a; 32];

fn main() {
    let text = serde_json::to_string_pretty(&generate()).expect("JSON values always print");
    println!("{text}");
}
