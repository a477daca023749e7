//! Private channels (protocol version 3): one HPKE (RFC 9180) context per (match, channel,
//! author), DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, export-only, to the recipient's X25519 key;
//! every message of the context sealed with XChaCha20-Poly1305 under a key the context exports.
//!
//! ```text
//! info   = frame(fogproof/v3/seal-info; ("match-id", id), ("channel", [channel]), ("author", author key))
//! rng    = ChaCha20Rng(H(fogproof/v3/seal-rng; ("seal-seed", seal_seed)))   one seal seed per context
//! (enc, ctx) = HPKE.SetupBaseS(pk_recipient, info), encapsulation randomness from rng, AEAD 0xFFFF
//! key    = ctx.Export("fogproof/v3/seal-key-export", 32)                   XChaCha20-Poly1305 key
//! key_commitment = H(fogproof/v3/seal-key-commitment; ("key", key))
//! setup  = (enc, key_commitment)        in the author's first sealed message on the channel
//!
//! per message at the author's `seq`:
//! salt       = H(fogproof/v3/seal-salt; ("seal-seed", seal_seed), ("seq", u64_le(seq)))
//! commitment = H(fogproof/v3/seal-plaintext; ("salt", salt), ("plaintext", plaintext))
//! nonce      = H(fogproof/v3/seal-nonce; ("seq", u64_le(seq)), ("commitment", commitment))[0..24]
//! aad        = frame(fogproof/v3/seal-aad; ("author", author key), ("seq", u64_le(seq)))
//! padded     = plaintext || 0x80 || 0x00 ... up to padded_len bytes   (ISO/IEC 7816-4)
//! ciphertext = XChaCha20-Poly1305(key).Encrypt(nonce, aad, salt || padded)
//! Sealed     = (setup or nothing, commitment, ciphertext), inside the signed message
//! ```
//!
//! **One key agreement per channel.** The author's first sealed message on a channel carries
//! the context's `enc` and its key commitment (a [`SealSetup`]); every later one carries neither
//! and is sealed under the same exported key with its own nonce. So the recipient decapsulates
//! once per context ([`Inbox`]), and at the end the author discloses the context's seal seed
//! and exported key once ([`SealDisclosure`]). A verifier checks the key against the signed key
//! commitment (one hash, [`check_disclosed_key`]) and opens every sealed message of the channel
//! with symmetric work only (an AEAD decryption and two hashes each). Whether the setup's `enc`
//! gives the recipient that key is the recipient's to check when it decapsulates, and its
//! countersignature of the closed record says it did; only for a recipient that did not
//! countersign does the verifier also re-derive the context from the seed (one X25519 key pair
//! and one Diffie-Hellman, [`check_disclosure`]) and require the signed setup. The plaintexts
//! need not travel again: the ciphertexts carry them.
//!
//! **Key commitment.** XChaCha20-Poly1305 is not key-committing: whoever knows two keys can
//! build a ciphertext that opens under both. So the signed setup commits to the key itself,
//! the recipient checks the commitment against the key it decapsulated
//! ([`SealError::KeyCommitmentMismatch`], which gets its complaint) and the verifier checks the
//! key it derives from the disclosed seed against it too. The key is therefore fixed by what the
//! author signed, and each ciphertext opens at most one way. (The key is also fixed by `enc`, the
//! recipient's key and `info`, which the verifier checks by re-deriving `enc` from the seed: the
//! commitment lets the recipient refuse a setup whose `enc` and commitment disagree at once,
//! naming its author, instead of at the end.)
//!
//! **Nonces.** The nonce is bound to the author's sequence number `seq` (as is the `aad`), so a
//! ciphertext moved to another position, channel, author or match does not open. It also
//! depends on the plaintext commitment, so even a machine that sealed twice at one `seq` (it
//! never does: [`Sealer`] refuses to) would not reuse a nonce for two different plaintexts.
//!
//! **Padding.** Every plaintext is padded to `padded_len` bytes, a size fixed per variant and
//! direction by [`crate::game::sealed_plaintext_bytes`], so every ciphertext of a match in one
//! direction is exactly [`ciphertext_bytes`]`(padded_len)` long and its size says nothing about
//! what it carries (a Kriegspiel "illegal" is as long as a full announcement; what the number and
//! pattern of messages still tell is in docs/PROTOCOL.md 19). A plaintext that does
//! not fit (at most `padded_len - 1` bytes: the marker needs one) is refused
//! ([`SealError::Padding`]), never sent in a longer message. The commitment is over the
//! *unpadded* plaintext: it is a fixed-size hash, so it leaks nothing. On opening, a ciphertext
//! of another size or a malformed pad is refused; since the AEAD has authenticated the bytes
//! first, a pad check failing is no oracle.
//!
//! **The salt.** The salt travels as the first 32 bytes of the encrypted plaintext, and the
//! opener checks the signed commitment against what actually decrypted and refuses a mismatch,
//! naming the sender. The salt is secret until disclosure (only the sender and the recipient
//! know it), so the relay, which sees the commitment, cannot test guesses of a low-entropy
//! plaintext (a Kriegspiel "illegal") against it; once disclosed, it reveals nothing the
//! plaintext does not.
//!
//! An identity's X25519 key is derived from its ed25519 seed:
//! `sk, pk = DHKEM.DeriveKeyPair(H(fogproof/v2/seal-key; ("ed25519-seed", seed), ("nonce",
//! nonce)))`, with the party's nonce from the match terms: one key per match.

use crate::keys::{Identity, PublicKey};
use crate::tags;
use crate::transcript::{Frame, Transcript};
use crate::{Channel, MatchId, hex};
use chacha20poly1305::aead::inout::InOutBuf;
use chacha20poly1305::aead::{Aead as _, AeadInOut as _, Payload as AeadPayload};
use chacha20poly1305::{KeyInit, Tag, XChaCha20Poly1305, XNonce};
use hpke::{Deserializable, Kem as _, OpModeR, OpModeS, Serializable};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use thiserror::Error;

