//! C2SP signed notes (`signed-note`), their Ed25519 keys, verifier keys (vkeys) and the
//! timestamped Ed25519 witness cosignatures of C2SP `tlog-cosignature`.
//!
//! ```text
//! note      = text ("\n"-terminated lines) || "\n" || signature lines
//! signature = "— " || key name || " " || base64(key id (4 bytes, big-endian) || sig) || "\n"
//! key id    = SHA-256(key name || "\n" || type || 32-byte public key)[:4]
//! vkey      = key name || "+" || hex(key id) || "+" || base64(type || public key)
//! type 0x01 = Ed25519 over the note text                           (the log's key)
//! type 0x04 = Ed25519 over "cosignature/v1\ntime <t>\n" || text,
//!             sig = u64_be(t) || signature                           (a witness's key)
//! ```
//!
//! Secret keys are stored in the form Go's `golang.org/x/mod/sumdb/note` uses,
//! `PRIVATE+KEY+<name>+<hex key id>+base64(type || 32-byte Ed25519 seed)`, in a file readable by
//! its owner only. Signing is ed25519-dalek's; verification uses `verify_strict`.

use base64ct::{Base64, Encoding};
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// The largest note (text and signatures) accepted, in bytes.
pub const MAX_NOTE_BYTES: usize = 64 * 1024;
/// The most signature lines accepted on one note (the spec asks for at least 16).
pub const MAX_SIGNATURES: usize = 64;
/// The header line of a v1 Ed25519 cosignature's signed message.
pub const COSIGNATURE_HEADER: &str = "cosignature/v1";

/// The signature types this crate speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyKind {
    /// `0x01`: Ed25519 over the note text (a log's checkpoint signature).
    Ed25519,
    /// `0x04`: a timestamped Ed25519 checkpoint cosignature (a witness).
    Cosignature,
}

impl KeyKind {
    /// The signature type byte.
    pub fn byte(self) -> u8 {
        match self {
            KeyKind::Ed25519 => 0x01,
            KeyKind::Cosignature => 0x04,
        }
    }

    fn from_byte(b: u8) -> Option<KeyKind> {
        match b {
            0x01 => Some(KeyKind::Ed25519),
            0x04 => Some(KeyKind::Cosignature),
            _ => None,
        }
    }
}

/// Why a key, a vkey or a key file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A key name that is empty, or has a space, a `+` or a control character.
    #[error("key name {0:?} is not valid (non-empty, no spaces, no '+')")]
    BadName(String),
    /// Not `name+id+key`.
    #[error("verifier key {0:?} is not of the form name+keyid+base64")]
    BadVkey(String),
    /// The key id is not 8 hex digits or does not match the key.
    #[error("key id in {0:?} does not match its name and public key")]
    WrongKeyId(String),
    /// Not base64, or the wrong length.
    #[error("key material in {0:?} is not base64 of a type byte and 32 bytes")]
    BadKeyMaterial(String),
    /// A signature type other than 0x01 and 0x04.
    #[error("signature type 0x{0:02x} is not supported (0x01 Ed25519, 0x04 cosignature)")]
    UnsupportedType(u8),
    /// The 32 bytes are not an Ed25519 public key.
    #[error("the public key of {0:?} is not a valid Ed25519 key")]
    BadPoint(String),
    /// A secret key file that is not `PRIVATE+KEY+name+id+base64`.
    #[error("not a signed-note secret key (expected PRIVATE+KEY+<name>+<id>+<base64>)")]
    BadSecretKey,
}

/// `SHA-256(name || "\n" || type || key)[:4]` as a big-endian `u32`.
pub fn key_id(name: &str, kind: KeyKind, public: &[u8; 32]) -> u32 {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([kind.byte()]);
    h.update(public);
    let d = h.finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// Whether `name` may name a key: non-empty, no Unicode space, no `+`, no control character.
pub fn is_valid_key_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == '+' || c.is_control())
}

/// A public key that verifies signatures of one type under one name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierKey {
    name: String,
    id: u32,
    kind: KeyKind,
    key: VerifyingKey,
}

