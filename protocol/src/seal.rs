//! Private channels: HPKE (RFC 9180) base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
//! ChaCha20-Poly1305, to the recipient's X25519 key.
//!
//! ```text
//! salt       = H(fogproof/v1/seal-salt; ("seal-seed", seal_seed))
//! commitment = H(fogproof/v1/seal-plaintext; ("salt", salt), ("plaintext", plaintext))
//! info = frame(fogproof/v1/seal-info; ("match-id", id), ("channel", [channel]))
//! aad  = frame(fogproof/v1/seal-aad;  ("author", author ed25519 key), ("seq", u64_le(seq)))
//! padded = plaintext || 0x80 || 0x00 ... up to padded_len bytes   (ISO/IEC 7816-4)
//! (enc, ciphertext) = HPKE.SealBase(pk_recipient, info, aad, salt || padded)
//!     with the encapsulation randomness drawn from ChaCha20Rng(H(fogproof/v1/seal-rng;
//!     ("seal-seed", seal_seed)))
//! Sealed = (enc, commitment, ciphertext), inside the signed message
//! ```
//!
//! **Padding.** Every plaintext is padded to `padded_len` bytes, a size fixed per variant and
//! direction by [`crate::game::sealed_plaintext_bytes`], so every ciphertext of a match in one
//! direction is exactly [`ciphertext_bytes`]`(padded_len)` long and its size says nothing about
//! what it carries (a Kriegspiel "illegal" is as long as a full announcement; what the number and
//! pattern of messages still tell is in docs/PROTOCOL.md 19). A plaintext that does
//! not fit (at most `padded_len - 1` bytes: the marker needs one) is refused
//! ([`SealError::Padding`]), never sent in a longer message. The commitment is over the
//! *unpadded* plaintext: it is a fixed-size hash, so it leaks nothing, and a disclosure carries
//! the plaintext alone. On opening, a ciphertext of another size or a malformed pad is refused;
//! since the AEAD has authenticated the bytes first, a pad check failing is no oracle.
//!
//! The sender picks a fresh 32-byte seal seed per message and keeps it. Sealing is then a
//! deterministic function of (recipient key, info, aad, plaintext, padded size, seal seed), so
//! a record can carry the plaintext and the seal seed (a [`SealDisclosure`]) and anyone can
//! check it.
//!
//! Two checks of a disclosure exist. The cheap one ([`check_disclosure_commitment`]) recomputes
//! the salt from the disclosed seed and compares the commitment the author signed: two hashes.
//! The deep one ([`check_disclosure_deep`]) re-seals and compares the ciphertext too (an X25519
//! ladder per message). The recipient closes the gap between them live: the salt travels as the
//! first 32 bytes of the HPKE plaintext, so [`open`] checks the signed commitment against what
//! actually decrypted and refuses a mismatch, naming the sender. A ciphertext that does not carry
//! its committed plaintext is therefore refused when it is received, and the record (the signed
//! message plus the sender's disclosed seed) lets the deep check prove it afterwards.
//!
//! The salt is secret until disclosure (only the sender and the recipient know it), so the relay,
//! which sees the commitment, cannot test guesses of a low-entropy plaintext (a Kriegspiel
//! "illegal") against it; once disclosed, the salt reveals nothing the plaintext does not.
//!
//! An identity's X25519 key is derived from its ed25519 seed:
//! `sk, pk = DHKEM.DeriveKeyPair(H(fogproof/v2/seal-key; ("ed25519-seed", seed), ("nonce",
//! nonce)))`, with the party's nonce from the match terms: one key per match.

use crate::keys::{Identity, PublicKey};
use crate::tags;
use crate::transcript::{Frame, Transcript};
use crate::{Channel, MatchId, MessageHash, hex};
use hpke::{Deserializable, Kem as _, OpModeR, OpModeS, Serializable};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

type Kem = hpke::kem::X25519HkdfSha256;
type Kdf = hpke::kdf::HkdfSha256;
type Aead = hpke::aead::ChaCha20Poly1305;