type Kem = hpke::kem::X25519HkdfSha256;
type Kdf = hpke::kdf::HkdfSha256;
/// HPKE in export-only mode (RFC 9180 7.3): the context only exports the channel's AEAD key.
type ExportOnly = hpke::aead::ExportOnlyAead;

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

/// Where a sealed payload belongs. The match, channel and author name its sealing context (HPKE
/// `info`); the author's `seq` is the message's position in it (nonce and `aad`).
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
    /// HPKE `info` of the context (match, channel, author; not `seq`).
    pub fn info(&self) -> Vec<u8> {
        Frame::new(tags::SEAL_INFO)
            .append("match-id", &self.match_id.0)
            .append("channel", &[self.channel.byte()])
            .append("author", &self.author.0)
            .into_bytes()
    }

    /// AEAD `aad` of the message.
    pub fn aad(&self) -> Vec<u8> {
        Frame::new(tags::SEAL_AAD)
            .append("author", &self.author.0)
            .append_u64("seq", self.seq)
            .into_bytes()
    }
}

/// Bytes of the salt that precedes the padded plaintext inside the HPKE plaintext.
pub const SALT_BYTES: usize = 32;

/// Bytes of the AEAD tag (XChaCha20-Poly1305) that follows the encrypted bytes.
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
    match last_nonzero(padded) {
        None => Err(PadError::NoMarker),
        Some(at) if padded[at] == PAD_MARKER => Ok(&padded[..at]),
        Some(at) => Err(PadError::BadMarker { at, byte: padded[at] }),
    }
}

/// The index of the last non-zero byte of `bytes`: `bytes.iter().rposition(|b| *b != 0)`, but
/// skipping whole blocks of zeros at once (a block's bytes OR-ed together, which the compiler
/// vectorises), since most of a padded plaintext is its zero pad (a SIC view is padded to
/// 4,096 bytes and is mostly a few hundred; byte by byte this scan was 2% of SIC's whole
/// verification).
fn last_nonzero(bytes: &[u8]) -> Option<usize> {
    const BLOCK: usize = 64;
    let mut end = bytes.len();
    while end >= BLOCK && bytes[end - BLOCK..end].iter().fold(0, |acc, b| acc | b) == 0 {
        end -= BLOCK;
    }
    bytes[..end].iter().rposition(|b| *b != 0)
}

/// What the author's first sealed message on a channel carries to set its context up: the
/// HPKE encapsulated key and the commitment to the key the context exports.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealSetup {
    /// HPKE `enc` (the ephemeral X25519 public key).
    pub enc: [u8; 32],
    /// [`key_commitment`] of the context's AEAD key.
    pub key_commitment: [u8; 32],
}

impl std::fmt::Debug for SealSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SealSetup(enc {}, key commitment {})",
            hex::encode(&self.enc),
            hex::encode(&self.key_commitment)
        )
    }
}

/// A sealed payload: the setup of its context (in the author's first sealed message on the
/// channel only), the salted commitment to the plaintext and the ciphertext (with its 16-byte
/// tag).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// The context's setup: in the author's first sealed message on the channel, and nowhere
    /// else (docs/PROTOCOL.md 12).
    pub setup: Option<SealSetup>,
    /// [`plaintext_commitment`] of the sealed plaintext under its salt.
    pub commitment: [u8; 32],
    /// AEAD ciphertext and tag (`serde_bytes`: the same bytes on the wire as a list of u8,
    /// read and written as one slice).
    #[serde(with = "serde_bytes")]
    pub ciphertext: Vec<u8>,
}

impl std::fmt::Debug for Sealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let setup = if self.setup.is_some() { ", with its setup" } else { "" };
        write!(f, "Sealed({} ciphertext bytes{setup})", self.ciphertext.len())
    }
}

