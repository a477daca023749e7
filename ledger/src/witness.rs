//! A witness (C2SP `tlog-witness`, `add-checkpoint`): it keeps the last checkpoint it cosigned
//! for each log it knows, cosigns a newer one only with a consistency proof from that one, and
//! refuses a fork, keeping the evidence.
//!
//! ```text
//! request  = "old " size "\n" *(base64 hash "\n") "\n" checkpoint note
//! response = cosignature line(s): "— " witness name " " base64(key id || u64_be(time) || sig) "\n"
//! ```
//!
//! Refusals carry the HTTP status the spec names ([`WitnessError::status`]): 400 malformed,
//! 403 the log's signature missing or bad, 404 unknown log, 409 the old size is not the one the
//! witness last cosigned (the body then is that size), 422 the proof does not verify or the
//! checkpoint forks from the one cosigned before.
//!
//! State, in the witness's directory, per log (`logs/<sha256 of the origin, hex>/`):
//! `checkpoint` (the last cosigned checkpoint with the log's signature and the witness's
//! cosignature: what `GET <origin hash>/checkpoint` serves) and `evidence/<n>` (every request
//! that conflicted with it, next to the checkpoint it conflicted with). The check and the update
//! happen under an exclusive file lock, so two requests never roll the state back.

use crate::checkpoint::{Policy, SignedCheckpoint};
use crate::merkle::{self, EMPTY_ROOT, Hash};
use crate::note::{KeyKind, SignerKey, VerifierKey};
use crate::store::DurableDir;
use base64ct::{Base64, Encoding};
use std::path::{Path, PathBuf};

/// The most consistency proof lines a request may carry (the spec's limit).
pub const MAX_PROOF_LINES: usize = 63;
/// The largest request body.
pub const MAX_REQUEST_BYTES: usize = crate::note::MAX_NOTE_BYTES + 64 * 46 + 32;

/// The body of an `add-checkpoint` request.
pub fn request_body(old: u64, proof: &[Hash], checkpoint: &SignedCheckpoint) -> String {
    let mut out = format!("old {old}\n");
    for h in proof {
        out.push_str(&Base64::encode_string(h));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&checkpoint.to_text());
    out
}

/// A parsed `add-checkpoint` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddCheckpoint {
    /// The size of the checkpoint the log believes the witness cosigned last.
    pub old: u64,
    /// The consistency proof from `old` to the checkpoint.
    pub proof: Vec<Hash>,
    /// The checkpoint to cosign.
    pub checkpoint: SignedCheckpoint,
}

/// Why a witness refused.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    /// 400: the request is malformed, or old size above the checkpoint's.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// 403: no valid signature by the log's key.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// 404: the witness does not know this log.
    #[error("unknown log origin {0:?}")]
    UnknownLog(String),
    /// 409: the old size is not the size last cosigned.
    #[error("conflict: this witness last cosigned size {last} of this log, not {old}")]
    Conflict {
        /// The size in the request.
        old: u64,
        /// The size last cosigned.
        last: u64,
    },
    /// 422: the proof does not verify, or the checkpoint is not consistent with the last one.
    #[error("unprocessable: {why}{}", .evidence.as_ref().map(|p| format!(" (evidence kept in {})", p.display())).unwrap_or_default())]
    Unprocessable {
        /// Why.
        why: String,
        /// Where the evidence was kept, if the request was signed by the log.
        evidence: Option<PathBuf>,
    },
    /// The state could not be read or written.
    #[error("witness state: {0}")]
    Io(#[from] std::io::Error),
}

impl WitnessError {
    /// The HTTP status C2SP tlog-witness gives this refusal.
    pub fn status(&self) -> u16 {
        match self {
            WitnessError::BadRequest(_) => 400,
            WitnessError::Forbidden(_) => 403,
            WitnessError::UnknownLog(_) => 404,
            WitnessError::Conflict { .. } => 409,
            WitnessError::Unprocessable { .. } => 422,
            WitnessError::Io(_) => 500,
        }
    }
}

impl AddCheckpoint {
    /// Parses a request body.
    pub fn parse(body: &[u8]) -> Result<AddCheckpoint, WitnessError> {
        let bad = |why: &str| WitnessError::BadRequest(why.to_string());
        if body.len() > MAX_REQUEST_BYTES {
            return Err(bad("the request is too large"));
        }
        let text = std::str::from_utf8(body).map_err(|_| bad("not UTF-8"))?;
        let (head, checkpoint) = text.split_once("\n\n").ok_or_else(|| bad("no blank line"))?;
        let mut lines = head.split('\n');
        let old_text = lines
            .next()
            .and_then(|l| l.strip_prefix("old "))
            .ok_or_else(|| bad("the first line is not 'old <size>'"))?;
        let canonical = old_text.bytes().all(|b| b.is_ascii_digit())
            && (old_text == "0" || !old_text.starts_with('0'));
        let old = old_text
            .parse::<u64>()
            .ok()
            .filter(|_| canonical)
            .ok_or_else(|| bad("the old size is not a decimal without leading zeros"))?;
        let mut proof = Vec::new();
        for l in lines {
            if proof.len() == MAX_PROOF_LINES {
                return Err(bad("more than 63 consistency proof lines"));
            }
            let h = Base64::decode_vec(l)
                .ok()
                .and_then(|b| <Hash>::try_from(b.as_slice()).ok())
                .ok_or_else(|| bad("a proof line is not base64 of 32 bytes"))?;
            proof.push(h);
        }
        let checkpoint =
            SignedCheckpoint::parse(checkpoint.as_bytes()).map_err(|e| bad(&e.to_string()))?;
        Ok(AddCheckpoint { old, proof, checkpoint })
    }
}

