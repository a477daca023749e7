//! The published test vectors: recomputed by the generator, and each formula of
//! docs/PROTOCOL.md checked independently with plain SHA-256 and ed25519 from the vector inputs.

#[allow(dead_code, reason = "the generator's main() is not used here")]
#[path = "../examples/vectors.rs"]
mod generator;

use ed25519_dalek::VerifyingKey;
use protocol::codec::Canonical;
use protocol::game::SealDirection;
use protocol::hex;
use protocol::keys::Identity;
use protocol::message::{MessageBody, Payload, seal_context};
use protocol::seal::{self, SealSecret};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn vectors() -> Value {
    serde_json::from_str(include_str!("vectors.json")).expect("vectors.json is JSON")
}

fn bytes(v: &Value, path: &[&str]) -> Vec<u8> {
    let mut at = v;
    for p in path {
        at = &at[*p];
    }
    let s = at.as_str().unwrap_or_else(|| panic!("{path:?} is not a string"));
    hex::decode(s).unwrap_or_else(|| panic!("{path:?} is not hex"))
}

fn arr32(v: &Value, path: &[&str]) -> [u8; 32] {
    bytes(v, path).try_into().expect("32 bytes")
}

/// `lp(x) = u64_le(len(x)) || x`, written out again here rather than taken from the crate.
fn lp(out: &mut Vec<u8>, x: &[u8]) {
    out.extend_from_slice(&(x.len() as u64).to_le_bytes());
    out.extend_from_slice(x);
}

fn h(tag: &str, fields: &[(&str, &[u8])]) -> [u8; 32] {
    let mut frame = Vec::new();
    lp(&mut frame, tag.as_bytes());
    for (label, value) in fields {
        lp(&mut frame, label.as_bytes());
        lp(&mut frame, value);
    }
    Sha256::digest(&frame).into()
}

fn verify_sig(key: &[u8; 32], tag: &str, msg: &[u8], sig: &[u8]) {
    let mut input = Vec::new();
    lp(&mut input, tag.as_bytes());
    input.extend_from_slice(msg);
    let key = VerifyingKey::from_bytes(key).expect("vector key is a point");
    let sig = ed25519_dalek::Signature::from_slice(sig).expect("64 bytes");
    key.verify_strict(&input, &sig).expect("vector signature verifies");
}

#[test]
fn vectors_json_is_what_the_generator_prints() {
    assert_eq!(
        generator::generate(),
        vectors(),
        "protocol/tests/vectors.json is stale: regenerate with \
         `cargo run -p fogproof-protocol --example vectors > protocol/tests/vectors.json` \
         and review the diff (a changed vector is a protocol change)"
    );
}

#[test]
fn identities_and_key_file() {
    let v = vectors();
    for id in v["identities"].as_array().expect("a list") {
        let seed = arr32(id, &["ed25519_seed"]);
        let public = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key().to_bytes();
        assert_eq!(public.to_vec(), bytes(id, &["public_key"]));
        // The fingerprint is the key's own text cut to its first 16 bytes (keys.rs).
        assert_eq!(
            id["fingerprint"].as_str(),
            Some(format!("ed25519:{}", hex::encode(&public[..16]))).as_deref()
        );
    }
    let text = v["key_file"].as_str().expect("text");
    let (alice, comment) = Identity::from_key_file(text).expect("vector key file parses");
    assert_eq!(alice.public().0.to_vec(), bytes(&v["identities"][0], &["public_key"]));
    assert_eq!(comment, "alice (test vector)");
    assert!(!text.contains("fingerprint"));
}

#[test]
fn transcript_frame() {
    let v = vectors();
    let frame = bytes(&v, &["transcript", "frame"]);
    let mut expected = Vec::new();
    lp(&mut expected, b"fogproof/v2/commitment");
    lp(&mut expected, b"a");
    lp(&mut expected, b"xy");
    lp(&mut expected, b"n");
    lp(&mut expected, &7u64.to_le_bytes());
    assert_eq!(frame, expected);
    assert_eq!(bytes(&v, &["transcript", "sha256"]), Sha256::digest(&frame).to_vec());
}