/// What an author discloses after the end to show what it sealed on a channel, once per
/// channel (its `Disclose` message names the author): the context's seal seed and the AEAD key
/// the context exported. The key opens every sealed message of the channel, and the signed key
/// commitment fixes it, so a verifier whose recipient attested the setup checks it with one
/// hash ([`check_disclosed_key`]); the seed re-derives the whole setup, one key agreement, for
/// a recipient that did not attest ([`check_disclosure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealDisclosure {
    /// The private channel.
    pub channel: Channel,
    /// The seal seed of the author's context on it.
    pub seal_seed: [u8; 32],
    /// The XChaCha20-Poly1305 key the context exported (what the key commitment commits to).
    pub key: [u8; 32],
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
    /// The ciphertext does not open under its context's key: wrong key, wrong position (match,
    /// channel, author, seq) or altered; or the setup's `enc` does not decapsulate.
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
    /// The opened plaintext is not what the signed commitment commits to.
    #[error("plaintext of seq {seq} on {channel} does not match the signed commitment")]
    CommitmentMismatch {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// The setup's key commitment is not the commitment to the key its `enc` gives.
    #[error("the setup of seq {seq} on {channel} commits to another key than its enc gives")]
    KeyCommitmentMismatch {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// A sealed payload without a setup, and no context of its author on its channel to open
    /// it in (its first sealed message there carried none).
    #[error("sealed payload of seq {seq} on {channel}: no setup, and none before it")]
    SetupMissing {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// A setup other than the one that set its author's context on the channel up.
    #[error("sealed payload of seq {seq} on {channel} carries another setup than its context's")]
    SetupChanged {
        /// The channel in the context.
        channel: Channel,
        /// The sequence number in the context.
        seq: u64,
    },
    /// Sealing again at a position already sealed at (or before the last one): never done, so
    /// no nonce is ever reused.
    #[error("seq {seq} on {channel} is not after the last sealed position")]
    SeqReused {
        /// The channel.
        channel: Channel,
        /// The sequence number.
        seq: u64,
    },
    /// Sealing on a channel whose context has another recipient.
    #[error("the context on {channel} seals to another recipient")]
    OtherRecipient {
        /// The channel.
        channel: Channel,
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
    /// The disclosed seal seed does not reproduce the signed setup (its `enc`, or the
    /// commitment to the key it gives).
    #[error("the disclosed seal seed on {channel} does not reproduce the signed setup")]
    DisclosureMismatch {
        /// The channel.
        channel: Channel,
    },
    /// The disclosed key is not the one the signed setup's key commitment commits to.
    #[error("the disclosed key on {channel} is not the key the signed setup commits to")]
    DisclosedKeyMismatch {
        /// The channel.
        channel: Channel,
    },
}

/// The commitment salt of the message at `seq` in the context of `seal_seed`.
pub fn seal_salt(seal_seed: &[u8; 32], seq: u64) -> [u8; 32] {
    Transcript::new(tags::SEAL_SALT).append("seal-seed", seal_seed).append_u64("seq", seq).finish()
}

/// The salted commitment to a sealed plaintext (formula in the module docs).
pub fn plaintext_commitment(salt: &[u8; 32], plaintext: &[u8]) -> [u8; 32] {
    Transcript::new(tags::SEAL_PLAINTEXT)
        .append("salt", salt)
        .append("plaintext", plaintext)
        .finish()
}

/// The commitment to a context's AEAD key (formula in the module docs).
pub fn key_commitment(key: &[u8; 32]) -> [u8; 32] {
    Transcript::new(tags::SEAL_KEY_COMMITMENT).append("key", key).finish()
}

/// The AEAD nonce of the message at `seq` with plaintext commitment `commitment`.
pub fn nonce(seq: u64, commitment: &[u8; 32]) -> [u8; 24] {
    let h = Transcript::new(tags::SEAL_NONCE)
        .append_u64("seq", seq)
        .append("commitment", commitment)
        .finish();
    let mut out = [0u8; 24];
    out.copy_from_slice(&h[..24]);
    out
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

/// The AEAD key of one sealing context, with its setup: held by the author, by the recipient
/// once it decapsulated the setup, and by anyone once the author disclosed its seal seed.
#[derive(Clone)]
pub struct ChannelKey {
    setup: SealSetup,
    key: [u8; 32],
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChannelKey({:?})", self.setup)
    }
}

/// The exported AEAD key of an HPKE context.
fn export_key<S>(export: impl FnOnce(&[u8], &mut [u8]) -> Result<(), S>) -> Option<[u8; 32]> {
    let mut key = [0u8; 32];
    export(tags::SEAL_KEY_EXPORT.as_bytes(), &mut key).ok()?;
    Some(key)
}

impl ChannelKey {
    fn new(enc: [u8; 32], key: [u8; 32]) -> ChannelKey {
        ChannelKey {
            setup: SealSetup { enc, key_commitment: key_commitment(&key) },
            key,
            cipher: XChaCha20Poly1305::new(&key.into()),
        }
    }

    /// The author's side (and a verifier's, from a disclosed seed): sets the context of
    /// `context`'s match, channel and author up to `recipient`, deterministically from
    /// `seal_seed`. One X25519 key pair and one Diffie-Hellman.
    pub fn derive(
        recipient: &SealPublicKey,
        context: &SealContext,
        seal_seed: &[u8; 32],
    ) -> Result<ChannelKey, SealError> {
        let bad = || SealError::BadRecipient { recipient: *recipient };
        let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&recipient.0).map_err(|_| bad())?;
        let rng_seed = Transcript::new(tags::SEAL_RNG).append("seal-seed", seal_seed).finish();
        let mut rng = ChaCha20Rng::from_seed(rng_seed);
        let (enc, ctx) = hpke::setup_sender_with_rng::<ExportOnly, Kdf, Kem>(
            &OpModeS::Base,
            &pk,
            &context.info(),
            &mut rng,
        )
        .map_err(|_| bad())?;
        let key = export_key(|c, out| ctx.export(c, out)).ok_or_else(bad)?;
        let mut enc_bytes = [0u8; 32];
        enc_bytes.copy_from_slice(&enc.to_bytes());
        Ok(ChannelKey::new(enc_bytes, key))
    }

    /// The recipient's side: decapsulates `setup` with its secret and checks the key
    /// commitment ([`SealError::KeyCommitmentMismatch`]). One Diffie-Hellman.
    pub fn decapsulate(
        secret: &SealSecret,
        context: &SealContext,
        setup: &SealSetup,
    ) -> Result<ChannelKey, SealError> {
        let fail = || SealError::OpenFailed { channel: context.channel, seq: context.seq };
        let enc = <Kem as hpke::Kem>::EncappedKey::from_bytes(&setup.enc).map_err(|_| fail())?;
        let ctx = hpke::setup_receiver::<ExportOnly, Kdf, Kem>(
            &OpModeR::Base,
            &secret.secret,
            &enc,
            &context.info(),
        )
        .map_err(|_| fail())?;
        let key = export_key(|c, out| ctx.export(c, out)).ok_or_else(fail)?;
        let derived = ChannelKey::new(setup.enc, key);
        if derived.setup == *setup {
            Ok(derived)
        } else {
            Err(SealError::KeyCommitmentMismatch { channel: context.channel, seq: context.seq })
        }
    }

    /// The context's setup (`enc` and key commitment).
    pub fn setup(&self) -> SealSetup {
        self.setup
    }

    /// Encrypts `salt || pad(plaintext)` at `context`'s position: the commitment and the
    /// ciphertext.
    fn encrypt(
        &self,
        context: &SealContext,
        salt: &[u8; 32],
        plaintext: &[u8],
        padded_len: usize,
    ) -> Result<([u8; 32], Vec<u8>), SealError> {
        let padded = pad(plaintext, padded_len).map_err(|error| SealError::Padding {
            channel: context.channel,
            seq: context.seq,
            error,
        })?;
        let mut salted = Vec::with_capacity(SALT_BYTES + padded_len);
        salted.extend_from_slice(salt);
        salted.extend_from_slice(&padded);
        let commitment = plaintext_commitment(salt, plaintext);
        let nonce = XNonce::from(nonce(context.seq, &commitment));
        let aad = context.aad();
        let ciphertext = self
            .cipher
            .encrypt(&nonce, AeadPayload { msg: &salted, aad: &aad })
            .map_err(|_| SealError::OpenFailed { channel: context.channel, seq: context.seq })?;
        Ok((commitment, ciphertext))
    }

    /// Opens a sealed payload of this context (its setup, if any, is the caller's to check)
    /// and returns the plaintext, after checking its size (padded to `padded_len`), its pad,
    /// and the plaintext against the signed commitment with the salt that came with it. A
    /// mismatch ([`SealError::CommitmentMismatch`]) means the sender signed a commitment to
    /// something other than what it sent, a wrong size or pad that it did not seal as agreed:
    /// either way the message is its sender's fault.
    pub fn open(
        &self,
        context: &SealContext,
        sealed: &Sealed,
        padded_len: usize,
    ) -> Result<Vec<u8>, SealError> {
        let mut buf = Vec::new();
        self.open_into(context, sealed, padded_len, &mut buf).map(<[u8]>::to_vec)
    }

    /// [`ChannelKey::open`], decrypting straight from the ciphertext into `buf` (cleared first,
    /// and left empty on an error) and returning the plaintext as a slice of it: the same
    /// checks in the same order, but a caller that opens many messages (a verifier: every
    /// disclosed message of a channel) reuses one buffer for the opened bytes.
    pub fn open_into<'b>(
        &self,
        context: &SealContext,
        sealed: &Sealed,
        padded_len: usize,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8], SealError> {
        buf.clear();
        check_size(context, sealed, padded_len)?;
        let fail = || SealError::OpenFailed { channel: context.channel, seq: context.seq };
        let nonce = XNonce::from(nonce(context.seq, &sealed.commitment));
        let aad = context.aad();
        // The size is checked: `SALT_BYTES + padded_len` encrypted bytes, then the tag.
        let (encrypted, tag) = sealed.ciphertext.split_at(SALT_BYTES + padded_len);
        let tag = Tag::try_from(tag).map_err(|_| fail())?;
        buf.resize(encrypted.len(), 0);
        let opened =
            InOutBuf::new(encrypted, buf.as_mut_slice()).map_err(|_| fail()).and_then(|inout| {
                self.cipher.decrypt_inout_detached(&nonce, &aad, inout, &tag).map_err(|_| fail())
            });
        if let Err(e) = opened {
            buf.clear();
            return Err(e);
        }
        let checked = Self::check_opened(context, sealed, padded_len, buf);
        match checked {
            Ok(len) => Ok(&buf[SALT_BYTES..SALT_BYTES + len]),
            Err(e) => {
                buf.clear();
                Err(e)
            }
        }
    }

    /// Checks decrypted `salt || padded` bytes: the pad, then the plaintext against the signed
    /// commitment. The plaintext's length.
    fn check_opened(
        context: &SealContext,
        sealed: &Sealed,
        padded_len: usize,
        salted: &[u8],
    ) -> Result<usize, SealError> {
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
            Ok(plaintext.len())
        } else {
            Err(mismatch)
        }
    }
}

