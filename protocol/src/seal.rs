//! Private channels: HPKE (RFC 9180) base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
//! ChaCha20-Poly1305, to the recipient's X25519 key.
//!
//! ```text
//! salt       = H(fogproof/v1/seal-salt; ("seal-seed", seal_seed))
//! commitment = H(fogproof/v1/seal-plaintext; ("salt", salt), ("plaintext", plaintext))
//! info = frame(fogproof/v1/seal-info; ("match-id", id), ("channel", [channel]))
//! aad  = frame(fogproof/v1/seal-aad;  ("author", author ed25519 key), ("seq", u64_le(seq)))
//! (enc, ciphertext) = HPKE.SealBase(pk_recipient, info, aad, salt || plaintext)
//!     with the encapsulation randomness drawn from ChaCha20Rng(H(fogproof/v1/seal-rng;
//!     ("seal-seed", seal_seed)))
//! Sealed = (enc, commitment, ciphertext), inside the signed message
//! ```
//!
//! The sender picks a fresh 32-byte seal seed per message and keeps it. Sealing is then a
//! deterministic function of (recipient key, info, aad, plaintext, seal seed), so a record can
//! carry the plaintext and the seal seed (a [`SealDisclosure`]) and anyone can check it.
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
#[derive(Debug, Error, PartialEq, Eq)]
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

/// Seals `plaintext` to `recipient` in `context`, deterministically from `seal_seed`.
pub fn seal(
    recipient: &SealPublicKey,
    context: &SealContext,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
) -> Result<Sealed, SealError> {
    let bad = || SealError::BadRecipient { recipient: *recipient };
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&recipient.0).map_err(|_| bad())?;
    let rng_seed = Transcript::new(tags::SEAL_RNG).append("seal-seed", seal_seed).finish();
    let mut rng = ChaCha20Rng::from_seed(rng_seed);
    let salt = seal_salt(seal_seed);
    let mut salted = Vec::with_capacity(salt.len() + plaintext.len());
    salted.extend_from_slice(&salt);
    salted.extend_from_slice(plaintext);
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
/// it against the signed commitment with the salt that came with it. A mismatch
/// ([`SealError::CommitmentMismatch`]) means the sender signed a commitment to something other
/// than what it sent: the recipient must refuse the message.
pub fn open(
    secret: &SealSecret,
    context: &SealContext,
    sealed: &Sealed,
) -> Result<Vec<u8>, SealError> {
    let fail = || SealError::OpenFailed { channel: context.channel, seq: context.seq };
    let enc = <Kem as hpke::Kem>::EncappedKey::from_bytes(&sealed.enc).map_err(|_| fail())?;
    let mut salted = hpke::single_shot_open::<Aead, Kdf, Kem>(
        &OpModeR::Base,
        &secret.secret,
        &enc,
        &context.info(),
        &sealed.ciphertext,
        &context.aad(),
    )
    .map_err(|_| fail())?;
    let mismatch = SealError::CommitmentMismatch { channel: context.channel, seq: context.seq };
    let Some(salt) = salted.get(..32).and_then(|s| <[u8; 32]>::try_from(s).ok()) else {
        return Err(mismatch);
    };
    let plaintext = salted.split_off(32);
    if plaintext_commitment(&salt, &plaintext) == sealed.commitment {
        Ok(plaintext)
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

/// The deep check of a disclosure: re-seals its plaintext with its seed and compares every byte
/// (`enc`, commitment and ciphertext) with `sealed`.
pub fn check_disclosure_deep(
    recipient: &SealPublicKey,
    context: &SealContext,
    sealed: &Sealed,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
) -> Result<(), SealError> {
    let again = seal(recipient, context, plaintext, seal_seed)?;
    if again == *sealed {
        Ok(())
    } else {
        Err(SealError::DisclosureMismatch { channel: context.channel, seq: context.seq })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32]).unwrap();
        assert_eq!(s.ciphertext.len(), 32 + 4 + 16, "salt, plaintext, tag");
        assert_eq!(s.commitment, plaintext_commitment(&seal_salt(&[5; 32]), b"e2e4"));
        assert_eq!(open(&umpire, &ctx(4), &s), Ok(b"e2e4".to_vec()));
        assert_eq!(seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32]), Ok(s.clone()));
        assert_ne!(seal(&umpire.public(), &ctx(4), b"e2e4", &[6; 32]), Ok(s));
    }

    #[test]
    fn wrong_key_or_context_does_not_open() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let relay = SealSecret::for_match(&Identity::from_seed(&[4; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32]).unwrap();
        assert!(open(&relay, &ctx(4), &s).is_err());
        assert_eq!(
            open(&umpire, &ctx(5), &s),
            Err(SealError::OpenFailed { channel: Channel::WhiteUmpire, seq: 5 })
        );
        let other_channel = SealContext { channel: Channel::BlackUmpire, ..ctx(4) };
        assert!(open(&umpire, &other_channel, &s).is_err());
        let mut altered = s.clone();
        altered.ciphertext[0] ^= 1;
        assert!(open(&umpire, &ctx(4), &altered).is_err());
    }

    #[test]
    fn disclosures_are_checked_against_the_ciphertext() {
        let umpire = SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32]).unwrap();
        let pk = umpire.public();
        assert_eq!(check_disclosure_deep(&pk, &ctx(4), &s, b"e2e4", &[5; 32]), Ok(()));
        assert!(check_disclosure_deep(&pk, &ctx(4), &s, b"d2d4", &[5; 32]).is_err());
        assert!(check_disclosure_deep(&pk, &ctx(4), &s, b"e2e4", &[6; 32]).is_err());
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
        let mut s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32]).unwrap();
        s.commitment = plaintext_commitment(&seal_salt(&[5; 32]), b"d2d4");
        assert_eq!(
            open(&umpire, &ctx(4), &s),
            Err(SealError::CommitmentMismatch { channel: Channel::WhiteUmpire, seq: 4 })
        );
        assert_eq!(check_disclosure_commitment(&ctx(4), &s, b"d2d4", &[5; 32]), Ok(()));
        assert_eq!(
            check_disclosure_deep(&umpire.public(), &ctx(4), &s, b"d2d4", &[5; 32]),
            Err(SealError::DisclosureMismatch { channel: Channel::WhiteUmpire, seq: 4 })
        );
    }

    #[test]
    fn all_zero_recipient_key_is_refused() {
        // The zero point gives an all-zero X25519 shared secret, which RFC 9180 rejects.
        let zero = SealPublicKey([0; 32]);
        assert_eq!(
            seal(&zero, &ctx(0), b"x", &[1; 32]),
            Err(SealError::BadRecipient { recipient: zero })
        );
    }
}