impl VerifierKey {
    /// The key from its parts.
    pub fn new(name: &str, kind: KeyKind, public: [u8; 32]) -> Result<VerifierKey, KeyError> {
        if !is_valid_key_name(name) {
            return Err(KeyError::BadName(name.to_string()));
        }
        let key = VerifyingKey::from_bytes(&public).map_err(|_| KeyError::BadPoint(name.into()))?;
        Ok(VerifierKey { name: name.to_string(), id: key_id(name, kind, &public), kind, key })
    }

    /// Parses a vkey (`name+keyid+base64(type || key)`).
    pub fn parse(vkey: &str) -> Result<VerifierKey, KeyError> {
        let bad = || KeyError::BadVkey(vkey.to_string());
        // Names and ids have no '+'; base64 may (as Go's note package reads it).
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id), Some(material)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if id.len() != 8 || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(KeyError::WrongKeyId(vkey.to_string()));
        }
        let id = u32::from_str_radix(id, 16).map_err(|_| bad())?;
        let bytes =
            Base64::decode_vec(material).map_err(|_| KeyError::BadKeyMaterial(vkey.to_string()))?;
        let (&kind, public) =
            bytes.split_first().ok_or_else(|| KeyError::BadKeyMaterial(vkey.to_string()))?;
        let kind = KeyKind::from_byte(kind).ok_or(KeyError::UnsupportedType(kind))?;
        let public: [u8; 32] =
            public.try_into().map_err(|_| KeyError::BadKeyMaterial(vkey.to_string()))?;
        let key = VerifierKey::new(name, kind, public)?;
        if key.id != id {
            return Err(KeyError::WrongKeyId(vkey.to_string()));
        }
        Ok(key)
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The signature type.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// The 32-byte Ed25519 public key.
    pub fn public(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// Whether `sig` (the bytes after the key id) is this key's valid signature on `text`;
    /// for a cosignature also its timestamp.
    fn check(&self, text: &str, sig: &[u8]) -> Result<Option<u64>, ()> {
        let (message, timestamp, sig) = match self.kind {
            KeyKind::Ed25519 => (text.as_bytes().to_vec(), None, sig),
            KeyKind::Cosignature => {
                if sig.len() != 8 + 64 {
                    return Err(());
                }
                let (t, sig) = sig.split_at(8);
                let t = u64::from_be_bytes(t.try_into().map_err(|_| ())?);
                if t > i64::MAX as u64 {
                    return Err(());
                }
                (cosigned_message(text, t).into_bytes(), Some(t), sig)
            }
        };
        let sig = ed25519_dalek::Signature::from_slice(sig).map_err(|_| ())?;
        self.key.verify_strict(&message, &sig).map_err(|_| ())?;
        Ok(timestamp)
    }
}

impl std::fmt::Display for VerifierKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut material = vec![self.kind.byte()];
        material.extend_from_slice(self.key.as_bytes());
        write!(f, "{}+{:08x}+{}", self.name, self.id, Base64::encode_string(&material))
    }
}

/// The message a v1 Ed25519 cosignature signs.
fn cosigned_message(text: &str, timestamp: u64) -> String {
    format!("{COSIGNATURE_HEADER}\ntime {timestamp}\n{text}")
}

/// A secret key that signs notes under one name (the log's key, or a witness's).
#[derive(Clone)]
pub struct SignerKey {
    verifier: VerifierKey,
    signing: SigningKey,
}

impl std::fmt::Debug for SignerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SignerKey({})", self.verifier)
    }
}

impl SignerKey {
    /// The key with this Ed25519 seed.
    pub fn from_seed(name: &str, kind: KeyKind, seed: [u8; 32]) -> Result<SignerKey, KeyError> {
        let signing = SigningKey::from_bytes(&seed);
        let verifier = VerifierKey::new(name, kind, signing.verifying_key().to_bytes())?;
        Ok(SignerKey { verifier, signing })
    }

    /// A fresh key from the operating system's random source.
    pub fn generate(name: &str, kind: KeyKind) -> Result<SignerKey, GenerateError> {
        let seed = protocol::keys::random_32().map_err(GenerateError::Random)?;
        SignerKey::from_seed(name, kind, seed).map_err(GenerateError::Key)
    }