#[test]
fn terms_match_id_and_signatures() {
    let v = vectors();
    let terms = bytes(&v, &["terms", "bytes"]);
    let id = h("fogproof/v2/match-id", &[("terms", &terms)]);
    assert_eq!(id.to_vec(), bytes(&v, &["terms", "match_id"]));
    // Every party signs, in the order players[0], players[1], relay, umpire.
    let sigs = v["terms"]["signatures"].as_array().expect("a list of signatures");
    assert_eq!(sigs.len(), 4);
    for (i, sig) in sigs.iter().enumerate() {
        let key = arr32(&v["identities"][i], &["public_key"]);
        let sig = hex::decode(sig.as_str().expect("hex")).expect("hex");
        verify_sig(&key, "fogproof/v2/terms", &terms, &sig);
    }
}

/// postcard's unsigned varint (LEB128), written out again here.
fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The terms bytes written out field by field (docs/PROTOCOL.md 7), independently of the
/// encoder: version | variant id (varint length, ASCII) | the variant's option fields (SIC: the
/// spy rule's index, 1 = original) | players[0] and players[1] (key, seal key, nonce: 32 bytes
/// each) | colors (varint index, 1 = drawn) | rated (1) | relay key | umpire (option tag 1, key,
/// seal key, nonce) | time control (four varints) | limits (three varints).
#[test]
fn terms_bytes_by_hand() {
    let v = vectors();
    let terms = bytes(&v, &["terms", "bytes"]);
    let key = |i: usize| arr32(&v["identities"][i], &["public_key"]);
    let seal_key = |seed: u8, nonce: &[u8; 32]| {
        SealSecret::for_match(&Identity::from_seed(&[seed; 32]), nonce).public().0
    };
    let mut expected = vec![3];
    varint(&mut expected, 3);
    expected.extend(b"sic");
    expected.push(1);
    for (i, seed, nonce) in [(0, 0xa1, [0x01; 32]), (1, 0xb0, [0x02; 32])] {
        expected.extend(key(i));
        expected.extend(seal_key(seed, &nonce));
        expected.extend(nonce);
    }
    expected.extend([1, 1]);
    expected.extend(key(2));
    expected.push(1);
    expected.extend(key(3));
    expected.extend(seal_key(0x55, &generator::UMPIRE_NONCE));
    expected.extend(generator::UMPIRE_NONCE);
    for n in [300_000, 2_000, 60_000, 30_000, 20_000, 256, 64 * 1024 * 1024] {
        varint(&mut expected, n);
    }
    assert_eq!(hex::encode(&terms), hex::encode(&expected));
    let decoded = protocol::terms::MatchTerms::from_canonical(&terms).expect("canonical terms");
    assert_eq!(decoded.game, rules::GameOptions::Sic(rules::sic::SpyRule::Original));
    assert_eq!(decoded.ruleset(), "sic/2024");
}

#[test]
fn commitment_colors_and_setup_seed() {
    let v = vectors();
    let id = bytes(&v, &["terms", "match_id"]);
    let c = &v["commitment"];
    let expected = h(
        "fogproof/v2/commitment",
        &[
            ("purpose", c["purpose"].as_str().expect("text").as_bytes()),
            ("match-id", &id),
            ("author", &bytes(c, &["author"])),
            ("value", &bytes(c, &["value"])),
            ("nonce", &bytes(c, &["nonce"])),
        ],
    );
    assert_eq!(expected.to_vec(), bytes(c, &["commitment"]));

    let col = &v["colours"];
    let draw = h(
        "fogproof/v2/colours",
        &[
            ("match-id", &id),
            ("contribution-0", &bytes(col, &["contribution_0"])),
            ("contribution-1", &bytes(col, &["contribution_1"])),
        ],
    );
    let white = usize::from(draw[0] & 1);
    assert_eq!(bytes(col, &["white"]), bytes(&v["identities"][white], &["public_key"]));

    let s = &v["setup_seed"];
    let seed = h(
        "fogproof/v2/setup-seed",
        &[
            ("private-seed", &bytes(s, &["private_seed"])),
            ("opponent-contribution", &bytes(s, &["opponent_contribution"])),
            ("match-id", &id),
            ("side", &[0]),
        ],
    );
    assert_eq!(seed.to_vec(), bytes(s, &["seed"]));
}

