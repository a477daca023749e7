//! fogproof's protocol: identities, canonical encoding, commitments, seeds, terms, messages,
//! sealed channels, receipts and the sans-IO relay.
//!
//! Every formula is in `docs/PROTOCOL.md`, with test vectors in `protocol/tests/vectors.json`.
//! In short (`H(tag; fields)` is the length-prefixed SHA-256 transcript of [`transcript`]):
//!
//! ```text
//! match_id      = H(fogproof/v2/match-id; ("terms", terms_bytes))
//! commitment    = H(fogproof/v2/commitment; ("purpose", p), ("match-id", id), ("author", key),
//!                   ("value", v), ("nonce", n))
//! setup_seed    = H(fogproof/v2/setup-seed; ("private-seed", own), ("opponent-contribution",
//!                   theirs), ("match-id", id), ("side", [side]))
//! message_hash  = H(fogproof/v2/message-hash; ("body", body_bytes))
//! seal context  = HPKE.SetupBaseS(pk, info(match, channel, author)), once per channel
//! seal salt     = H(fogproof/v3/seal-salt; ("seal-seed", seal_seed), ("seq", u64_le(seq)))
//! sealed commit = H(fogproof/v3/seal-plaintext; ("salt", salt), ("plaintext", plaintext))
//! sealed bytes  = XChaCha20-Poly1305(exported key, nonce(seq), aad, salt || padded)   see [`seal`]
//! signature     = ed25519(key, u64_le(len(tag)) || tag || bytes)   checked with verify_strict
//! ```
//!
//! What is signed or hashed is always the exact bytes as stored; decoders are strict
//! ([`codec`]): no trailing bytes, nothing that does not re-encode to the same bytes.
#![warn(missing_docs)]

pub mod batch;
pub mod challenge;
pub mod codec;
pub mod commitment;
pub mod coordinator;
pub mod delivery;
pub mod evidence;
pub mod flow;
pub mod game;
pub mod hex;
mod ids;
pub mod keys;
pub mod message;
pub mod names;
pub mod record;
pub mod relay;
pub mod roles;
pub mod seal;
pub mod seed;
pub mod tags;
pub mod terms;
pub mod transcript;
pub mod wire;

pub use ids::{Channel, Color, Commitment, LogHead, MatchId, MessageHash, Party, SignedHash};
pub use keys::ByColor;
pub use keys::{Identity, PublicKey, Signature};