    /// Parses `PRIVATE+KEY+<name>+<hex id>+base64(type || seed)` (surrounding whitespace
    /// ignored).
    pub fn parse(text: &str) -> Result<SignerKey, KeyError> {
        let text = text.trim();
        let rest = text.strip_prefix("PRIVATE+KEY+").ok_or(KeyError::BadSecretKey)?;
        let mut parts = rest.splitn(3, '+');
        let (Some(name), Some(id), Some(material)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(KeyError::BadSecretKey);
        };
        let bytes = Base64::decode_vec(material).map_err(|_| KeyError::BadSecretKey)?;
        let (&kind, seed) = bytes.split_first().ok_or(KeyError::BadSecretKey)?;
        let kind = KeyKind::from_byte(kind).ok_or(KeyError::UnsupportedType(kind))?;
        let seed: [u8; 32] = seed.try_into().map_err(|_| KeyError::BadSecretKey)?;
        let key = SignerKey::from_seed(name, kind, seed)?;
        if format!("{:08x}", key.verifier.id) != id {
            return Err(KeyError::WrongKeyId(format!("{name}+{id}")));
        }
        Ok(key)
    }

    /// The secret key text (see [`SignerKey::parse`]).
    pub fn to_secret_text(&self) -> String {
        let mut material = vec![self.verifier.kind.byte()];
        material.extend_from_slice(&self.signing.to_bytes());
        format!(
            "PRIVATE+KEY+{}+{:08x}+{}",
            self.verifier.name,
            self.verifier.id,
            Base64::encode_string(&material)
        )
    }

    /// The Ed25519 signing key itself, for signatures outside notes (an organiser signs
    /// tournament definitions with the same key file).
    pub fn signing_key(&self) -> &SigningKey {
        &self.signing
    }

    /// The matching verifier key.
    pub fn verifier(&self) -> &VerifierKey {
        &self.verifier
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.verifier.name
    }

    /// A signature line over `text` (`timestamp` is used by cosignature keys only).
    pub fn sign(&self, text: &str, timestamp: u64) -> NoteSignature {
        let mut bytes = self.verifier.id.to_be_bytes().to_vec();
        match self.verifier.kind {
            KeyKind::Ed25519 => {
                bytes.extend_from_slice(&self.signing.sign(text.as_bytes()).to_bytes());
            }
            KeyKind::Cosignature => {
                let message = cosigned_message(text, timestamp);
                bytes.extend_from_slice(&timestamp.to_be_bytes());
                bytes.extend_from_slice(&self.signing.sign(message.as_bytes()).to_bytes());
            }
        }
        NoteSignature { name: self.verifier.name.clone(), bytes }
    }
}

/// Why a fresh key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// No randomness.
    #[error(transparent)]
    Random(protocol::keys::RandomnessError),
    /// The name is not a valid key name.
    #[error(transparent)]
    Key(KeyError),
}

/// One signature line: the key name and `key id || signature` (as decoded from base64).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteSignature {
    /// The signer's key name.
    pub name: String,
    /// `key id (4 bytes) || signature`.
    pub bytes: Vec<u8>,
}

impl NoteSignature {
    /// The key id (the first four bytes).
    pub fn key_id(&self) -> Option<u32> {
        Some(u32::from_be_bytes(self.bytes.get(..4)?.try_into().ok()?))
    }

    /// The line, with its final newline.
    pub fn to_line(&self) -> String {
        format!("— {} {}\n", self.name, Base64::encode_string(&self.bytes))
    }

    /// Parses one line (without its newline).
    pub fn parse_line(line: &str) -> Result<NoteSignature, NoteError> {
        let rest = line.strip_prefix("— ").ok_or(NoteError::BadSignatureLine)?;
        let (name, b64) = rest.split_once(' ').ok_or(NoteError::BadSignatureLine)?;
        if !is_valid_key_name(name) {
            return Err(NoteError::BadSignatureLine);
        }
        let bytes = Base64::decode_vec(b64).map_err(|_| NoteError::BadSignatureLine)?;
        if bytes.len() < 5 {
            return Err(NoteError::BadSignatureLine);
        }
        Ok(NoteSignature { name: name.to_string(), bytes })
    }
}