/// The author's side of one sealing context: the key, the seal seed it came from (for the
/// salts and the disclosure) and the last position sealed at.
#[derive(Clone, Debug)]
pub struct Sealer {
    key: ChannelKey,
    seal_seed: [u8; 32],
    recipient: SealPublicKey,
    channel: Channel,
    last_seq: Option<u64>,
}

impl Sealer {
    /// Sets `context`'s sealing context up to `recipient` from `seal_seed` (fresh: 32 random
    /// bytes, one seed per context).
    pub fn new(
        recipient: &SealPublicKey,
        context: &SealContext,
        seal_seed: &[u8; 32],
    ) -> Result<Sealer, SealError> {
        Ok(Sealer {
            key: ChannelKey::derive(recipient, context, seal_seed)?,
            seal_seed: *seal_seed,
            recipient: *recipient,
            channel: context.channel,
            last_seq: None,
        })
    }

    /// The recipient.
    pub fn recipient(&self) -> SealPublicKey {
        self.recipient
    }

    /// The context's setup.
    pub fn setup(&self) -> SealSetup {
        self.key.setup
    }

    /// The disclosure of every message sealed in this context.
    pub fn disclosure(&self) -> SealDisclosure {
        SealDisclosure { channel: self.channel, seal_seed: self.seal_seed, key: self.key.key }
    }

    /// Seals `plaintext` at `context`'s position, padded to `padded_len` bytes, carrying the
    /// setup if `with_setup` (the author's first sealed message on the channel). A position not
    /// after the last one sealed at is refused ([`SealError::SeqReused`]), and so is a
    /// plaintext of `padded_len` bytes or more ([`SealError::Padding`]); neither counts as
    /// sealed.
    pub fn seal(
        &mut self,
        context: &SealContext,
        plaintext: &[u8],
        padded_len: usize,
        with_setup: bool,
    ) -> Result<Sealed, SealError> {
        if self.last_seq.is_some_and(|last| context.seq <= last) {
            return Err(SealError::SeqReused { channel: context.channel, seq: context.seq });
        }
        let salt = seal_salt(&self.seal_seed, context.seq);
        let (commitment, ciphertext) = self.key.encrypt(context, &salt, plaintext, padded_len)?;
        self.last_seq = Some(context.seq);
        Ok(Sealed { setup: with_setup.then_some(self.key.setup), commitment, ciphertext })
    }
}

/// Seals `plaintext` to `recipient` as the first message of a fresh context (setup included),
/// padded to `padded_len` bytes, deterministically from `seal_seed`. A plaintext of
/// `padded_len` bytes or more is refused ([`SealError::Padding`]).
pub fn seal(
    recipient: &SealPublicKey,
    context: &SealContext,
    plaintext: &[u8],
    seal_seed: &[u8; 32],
    padded_len: usize,
) -> Result<Sealed, SealError> {
    Sealer::new(recipient, context, seal_seed)?.seal(context, plaintext, padded_len, true)
}