/// An X25519 public key for sealing to its owner.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SealPublicKey(pub [u8; 32]);

impl std::fmt::Debug for SealPublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealPublicKey({})", hex::encode(&self.0))
    }
}

impl std::fmt::Display for SealPublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "x25519:{}", hex::encode(&self.0))
    }
}

/// An X25519 secret key (derived from an identity; zeroed on drop by hpke).
#[derive(Clone)]
pub struct SealSecret {
    secret: <Kem as hpke::Kem>::PrivateKey,
    public: SealPublicKey,
}

impl std::fmt::Debug for SealSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealSecret({})", self.public)
    }
}

impl SealSecret {
    /// The sealing key of `identity` for the match whose terms give it `nonce` (its
    /// `PlayerTerms::nonce`, or the umpire's `UmpireTerms::nonce`): one key per match, so a key
    /// leaked or misused in one match opens nothing of another (formula in the module docs).
    pub fn for_match(identity: &Identity, nonce: &[u8; 32]) -> SealSecret {
        let ikm = Transcript::new(tags::SEAL_KEY)
            .append("ed25519-seed", &identity.seed())
            .append("nonce", nonce)
            .finish();
        let (secret, public) = Kem::derive_keypair(&ikm);
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(&public.to_bytes());
        SealSecret { secret, public: SealPublicKey(bytes) }
    }

    /// The public half.
    pub fn public(&self) -> SealPublicKey {
        self.public
    }
}

/// Where a sealed payload belongs: bound into HPKE's `info` and `aad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SealContext {
    /// The match.
    pub match_id: MatchId,
    /// The private channel.
    pub channel: Channel,
    /// The author of the message that carries the ciphertext.
    pub author: PublicKey,
    /// That message's sequence number.
    pub seq: u64,
}

impl SealContext {
    /// HPKE `info`.
    pub fn info(&self) -> Vec<u8> {
        Frame::new(tags::SEAL_INFO)
            .append("match-id", &self.match_id.0)
            .append("channel", &[self.channel.byte()])
            .into_bytes()
    }

    /// HPKE `aad`.
    pub fn aad(&self) -> Vec<u8> {
        Frame::new(tags::SEAL_AAD)
            .append("author", &self.author.0)
            .append_u64("seq", self.seq)
            .into_bytes()
    }
}

/// Bytes of the salt that precedes the padded plaintext inside the HPKE plaintext.
pub const SALT_BYTES: usize = 32;

/// Bytes of the AEAD tag (ChaCha20-Poly1305) that follows the encrypted bytes.
pub const TAG_BYTES: usize = 16;

/// The one byte that ends a plaintext inside its padding (ISO/IEC 7816-4).
pub const PAD_MARKER: u8 = 0x80;

/// The size of every ciphertext sealed with padded size `padded_len`: salt, padded plaintext,
/// AEAD tag. A public function of public values, which anyone (the relay too) can check.
pub const fn ciphertext_bytes(padded_len: usize) -> usize {
    SALT_BYTES + padded_len + TAG_BYTES
}

/// Why a plaintext cannot be padded, or padded bytes cannot be unpadded.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PadError {
    /// The plaintext does not fit: at most `padded_len - 1` bytes, the marker needs one.
    #[error("a plaintext of {len} bytes does not fit a padded size of {padded_len} bytes (at most {} plaintext bytes)", padded_len.saturating_sub(1))]
    TooLong {
        /// The plaintext's length.
        len: usize,
        /// The padded size.
        padded_len: usize,
    },
    /// The padded bytes are not `padded_len` long.
    #[error("padded plaintext is {found} bytes, not the agreed {padded_len}")]
    WrongLength {
        /// Their length.
        found: usize,
        /// The padded size.
        padded_len: usize,
    },
    /// Every byte is zero: no marker ends the plaintext.
    #[error("malformed padding: no 0x80 marker (every byte is zero)")]
    NoMarker,
    /// The last non-zero byte is not the marker (a non-zero byte after the marker, or none).
    #[error(
        "malformed padding: the last non-zero byte, at offset {at}, is 0x{byte:02x}, not the 0x80 marker"
    )]
    BadMarker {
        /// Its offset in the padded bytes.
        at: usize,
        /// Its value.
        byte: u8,
    },
}

