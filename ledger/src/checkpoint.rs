//! C2SP `tlog-checkpoint`: the tree head as note text, and checkpoints signed by the log and
//! cosigned by witnesses.
//!
//! ```text
//! <origin>\n            the log's name (also its key name)
//! <tree size>\n         decimal, no leading zeros
//! <base64 root hash>\n  RFC 6962 root of the tree of that size
//! [extension lines]     opaque, kept as they are (fogproof's log writes none)
//! ```
//!
//! A reader trusts a checkpoint only through [`Policy::verify`]: the log's signature, and a
//! quorum of the configured witnesses' cosignatures.

use crate::merkle::Hash;
use crate::note::{KeyKind, Note, NoteError, VerifierKey};
use base64ct::{Base64, Encoding};

/// A tree head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's origin line.
    pub origin: String,
    /// Leaves in the tree.
    pub size: u64,
    /// The RFC 6962 root.
    pub root: Hash,
    /// Extension lines (without newlines), in order.
    pub extensions: Vec<String>,
}

/// Why note text is not a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// Fewer than three lines, or an empty line.
    #[error("checkpoint text must be at least three non-empty lines")]
    Lines,
    /// The size is not a decimal without leading zeros.
    #[error("checkpoint tree size {0:?} is not a decimal number without leading zeros")]
    Size(String),
    /// The root is not base64 of 32 bytes.
    #[error("checkpoint root hash {0:?} is not base64 of 32 bytes")]
    Root(String),
    /// The note around it is malformed or its signatures do not verify.
    #[error(transparent)]
    Note(#[from] NoteError),
    /// The origin is not the one expected.
    #[error("checkpoint origin {found:?} is not the expected {expected:?}")]
    Origin {
        /// The expected origin.
        expected: String,
        /// The origin in the checkpoint.
        found: String,
    },
    /// Too few witnesses cosigned.
    #[error(
        "checkpoint has {found} valid witness cosignature(s), the policy needs {needed}: {} short; no valid cosignature from {}",
        needed - found,
        missing.join(", ")
    )]
    Quorum {
        /// Cosignatures that verified.
        found: usize,
        /// The quorum.
        needed: usize,
        /// The names of the policy's witnesses whose cosignature is missing (or invalid).
        missing: Vec<String>,
    },
    /// The log key does not sign checkpoints (a cosignature key was given).
    #[error("the log key must be an Ed25519 (type 0x01) key")]
    LogKeyKind,
}

impl Checkpoint {
    /// The note text.
    pub fn to_text(&self) -> String {
        let mut out =
            format!("{}\n{}\n{}\n", self.origin, self.size, Base64::encode_string(&self.root));
        for e in &self.extensions {
            out.push_str(e);
            out.push('\n');
        }
        out
    }

    /// Parses note text strictly.
    pub fn parse(text: &str) -> Result<Checkpoint, CheckpointError> {
        let body = text.strip_suffix('\n').ok_or(CheckpointError::Lines)?;
        let lines: Vec<&str> = body.split('\n').collect();
        if lines.len() < 3 || lines.iter().any(|l| l.is_empty()) {
            return Err(CheckpointError::Lines);
        }
        let size_text = lines[1];
        let canonical = size_text.bytes().all(|b| b.is_ascii_digit())
            && (size_text == "0" || !size_text.starts_with('0'));
        let size = size_text
            .parse::<u64>()
            .ok()
            .filter(|_| canonical)
            .ok_or_else(|| CheckpointError::Size(size_text.to_string()))?;
        let root: Hash = Base64::decode_vec(lines[2])
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| CheckpointError::Root(lines[2].to_string()))?;
        Ok(Checkpoint {
            origin: lines[0].to_string(),
            size,
            root,
            extensions: lines[3..].iter().map(|s| s.to_string()).collect(),
        })
    }
}

/// A checkpoint and the note it came in (its signatures).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedCheckpoint {
    /// The tree head.
    pub checkpoint: Checkpoint,
    /// The note: the checkpoint's text and every signature line.
    pub note: Note,
}

impl SignedCheckpoint {
    /// Parses a signed checkpoint (signatures not yet checked: see [`Policy::verify`]).
    pub fn parse(bytes: &[u8]) -> Result<SignedCheckpoint, CheckpointError> {
        let note = Note::parse(bytes)?;
        let checkpoint = Checkpoint::parse(&note.text)?;
        Ok(SignedCheckpoint { checkpoint, note })
    }

    /// The whole note as text.
    pub fn to_text(&self) -> String {
        self.note.to_text()
    }
}

/// What a reader trusts: the log's key (its name is the origin), the witnesses it knows and how
/// many of them must have cosigned.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The log's Ed25519 verifier key.
    pub log: VerifierKey,
    /// Known witnesses' cosignature keys.
    pub witnesses: Vec<VerifierKey>,
    /// How many distinct known witnesses must have cosigned.
    pub quorum: usize,
}

