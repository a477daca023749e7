//! Known-answer tests: every file of the transparency-dev Merkle proof vectors
//! (copied from `shared/vectors/` into `ledger/tests/data/transparency-dev-merkle`, Apache-2.0, with
//! its LICENSE: inclusion, consistency, subtree inclusion,
//! subtree consistency), positive and negative, through `ledger::merkle`.
//!
//! A hash here is `[u8; 32]`. A few negative vectors give a root, a leaf or a proof element that
//! is not 32 bytes long (the empty string, or `don't care`): a proof element of another length
//! makes the proof unreadable, and so does a leaf hash of another length: both are rejections (the
//! reference rejects them too). A root of another length is mapped
//! to 32 bytes by SHA-256 (injective for our purpose: equal strings stay equal, different ones
//! differ), so the vectors that only ask "are these two roots equal" still ask it.

use ledger::merkle::{self, Hash};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/transparency-dev-merkle/testdata")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn b64(v: &Value) -> Vec<u8> {
    use base64ct::{Base64, Encoding};
    let s = v.as_str().expect("a base64 string");
    Base64::decode_vec(s).unwrap_or_else(|e| panic!("bad base64 {s:?}: {e}"))
}

/// A leaf hash: `None` when it is not 32 bytes (unreadable, so refused).
fn leaf(v: &Value) -> Option<Hash> {
    <[u8; 32]>::try_from(b64(v).as_slice()).ok()
}

/// A root hash: 32 bytes as given, anything else mapped (see the module docs).
fn hash(v: &Value) -> Hash {
    let bytes = b64(v);
    match <[u8; 32]>::try_from(bytes.as_slice()) {
        Ok(h) => h,
        Err(_) => {
            let mut h = Sha256::new();
            h.update(b"not-a-32-byte-hash:");
            h.update(&bytes);
            h.finalize().into()
        }
    }
}

/// A proof: `None` when an element is not 32 bytes (unreadable, so refused).
fn proof(v: &Value) -> Option<Vec<Hash>> {
    match v {
        Value::Null => Some(Vec::new()),
        Value::Array(items) => {
            items.iter().map(|i| <[u8; 32]>::try_from(b64(i).as_slice()).ok()).collect()
        }
        other => panic!("proof is neither null nor a list: {other}"),
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().expect("an unsigned integer")
}

/// Runs one vector; `Ok` when the verifier accepted it.
fn run(kind: &str, v: &Value) -> Result<(), String> {
    let Some(p) = proof(&v["proof"]) else { return Err("unreadable proof element".into()) };
    let leaf = || leaf(&v["leafHash"]).ok_or_else(|| "unreadable leaf hash".to_string());
    match kind {
        "inclusion" => merkle::verify_inclusion(
            u(&v["leafIdx"]),
            u(&v["treeSize"]),
            &leaf()?,
            &p,
            &hash(&v["root"]),
        )
        .map_err(|e| e.to_string()),
        "consistency" => merkle::verify_consistency(
            u(&v["size1"]),
            u(&v["size2"]),
            &p,
            &hash(&v["root1"]),
            &hash(&v["root2"]),
        )
        .map_err(|e| e.to_string()),
        "subtreeinclusion" => merkle::verify_subtree_inclusion(
            u(&v["leafIdx"]),
            u(&v["start"]),
            u(&v["end"]),
            &leaf()?,
            &p,
            &hash(&v["root"]),
        )
        .map_err(|e| e.to_string()),
        "subtreeconsistency" => merkle::verify_subtree_consistency(
            u(&v["start"]),
            u(&v["end"]),
            u(&v["size"]),
            &p,
            &hash(&v["root1"]),
            &hash(&v["root2"]),
        )
        .map_err(|e| e.to_string()),
        other => panic!("unknown vector kind {other}"),
    }
}

#[test]
fn every_vector_file_gives_its_answer() {
    let root = testdata();
    let mut total = 0;
    let mut failures = Vec::new();
    for kind in ["inclusion", "consistency", "subtreeinclusion", "subtreeconsistency"] {
        let mut all = Vec::new();
        files(&root.join(kind), &mut all);
        assert!(all.len() > 90, "{kind}: only {} vector files found", all.len());
        let (mut positive, mut negative) = (0, 0);
        for file in &all {
            let text = std::fs::read_to_string(file).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            let want_err = v["wantErr"].as_bool().expect("wantErr");
            let got = run(kind, &v);
            if want_err {
                negative += 1
            } else {
                positive += 1
            }
            if got.is_err() != want_err {
                failures.push(format!("{}: want error {want_err}, got {got:?}", file.display()));
            }
            total += 1;
        }
        eprintln!("{kind}: {positive} positive and {negative} negative vectors");
    }
    assert!(
        failures.is_empty(),
        "{} of {total} vectors disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(total, 518, "every vector file is run");
}