/// Pads `plaintext` to exactly `padded_len` bytes: the plaintext, `0x80`, then zeros.
pub fn pad(plaintext: &[u8], padded_len: usize) -> Result<Vec<u8>, PadError> {
    if plaintext.len() >= padded_len {
        return Err(PadError::TooLong { len: plaintext.len(), padded_len });
    }
    let mut out = Vec::with_capacity(padded_len);
    out.extend_from_slice(plaintext);
    out.push(PAD_MARKER);
    out.resize(padded_len, 0);
    Ok(out)
}

/// The plaintext inside `padded`, which must be exactly `padded_len` bytes ending in `0x80`
/// followed by zeros only.
pub fn unpad(padded: &[u8], padded_len: usize) -> Result<&[u8], PadError> {
    if padded.len() != padded_len {
        return Err(PadError::WrongLength { found: padded.len(), padded_len });
    }
    match padded.iter().rposition(|b| *b != 0) {
        None => Err(PadError::NoMarker),
        Some(at) if padded[at] == PAD_MARKER => Ok(&padded[..at]),
        Some(at) => Err(PadError::BadMarker { at, byte: padded[at] }),
    }
}

/// A sealed payload: the HPKE encapsulated key, the salted commitment to the plaintext and the
/// ciphertext (with its 16-byte tag).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// HPKE `enc` (the ephemeral X25519 public key).
    pub enc: [u8; 32],
    /// [`plaintext_commitment`] of the sealed plaintext under the seal seed's salt.
    pub commitment: [u8; 32],
    /// AEAD ciphertext and tag.
    pub ciphertext: Vec<u8>,
}

impl std::fmt::Debug for Sealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sealed({} ciphertext bytes)", self.ciphertext.len())
    }
}

/// What a record carries to show what a sealed message said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealDisclosure {
    /// The message whose payload was sealed.
    pub message: MessageHash,
    /// The plaintext (canonical [`crate::message::Payload`] bytes).
    pub plaintext: Vec<u8>,
    /// The sender's seal seed.
    pub seal_seed: [u8; 32],
}

/// Why sealing, opening or checking a disclosure failed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SealError {
    /// The recipient's X25519 key is unusable (e.g. gives an all-zero shared secret).
    #[error("cannot seal to {recipient}: not a usable X25519 key")]
    BadRecipient {
        /// The key.
        recipient: SealPublicKey,
    },
    /// HPKE refused to open: wrong key, wrong context (match, channel, author, seq) or altered.
    #[error("sealed payload of seq {seq} on {channel} does not open with this key and context")]
    OpenFailed {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// A sealed payload inside a sealed payload.
    #[error("a sealed payload cannot itself be sealed")]
    Nested,
    /// The opened plaintext, or a disclosed one, is not what the signed commitment commits to.
    #[error("plaintext of seq {seq} on {channel} does not match the signed commitment")]
    CommitmentMismatch {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// The plaintext does not fit the agreed padded size (sealing), or the opened bytes are not
    /// a well-formed pad of it (opening).
    #[error("sealed payload of seq {seq} on {channel}: {error}")]
    Padding {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
        /// What is wrong.
        error: PadError,
    },
    /// The ciphertext is not the size every sealed payload of this direction has.
    #[error(
        "sealed payload of seq {seq} on {channel} has {found} ciphertext bytes, not the agreed {expected}"
    )]
    WrongSize {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
        /// The ciphertext's size.
        found: usize,
        /// [`ciphertext_bytes`] of the agreed padded size.
        expected: usize,
    },
    /// Re-sealing the disclosed plaintext with the disclosed seed gives other bytes.
    #[error("disclosure of seq {seq} on {channel} does not reproduce the sealed bytes")]
    DisclosureMismatch {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
}