/// The recipient's side: its secret and the context of every author and channel it has
/// opened a setup of. One Diffie-Hellman per context, then symmetric work per message.
#[derive(Clone, Debug)]
pub struct Inbox {
    secret: SealSecret,
    keys: BTreeMap<(PublicKey, Channel), ChannelKey>,
    /// Whether a setup or a sealed message sent to this recipient ever failed to open.
    failed: bool,
}

impl Inbox {
    /// An inbox with no context yet.
    pub fn new(secret: SealSecret) -> Inbox {
        Inbox { secret, keys: BTreeMap::new(), failed: false }
    }

    /// The recipient's public key.
    pub fn public(&self) -> SealPublicKey {
        self.secret.public()
    }

    /// Takes in the setup of a sealed message this recipient does not open (a void race it
    /// ignores), so that later messages of the context, which carry none, still open. A setup
    /// that does not decapsulate sets nothing up and counts as a failure ([`Inbox::opened_all`]);
    /// a context already set up changes nothing.
    pub fn learn(&mut self, context: &SealContext, sealed: &Sealed) {
        if let Some(setup) = &sealed.setup
            && let Entry::Vacant(new) = self.keys.entry((context.author, context.channel))
        {
            match ChannelKey::decapsulate(&self.secret, context, setup) {
                Ok(key) => {
                    new.insert(key);
                }
                Err(_) => self.failed = true,
            }
        }
    }

    /// Whether every setup and sealed message this recipient was given opened: what its
    /// countersignature attests (docs/PROTOCOL.md 14.2), so a recipient that met one that did
    /// not (a setup whose `enc` gives another key than its commitment, above all) does not
    /// countersign, and a verifier then re-derives every setup sent to it from its seed.
    pub fn opened_all(&self) -> bool {
        !self.failed
    }

    /// Opens a sealed payload sent to this recipient ([`ChannelKey::open`]). A setup is
    /// decapsulated and its key commitment checked the first time its author's context on the
    /// channel is met ([`SealError::KeyCommitmentMismatch`]); a later message may repeat the
    /// very same setup, never another ([`SealError::SetupChanged`]); a message without one
    /// needs a context already set up ([`SealError::SetupMissing`]). A setup that fails sets
    /// nothing up.
    pub fn open(
        &mut self,
        context: &SealContext,
        sealed: &Sealed,
        padded_len: usize,
    ) -> Result<Vec<u8>, SealError> {
        let opened = self.open_in_context(context, sealed, padded_len);
        self.failed |= opened.is_err();
        opened
    }

    fn open_in_context(
        &mut self,
        context: &SealContext,
        sealed: &Sealed,
        padded_len: usize,
    ) -> Result<Vec<u8>, SealError> {
        check_size(context, sealed, padded_len)?;
        let key = match self.keys.entry((context.author, context.channel)) {
            Entry::Occupied(known) => {
                if sealed.setup.is_some_and(|setup| setup != known.get().setup) {
                    return Err(SealError::SetupChanged {
                        channel: context.channel,
                        seq: context.seq,
                    });
                }
                known.into_mut()
            }
            Entry::Vacant(new) => {
                let Some(setup) = &sealed.setup else {
                    return Err(SealError::SetupMissing {
                        channel: context.channel,
                        seq: context.seq,
                    });
                };
                new.insert(ChannelKey::decapsulate(&self.secret, context, setup)?)
            }
        };
        key.open(context, sealed, padded_len)
    }
}

/// Checks a disclosure against the setup its author signed: re-derives the context from the
/// disclosed seed for `recipient` (one X25519 key pair and one Diffie-Hellman) and requires
/// the very same `enc` and key commitment ([`SealError::DisclosureMismatch`]). The key returned
/// then opens every sealed message of the context ([`ChannelKey::open`]); one that does not
/// open, or opens to another plaintext than its commitment, is its author's fault.
pub fn check_disclosure(
    recipient: &SealPublicKey,
    context: &SealContext,
    setup: &SealSetup,
    seal_seed: &[u8; 32],
) -> Result<ChannelKey, SealError> {
    let key = ChannelKey::derive(recipient, context, seal_seed)
        .map_err(|_| SealError::DisclosureMismatch { channel: context.channel })?;
    if key.setup == *setup {
        Ok(key)
    } else {
        Err(SealError::DisclosureMismatch { channel: context.channel })
    }
}

