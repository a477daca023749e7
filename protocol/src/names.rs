//! Display names: a label a player chooses for its key, signed by the key, so that anyone can
//! check it and no host can invent or change it (docs/PROTOCOL.md, display names).
//!
//! The key (`ed25519:<64 hex>`, its fingerprint `ed25519:<32 hex>`) stays the identity: a name is
//! only shown *beside* it. A [`SignedName`] is the name, the key, the time the player chose it
//! (`issued_ms`, the signer's clock, ms since the Unix epoch: a newer statement replaces an older
//! one) and the key's signature over
//!
//! ```text
//! H-frame(fogproof/v2/display-name; ("key", key), ("issued-ms", u64_le(issued_ms)),
//!         ("name", utf8(name)))
//! ```
//!
//! The allowed names ([`normalise`], [`check`]), so that a name cannot pose as another text:
//! - Unicode NFC; 1 to [`MAX_NAME_CHARS`] characters and at most [`MAX_NAME_BYTES`] bytes;
//! - each character a Unicode letter or digit (Rust's `char::is_alphanumeric`: the Alphabetic
//!   and Numeric properties) or one of the ASCII space, `-`, `_`, `.`, `'`;
//! - so no control character, no format character (no bidi override or isolate, no zero-width
//!   joiner or space), no symbol, no other punctuation (no `:`);
//! - no space at either end and never two in a row;
//! - not starting with `ed25519` in any case (a name does not pose as a key).
//!
//! What it cannot stop: a name that *looks like* another player's (letters of another script
//! that look alike). That is why the fingerprint is always shown beside the name.

use crate::keys::{Identity, PublicKey, Signature, SignatureError};
use crate::tags;
use crate::transcript::Frame;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use unicode_normalization::UnicodeNormalization;

/// The most characters a display name has.
pub const MAX_NAME_CHARS: usize = 32;
/// The most bytes (UTF-8) a display name has.
pub const MAX_NAME_BYTES: usize = 128;
/// The ASCII punctuation a name may hold besides letters and digits.
pub const NAME_PUNCTUATION: &str = " -_.'";

/// Why a name or a signed name was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum NameError {
    /// Empty (after trimming).
    #[error("a display name cannot be empty")]
    Empty,
    /// Too long.
    #[error(
        "the display name is {chars} characters and {bytes} bytes: at most {MAX_NAME_CHARS} \
         characters and {MAX_NAME_BYTES} bytes"
    )]
    TooLong {
        /// Its characters.
        chars: usize,
        /// Its bytes.
        bytes: usize,
    },
    /// A character outside the allowed set.
    #[error(
        "the display name holds {} (U+{:04X}), which names cannot hold: letters, digits, \
         spaces and - _ . ' only (no control, format or bidi characters)",
        describe(*.0), *.0 as u32
    )]
    Character(char),
    /// Spaces at an end or doubled.
    #[error("a display name has no space at either end and never two in a row")]
    Spaces,
    /// Poses as a key.
    #[error("a display name cannot start with \"ed25519\" (it would pose as a key)")]
    PosesAsKey,
    /// Not in normal form (a signed name must be exactly as [`normalise`] writes it).
    #[error("the display name is not in its normal form (NFC, trimmed): sign normalise(name)")]
    NotNormal,
    /// The signature does not verify.
    #[error("the display name's signature does not verify under {0}: its key did not sign it")]
    Signature(PublicKey),
    /// A field of the JSON form.
    #[error("display name: {0}")]
    Form(String),
}

fn describe(c: char) -> String {
    let code = u32::from(c);
    if c.is_control() || (0x2000..0x2070).contains(&code) || code == 0xFEFF {
        "an invisible or control character".into()
    } else {
        format!("{c:?}")
    }
}

fn allowed(c: char) -> bool {
    c.is_alphanumeric() || NAME_PUNCTUATION.contains(c)
}

