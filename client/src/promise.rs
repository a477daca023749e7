//! The agent's side of the log's promises (docs/LEDGER.md, inclusion promises and witnesses):
//! after a match it finished, fetch the host's signed inclusion promise, keep it beside the
//! journal, wait for the inclusion proof, and read the proof's checkpoint through the player's
//! own **witness policy**: a checkpoint cosigned by fewer witnesses than the policy wants is one
//! the log could be showing this player alone, and the agent says so.
//!
//! The policy is the player's (`fogproof agent --witness VKEY --witness-quorum K`); without one
//! the agent takes the witnesses the server announces at `/api/ledger` and the server's own
//! quorum (at least one), and warns when the server announces none.

use crate::net::{NetError, Session};
use ledger::checkpoint::{CheckpointError, Policy};
use ledger::note::VerifierKey;
use ledger::proof::TlogProof;
use protocol::MatchId;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the agent asks for a finished match's promise and then its inclusion proof, in ms.
pub const PROMISE_POLL_MS: u64 = 1_000;
/// How many times the agent asks for a promise before giving up (the server may keep no ledger).
pub const PROMISE_TRIES: u32 = 10;
/// The longest wait between two asks for a match's inclusion proof, in ms: the wait starts at
/// [`PROMISE_POLL_MS`] and doubles, so an agent that finished many matches does not spend its
/// own request rate (and the host's) asking every second for ten minutes per match.
pub const PROMISE_MAX_POLL_MS: u64 = 30_000;

/// The promise file of a match under `dir`: `<match id hex>.promise`, beside its journal.
pub fn promise_path(dir: &Path, id: &MatchId) -> PathBuf {
    dir.join(format!("{}.promise", protocol::hex::encode(&id.0)))
}

/// The witnesses a player trusts to have seen the same log as everyone else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WitnessPolicy {
    /// The witnesses' cosignature keys (`name+id+key` vkeys). Empty: the server's witnesses.
    pub witnesses: Vec<VerifierKey>,
    /// How many of them must have cosigned; `None`: all of the player's witnesses, or the
    /// server's quorum (at least one) when the player named none.
    pub quorum: Option<usize>,
}

impl WitnessPolicy {
    /// The checkpoint policy for the log `log`, given what the server announces of its own
    /// witnesses at `/api/ledger` (`witness_policy`).
    pub fn resolve(&self, log: VerifierKey, announced: Option<&Value>) -> Policy {
        if !self.witnesses.is_empty() {
            let quorum = self.quorum.unwrap_or(self.witnesses.len());
            return Policy { log, witnesses: self.witnesses.clone(), quorum };
        }
        let witnesses: Vec<VerifierKey> = announced
            .and_then(|p| p.get("witnesses"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|w| w.get("vkey").and_then(Value::as_str))
            .filter_map(|k| VerifierKey::parse(k).ok())
            .collect();
        let announced_quorum = announced
            .and_then(|p| p.get("quorum"))
            .and_then(Value::as_u64)
            .and_then(|q| usize::try_from(q).ok())
            .unwrap_or(0);
        // A reader wants at least one witness: a log no witness saw can show each reader its
        // own history, so "no witness" is reported as short, never as fine.
        let quorum = self.quorum.unwrap_or(announced_quorum.max(1));
        Policy { log, witnesses, quorum }
    }
}

/// What became of a finished match's inclusion promise, as this agent saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromiseStatus {
    /// Still waiting for the promise or the proof.
    Waiting,
    /// The server keeps no ledger (it answered 404 for the promise).
    NoLedger,
    /// The server gave no valid promise for this record; why.
    Refused(String),
    /// The promise is kept: the log's inclusion proof verifies for the promised record.
    /// `witnessed` is `Ok(n)` with the number of the policy's witnesses that cosigned the proof's
    /// checkpoint, or `Err(why)` when fewer than the policy wants did (the warning shown).
    Kept {
        /// The policy's cosignature count, or the warning.
        witnessed: Result<usize, String>,
    },
    /// The log's proof does not prove the promised record.
    NotProven,
    /// The promised time passed (this machine's clock) with no inclusion.
    Broken,
}