/// The commitment salt of a seal seed (formula in the module docs).
pub fn seal_salt(seal_seed: &[u8; 32]) -> [u8; 32] {
    Transcript::new(tags::SEAL_SALT).append("seal-seed", seal_seed).finish()
}

/// The salted commitment to a sealed plaintext (formula in the module docs).
pub fn plaintext_commitment(salt: &[u8; 32], plaintext: &[u8]) -> [u8; 32] {
    Transcript::new(tags::SEAL_PLAINTEXT)
        .append("salt", salt)
        .append("plaintext", plaintext)
        .finish()
}

/// Checks the one public property of a sealed payload's bytes: its ciphertext has the size
/// every sealed payload padded to `padded_len` has ([`ciphertext_bytes`]).
pub fn check_size(
    context: &SealContext,
    sealed: &Sealed,
    padded_len: usize,
) -> Result<(), SealError> {
    let expected = ciphertext_bytes(padded_len);
    if sealed.ciphertext.len() == expected {
        Ok(())
    } else {
        Err(SealError::WrongSize {
            channel: context.channel,
            seq: context.seq,
            found: sealed.ciphertext.len(),
            expected,
        })
    }
}

/// Seals `plaintext` to `recipient` in `context`, padded to `padded_len` bytes,
/// deterministically from `seal_seed`. A plaintext of `padded_len` bytes or more is refused
/// ([`SealError::Padding`]).
pub fn seal(
    recipient: &SealPublicKey,
    context: &SealContext,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
    padded_len: usize,
) -> Result<Sealed, SealError> {
    let bad = || SealError::BadRecipient { recipient: *recipient };
    let padded = pad(plaintext, padded_len).map_err(|error| SealError::Padding {
        channel: context.channel,
        seq: context.seq,
        error,
    })?;
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&recipient.0).map_err(|_| bad())?;
    let rng_seed = Transcript::new(tags::SEAL_RNG).append("seal-seed", seal_seed).finish();
    let mut rng = ChaCha20Rng::from_seed(rng_seed);
    let salt = seal_salt(seal_seed);
    let mut salted = Vec::with_capacity(SALT_BYTES + padded_len);
    salted.extend_from_slice(&salt);
    salted.extend_from_slice(&padded);
    let (enc, ciphertext) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
        &OpModeS::Base,
        &pk,
        &context.info(),
        &salted,
        &context.aad(),
        &mut rng,
    )
    .map_err(|_| bad())?;
    let mut enc_bytes = [0u8; 32];
    enc_bytes.copy_from_slice(&enc.to_bytes());
    Ok(Sealed { enc: enc_bytes, commitment: plaintext_commitment(&salt, plaintext), ciphertext })
}

/// Opens a sealed payload with the recipient's secret and returns the plaintext, after checking
/// its size (padded to `padded_len`), its pad, and the plaintext against the signed commitment
/// with the salt that came with it. A mismatch ([`SealError::CommitmentMismatch`]) means the
/// sender signed a commitment to something other than what it sent, a wrong size or pad that
/// it did not seal as agreed: either way the recipient must refuse the message.
pub fn open(
    secret: &SealSecret,
    context: &SealContext,
    sealed: &Sealed,
    padded_len: usize,
) -> Result<Vec<u8>, SealError> {
    check_size(context, sealed, padded_len)?;
    let fail = || SealError::OpenFailed { channel: context.channel, seq: context.seq };
    let enc = <Kem as hpke::Kem>::EncappedKey::from_bytes(&sealed.enc).map_err(|_| fail())?;
    let salted = hpke::single_shot_open::<Aead, Kdf, Kem>(
        &OpModeR::Base,
        &secret.secret,
        &enc,
        &context.info(),
        &sealed.ciphertext,
        &context.aad(),
    )
    .map_err(|_| fail())?;
    let mismatch = SealError::CommitmentMismatch { channel: context.channel, seq: context.seq };
    let Some((salt, padded)) = salted.split_first_chunk::<SALT_BYTES>() else {
        return Err(mismatch);
    };
    let plaintext = unpad(padded, padded_len).map_err(|error| SealError::Padding {
        channel: context.channel,
        seq: context.seq,
        error,
    })?;
    if plaintext_commitment(salt, plaintext) == sealed.commitment {
        Ok(plaintext.to_vec())
    } else {
        Err(mismatch)
    }
}