/// Checks that `name` is an allowed display name in normal form (module docs).
pub fn check(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS || name.len() > MAX_NAME_BYTES {
        return Err(NameError::TooLong { chars, bytes: name.len() });
    }
    if let Some(c) = name.chars().find(|c| !allowed(*c)) {
        return Err(NameError::Character(c));
    }
    if name.starts_with(' ') || name.ends_with(' ') || name.contains("  ") {
        return Err(NameError::Spaces);
    }
    if name.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("ed25519")) {
        return Err(NameError::PosesAsKey);
    }
    if !unicode_normalization::is_nfc(name) {
        return Err(NameError::NotNormal);
    }
    Ok(())
}

/// The normal form of a name a person typed: NFC, trimmed, runs of spaces made one; then
/// [`check`]ed.
pub fn normalise(text: &str) -> Result<String, NameError> {
    let nfc: String = text.nfc().collect();
    let mut out = String::with_capacity(nfc.len());
    for word in nfc.split(' ').filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    check(&out)?;
    Ok(out)
}

/// The bytes a display name's signature covers (module docs).
pub fn name_bytes(key: &PublicKey, name: &str, issued_ms: u64) -> Vec<u8> {
    Frame::new(tags::DISPLAY_NAME)
        .append("key", &key.0)
        .append_u64("issued-ms", issued_ms)
        .append("name", name.as_bytes())
        .into_bytes()
}

/// A display name signed by its key (module docs). Its JSON form:
/// `{"key": "ed25519:<64 hex>", "name": "...", "issued_ms": 1700000000000,
/// "signature": "<128 hex>"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "NameText", into = "NameText")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(as = "NameText"))]
pub struct SignedName {
    /// The key that chose the name.
    pub key: PublicKey,
    /// The name, in normal form.
    pub name: String,
    /// When the key's holder chose it (its clock, ms since the Unix epoch).
    pub issued_ms: u64,
    /// The key's signature over [`name_bytes`].
    pub signature: Signature,
}

impl SignedName {
    /// Signs `name` (normalised first) for `identity`, chosen at `issued_ms`.
    pub fn sign(identity: &Identity, name: &str, issued_ms: u64) -> Result<SignedName, NameError> {
        let name = normalise(name)?;
        let key = identity.public();
        let signature = identity.sign(tags::DISPLAY_NAME, &name_bytes(&key, &name, issued_ms));
        Ok(SignedName { key, name, issued_ms, signature })
    }

    /// Checks the name's form and that its key signed it.
    pub fn verify(&self) -> Result<(), NameError> {
        check(&self.name)?;
        self.key
            .verify(
                tags::DISPLAY_NAME,
                &name_bytes(&self.key, &self.name, self.issued_ms),
                &self.signature,
            )
            .map_err(|e: SignatureError| match e {
                SignatureError::BadKey { key } | SignatureError::Invalid { key, .. } => {
                    NameError::Signature(key)
                }
            })
    }

    /// Whether this statement replaces `older` (the same key, chosen later; at the same time
    /// the greater name, so every holder keeps the same one).
    pub fn replaces(&self, older: &SignedName) -> bool {
        self.key == older.key
            && (self.issued_ms, self.name.as_bytes()) > (older.issued_ms, older.name.as_bytes())
    }
}

/// The JSON form of a [`SignedName`] (texts, as every API writes keys and signatures).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SignedName"))]
pub struct NameText {
    /// `ed25519:<64 hex>`.
    pub key: String,
    /// The name.
    pub name: String,
    /// ms since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub issued_ms: u64,
    /// 128 hex digits.
    pub signature: String,
}

impl From<SignedName> for NameText {
    fn from(s: SignedName) -> NameText {
        NameText {
            key: s.key.to_string(),
            name: s.name,
            issued_ms: s.issued_ms,
            signature: crate::hex::encode(&s.signature.to_bytes()),
        }
    }
}

impl TryFrom<NameText> for SignedName {
    type Error = NameError;