#[test]
fn message_and_receipt() {
    let v = vectors();
    let m = &v["message"];
    let body = bytes(m, &["body"]);
    assert_eq!(h("fogproof/v2/message-hash", &[("body", &body)]).to_vec(), bytes(m, &["hash"]));
    let alice = arr32(&v["identities"][0], &["public_key"]);
    verify_sig(&alice, "fogproof/v2/message", &body, &bytes(m, &["signature"]));
    // signed message = lp-free postcard: varint(len(body)) || body || signature (64 bytes).
    let signed = bytes(m, &["signed_message"]);
    assert_eq!(usize::from(signed[0]), body.len(), "body is shorter than 128 bytes");
    assert_eq!(&signed[1..1 + body.len()], &body[..]);
    assert_eq!(&signed[1 + body.len()..], &bytes(m, &["signature"])[..]);

    // The signed hash covers the body and the signature.
    let signed_hash = h(
        "fogproof/v2/signed-message",
        &[("body", &body), ("signature", &bytes(m, &["signature"]))],
    );
    assert_eq!(signed_hash.to_vec(), bytes(m, &["signed_hash"]));

    let r = &v["receipt"];
    let id = bytes(&v, &["terms", "match_id"]);
    // Each channel's chain starts from its own genesis; the order chain from the match's.
    let genesis = h("fogproof/v2/log-head", &[("match-id", &id), ("channel", &[0])]);
    assert_eq!(genesis.to_vec(), bytes(r, &["genesis_head"]));
    let genesis_order = h("fogproof/v2/order-head", &[("match-id", &id)]);
    assert_eq!(genesis_order.to_vec(), bytes(r, &["genesis_order"]));
    let time_ms = r["time_ms"].as_u64().expect("a number");
    let head = h(
        "fogproof/v2/log-head",
        &[
            ("prev", &genesis),
            ("seq", &0u64.to_le_bytes()),
            ("time", &time_ms.to_le_bytes()),
            ("message", &signed_hash),
        ],
    );
    assert_eq!(head.to_vec(), bytes(r, &["head"]));
    let order = h(
        "fogproof/v2/order-head",
        &[("prev", &genesis_order), ("channel", &[0]), ("head", &head)],
    );
    assert_eq!(order.to_vec(), bytes(r, &["order"]));
    let receipt = bytes(r, &["bytes"]);
    let relay = arr32(&v["identities"][2], &["public_key"]);
    verify_sig(&relay, "fogproof/v2/receipt", &receipt, &bytes(r, &["signature"]));
    // version | match id | channel (0: public) | position (varint 0) | time_ms (varint) |
    // signed hash | channel head | order head before.
    assert_eq!(receipt[0], 3);
    assert_eq!(&receipt[1..33], &id[..]);
    assert_eq!((receipt[33], receipt[34]), (0, 0));
    assert_eq!(&receipt[receipt.len() - 96..receipt.len() - 64], &signed_hash[..]);
    assert_eq!(&receipt[receipt.len() - 64..receipt.len() - 32], &head[..]);
    assert_eq!(&receipt[receipt.len() - 32..], &genesis_order[..]);

    // The sealed message on White's channel: the first there (its author's number 0 on that
    // channel, position 0), placed after the public entry by the order head.
    let p = &v["private_receipt"];
    assert_eq!(p["seq"].as_u64(), Some(0), "numbers count per author and channel");
    let private_genesis = h("fogproof/v2/log-head", &[("match-id", &id), ("channel", &[1])]);
    assert_eq!(private_genesis.to_vec(), bytes(p, &["genesis_head"]));
    let private_signed = bytes(p, &["signed_hash"]);
    let private_time = p["time_ms"].as_u64().expect("a number");
    let private_head = h(
        "fogproof/v2/log-head",
        &[
            ("prev", &private_genesis),
            ("seq", &0u64.to_le_bytes()),
            ("time", &private_time.to_le_bytes()),
            ("message", &private_signed),
        ],
    );
    assert_eq!(private_head.to_vec(), bytes(p, &["head"]));
    let private_order = h(
        "fogproof/v2/order-head",
        &[("prev", &order), ("channel", &[1]), ("head", &private_head)],
    );
    assert_eq!(private_order.to_vec(), bytes(p, &["order"]));
    let receipt = bytes(p, &["bytes"]);
    verify_sig(&relay, "fogproof/v2/receipt", &receipt, &bytes(p, &["signature"]));
    assert_eq!((receipt[33], receipt[34]), (1, 0), "White's channel, position 0");
    assert_eq!(&receipt[receipt.len() - 64..receipt.len() - 32], &private_head[..]);
    assert_eq!(&receipt[receipt.len() - 32..], &order[..]);
}

