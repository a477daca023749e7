//! A second, independent client reads a log: `tests/data/c2sp_client.py` (Python, OpenSSL's
//! Ed25519 through the `cryptography` package, written from the C2SP texts, sharing no code with
//! this crate) checks the log's signature and the witnesses' cosignatures on the checkpoint,
//! re-hashes every entry bundle and tile, recomputes the root, and checks a tlog-proof. It must
//! accept the log as written and refuse it once a cosignature, a tile or the proof is changed.

use ledger::log::{LogWriter, TileNodes};
use ledger::note::{KeyKind, Note, SignerKey};
use ledger::proof::TlogProof;
use ledger::store::DirReader;
use ledger::witness::{Witness, request_body};
use std::path::Path;
use std::process::Command;

fn client(
    dir: &Path,
    proof: &Path,
    log: &str,
    quorum: usize,
    witnesses: &[String],
) -> (bool, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/c2sp_client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(dir)
        .arg(proof)
        .arg(log)
        .arg(quorum.to_string())
        .args(witnesses)
        .output()
        .expect("python3 runs (with the cryptography package, as on every fogproof machine)");
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string()
        + &String::from_utf8_lossy(&out.stderr);
    (out.status.success() && said.starts_with("OK"), said)
}

#[test]
fn an_independent_client_accepts_the_log_and_refuses_tampering() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("log");
    let key = SignerKey::from_seed("ledger.example/py", KeyKind::Ed25519, [61; 32]).unwrap();
    let log_vkey = key.verifier().to_string();
    let mut log = LogWriter::create(&dir, key).unwrap();
    // 70,000 entries: full and partial tiles at levels 0 and 1, a partial one at level 2.
    let entries: Vec<Vec<u8>> = (0..70_000u32).map(|i| format!("entry {i}").into_bytes()).collect();
    log.append(&entries[..1_000], &[]).unwrap();
    log.append(&entries[1_000..], &[]).unwrap();
    let witnesses: Vec<SignerKey> = (1..=2u8)
        .map(|n| {
            SignerKey::from_seed(&format!("witness{n}.example"), KeyKind::Cosignature, [70 + n; 32])
                .unwrap()
        })
        .collect();
    let wvkeys: Vec<String> = witnesses.iter().map(|w| w.verifier().to_string()).collect();
    for (n, w) in witnesses.iter().enumerate() {
        let state = t.path().join(format!("w{n}"));
        let witness = Witness::new(&state, w.clone(), vec![log.key().verifier().clone()]).unwrap();
        let line = witness
            .add_checkpoint(request_body(0, &[], log.checkpoint()).as_bytes(), 1_700_000_000)
            .unwrap();
        let sig = ledger::note::NoteSignature::parse_line(line.trim_end()).unwrap();
        log.add_signatures(Note {
            text: log.checkpoint().note.text.clone(),
            signatures: vec![sig],
        })
        .unwrap();
    }
    let size = log.checkpoint().checkpoint.size;
    let index = 65_537;
    let reader = DirReader::new(&dir);
    let proof = TlogProof {
        extra: Some(entries[index as usize].clone()),
        index,
        proof: ledger::merkle::prove_inclusion(&TileNodes::new(&reader, size), index, size)
            .unwrap(),
        checkpoint: log.checkpoint().clone(),
    };
    let proof_file = t.path().join("entry.tlog-proof");
    std::fs::write(&proof_file, proof.to_text()).unwrap();

    let (ok, said) = client(&dir, &proof_file, &log_vkey, 2, &wvkeys);
    assert!(ok, "{said}");
    assert_eq!(said, "OK size 70000, 2 cosignature(s), entry 65537 proven");

    // A cosignature changed: refused.
    let cp = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    let last = cp.trim_end().rsplit('\n').next().unwrap().to_string();
    let flipped = last.replacen(
        &last[last.len() - 6..last.len() - 5],
        if &last[last.len() - 6..last.len() - 5] == "A" { "B" } else { "A" },
        1,
    );
    let (ok, said) = {
        std::fs::write(dir.join("checkpoint"), cp.replace(&last, &flipped)).unwrap();
        client(&dir, &proof_file, &log_vkey, 2, &wvkeys)
    };
    assert!(!ok, "a changed cosignature was accepted: {said}");
    std::fs::write(dir.join("checkpoint"), &cp).unwrap();
    // One witness is not a quorum of two when the other's cosignature is gone.
    std::fs::write(dir.join("checkpoint"), cp.replace(&format!("{last}\n"), "")).unwrap();
    assert!(!client(&dir, &proof_file, &log_vkey, 2, &wvkeys).0);
    std::fs::write(dir.join("checkpoint"), &cp).unwrap();

    // A level-1 tile changed: refused.
    let tile = dir.join("tile/1/000");
    let bytes = std::fs::read(&tile).unwrap();
    let mut bad = bytes.clone();
    bad[100] ^= 1;
    std::fs::write(&tile, &bad).unwrap();
    let (ok, said) = client(&dir, &proof_file, &log_vkey, 2, &wvkeys);
    assert!(!ok && said.contains("tile 1/0"), "{said}");
    std::fs::write(&tile, &bytes).unwrap();

    // The proof for another entry's bytes: refused.
    let other = proof.to_text().replacen(
        &format!(
            "extra {}",
            <base64ct::Base64 as base64ct::Encoding>::encode_string(&entries[index as usize])
        ),
        &format!("extra {}", <base64ct::Base64 as base64ct::Encoding>::encode_string(&entries[7])),
        1,
    );
    std::fs::write(&proof_file, other).unwrap();
    let (ok, said) = client(&dir, &proof_file, &log_vkey, 2, &wvkeys);
    assert!(!ok && said.contains("inclusion proof"), "{said}");
}