/// Checks a disclosed key against the setup its author signed, with one hash and no key
/// agreement: the key must be the one the signed key commitment commits to
/// ([`SealError::DisclosedKeyMismatch`]). The key returned opens every sealed message of the
/// context, each at most one way (the commitment fixes the key). What this does not check is
/// that the setup's `enc` gives the recipient that key: that is the recipient's to check when
/// it decapsulates ([`Inbox`]), and a recipient's countersignature says it did
/// (docs/PROTOCOL.md 14.2); without one a verifier also runs [`check_disclosure`].
pub fn check_disclosed_key(
    channel: Channel,
    setup: &SealSetup,
    key: &[u8; 32],
) -> Result<ChannelKey, SealError> {
    if key_commitment(key) == setup.key_commitment {
        Ok(ChannelKey { setup: *setup, key: *key, cipher: XChaCha20Poly1305::new(&(*key).into()) })
    } else {
        Err(SealError::DisclosedKeyMismatch { channel })
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

    fn umpire() -> SealSecret {
        SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32])
    }

    #[test]
    fn seal_open_round_trip_and_determinism() {
        let umpire = umpire();
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        assert_eq!(s.ciphertext.len(), 32 + PAD + 16, "salt, padded plaintext, tag");
        assert_eq!(s.commitment, plaintext_commitment(&seal_salt(&[5; 32], 4), b"e2e4"));
        assert!(s.setup.is_some(), "a context's first message carries its setup");
        assert_eq!(Inbox::new(umpire.clone()).open(&ctx(4), &s, PAD), Ok(b"e2e4".to_vec()));
        assert_eq!(seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD), Ok(s.clone()));
        assert_ne!(seal(&umpire.public(), &ctx(4), b"e2e4", &[6; 32], PAD), Ok(s));
    }

    #[test]
    fn a_disclosed_key_is_checked_against_the_commitment_alone() {
        let umpire = umpire();
        let mut sealer = Sealer::new(&umpire.public(), &ctx(0), &[5; 32]).unwrap();
        let sealed = sealer.seal(&ctx(0), b"e2e4", PAD, true).unwrap();
        let setup = sealed.setup.unwrap();
        let d = sealer.disclosure();
        // The disclosed key is the context's: the seed re-derives the same, and it opens.
        let by_seed = check_disclosure(&umpire.public(), &ctx(0), &setup, &d.seal_seed).unwrap();
        let by_key = check_disclosed_key(d.channel, &setup, &d.key).unwrap();
        assert_eq!(by_key.setup(), by_seed.setup());
        assert_eq!(by_key.open(&ctx(0), &sealed, PAD), Ok(b"e2e4".to_vec()));
        // Any other key is refused by its commitment, without a key agreement.
        let mut other = d.key;
        other[31] ^= 0x80;
        assert_eq!(
            check_disclosed_key(d.channel, &setup, &other).map(|k| k.setup()),
            Err(SealError::DisclosedKeyMismatch { channel: d.channel })
        );
        // The key check says nothing of the seed, which only the key agreement checks.
        assert_eq!(
            check_disclosure(&umpire.public(), &ctx(0), &setup, &[6; 32]).map(|k| k.setup()),
            Err(SealError::DisclosureMismatch { channel: d.channel })
        );
    }

    #[test]
    fn an_inbox_remembers_a_setup_or_message_that_did_not_open() {
        let umpire = umpire();
        let good = seal(&umpire.public(), &ctx(0), b"e2e4", &[5; 32], PAD).unwrap();
        let mut inbox = Inbox::new(umpire.clone());
        assert!(inbox.open(&ctx(0), &good, PAD).is_ok());
        assert!(inbox.opened_all(), "everything opened");
        // A setup whose enc gives another key than it commits to, met by `open` or by `learn`.
        let other = seal(&umpire.public(), &ctx(0), b"e2e4", &[6; 32], PAD).unwrap();
        let mut bad = good.clone();
        bad.setup = Some(SealSetup { enc: other.setup.unwrap().enc, ..good.setup.unwrap() });
        let mut opening = Inbox::new(umpire.clone());
        assert!(matches!(
            opening.open(&ctx(0), &bad, PAD),
            Err(SealError::KeyCommitmentMismatch { .. })
        ));
        assert!(!opening.opened_all());
        let mut learning = Inbox::new(umpire.clone());
        learning.learn(&ctx(0), &bad);
        assert!(!learning.opened_all(), "a void race's setup that does not decapsulate");
        // Once failed, failed: a later message that opens does not clear it.
        assert!(opening.open(&ctx(0), &good, PAD).is_ok());
        assert!(!opening.opened_all());
    }

    #[test]
    fn one_setup_per_channel_then_symmetric_messages() {
        let umpire = umpire();
        let mut sealer = Sealer::new(&umpire.public(), &ctx(0), &[5; 32]).unwrap();
        let first = sealer.seal(&ctx(0), b"e2e4", PAD, true).unwrap();
        let second = sealer.seal(&ctx(3), b"d2d4", PAD, false).unwrap();
        assert_eq!(first.setup, Some(sealer.setup()));
        assert_eq!(second.setup, None);
        let mut inbox = Inbox::new(umpire);
        // Without its context set up, a message without a setup cannot be opened.
        assert_eq!(
            inbox.open(&ctx(3), &second, PAD),
            Err(SealError::SetupMissing { channel: Channel::WhiteUmpire, seq: 3 })
        );
        assert_eq!(inbox.open(&ctx(0), &first, PAD), Ok(b"e2e4".to_vec()));
        assert_eq!(inbox.open(&ctx(3), &second, PAD), Ok(b"d2d4".to_vec()));
        // The same setup again is fine; another one is refused.
        let repeated = Sealed { setup: first.setup, ..second.clone() };
        assert_eq!(inbox.open(&ctx(3), &repeated, PAD), Ok(b"d2d4".to_vec()));
        let other = seal(&inbox.public(), &ctx(5), b"x", &[9; 32], PAD).unwrap();
        assert_eq!(
            inbox.open(&ctx(5), &other, PAD),
            Err(SealError::SetupChanged { channel: Channel::WhiteUmpire, seq: 5 })
        );
    }

    #[test]
    fn a_sealer_never_seals_twice_at_one_position() {
        let mut sealer = Sealer::new(&umpire().public(), &ctx(0), &[5; 32]).unwrap();
        sealer.seal(&ctx(2), b"e2e4", PAD, true).unwrap();
        for seq in [2, 1] {
            assert_eq!(
                sealer.seal(&ctx(seq), b"d2d4", PAD, false),
                Err(SealError::SeqReused { channel: Channel::WhiteUmpire, seq })
            );
        }
        // A refused plaintext does not count as sealed: its position is still free.
        assert!(matches!(
            sealer.seal(&ctx(3), &[0; PAD], PAD, false),
            Err(SealError::Padding { .. })
        ));
        assert!(sealer.seal(&ctx(3), b"d2d4", PAD, false).is_ok());
    }

    #[test]
    fn wrong_key_or_context_does_not_open() {
        let umpire = umpire();
        let relay = SealSecret::for_match(&Identity::from_seed(&[4; 32]), &[0; 32]);
        let s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        assert!(Inbox::new(relay).open(&ctx(4), &s, PAD).is_err());
        assert_eq!(
            Inbox::new(umpire.clone()).open(&ctx(5), &s, PAD),
            Err(SealError::OpenFailed { channel: Channel::WhiteUmpire, seq: 5 })
        );
        let other_channel = SealContext { channel: Channel::BlackUmpire, ..ctx(4) };
        assert!(Inbox::new(umpire.clone()).open(&other_channel, &s, PAD).is_err());
        let other_match = SealContext { match_id: MatchId([8; 32]), ..ctx(4) };
        assert!(Inbox::new(umpire.clone()).open(&other_match, &s, PAD).is_err());
        let other_author = SealContext { author: Identity::from_seed(&[2; 32]).public(), ..ctx(4) };
        assert!(Inbox::new(umpire.clone()).open(&other_author, &s, PAD).is_err());
        let mut altered = s.clone();
        altered.ciphertext[0] ^= 1;
        assert!(Inbox::new(umpire).open(&ctx(4), &altered, PAD).is_err());
    }

    #[test]
    fn a_ciphertext_moved_to_another_position_of_its_context_does_not_open() {
        // Same key, other seq: the nonce and the aad differ.
        let umpire = umpire();
        let mut sealer = Sealer::new(&umpire.public(), &ctx(0), &[5; 32]).unwrap();
        let first = sealer.seal(&ctx(0), b"e2e4", PAD, true).unwrap();
        let later = sealer.seal(&ctx(7), b"d2d4", PAD, false).unwrap();
        let mut inbox = Inbox::new(umpire);
        inbox.open(&ctx(0), &first, PAD).unwrap();
        assert_eq!(
            inbox.open(&ctx(8), &later, PAD),
            Err(SealError::OpenFailed { channel: Channel::WhiteUmpire, seq: 8 })
        );
        // Its ciphertext under another message's commitment (so another nonce): refused too.
        let spliced = Sealed { commitment: first.commitment, ..later.clone() };
        assert!(inbox.open(&ctx(7), &spliced, PAD).is_err());
    }

    #[test]
    fn disclosures_are_checked_against_the_signed_setup() {
        let umpire = umpire();
        let mut sealer = Sealer::new(&umpire.public(), &ctx(0), &[5; 32]).unwrap();
        let first = sealer.seal(&ctx(0), b"e2e4", PAD, true).unwrap();
        let later = sealer.seal(&ctx(2), b"d2d4", PAD, false).unwrap();
        let setup = first.setup.unwrap();
        let pk = umpire.public();
        let key = check_disclosure(&pk, &ctx(0), &setup, &[5; 32]).unwrap();
        assert_eq!(key.open(&ctx(0), &first, PAD), Ok(b"e2e4".to_vec()));
        assert_eq!(key.open(&ctx(2), &later, PAD), Ok(b"d2d4".to_vec()));
        let mismatch = Err(SealError::DisclosureMismatch { channel: Channel::WhiteUmpire });
        // A wrong seed, the right seed for another recipient or another channel: refused.
        assert_eq!(check_disclosure(&pk, &ctx(0), &setup, &[6; 32]).map(|_| ()), mismatch);
        let relay = SealSecret::for_match(&Identity::from_seed(&[4; 32]), &[0; 32]).public();
        assert_eq!(check_disclosure(&relay, &ctx(0), &setup, &[5; 32]).map(|_| ()), mismatch);
        let black = SealContext { channel: Channel::BlackUmpire, ..ctx(0) };
        assert_eq!(
            check_disclosure(&pk, &black, &setup, &[5; 32]).map(|_| ()),
            Err(SealError::DisclosureMismatch { channel: Channel::BlackUmpire })
        );
    }

    #[test]
    fn a_setup_committing_to_another_key_is_refused_live_and_cannot_be_disclosed() {
        // The author signs a setup whose key commitment is not the key its enc gives (here: a
        // key of its own choosing, under which it could make the ciphertext say something
        // else): the recipient refuses it when it decapsulates, and no seed reproduces it.
        let umpire = umpire();
        let mut s = seal(&umpire.public(), &ctx(0), b"e2e4", &[5; 32], PAD).unwrap();
        let honest = s.setup.unwrap();
        let forged = SealSetup { key_commitment: key_commitment(&[1; 32]), ..honest };
        s.setup = Some(forged);
        assert_eq!(
            Inbox::new(umpire.clone()).open(&ctx(0), &s, PAD),
            Err(SealError::KeyCommitmentMismatch { channel: Channel::WhiteUmpire, seq: 0 })
        );
        assert_eq!(
            check_disclosure(&umpire.public(), &ctx(0), &forged, &[5; 32]).map(|_| ()),
            Err(SealError::DisclosureMismatch { channel: Channel::WhiteUmpire })
        );
        // Another enc with the honest commitment: the same for both.
        let other_enc = seal(&umpire.public(), &ctx(0), b"x", &[6; 32], PAD).unwrap().setup;
        s.setup = Some(SealSetup { enc: other_enc.unwrap().enc, ..honest });
        assert_eq!(
            Inbox::new(umpire.clone()).open(&ctx(0), &s, PAD),
            Err(SealError::KeyCommitmentMismatch { channel: Channel::WhiteUmpire, seq: 0 })
        );
        assert!(check_disclosure(&umpire.public(), &ctx(0), &s.setup.unwrap(), &[5; 32]).is_err());
    }

    #[test]
    fn a_commitment_to_other_bytes_is_refused_on_open_and_after_disclosure() {
        // The sender seals "e2e4" but signs a commitment to "d2d4" (same salt): the recipient
        // refuses on opening, and so does anyone with the disclosed key.
        let umpire = umpire();
        let mut s = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        s.commitment = plaintext_commitment(&seal_salt(&[5; 32], 4), b"d2d4");
        assert!(Inbox::new(umpire.clone()).open(&ctx(4), &s, PAD).is_err());
        let key = check_disclosure(&umpire.public(), &ctx(4), &s.setup.unwrap(), &[5; 32]).unwrap();
        assert!(key.open(&ctx(4), &s, PAD).is_err());
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
    fn last_nonzero_is_the_last_non_zero_byte_at_every_length_and_place() {
        // Every length around the block size, the non-zero byte in every place (and none).
        for len in 0..200 {
            let zeros = vec![0u8; len];
            assert_eq!(last_nonzero(&zeros), None, "{len}");
            for at in 0..len {
                let mut bytes = zeros.clone();
                bytes[at] = 1;
                if at > 0 {
                    bytes[at / 2] = 7;
                }
                assert_eq!(last_nonzero(&bytes), Some(at), "{len} {at}");
                assert_eq!(last_nonzero(&bytes), bytes.iter().rposition(|b| *b != 0));
            }
        }
        let mut padded = pad(b"e2e4", 4096).unwrap();
        assert_eq!(unpad(&padded, 4096), Ok(&b"e2e4"[..]));
        padded[4095] = 1;
        assert_eq!(unpad(&padded, 4096), Err(PadError::BadMarker { at: 4095, byte: 1 }));
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
        let umpire = umpire();
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

    /// Encrypts `salted` as is (salt and whatever padding the caller chose) under the context
    /// of seed `[5; 32]`: a sender that does not pad as agreed.
    fn seal_raw(
        recipient: &SealPublicKey,
        seq: u64,
        commitment: [u8; 32],
        salted: &[u8],
    ) -> Sealed {
        let key = ChannelKey::derive(recipient, &ctx(seq), &[5; 32]).unwrap();
        let nonce = XNonce::from(nonce(seq, &commitment));
        let aad = ctx(seq).aad();
        let ciphertext =
            key.cipher.encrypt(&nonce, AeadPayload { msg: salted, aad: &aad }).unwrap();
        Sealed { setup: Some(key.setup), commitment, ciphertext }
    }

    #[test]
    fn open_into_reuses_its_buffer_and_refuses_what_open_refuses() {
        let umpire = umpire();
        let seed = [5; 32];
        let mut sealer = Sealer::new(&umpire.public(), &ctx(0), &seed).unwrap();
        let plains: [&[u8]; 3] = [b"e2e4", b"", b"a much longer plaintext than the others"];
        let sealed: Vec<(u64, Sealed)> = plains
            .iter()
            .zip([0u64, 3, 9])
            .map(|(p, seq)| (seq, sealer.seal(&ctx(seq), p, PAD, seq == 0).unwrap()))
            .collect();
        let key = ChannelKey::derive(&umpire.public(), &ctx(0), &seed).unwrap();
        // A buffer left dirty by anything before (longer than any opening) is reused.
        let mut buf = vec![0xAA; 3 * PAD];
        for ((seq, s), plain) in sealed.iter().zip(plains) {
            assert_eq!(key.open_into(&ctx(*seq), s, PAD, &mut buf), Ok(plain));
            assert_eq!(key.open(&ctx(*seq), s, PAD), Ok(plain.to_vec()));
        }
        // Each refusal is open's, and leaves the buffer empty (nothing unauthenticated or
        // unchecked stays readable).
        let (seq, good) = &sealed[0];
        let mut flipped = good.clone();
        flipped.ciphertext[SALT_BYTES] ^= 1;
        let mut other_commitment = good.clone();
        other_commitment.commitment = plaintext_commitment(&seal_salt(&seed, *seq), b"d2d4");
        let mut bad_pad = seal_salt(&seed, 4).to_vec();
        bad_pad.extend_from_slice(&[0; PAD]);
        let bad_pad = seal_raw(&umpire.public(), 4, good.commitment, &bad_pad);
        let mismatched = seal(&umpire.public(), &ctx(4), b"e2e4", &[6; 32], PAD).unwrap();
        let cases: [(SealContext, &Sealed, usize); 6] = [
            (ctx(*seq), &flipped, PAD),
            (ctx(seq + 1), good, PAD),
            (ctx(*seq), good, PAD + 1),
            (ctx(*seq), &other_commitment, PAD),
            (ctx(4), &bad_pad, PAD),
            (ctx(4), &mismatched, PAD),
        ];
        for (i, (c, s, padded)) in cases.iter().enumerate() {
            buf.clear();
            buf.extend_from_slice(b"left over");
            let refused = key.open(c, s, *padded).expect_err("refused");
            assert_eq!(key.open_into(c, s, *padded, &mut buf), Err(refused), "case {i}");
            assert!(buf.is_empty(), "case {i}");
        }
    }

    #[test]
    fn open_refuses_a_wrong_size_or_a_malformed_pad() {
        let umpire = umpire();
        let good = seal(&umpire.public(), &ctx(4), b"e2e4", &[5; 32], PAD).unwrap();
        // Opened with another agreed size: refused on the size alone, before decrypting.
        assert_eq!(
            Inbox::new(umpire.clone()).open(&ctx(4), &good, PAD + 1),
            Err(SealError::WrongSize {
                channel: Channel::WhiteUmpire,
                seq: 4,
                found: ciphertext_bytes(PAD),
                expected: ciphertext_bytes(PAD + 1),
            })
        );
        assert_eq!(check_size(&ctx(4), &good, PAD), Ok(()));
        // A sender that encrypts a malformed pad of the right size (so the AEAD opens it).
        let salt = seal_salt(&[5; 32], 4);
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
            let sealed = seal_raw(&umpire.public(), 4, good.commitment, &salted);
            assert_eq!(
                Inbox::new(umpire.clone()).open(&ctx(4), &sealed, PAD),
                Err(SealError::Padding { channel: Channel::WhiteUmpire, seq: 4, error })
            );
        }
        // An unpadded plaintext (the old format) is the wrong size.
        let mut salted = salt.to_vec();
        salted.extend_from_slice(b"e2e4");
        let sealed = seal_raw(&umpire.public(), 4, good.commitment, &salted);
        assert!(matches!(
            Inbox::new(umpire).open(&ctx(4), &sealed, PAD),
            Err(SealError::WrongSize { .. })
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