/// The cheap check of a disclosure: the disclosed plaintext, under the salt of the disclosed seed,
/// is what the signed commitment commits to. Two hashes; says nothing about the ciphertext (the
/// recipient checked that when it opened it; [`check_disclosure_deep`] checks it again).
pub fn check_disclosure_commitment(
    context: &SealContext,
    sealed: &Sealed,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
) -> Result<(), SealError> {
    if plaintext_commitment(&seal_salt(seal_seed), plaintext) == sealed.commitment {
        Ok(())
    } else {
        Err(SealError::CommitmentMismatch { channel: context.channel, seq: context.seq })
    }
}

/// The deep check of a disclosure: re-seals its plaintext with its seed, padded to
/// `padded_len`, and compares every byte (`enc`, commitment and ciphertext) with `sealed`. A
/// plaintext too long for `padded_len` fails ([`SealError::Padding`]): it cannot have been
/// sealed as agreed.
pub fn check_disclosure_deep(
    recipient: &SealPublicKey,
    context: &SealContext,
    sealed: &Sealed,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
    padded_len: usize,
) -> Result<(), SealError> {
    let again = seal(recipient, context, plaintext, seal_seed, padded_len)?;
    if again == *sealed {
        Ok(())
    } else {
        Err(SealError::DisclosureMismatch { channel: context.channel, seq: context.seq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The padded size in these tests.
    const PAD: usize = 64;

    fn ctx(seq: u64) -> SealContext {
        SealContext {
            match_id: MatchId([7; 32]),
            channel: Channel::WhiteUmpire,
            author: Identity::from_seed(&[1; 32]).public(),
            seq,
        }
    }

    #[test]
    fn seal_open_round_trip_and_determinism() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        assert_eq!(s.ciphertext.len(), 32 + PAD + 16, "salt, padded plaintext, tag");
        assert_eq!(s.commitment, plaintext_commitment(&seal_salt(&[5; 32]), b"e2e4"));
        assert_eq!(open(&umpire, &ctx(4), &s, PAD), Ok(b"e2e4".to_vec()));
        assert_eq!(seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD), Ok(s.clone()));
        assert_ne!(seal(&umpire.public(), &ctx(4), b"e2e4", &[6; 32], PAD), Ok(s));
    }

    #[test]
    fn wrong_key_or_context_does_not_open() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let relay = SealSecret::for_match(&Identity::from_seed(&[4; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        assert!(open(&relay, &ctx(4), &s, PAD).is_err());
        assert_eq!(
            open(&umpire, &ctx(5), &s, PAD),
            Err(SealError::OpenFailed { channel: Channel::WhiteUmpire, seq: 5 })
        );
        let other_channel = SealContext { channel: Channel::BlackUmpire, ..ctx(4) };
        assert!(open(&umpire, &other_channel, &s, PAD).is_err());
        let mut altered = s.clone();
        altered.ciphertext[0] ^= 1;
        assert!(open(&umpire, &ctx(4), &altered, PAD).is_err());
    }

    #[test]
    fn disclosures_are_checked_against_the_ciphertext() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        let pk = umpire.public();
        assert_eq!(check_disclosure_deep(&pk, &ctx(4), &s, b"e2e4", &[5; 32], PAD), Ok(()));
        assert!(check_disclosure_deep(&pk, &ctx(4), &s, b"d2d4", &[5; 32], PAD).is_err());
        assert!(check_disclosure_deep(&pk, &ctx(4), &s, b"e2e4", &[6; 32], PAD).is_err());
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, b"e2e4", &[5; 32]), Ok(()));
        let mismatch = Err(SealError::CommitmentMismatch { channel: Channel::WhiteUmpire, seq: 4 });
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, b"d2d4", &[5; 32]), mismatch);
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, b"e2e4", &[6; 32]), mismatch);
    }

    #[test]
    fn a_commitment_to_other_bytes_is_refused_on_open_and_by_the_deep_check() {
        // The sender seals "e2e4" but signs a commitment to "d2d4" (same salt): the recipient
        // refuses on opening; the cheap check accepts a "d2d4" disclosure (it is what was
        // signed), and only the deep check sees that the ciphertext says otherwise.
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let mut s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        s.commitment = plaintext_commitment(&seal_salt(&[5; 32]), b"d2d4");
        assert_eq!(
            open(&umpire, &ctx(4), &s, PAD),
            Err(SealError::CommitmentMismatch { channel: Channel::WhiteUmpire, seq: 4 })
        );
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, b"d2d4", &[5; 32]), Ok(()));
        assert_eq!(
            check_disclosure_deep(&umpire.public(), &ctx(4), &s, b"d2d4", &[5; 32], PAD),
            Err(SealError::DisclosureMismatch { channel: Channel::WhiteUmpire, seq: 4 })
        );
    }

    #[test]
    fn pad_appends_the_marker_and_zeros_to_the_agreed_size() {
        assert_eq!(pad(b"ab", 5), Ok(vec![b'a', b'b', 0x80, 0, 0]));
        assert_eq!(pad(b"", 1), Ok(vec![0x80]));
        // The largest plaintext leaves exactly one byte, for the marker.
        assert_eq!(pad(b"abcd", 5), Ok(vec![b'a', b'b', b'c', b'd', 0x80]));
        // A plaintext ending in 0x80 or zeros is still recovered exactly.
        for plain in [&b"\x80"[..], b"a\x00\x00", b"\x80\x00\x80", b""] {
            let padded = pad(plain, 8).unwrap();
            assert_eq!(padded.len(), 8);
            assert_eq!(unpad(&padded, 8), Ok(plain), "{plain:?}");
        }
    }

    #[test]
    fn pad_refuses_a_plaintext_that_does_not_fit() {
        assert_eq!(pad(b"abcde", 5), Err(PadError::TooLong { len: 5, padded_len: 5 }));
        assert_eq!(pad(b"abcdef", 5), Err(PadError::TooLong { len: 6, padded_len: 5 }));
        assert_eq!(pad(b"", 0), Err(PadError::TooLong { len: 0, padded_len: 0 }));
        let e = PadError::TooLong { len: 6, padded_len: 5 }.to_string();
        assert!(e.contains("6 bytes") && e.contains("at most 4"), "{e}");
    }

    #[test]
    fn unpad_refuses_malformed_pads() {
        assert_eq!(unpad(&[0, 0, 0], 3), Err(PadError::NoMarker));
        assert_eq!(unpad(&[], 0), Err(PadError::NoMarker));
        // A non-zero byte after the marker.
        assert_eq!(unpad(&[b'a', 0x80, 1, 0], 4), Err(PadError::BadMarker { at: 2, byte: 1 }));
        // No marker at all: the plaintext runs to the end.
        assert_eq!(unpad(b"abcd", 4), Err(PadError::BadMarker { at: 3, byte: b'd' }));
        assert_eq!(unpad(&[b'a', 0x81, 0], 3), Err(PadError::BadMarker { at: 1, byte: 0x81 }));
        // Too long or too short for the agreed size, even if well formed.
        assert_eq!(
            unpad(&[b'a', 0x80, 0, 0], 3),
            Err(PadError::WrongLength { found: 4, padded_len: 3 })
        );
        assert_eq!(unpad(&[0x80], 3), Err(PadError::WrongLength { found: 1, padded_len: 3 }));
        let e = PadError::BadMarker { at: 2, byte: 1 }.to_string();
        assert!(e.contains("offset 2") && e.contains("0x01"), "{e}");
    }

    #[test]
    fn every_plaintext_seals_to_the_same_size() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let sizes: Vec<usize> = [&b""[..], b"x", b"e2e4", &[7; PAD - 1]]
            .iter()
            .map(|p| seal(&umpire.public(), &ctx(1), p, &[5; 32], PAD).unwrap().ciphertext.len())
            .collect();
        assert_eq!(sizes, vec![ciphertext_bytes(PAD); 4]);
        assert_eq!(
            seal(&umpire.public(), &ctx(1), &[7; PAD], &[5; 32], PAD),
            Err(SealError::Padding {
                channel: Channel::WhiteUmpire,
                seq: 1,
                error: PadError::TooLong { len: PAD, padded_len: PAD },
            })
        );
    }

    /// HPKE-seals `salted` as is (salt and whatever padding the caller chose): a sender that
    /// does not pad as agreed.
    fn seal_raw(
        recipient: &SealPublicKey,
        context: &SealContext,
        commitment: [u8; 32],
        salted: &[u8],
    ) -> Sealed {
        let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&recipient.0).unwrap();
        let mut rng = ChaCha20Rng::from_seed([9; 32]);
        let (enc, ciphertext) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
            &OpModeS::Base,
            &pk,
            &context.info(),
            salted,
            &context.aad(),
            &mut rng,
        )
        .unwrap();
        Sealed { enc: enc.to_bytes().into(), commitment, ciphertext }
    }

    #[test]
    fn open_refuses_a_wrong_size_or_a_malformed_pad() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let good = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        // Opened with another agreed size: refused on the size alone, before decrypting.
        assert_eq!(
            open(&umpire, &ctx(4), &good, PAD + 1),
            Err(SealError::WrongSize {
                channel: Channel::WhiteUmpire,
                seq: 4,
                found: ciphertext_bytes(PAD),
                expected: ciphertext_bytes(PAD + 1),
            })
        );
        assert_eq!(check_size(&ctx(4), &good, PAD), Ok(()));
        // A sender that encrypts a malformed pad of the right size (so the AEAD opens it).
        let salt = seal_salt(&[5; 32]);
        let mut bad_pad = pad(b"e2e4", PAD).unwrap();
        bad_pad[PAD - 1] = 1;
        let mut no_marker = b"e2e4".to_vec();
        no_marker.resize(PAD, 0);
        for (padded, error) in [
            (bad_pad, PadError::BadMarker { at: PAD - 1, byte: 1 }),
            (no_marker, PadError::BadMarker { at: 3, byte: b'4' }),
            (vec![0; PAD], PadError::NoMarker),
        ] {
            let mut salted = salt.to_vec();
            salted.extend_from_slice(&padded);
            let sealed = seal_raw(&umpire.public(), &ctx(4), good.commitment, &salted);
            assert_eq!(
                open(&umpire, &ctx(4), &sealed, PAD),
                Err(SealError::Padding { channel: Channel::WhiteUmpire, seq: 4, error })
            );
        }
        // An unpadded plaintext (the old format) is the wrong size.
        let mut salted = salt.to_vec();
        salted.extend_from_slice(b"e2e4");
        let sealed = seal_raw(&umpire.public(), &ctx(4), good.commitment, &salted);
        assert!(matches!(open(&umpire, &ctx(4), &sealed, PAD), Err(SealError::WrongSize { .. })));
    }

    #[test]
    fn the_deep_check_refuses_a_plaintext_too_long_to_have_been_sealed() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let long = [1u8; PAD];
        let mut s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        s.commitment = plaintext_commitment(&seal_salt(&[5; 32]), &long);
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, &long, &[5; 32]), Ok(()));
        assert!(matches!(
            check_disclosure_deep(&umpire.public(), &ctx(4), &s, &long, &[5; 32], PAD),
            Err(SealError::Padding { error: PadError::TooLong { .. }, .. })
        ));
    }

    #[test]
    fn all_zero_recipient_key_is_refused() {
        // The zero point gives an all-zero X25519 shared secret, which RFC 9180 rejects.
        let zero = SealPublicKey([0; 32]);
        assert_eq!(
            seal(&zero, &ctx(0), b"x", &[1; 32], PAD),
            Err(SealError::BadRecipient { recipient: zero })
        );
    }
}