/// Reads a verified proof's checkpoint through `policy`: `Ok(cosigners)` or the warning text.
pub fn witnessed(proof: &TlogProof, policy: &Policy) -> Result<usize, String> {
    match policy.verify(&proof.checkpoint) {
        Ok(trusted) => Ok(trusted.cosigners.len()),
        Err(e @ CheckpointError::Quorum { .. }) if policy.witnesses.is_empty() => Err(format!(
            "the log's checkpoint names no witness this player trusts ({e}): the log could be \
             showing this player a history nobody else sees"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Where the agent notes each finished match's [`PromiseStatus`].
pub type PromiseBook = Arc<Mutex<BTreeMap<MatchId, PromiseStatus>>>;

fn note(book: &PromiseBook, id: MatchId, status: PromiseStatus) {
    book.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, status);
}

/// Fetches the host's signed inclusion promise for a match this agent finished, checks it
/// (signed by the log key the server announces at `/api/ledger`, for this record), saves it as
/// `<id>.promise`, then waits for the log's inclusion proof and checks it, and its checkpoint's
/// cosignatures under the player's [`WitnessPolicy`]; a promise the log does not keep by its
/// deadline (this machine's clock) is logged as a warning naming the log, with the file to give
/// `fogproof ledger check-promise`. Each outcome is noted in `book`. Best effort: it ends with
/// the process.
pub async fn keep_promise(
    session: Session,
    dir: PathBuf,
    id: MatchId,
    record: Vec<u8>,
    witnesses: WitnessPolicy,
    book: PromiseBook,
) {
    use ledger::promise::Promise;
    let hex = protocol::hex::encode(&id.0);
    note(&book, id, PromiseStatus::Waiting);
    let refused = |why: &str| {
        tracing::warn!(match_id = %hex, "{why}");
        note(&book, id, PromiseStatus::Refused(why.to_owned()));
    };
    let mut got = None;
    for _ in 0..PROMISE_TRIES {
        match session.get_bytes(&format!("/api/match/{hex}/promise")).await {
            Ok(bytes) => {
                got = Some(bytes);
                break;
            }
            Err(NetError::Refused { status: 404, .. }) => {
                note(&book, id, PromiseStatus::NoLedger);
                return;
            }
            Err(e) => tracing::debug!(error = %e, "inclusion promise not available yet"),
        }
        tokio::time::sleep(Duration::from_millis(PROMISE_POLL_MS)).await;
    }
    let Some(bytes) = got else {
        return refused("the host gave no inclusion promise for this match");
    };
    let ledger_info = session.get("/api/ledger").await.ok();
    let Some(key) = ledger_info.as_ref().and_then(|v| {
        v.get("vkey").and_then(Value::as_str).and_then(|k| VerifierKey::parse(k).ok())
    }) else {
        return refused("the host names no log key: promise not checked");
    };
    let promise = match Promise::verify(&bytes, &key) {
        Ok(p) => p,
        Err(e) => return refused(&format!("the host's inclusion promise is not valid: {e}")),
    };
    if promise.match_id != id.0 || promise.record_sha256 != ledger::entry::sha256(&record) {
        return refused("the host's inclusion promise is for another match or record");
    }
    let path = promise_path(&dir, &id);
    let tmp = path.with_extension("promise.tmp");
    let saved = tokio::fs::write(&tmp, &bytes).await.and(tokio::fs::rename(&tmp, &path).await);
    if let Err(e) = saved {
        tracing::warn!(path = %path.display(), error = %e, "cannot save the inclusion promise");
    }
    let policy =
        witnesses.resolve(key.clone(), ledger_info.as_ref().and_then(|v| v.get("witness_policy")));
    let log_only = Policy::log_only(key);
    let mut wait_ms = PROMISE_POLL_MS;
    loop {
        if let Ok(v) = session.get(&format!("/api/ledger/proof/{hex}")).await {
            let proof = v
                .get("tlog_proof")
                .and_then(Value::as_str)
                .and_then(|t| TlogProof::parse(t.as_bytes()).ok());
            let checked = proof.as_ref().map(|p| (p, p.verify(&log_only)));
            match checked {
                Some((proof, Ok((_, entry))))
                    if entry.as_match().is_some_and(|m| {
                        m.match_id == id.0 && m.record_sha256 == promise.record_sha256
                    }) =>
                {
                    let w = witnessed(proof, &policy);
                    match &w {
                        Ok(n) => tracing::info!(match_id = %hex, cosignatures = n,
                            "inclusion promise kept: the proof verifies"),
                        Err(why) => tracing::warn!(match_id = %hex,
                            "inclusion promise kept, but the checkpoint is short of this \
                             player's witness policy: {why}"),
                    }
                    note(&book, id, PromiseStatus::Kept { witnessed: w });
                    return;
                }
                _ => {
                    tracing::warn!(match_id = %hex, path = %path.display(),
                        "the log's inclusion proof does not prove the promised record");
                    note(&book, id, PromiseStatus::NotProven);
                    return;
                }
            }
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        if now > promise.include_by_ms {
            tracing::warn!(match_id = %hex, log = %promise.origin, path = %path.display(),
                "INCLUSION PROMISE BROKEN (by this machine's clock): the log has not included the \
                 match by the promised time; check it with `fogproof ledger check-promise`");
            note(&book, id, PromiseStatus::Broken);
            return;
        }
        tokio::time::sleep(Duration::from_millis(wait_ms)).await;
        wait_ms = (wait_ms * 2).min(PROMISE_MAX_POLL_MS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ledger::note::{KeyKind, SignerKey};
    use serde_json::json;

    fn key(name: &str, seed: u8, kind: KeyKind) -> SignerKey {
        SignerKey::from_seed(name, kind, [seed; 32]).expect("key")
    }

    #[test]
    fn the_players_own_witnesses_win_over_the_servers() {
        let log = key("log.test", 1, KeyKind::Ed25519).verifier().clone();
        let mine = key("mine.test", 2, KeyKind::Cosignature).verifier().clone();
        let theirs = key("theirs.test", 3, KeyKind::Cosignature).verifier().clone();
        let announced = json!({"quorum": 1, "witnesses": [{"vkey": theirs.to_string()}]});
        let own = WitnessPolicy { witnesses: vec![mine.clone()], quorum: None };
        let p = own.resolve(log.clone(), Some(&announced));
        assert_eq!((p.witnesses, p.quorum), (vec![mine], 1), "all of the player's own");
        let p = WitnessPolicy::default().resolve(log.clone(), Some(&announced));
        assert_eq!((p.witnesses, p.quorum), (vec![theirs], 1), "the server's");
        // A server announcing no witness (or quorum 0) still leaves the reader wanting one.
        let p = WitnessPolicy::default().resolve(log, Some(&json!({"quorum": 0, "witnesses": []})));
        assert_eq!((p.witnesses.len(), p.quorum), (0, 1));
    }
}