/// A checkpoint that passed a [`Policy`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustedCheckpoint {
    /// The checkpoint.
    pub signed: SignedCheckpoint,
    /// The witnesses whose cosignatures verified, with their timestamps.
    pub cosigners: Vec<(VerifierKey, u64)>,
}

impl Policy {
    /// A policy trusting the log's signature alone.
    pub fn log_only(log: VerifierKey) -> Policy {
        Policy { log, witnesses: Vec::new(), quorum: 0 }
    }

    /// Checks origin, the log's signature and the witness quorum.
    pub fn verify(&self, signed: &SignedCheckpoint) -> Result<TrustedCheckpoint, CheckpointError> {
        if self.log.kind() != KeyKind::Ed25519 {
            return Err(CheckpointError::LogKeyKind);
        }
        if signed.checkpoint.origin != self.log.name() {
            return Err(CheckpointError::Origin {
                expected: self.log.name().to_string(),
                found: signed.checkpoint.origin.clone(),
            });
        }
        signed.note.verify(std::slice::from_ref(&self.log))?;
        let cosigners: Vec<(VerifierKey, u64)> = if self.witnesses.is_empty() {
            Vec::new()
        } else {
            match signed.note.verify(&self.witnesses) {
                Ok(v) => v.into_iter().map(|v| (v.key, v.timestamp.unwrap_or(0))).collect(),
                Err(NoteError::NoKnownSignature(_)) => Vec::new(),
                Err(e) => return Err(e.into()),
            }
        };
        if cosigners.len() < self.quorum {
            let missing = self
                .witnesses
                .iter()
                .filter(|w| !cosigners.iter().any(|(c, _)| c == *w))
                .map(|w| w.name().to_owned())
                .collect();
            return Err(CheckpointError::Quorum {
                found: cosigners.len(),
                needed: self.quorum,
                missing,
            });
        }
        Ok(TrustedCheckpoint { signed: signed.clone(), cosigners })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::SignerKey;

    #[test]
    fn the_spec_example_parses() {
        let text =
            "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
        let c = Checkpoint::parse(text).unwrap();
        assert_eq!(c.size, 20_852_163);
        assert_eq!(c.to_text(), text);
    }

    #[test]
    fn strict_sizes_and_roots() {
        let root = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=";
        for bad in [
            format!("o\n01\n{root}\n"),
            format!("o\n+1\n{root}\n"),
            format!("o\n1\n{root}"),
            format!("o\n\n{root}\n"),
            "o\n1\nAAAA\n".to_string(),
            format!("o\n18446744073709551616\n{root}\n"),
        ] {
            assert!(Checkpoint::parse(&bad).is_err(), "{bad:?}");
        }
        assert_eq!(Checkpoint::parse(&format!("o\n0\n{root}\nx\n")).unwrap().extensions, ["x"]);
    }

    #[test]
    fn policy_needs_the_log_and_a_quorum() {
        let log = SignerKey::from_seed("log.example", KeyKind::Ed25519, [1; 32]).unwrap();
        let w1 = SignerKey::from_seed("w1.example", KeyKind::Cosignature, [2; 32]).unwrap();
        let w2 = SignerKey::from_seed("w2.example", KeyKind::Cosignature, [3; 32]).unwrap();
        let cp =
            Checkpoint { origin: "log.example".into(), size: 1, root: [5; 32], extensions: vec![] };
        let text = cp.to_text();
        let mut note = Note { text: text.clone(), signatures: vec![log.sign(&text, 0)] };
        let policy = Policy {
            log: log.verifier().clone(),
            witnesses: vec![w1.verifier().clone(), w2.verifier().clone()],
            quorum: 2,
        };
        let signed = |n: &Note| SignedCheckpoint { checkpoint: cp.clone(), note: n.clone() };
        assert!(matches!(
            policy.verify(&signed(&note)),
            Err(CheckpointError::Quorum { found: 0, .. })
        ));
        note.add_signature(w1.sign(&text, 10));
        note.add_signature(w1.sign(&text, 11));
        let short = policy.verify(&signed(&note)).unwrap_err();
        assert!(
            matches!(&short, CheckpointError::Quorum { found: 1, missing, .. } if missing == &["w2.example"])
        );
        assert!(
            short.to_string().contains("1 short; no valid cosignature from w2.example"),
            "{short}"
        );
        note.add_signature(w2.sign(&text, 12));
        assert_eq!(policy.verify(&signed(&note)).unwrap().cosigners.len(), 2);
        let other = SignerKey::from_seed("other.example", KeyKind::Ed25519, [4; 32]).unwrap();
        assert!(Policy::log_only(other.verifier().clone()).verify(&signed(&note)).is_err());
    }
}