#[test]
fn delivery_notice() {
    let v = vectors();
    let n = &v["delivery_notice"];
    let witness = arr32(n, &["witness_key"]);
    let seed: [u8; 32] = arr32(n, &["witness_seed"]);
    let derived = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key().to_bytes();
    assert_eq!(derived, witness);
    let notice = bytes(n, &["notice"]);
    verify_sig(&witness, "fogproof/v2/delivery-notice", &notice, &bytes(n, &["signature"]));
    // version | match id | witness key | signed hash | witness_time_ms (varint).
    let id = bytes(&v, &["terms", "match_id"]);
    let body = bytes(&v["message"], &["body"]);
    let signed_hash = h(
        "fogproof/v2/signed-message",
        &[("body", &body), ("signature", &bytes(&v["message"], &["signature"]))],
    );
    assert_eq!(notice[0], 3, "the wire version");
    assert_eq!(&notice[1..33], &id[..]);
    assert_eq!(&notice[33..65], &witness[..]);
    assert_eq!(&notice[65..97], &signed_hash[..]);
    let mut time = 0u64;
    for (i, b) in notice[97..].iter().enumerate() {
        time |= u64::from(b & 0x7f) << (7 * i);
    }
    assert_eq!(time, n["witness_time_ms"].as_u64().expect("a number"));
    // The file: version | varint(len(notice)) || notice || signature | the signed message.
    let file = bytes(n, &["file"]);
    assert_eq!(file[0], 3, "the wire version");
    assert_eq!(usize::from(file[1]), notice.len());
    assert_eq!(&file[2..2 + notice.len()], &notice[..]);
    assert_eq!(&file[2 + notice.len()..66 + notice.len()], &bytes(n, &["signature"])[..]);
    assert_eq!(&file[66 + notice.len()..], &bytes(&v["message"], &["signed_message"])[..]);
}

