//! Domain tags: one constant per kind of thing hashed or signed, naming the protocol version.
//!
//! A tag is a protocol constant; it never comes from data. Changing what a tag covers means a new
//! protocol version and a new tag.

/// A domain tag such as `fogproof/v2/message`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tag(&'static str);

impl Tag {
    /// The tag's text.
    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// The tag's bytes (ASCII).
    pub const fn as_bytes(self) -> &'static [u8] {
        self.0.as_bytes()
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Hash of the match terms: the match id.
pub const MATCH_ID: Tag = Tag("fogproof/v2/match-id");
/// Signatures of the match terms by both players.
pub const TERMS: Tag = Tag("fogproof/v2/terms");
/// Commitments to a value.
pub const COMMITMENT: Tag = Tag("fogproof/v2/commitment");
/// A side's private random setup seed.
pub const SETUP_SEED: Tag = Tag("fogproof/v2/setup-seed");
/// The draw of colors (the tag text keeps the spelling it was published with).
pub const COLORS: Tag = Tag("fogproof/v2/colours");
/// Signatures of messages.
pub const MESSAGE: Tag = Tag("fogproof/v2/message");
/// Hash of a message body.
pub const MESSAGE_HASH: Tag = Tag("fogproof/v2/message-hash");
/// Signatures of relay receipts.
pub const RECEIPT: Tag = Tag("fogproof/v2/receipt");
/// HPKE `info` of a sealing context (one per match, channel and author).
pub const SEAL_INFO: Tag = Tag("fogproof/v3/seal-info");
/// AEAD `aad` of a sealed payload.
pub const SEAL_AAD: Tag = Tag("fogproof/v3/seal-aad");
/// Derivation of an identity's X25519 sealing key from its ed25519 secret.
pub const SEAL_KEY: Tag = Tag("fogproof/v2/seal-key");
/// Derivation of a sealing context's HPKE encapsulation randomness from its seal seed.
pub const SEAL_RNG: Tag = Tag("fogproof/v3/seal-rng");
/// Derivation of a sealed payload's commitment salt from its context's seal seed and its seq.
pub const SEAL_SALT: Tag = Tag("fogproof/v3/seal-salt");
/// The salted commitment to a sealed payload's plaintext, carried in the signed message.
pub const SEAL_PLAINTEXT: Tag = Tag("fogproof/v3/seal-plaintext");
/// The HPKE exporter context of a sealing context's AEAD key.
pub const SEAL_KEY_EXPORT: Tag = Tag("fogproof/v3/seal-key-export");
/// The commitment to a sealing context's AEAD key, signed in the context's first message.
pub const SEAL_KEY_COMMITMENT: Tag = Tag("fogproof/v3/seal-key-commitment");
/// Derivation of a sealed payload's AEAD nonce from its seq and plaintext commitment.
pub const SEAL_NONCE: Tag = Tag("fogproof/v3/seal-nonce");
/// Reserved: the fingerprint of a public key was once a hash under this tag; it is now a prefix
/// of the key itself (`PublicKey::fingerprint`), so this tag is no longer used.
pub const FINGERPRINT: Tag = Tag("fogproof/v2/fingerprint");
/// Hash of a whole signed message (body and signature): what a receipt covers.
pub const SIGNED_MESSAGE: Tag = Tag("fogproof/v2/signed-message");
/// The relay's running log head over a match's sequence of entries.
pub const LOG_HEAD: Tag = Tag("fogproof/v2/log-head");
/// The relay's match-wide order head, chaining the channels' heads in the relay's total order
/// without counting them (PROTOCOL.md 11).
pub const ORDER_HEAD: Tag = Tag("fogproof/v2/order-head");
/// A participant's random stream for one match, from its secret and the match id.
pub const MATCH_RNG: Tag = Tag("fogproof/v2/match-rng");
/// A key's sign-in to a server, over the server's relay key and a fresh challenge.
pub const SIGN_IN: Tag = Tag("fogproof/v2/sign-in");
/// A ledger's signed inclusion promise (docs/LEDGER.md, inclusion promises): signed by the log's
/// key, never by a player's.
pub const INCLUSION_PROMISE: Tag = Tag("fogproof/v2/inclusion-promise");
/// A delivery witness's notice that it was offered a signed message (docs/PROTOCOL.md,
/// delivery notices).
pub const DELIVERY_NOTICE: Tag = Tag("fogproof/v2/delivery-notice");
/// A key's display name (`names::SignedName`): the name it chose for itself, signed by it.
pub const DISPLAY_NAME: Tag = Tag("fogproof/v2/display-name");
/// A server's sign-in token: the host's relay key over the signed-in key and the token's
/// expiry, so every node of the host honours it (docs/SERVER.md, several nodes). Never in a
/// record; nothing but the host's nodes checks it.
pub const HOST_TOKEN: Tag = Tag("fogproof/v2/host-token");
/// An umpire's secret for one match, derived from its key and the match id
/// ([`crate::roles::Umpire::derived_secret`]): every process holding the key rebuilds the same
/// umpire (docs/SERVER.md, several umpire processes). Never in a record.
pub const UMPIRE_SECRET: Tag = Tag("fogproof/v2/umpire-secret");
/// The key a cluster's nodes attest forwarded requests with, derived from the host's relay key
/// ([`crate::Identity::derived_secret`]; docs/SERVER.md, several nodes). Never in a record;
/// nothing but the host's nodes checks it.
pub const FORWARD_KEY: Tag = Tag("fogproof/v2/forward-key");
/// What a forwarded request's attestation authenticates (the forwarding node, the client's
/// address, the request's method and path, the time), under [`FORWARD_KEY`]'s key.
pub const FORWARD_ATTESTATION: Tag = Tag("fogproof/v2/forward-attestation");

/// Every tag, for tests that check they are distinct.
pub const ALL: [Tag; 30] = [
    MATCH_ID,
    TERMS,
    COMMITMENT,
    SETUP_SEED,
    COLORS,
    MESSAGE,
    MESSAGE_HASH,
    RECEIPT,
    SEAL_INFO,
    SEAL_AAD,
    SEAL_KEY,
    SEAL_RNG,
    SEAL_SALT,
    SEAL_PLAINTEXT,
    SEAL_KEY_EXPORT,
    SEAL_KEY_COMMITMENT,
    SEAL_NONCE,
    FINGERPRINT,
    SIGNED_MESSAGE,
    LOG_HEAD,
    ORDER_HEAD,
    MATCH_RNG,
    SIGN_IN,
    INCLUSION_PROMISE,
    DELIVERY_NOTICE,
    DISPLAY_NAME,
    HOST_TOKEN,
    UMPIRE_SECRET,
    FORWARD_KEY,
    FORWARD_ATTESTATION,
];

#[cfg(test)]
mod tests {
    #[test]
    fn tags_are_distinct_versioned_and_free_of_nul() {
        for (i, a) in super::ALL.iter().enumerate() {
            // Version 3 changed sealing (docs/PROTOCOL.md 12): its tags say so.
            let version = if a.as_str().contains("/seal-") && *a != super::SEAL_KEY {
                "fogproof/v3/"
            } else {
                "fogproof/v2/"
            };
            assert!(a.as_str().starts_with(version), "{a}");
            assert!(a.as_str().is_ascii() && !a.as_str().contains('\0'), "{a}");
            for b in &super::ALL[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