    fn try_from(t: NameText) -> Result<SignedName, NameError> {
        let key = t.key.parse().map_err(|e| NameError::Form(format!("key: {e}")))?;
        let b = crate::hex::decode_array::<64>(&t.signature)
            .ok_or_else(|| NameError::Form("signature: expected 128 hex digits".into()))?;
        let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
        r.copy_from_slice(&b[..32]);
        s.copy_from_slice(&b[32..]);
        if t.name.len() > 4 * MAX_NAME_BYTES {
            return Err(NameError::TooLong { chars: t.name.chars().count(), bytes: t.name.len() });
        }
        Ok(SignedName { key, name: t.name, issued_ms: t.issued_ms, signature: Signature { r, s } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Identity {
        Identity::from_seed(&[3; 32])
    }

    #[test]
    fn a_signed_name_verifies_and_nothing_else_does() {
        let n = SignedName::sign(&me(), "  Zoë   the\u{0065}\u{0301}lan ", 1000).expect("signs");
        assert_eq!(n.name, "Zoë the\u{e9}lan", "NFC, trimmed, one space");
        assert_eq!(n.verify(), Ok(()));
        // Another name, time or key under the same signature: refused.
        let key = n.key;
        for forged in [
            SignedName { name: "Zoe the elan".into(), ..n.clone() },
            SignedName { issued_ms: 1001, ..n.clone() },
            SignedName { key: Identity::from_seed(&[4; 32]).public(), ..n.clone() },
        ] {
            assert!(matches!(forged.verify(), Err(NameError::Signature(_))), "{forged:?}");
        }
        // Not a message signature either: the tag differs.
        let bytes = name_bytes(&key, &n.name, n.issued_ms);
        assert!(key.verify(tags::MESSAGE, &bytes, &n.signature).is_err());
        // The JSON form round-trips; a bad signature text is named.
        let text = serde_json::to_string(&n).expect("json");
        assert!(text.contains("\"key\":\"ed25519:"), "{text}");
        assert_eq!(serde_json::from_str::<SignedName>(&text).expect("reads"), n);
        let bad = text.replace("\"signature\":\"", "\"signature\":\"zz");
        assert!(serde_json::from_str::<SignedName>(&bad).is_err());
    }

    #[test]
    fn names_that_could_impersonate_are_refused_with_the_reason() {
        for (text, want) in [
            ("", NameError::Empty),
            ("   ", NameError::Empty),
            ("Eve\u{202E}gro", NameError::Character('\u{202E}')),
            ("Eve\u{2066}x", NameError::Character('\u{2066}')),
            ("A\u{200B}lice", NameError::Character('\u{200B}')),
            ("Bob\u{0007}", NameError::Character('\u{0007}')),
            ("Bob\nthe", NameError::Character('\n')),
            ("ed25519:162a", NameError::Character(':')),
            ("ED25519 162a", NameError::PosesAsKey),
            ("a<script>", NameError::Character('<')),
        ] {
            assert_eq!(normalise(text), Err(want), "{text:?}");
        }
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        assert!(matches!(normalise(&long), Err(NameError::TooLong { .. })));
        assert!(normalise(&"x".repeat(MAX_NAME_CHARS)).is_ok());
        // Letters of every script are names; digits, too.
        for ok in ["Алиса", "محمد", "李小龙", "O'Brien-Smith_2.0", "Zoë"] {
            assert_eq!(normalise(ok).as_deref(), Ok(ok));
        }
        // A signed name out of normal form is refused even with a good signature.
        let id = me();
        let raw = "A\u{212B}ngstr"; // U+212B ANGSTROM SIGN, whose NFC is U+00C5
        let signature = id.sign(tags::DISPLAY_NAME, &name_bytes(&id.public(), raw, 5));
        let n = SignedName { key: id.public(), name: raw.into(), issued_ms: 5, signature };
        assert_eq!(n.verify(), Err(NameError::NotNormal));
        let spaced = " Bob";
        let signature = id.sign(tags::DISPLAY_NAME, &name_bytes(&id.public(), spaced, 5));
        let n = SignedName { key: id.public(), name: spaced.into(), issued_ms: 5, signature };
        assert_eq!(n.verify(), Err(NameError::Spaces));
    }

    #[test]
    fn a_newer_statement_replaces_an_older_one() {
        let old = SignedName::sign(&me(), "Old", 10).expect("signs");
        let new = SignedName::sign(&me(), "New", 20).expect("signs");
        assert!(new.replaces(&old));
        assert!(!old.replaces(&new));
        assert!(!old.replaces(&old));
        let other = SignedName::sign(&Identity::from_seed(&[8; 32]), "Old", 30).expect("signs");
        assert!(!other.replaces(&old), "another key's name replaces nothing");
    }
}