/// Why a note was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    /// Over [`MAX_NOTE_BYTES`].
    #[error("note is {0} bytes, over the limit of {MAX_NOTE_BYTES} bytes")]
    TooLong(usize),
    /// Not UTF-8, or a control character other than newline.
    #[error("note is not UTF-8 text without control characters")]
    NotText,
    /// No blank line between text and signatures, or no signature.
    #[error("note has no blank line followed by signature lines")]
    NoSignatures,
    /// The text does not end in a newline or is empty.
    #[error("note text is empty or does not end in a newline")]
    BadText,
    /// A signature line that is not `— name base64`.
    #[error("a note signature line is not of the form '— <name> <base64>'")]
    BadSignatureLine,
    /// Over [`MAX_SIGNATURES`].
    #[error("note has {0} signatures, over the limit of {MAX_SIGNATURES}")]
    TooManySignatures(usize),
    /// A known key's signature does not verify: the note is rejected whole.
    #[error("the signature of known key {0} does not verify")]
    BadSignature(String),
    /// No known key signed the note.
    #[error("no known key signed the note (known: {0})")]
    NoKnownSignature(String),
}

/// A signed note: its text and signature lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The text, ending in a newline.
    pub text: String,
    /// The signatures, in order.
    pub signatures: Vec<NoteSignature>,
}

/// A signature that verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The key that made it.
    pub key: VerifierKey,
    /// A cosignature's timestamp (POSIX seconds).
    pub timestamp: Option<u64>,
}

impl Note {
    /// Parses a note strictly (see the module docs and C2SP signed-note).
    pub fn parse(bytes: &[u8]) -> Result<Note, NoteError> {
        if bytes.len() > MAX_NOTE_BYTES {
            return Err(NoteError::TooLong(bytes.len()));
        }
        let s = std::str::from_utf8(bytes).map_err(|_| NoteError::NotText)?;
        if s.chars().any(|c| c.is_control() && c != '\n') {
            return Err(NoteError::NotText);
        }
        // The text is separated from the signatures by the last empty line.
        let split = s.rfind("\n\n").ok_or(NoteError::NoSignatures)?;
        let text = &s[..split + 1];
        let sigs = &s[split + 2..];
        if text.len() < 2 {
            return Err(NoteError::BadText);
        }
        let sigs = sigs.strip_suffix('\n').ok_or(NoteError::NoSignatures)?;
        if sigs.is_empty() {
            return Err(NoteError::NoSignatures);
        }
        let lines: Vec<&str> = sigs.split('\n').collect();
        if lines.len() > MAX_SIGNATURES {
            return Err(NoteError::TooManySignatures(lines.len()));
        }
        let signatures =
            lines.into_iter().map(NoteSignature::parse_line).collect::<Result<Vec<_>, _>>()?;
        Ok(Note { text: text.to_string(), signatures })
    }

    /// The note as text.
    pub fn to_text(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for s in &self.signatures {
            out.push_str(&s.to_line());
        }
        out
    }

    /// Checks the signatures of the known keys: unknown ones are ignored (C2SP signed-note), a
    /// known key's bad signature rejects the note, and at least one known key must have signed.
    /// Returns the signatures that verified, in note order.
    pub fn verify(&self, known: &[VerifierKey]) -> Result<Vec<Verified>, NoteError> {
        let mut out = Vec::new();
        for s in &self.signatures {
            let Some(id) = s.key_id() else { continue };
            let Some(key) = known.iter().find(|k| k.name == s.name && k.id == id) else {
                continue;
            };
            let timestamp = key
                .check(&self.text, &s.bytes[4..])
                .map_err(|()| NoteError::BadSignature(key.to_string()))?;
            if !out.iter().any(|v: &Verified| v.key == *key) {
                out.push(Verified { key: key.clone(), timestamp });
            }
        }
        if out.is_empty() {
            let names: Vec<String> = known.iter().map(|k| k.to_string()).collect();
            return Err(NoteError::NoKnownSignature(names.join(", ")));
        }
        Ok(out)
    }