#[test]
fn sealed_payload_opens_for_the_umpire_and_matches_its_disclosure() {
    use chacha20poly1305::aead::{Aead, Payload as AeadPayload};
    use chacha20poly1305::{KeyInit, XChaCha20Poly1305};
    let v = vectors();
    let s = &v["seal"];
    let body = MessageBody::from_canonical(&bytes(s, &["message_body"])).expect("canonical body");
    let ctx = seal_context(&body);
    assert_eq!(Some(body.seq), s["seq"].as_u64());
    // info (match, channel, author) and aad (author, seq), framed by hand.
    let mut info = Vec::new();
    lp(&mut info, b"fogproof/v3/seal-info");
    lp(&mut info, b"match-id");
    lp(&mut info, &body.match_id.0);
    lp(&mut info, b"channel");
    lp(&mut info, &[1]);
    lp(&mut info, b"author");
    lp(&mut info, &body.author.0);
    assert_eq!(info, bytes(s, &["info"]));
    let mut aad = Vec::new();
    lp(&mut aad, b"fogproof/v3/seal-aad");
    lp(&mut aad, b"author");
    lp(&mut aad, &body.author.0);
    lp(&mut aad, b"seq");
    lp(&mut aad, &body.seq.to_le_bytes());
    assert_eq!(aad, bytes(s, &["aad"]));
    let Payload::Sealed(sealed) = &body.payload else { panic!("the vector is sealed") };
    let setup = sealed.setup.expect("the first sealed message on a channel carries its setup");
    assert_eq!(setup.enc.to_vec(), bytes(s, &["enc"]));
    let umpire = SealSecret::for_match(&Identity::from_seed(&[0x55; 32]), &generator::UMPIRE_NONCE);
    let padded_len = s["padded_len"].as_u64().expect("padded_len") as usize;
    assert_eq!(
        padded_len,
        protocol::game::sealed_plaintext_bytes(rules::Variant::Sic, SealDirection::ToUmpire),
        "the vector's terms are SIC's; a player seals to the umpire"
    );
    let plain = seal::Inbox::new(umpire.clone())
        .open(&ctx, sealed, padded_len)
        .expect("the umpire opens it");
    assert_eq!(plain, bytes(s, &["plaintext"]));
    assert_eq!(Payload::from_canonical(&plain), Ok(Payload::Action(b"g1f3".to_vec())));
    let seed = arr32(s, &["seal_seed"]);
    // The context's key, through HPKE directly (export-only mode) under the umpire's X25519
    // key derived by hand, and its commitment.
    let ikm = h(
        "fogproof/v2/seal-key",
        &[("ed25519-seed", &[0x55; 32]), ("nonce", &generator::UMPIRE_NONCE)],
    );
    let (sk, _) = <hpke::kem::X25519HkdfSha256 as hpke::Kem>::derive_keypair(&ikm);
    let enc = <<hpke::kem::X25519HkdfSha256 as hpke::Kem>::EncappedKey as hpke::Deserializable>::from_bytes(&setup.enc)
        .expect("enc is an X25519 point");
    let context = hpke::setup_receiver::<
        hpke::aead::ExportOnlyAead,
        hpke::kdf::HkdfSha256,
        hpke::kem::X25519HkdfSha256,
    >(&hpke::OpModeR::Base, &sk, &enc, &info)
    .expect("HPKE decapsulates the vector");
    let mut key = [0u8; 32];
    context.export(b"fogproof/v3/seal-key-export", &mut key).expect("exports 32 bytes");
    assert_eq!(key.to_vec(), bytes(s, &["key"]));
    let key_commitment = h("fogproof/v3/seal-key-commitment", &[("key", &key)]);
    assert_eq!(key_commitment.to_vec(), bytes(s, &["key_commitment"]));
    assert_eq!(setup.key_commitment, key_commitment);
    // The salted plaintext commitment and the nonce, recomputed by hand.
    let seq = body.seq.to_le_bytes();
    let salt = h("fogproof/v3/seal-salt", &[("seal-seed", &seed), ("seq", &seq)]);
    assert_eq!(salt.to_vec(), bytes(s, &["salt"]));
    let commitment = h("fogproof/v3/seal-plaintext", &[("salt", &salt), ("plaintext", &plain)]);
    assert_eq!(commitment.to_vec(), bytes(s, &["commitment"]));
    assert_eq!(sealed.commitment, commitment);
    let nonce = h("fogproof/v3/seal-nonce", &[("seq", &seq), ("commitment", &commitment)]);
    assert_eq!(nonce[..24].to_vec(), bytes(s, &["nonce"]));
    // The padded plaintext, by hand (ISO/IEC 7816-4): the plaintext, 0x80, zeros to padded_len.
    let mut padded = plain.clone();
    padded.push(0x80);
    padded.resize(padded_len, 0);
    assert_eq!(padded, bytes(s, &["padded"]));
    // The ciphertext carries salt || padded: 32 + padded_len + 16-byte tag, whatever the
    // plaintext's length. Decrypted with XChaCha20-Poly1305 directly.
    assert_eq!(sealed.ciphertext.len(), 32 + padded_len + 16);
    let xnonce: [u8; 24] = nonce[..24].try_into().expect("24 bytes");
    let salted = XChaCha20Poly1305::new(&key.into())
        .decrypt(&xnonce.into(), AeadPayload { msg: &sealed.ciphertext, aad: &aad })
        .expect("XChaCha20-Poly1305 opens the vector");
    assert_eq!(&salted[..32], &salt[..]);
    assert_eq!(&salted[32..], &padded[..]);
    // The disclosure (the seal seed) reproduces the setup and gives the same key.
    let disclosed = seal::check_disclosure(&umpire.public(), &ctx, &setup, &seed)
        .expect("the disclosure reproduces the signed setup");
    assert_eq!(disclosed.open(&ctx, sealed, padded_len), Ok(plain));
    assert!(seal::check_disclosure(&umpire.public(), &ctx, &setup, &[0; 32]).is_err());
    // The Disclose payload: postcard of [Payload variant 11, one item: channel byte, seed, key].
    let payload = bytes(s, &["disclose_payload"]);
    let mut by_hand = vec![11, 1, 1];
    by_hand.extend_from_slice(&seed);
    by_hand.extend_from_slice(&key);
    assert_eq!(payload, by_hand);
    let Ok(Payload::Disclose(items)) = Payload::from_canonical(&payload) else {
        panic!("a Disclose payload")
    };
    let by_key = seal::check_disclosed_key(items[0].channel, &setup, &items[0].key)
        .expect("the disclosed key is the one the setup commits to");
    assert_eq!(by_key.open(&ctx, sealed, padded_len), Ok(bytes(s, &["plaintext"])));
}