/// A witness: its cosigning key, the logs it knows and its state directory.
#[derive(Debug)]
pub struct Witness {
    dir: PathBuf,
    key: SignerKey,
    logs: Vec<VerifierKey>,
}

impl Witness {
    /// A witness keeping its state in `dir`, cosigning with `key` (a cosignature key, type 0x04)
    /// the logs whose keys are `logs` (their names are the origins).
    pub fn new(
        dir: &Path,
        key: SignerKey,
        logs: Vec<VerifierKey>,
    ) -> Result<Witness, WitnessError> {
        if key.verifier().kind() != KeyKind::Cosignature {
            return Err(WitnessError::BadRequest(
                "a witness key must be a cosignature (type 0x04) key".into(),
            ));
        }
        std::fs::create_dir_all(dir)?;
        Ok(Witness { dir: dir.to_path_buf(), key, logs })
    }

    fn log_dir(&self, origin: &str) -> PathBuf {
        self.dir.join("logs").join(protocol::hex::encode(&crate::entry::sha256(origin.as_bytes())))
    }

    /// The last checkpoint this witness cosigned for `origin`.
    pub fn latest(&self, origin: &str) -> Result<Option<SignedCheckpoint>, WitnessError> {
        match std::fs::read(self.log_dir(origin).join("checkpoint")) {
            Ok(bytes) => SignedCheckpoint::parse(&bytes).map(Some).map_err(|e| {
                WitnessError::Io(std::io::Error::other(format!("stored checkpoint: {e}")))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Handles an `add-checkpoint` request at time `now` (POSIX seconds): the cosignature line
    /// to answer with, or the refusal.
    pub fn add_checkpoint(&self, body: &[u8], now: u64) -> Result<String, WitnessError> {
        let req = AddCheckpoint::parse(body)?;
        let cp = &req.checkpoint.checkpoint;
        let log = self
            .logs
            .iter()
            .find(|k| k.name() == cp.origin)
            .ok_or_else(|| WitnessError::UnknownLog(cp.origin.clone()))?;
        Policy::log_only(log.clone())
            .verify(&req.checkpoint)
            .map_err(|e| WitnessError::Forbidden(e.to_string()))?;
        if req.old > cp.size {
            return Err(WitnessError::BadRequest(format!(
                "old size {} is above the checkpoint's size {}",
                req.old, cp.size
            )));
        }
        let dir = self.log_dir(&cp.origin);
        std::fs::create_dir_all(&dir)?;
        // Check and update under one lock: two concurrent requests must not roll back the state.
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("lock"))?;
        lock.lock()?;
        let last = self.latest(&cp.origin)?;
        let last_size = last.as_ref().map_or(0, |l| l.checkpoint.size);
        if req.old != last_size {
            return Err(WitnessError::Conflict { old: req.old, last: last_size });
        }
        let unprocessable = |why: String, evidence: bool| -> Result<String, WitnessError> {
            let evidence =
                if evidence { Some(self.keep_evidence(&dir, last.as_ref(), body)?) } else { None };
            Err(WitnessError::Unprocessable { why, evidence })
        };
        if cp.size == 0 && cp.root != EMPTY_ROOT {
            return unprocessable(
                "a checkpoint of size 0 must have the empty tree's root".into(),
                false,
            );
        }
        match &last {
            // Nothing cosigned yet, or the empty tree: every tree extends it, with no proof.
            None => {
                if !req.proof.is_empty() {
                    return unprocessable("a proof from size 0 must be empty".into(), false);
                }
            }
            Some(last) if last.checkpoint.size == 0 && cp.size > 0 => {
                if !req.proof.is_empty() {
                    return unprocessable("a proof from size 0 must be empty".into(), false);
                }
            }
            Some(last) if last.checkpoint.size == cp.size => {
                if !req.proof.is_empty() {
                    return unprocessable(
                        "a proof between equal sizes must be empty".into(),
                        false,
                    );
                }
                if last.checkpoint.root != cp.root {
                    return unprocessable(
                        format!(
                            "fork: two checkpoints of size {} with different roots, both signed by the log",
                            cp.size
                        ),
                        true,
                    );
                }
            }
            Some(last) => {
                if let Err(e) = merkle::verify_consistency(
                    last.checkpoint.size,
                    cp.size,
                    &req.proof,
                    &last.checkpoint.root,
                    &cp.root,
                ) {
                    return unprocessable(
                        format!(
                            "not consistent with the checkpoint of size {} cosigned before: {e}",
                            last.checkpoint.size
                        ),
                        true,
                    );
                }
            }
        }
        let sig = self.key.sign(&req.checkpoint.note.text, now);
        let mut stored = req.checkpoint.clone();
        stored.note.signatures.retain(|s| s.name == log.name() && s.key_id() == Some(log.id()));
        stored.note.add_signature(sig.clone());
        let mut dd = DurableDir::new(&dir);
        dd.write("checkpoint", stored.to_text().as_bytes())?;
        dd.sync_dirs()?;
        Ok(sig.to_line())
    }

    /// Keeps a conflicting request next to the checkpoint it conflicts with.
    fn keep_evidence(
        &self,
        dir: &Path,
        last: Option<&SignedCheckpoint>,
        body: &[u8],
    ) -> Result<PathBuf, WitnessError> {
        let evidence = dir.join("evidence");
        std::fs::create_dir_all(&evidence)?;
        let n = std::fs::read_dir(&evidence)?.count();
        let mut text = String::from(
            "fogproof witness evidence v1\n\n== the checkpoint this witness had cosigned\n",
        );
        text.push_str(&last.map(SignedCheckpoint::to_text).unwrap_or_default());
        text.push_str("\n== the add-checkpoint request that conflicts with it\n");
        text.push_str(&String::from_utf8_lossy(body));
        let name = format!("{n:06}");
        let mut dd = DurableDir::new(&evidence);
        dd.write(&name, text.as_bytes())?;
        dd.sync_dirs()?;
        Ok(evidence.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_extending_the_empty_one_needs_no_proof_and_stale_or_forked_ones_are_refused() {
        use crate::checkpoint::Checkpoint;
        use crate::note::Note;
        let dir = std::env::temp_dir().join(format!("fogproof-witness-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let log = SignerKey::from_seed("log.example", KeyKind::Ed25519, [1; 32]).unwrap();
        let wkey = SignerKey::from_seed("w.example", KeyKind::Cosignature, [2; 32]).unwrap();
        let w = Witness::new(&dir, wkey.clone(), vec![log.verifier().clone()]).unwrap();
        let signed = |size: u64, root: Hash| {
            let c = Checkpoint { origin: "log.example".into(), size, root, extensions: vec![] };
            let text = c.to_text();
            SignedCheckpoint {
                checkpoint: c,
                note: Note { signatures: vec![log.sign(&text, 0)], text },
            }
        };
        let ask = |old: u64, cp: &SignedCheckpoint| {
            w.add_checkpoint(request_body(old, &[], cp).as_bytes(), 5)
        };
        ask(0, &signed(0, EMPTY_ROOT)).expect("the empty tree");
        let one = signed(1, [3; 32]);
        let line = ask(0, &one).expect("size 1 extends the empty tree with no proof");
        assert!(line.starts_with("— w.example "), "{line}");
        assert_eq!(w.latest("log.example").unwrap().unwrap().checkpoint, one.checkpoint);
        let stale = ask(0, &signed(2, [4; 32])).unwrap_err();
        assert!(matches!(stale, WitnessError::Conflict { old: 0, last: 1 }), "{stale}");
        let fork = ask(1, &signed(1, [5; 32])).unwrap_err();
        assert_eq!(fork.status(), 422, "{fork}");
        assert!(
            matches!(&fork, WitnessError::Unprocessable { evidence: Some(p), .. } if p.exists())
        );
        assert_eq!(w.latest("log.example").unwrap().unwrap().checkpoint, one.checkpoint);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn malformed_requests_are_400() {
        let cp = "log.example\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n— log.example AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
        for bad in [
            format!("old 01\n\n{cp}"),
            format!("old -1\n\n{cp}"),
            format!("new 0\n\n{cp}"),
            format!("old 0\nnot base64!\n\n{cp}"),
            format!("old 0\nAAAA\n\n{cp}"),
            format!("old 0\n{cp}"),
            format!("old 0\n{}\n{cp}", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n".repeat(64)),
        ] {
            let e = AddCheckpoint::parse(bad.as_bytes()).unwrap_err();
            assert_eq!(e.status(), 400, "{bad:?}: {e}");
        }
        let ok = AddCheckpoint::parse(format!("old 0\n\n{cp}").as_bytes()).unwrap();
        assert_eq!((ok.old, ok.proof.len(), ok.checkpoint.checkpoint.size), (0, 0, 0));
    }
}