    /// Adds a signature line unless one with the same name and key id is there already.
    pub fn add_signature(&mut self, sig: NoteSignature) {
        if !self.signatures.iter().any(|s| s.name == sig.name && s.key_id() == sig.key_id()) {
            self.signatures.push(sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of C2SP signed-note ("Verifier keys", Example), verbatim.
    #[test]
    fn the_spec_example_verifies() {
        let vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
        let note = "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
        let key = VerifierKey::parse(vkey).unwrap();
        assert_eq!(key.to_string(), vkey);
        let n = Note::parse(note.as_bytes()).unwrap();
        assert_eq!(n.to_text(), note);
        assert_eq!(n.verify(std::slice::from_ref(&key)).unwrap().len(), 1);
        let tampered = note.replace("example message", "example massage");
        assert!(matches!(
            Note::parse(tampered.as_bytes()).unwrap().verify(&[key]),
            Err(NoteError::BadSignature(_))
        ));
    }

    #[test]
    fn unknown_keys_are_ignored_and_known_bad_ones_reject() {
        let log = SignerKey::from_seed("log.example/a", KeyKind::Ed25519, [7; 32]).unwrap();
        let other = SignerKey::from_seed("other.example", KeyKind::Ed25519, [8; 32]).unwrap();
        let text = "hello\n";
        let mut n = Note { text: text.into(), signatures: vec![other.sign(text, 0)] };
        assert!(matches!(n.verify(&[log.verifier().clone()]), Err(NoteError::NoKnownSignature(_))));
        n.add_signature(log.sign(text, 0));
        assert_eq!(n.verify(&[log.verifier().clone()]).unwrap().len(), 1);
        // A signature line under the log's name and id, but another key's bytes.
        let mut forged = log.sign(text, 0);
        forged.bytes[10] ^= 1;
        let bad = Note { text: text.into(), signatures: vec![forged] };
        assert!(matches!(bad.verify(&[log.verifier().clone()]), Err(NoteError::BadSignature(_))));
    }

    #[test]
    fn cosignatures_carry_their_timestamp() {
        let w = SignerKey::from_seed("witness.example/w1", KeyKind::Cosignature, [9; 32]).unwrap();
        let text = "log.example\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
        let sig = w.sign(text, 1_679_315_147);
        assert_eq!(sig.bytes.len(), 4 + 8 + 64);
        let n = Note { text: text.into(), signatures: vec![sig] };
        let v = n.verify(&[w.verifier().clone()]).unwrap();
        assert_eq!(v[0].timestamp, Some(1_679_315_147));
        // The same key as a plain Ed25519 key has another id: its signatures are unknown.
        let plain = VerifierKey::new("witness.example/w1", KeyKind::Ed25519, w.verifier().public())
            .unwrap();
        assert!(n.verify(&[plain]).is_err());
    }

    /// Regression: base64 key material with a '+' (this seed's public key has one) parses.
    #[test]
    fn key_material_may_contain_plus() {
        let k = (0u8..=255)
            .map(|b| SignerKey::from_seed("log.example/x", KeyKind::Ed25519, [b; 32]).unwrap())
            .find(|k| {
                k.verifier().to_string().split('+').count() > 3
                    && k.to_secret_text().split('+').count() > 5
            })
            .expect("some seed gives a '+' in both encodings");
        assert_eq!(VerifierKey::parse(&k.verifier().to_string()).unwrap(), *k.verifier());
        assert_eq!(SignerKey::parse(&k.to_secret_text()).unwrap().verifier(), k.verifier());
    }

    #[test]
    fn secret_keys_round_trip() {
        let k = SignerKey::from_seed("log.example/x", KeyKind::Ed25519, [3; 32]).unwrap();
        let back = SignerKey::parse(&k.to_secret_text()).unwrap();
        assert_eq!(back.verifier(), k.verifier());
        assert!(SignerKey::parse("PRIVATE+KEY+a+00000000+AQ==").is_err());
        assert!(VerifierKey::parse("a b+00000000+AQ==").is_err());
    }

    #[test]
    fn malformed_notes_are_refused() {
        for bad in [
            &b"no blank line\n"[..],
            b"text\n\n",
            b"text\n\nnot a signature\n",
            b"text\n\n\xe2\x80\x94 name !!!\n",
            b"te\x01xt\n\n\xe2\x80\x94 a AAAAAAAA\n",
            b"\xff\n\n",
        ] {
            assert!(Note::parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