#[test]
fn display_name() {
    let v = vectors();
    let d = &v["display_name"];
    let seed = arr32(d, &["key_seed"]);
    let key = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key().to_bytes();
    let text = |f: &str| d[f].as_str().expect("a string").to_owned();
    assert_eq!(text("key"), format!("ed25519:{}", protocol::hex::encode(&key)));
    // The name is in NFC: "Zoë" with one code point for ë (U+00EB), not e + U+0308.
    assert_eq!(text("name"), "Zo\u{eb} Tester");
    let issued = d["issued_ms"].as_u64().expect("a number");
    // Frame(fogproof/v2/display-name; ("key", key), ("issued-ms", u64_le), ("name", utf8)).
    let mut frame = Vec::new();
    lp(&mut frame, b"fogproof/v2/display-name");
    for (label, value) in [
        ("key", key.to_vec()),
        ("issued-ms", issued.to_le_bytes().to_vec()),
        ("name", text("name").into_bytes()),
    ] {
        lp(&mut frame, label.as_bytes());
        lp(&mut frame, &value);
    }
    assert_eq!(bytes(d, &["name_bytes"]), frame);
    verify_sig(&key, "fogproof/v2/display-name", &frame, &bytes(d, &["signature"]));
    // The JSON form anyone checks, and the library reads it back as valid.
    assert_eq!(d["json"]["signature"], d["signature"]);
    let signed: protocol::names::SignedName =
        serde_json::from_value(d["json"].clone()).expect("the JSON form reads");
    signed.verify().expect("the vector's name verifies");
}
