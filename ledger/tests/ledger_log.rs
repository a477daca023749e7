//! The ledger end to end on self-played records: verified batched appends, proofs a reader
//! checks under its policy, refusals that leave the log as it was, reopening, witnesses
//! (cosigning, conflicts, forks kept as evidence) and audits that name what is wrong.

use ledger::audit::audit;
use ledger::checkpoint::Policy;
use ledger::entry::{EntryBody, sha256};
use ledger::merkle;
use ledger::note::{KeyKind, SignerKey};
use ledger::store::DirReader;
use ledger::witness::{Witness, WitnessError};
use ledger::{AppendError, Ledger, Submission};
use rules::Variant;
use std::path::Path;

fn log_key() -> SignerKey {
    SignerKey::from_seed("ledger.fogproof.example/test", KeyKind::Ed25519, [11; 32]).unwrap()
}

fn witness_key(n: u8) -> SignerKey {
    SignerKey::from_seed(&format!("witness{n}.example"), KeyKind::Cosignature, [20 + n; 32])
        .unwrap()
}

fn record(seed: u64) -> Vec<u8> {
    let variant = [Variant::Espionage, Variant::Chess, Variant::SecretChess6][seed as usize % 3];
    sim::selfplay(variant, seed).unwrap().0
}

fn submission(seed: u64) -> Submission {
    Submission::Match { record: record(seed), tournament: None }
}

fn checkpoint_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("checkpoint")).unwrap()
}

#[test]
fn appended_matches_are_proven_and_audited() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    let batch: Vec<Submission> = (1..=5).map(submission).collect();
    let cp = ledger.append(&batch).unwrap().clone();
    assert_eq!(cp.checkpoint.size, 5);
    ledger.append(&[submission(6)]).unwrap();
    let policy = Policy::log_only(ledger.verifier_key().clone());

    // Every match has a proof a reader accepts, naming its record's hash.
    for seed in 1..=6 {
        let bytes = record(seed);
        let vm = verifier::verify_match(&bytes);
        let id = vm.match_id.unwrap().0;
        let proof = ledger.prove(&id).unwrap();
        let reparsed = ledger::proof::TlogProof::parse(proof.to_text().as_bytes()).unwrap();
        let (trusted, entry) = reparsed.verify(&policy).unwrap();
        assert_eq!(trusted.signed.checkpoint.size, 6);
        let EntryBody::Match(m) = entry.body else { panic!("not a match entry") };
        assert_eq!(m.record_sha256, sha256(&bytes));
        assert_eq!(m.result, vm.result);
    }

    // Reopening replays the same tables.
    let reopened = Ledger::open(dir.path(), log_key()).unwrap();
    assert_eq!(reopened.checkpoint(), ledger.checkpoint());
    assert_eq!(reopened.history().rated_games(), ledger.history().rated_games());
    assert_eq!(ledger.history().rated_games(), 6);

    // An audit from the directory alone agrees, on several threads or one.
    let report = audit(&DirReader::new(dir.path()), &policy, &|_| {}).unwrap();
    assert_eq!((report.matches, report.findings.len()), (6, 0));
}

#[test]
fn refused_batches_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    ledger.append(&[submission(1)]).unwrap();
    let before = checkpoint_bytes(dir.path());

    // A record whose terms cannot be read names no match: the whole batch is refused.
    let garbage = Submission::Match { record: b"not a record".to_vec(), tournament: None };
    let err = ledger.append(&[submission(2), garbage]).unwrap_err();
    assert!(matches!(err, AppendError::Refused { index: 1, .. }), "{err}");

    // The same match twice, in the log or in the batch.
    let err = ledger.append(&[submission(1)]).unwrap_err();
    assert!(matches!(err, AppendError::Inconsistent { index: 0, .. }), "{err}");
    let err = ledger.append(&[submission(3), submission(3)]).unwrap_err();
    assert!(matches!(err, AppendError::Inconsistent { index: 1, .. }), "{err}");

    assert_eq!(checkpoint_bytes(dir.path()), before);
    assert_eq!(Ledger::open(dir.path(), log_key()).unwrap().checkpoint().checkpoint.size, 1);
}

#[test]
fn a_record_with_faults_is_logged_with_its_culprit() {
    // A relay that drops a message: the verdict names a fault, and the ledger keeps it.
    let mut config = sim::SelfplayConfig::new(Variant::Espionage, 5);
    let mut n = 0;
    config.wire = Some(Box::new(move |_w| {
        n += 1;
        if n == 12 { sim::Fate::Drop } else { sim::Fate::Send }
    }));
    let played = sim::selfplay_with(config).unwrap();
    let vm = verifier::verify_match(&played.bytes);
    assert!(!vm.verdict.is_valid(), "the dropped message must be a fault");
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    ledger.append(&[Submission::Match { record: played.bytes.clone(), tournament: None }]).unwrap();
    let proof = ledger.prove(&vm.match_id.unwrap().0).unwrap();
    let (_, entry) = proof.verify(&Policy::log_only(ledger.verifier_key().clone())).unwrap();
    let EntryBody::Match(m) = entry.body else { panic!("not a match entry") };
    match m.verdict {
        ledger::entry::EntryVerdict::Faults { faults, total } => {
            assert_eq!(total as usize, vm.verdict.faults().len());
            assert_eq!(faults[0].kind, vm.verdict.faults()[0].kind);
            assert_eq!(faults[0].culprit, vm.verdict.faults()[0].culprit);
        }
        ledger::entry::EntryVerdict::Valid => panic!("logged as valid"),
    }
}

#[test]
fn audits_name_what_was_tampered_with() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    ledger.append(&(1..=3).map(submission).collect::<Vec<_>>()).unwrap();
    let policy = Policy::log_only(ledger.verifier_key().clone());
    let reader = DirReader::new(dir.path());

    // A stored record replaced by another record: a finding naming the entry.
    let first = record(1);
    let path = dir.path().join(ledger::store::record_path(&sha256(&first)));
    std::fs::write(&path, record(4)).unwrap();
    let report = audit(&reader, &policy, &|_| {}).unwrap();
    assert_eq!(report.findings.len(), 1);
    assert_eq!(report.findings[0].index, 0);
    assert!(report.findings[0].what.contains("SHA-256"), "{:?}", report.findings);
    std::fs::write(&path, &first).unwrap();

    // A changed tile: the audit stops, naming it.
    let tile = dir.path().join("tile/0/000.p/3");
    let mut bytes = std::fs::read(&tile).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&tile, &bytes).unwrap();
    let err = audit(&reader, &policy, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("entry 1 does not hash"), "{err}");
    bytes[40] ^= 1;
    std::fs::write(&tile, &bytes).unwrap();

    // Another log key: the checkpoint is not trusted.
    let other =
        SignerKey::from_seed("ledger.fogproof.example/test", KeyKind::Ed25519, [12; 32]).unwrap();
    assert!(audit(&reader, &Policy::log_only(other.verifier().clone()), &|_| {}).is_err());
    audit(&reader, &policy, &|_| {}).unwrap();
}

#[test]
fn witnesses_cosign_consistent_checkpoints_and_keep_forks() {
    let dir = tempfile::tempdir().unwrap();
    let wdir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::create(dir.path(), log_key()).unwrap();
    let logs = vec![ledger.verifier_key().clone()];
    let w1 = Witness::new(wdir.path(), witness_key(1), logs.clone()).unwrap();
    let w2dir = tempfile::tempdir().unwrap();
    let w2 = Witness::new(w2dir.path(), witness_key(2), logs).unwrap();
    let policy = Policy {
        log: ledger.verifier_key().clone(),
        witnesses: vec![witness_key(1).verifier().clone(), witness_key(2).verifier().clone()],
        quorum: 2,
    };

    ledger.append(&[submission(1), submission(2)]).unwrap();
    for w in [&w1, &w2] {
        let line = w.add_checkpoint(ledger.witness_request(0).unwrap().as_bytes(), 1_000).unwrap();
        ledger.add_cosignatures(&line, &policy.witnesses).unwrap();
    }
    policy.verify(ledger.checkpoint()).unwrap();

    // A new checkpoint needs a proof from the size the witness cosigned.
    ledger.append(&[submission(3)]).unwrap();
    assert!(matches!(
        policy.verify(ledger.checkpoint()),
        Err(ledger::checkpoint::CheckpointError::Quorum { found: 0, .. })
    ));
    let stale =
        w1.add_checkpoint(ledger.witness_request(0).unwrap().as_bytes(), 1_001).unwrap_err();
    assert!(matches!(stale, WitnessError::Conflict { old: 0, last: 2 }), "{stale}");
    assert_eq!(stale.status(), 409);
    let line = w1.add_checkpoint(ledger.witness_request(2).unwrap().as_bytes(), 1_002).unwrap();
    ledger.add_cosignatures(&line, &policy.witnesses).unwrap();
    // One witness is not a quorum of two.
    assert!(policy.verify(ledger.checkpoint()).is_err());

    // A fork: the same key signs another log of the same size as w1's last checkpoint.
    let fork_dir = tempfile::tempdir().unwrap();
    let mut fork = Ledger::create(fork_dir.path(), log_key()).unwrap();
    fork.append(&[submission(1), submission(2), submission(4)]).unwrap();
    let err = w1.add_checkpoint(fork.witness_request(3).unwrap().as_bytes(), 1_003).unwrap_err();
    assert_eq!(err.status(), 422);
    let WitnessError::Unprocessable { evidence: Some(path), .. } = &err else { panic!("{err}") };
    let evidence = std::fs::read_to_string(path).unwrap();
    assert!(evidence.contains(&ledger.checkpoint().checkpoint.to_text()));
    assert!(evidence.contains(&fork.checkpoint().checkpoint.to_text()));
    // A longer fork with a made-up proof is refused too, and kept.
    fork.append(&[submission(5)]).unwrap();
    let mut body = fork.witness_request(3).unwrap();
    body = body.replacen("old 3\n", &format!("old 3\n{}\n", "A".repeat(43) + "="), 1);
    let err = w1.add_checkpoint(body.as_bytes(), 1_004).unwrap_err();
    assert_eq!(err.status(), 422, "{err}");
    // The witness still stands by the honest log's checkpoint.
    assert_eq!(
        w1.latest(&ledger.checkpoint().checkpoint.origin).unwrap().unwrap().checkpoint,
        ledger.checkpoint().checkpoint
    );

    // Unknown log: 404; a checkpoint not signed by the log: 403.
    let stranger = SignerKey::from_seed("stranger.example", KeyKind::Ed25519, [30; 32]).unwrap();
    let sdir = tempfile::tempdir().unwrap();
    let mut s = Ledger::create(sdir.path(), stranger).unwrap();
    s.append(&[submission(1)]).unwrap();
    assert_eq!(
        w1.add_checkpoint(s.witness_request(0).unwrap().as_bytes(), 1).unwrap_err().status(),
        404
    );
    let mut forged = ledger.checkpoint().clone();
    forged.note.signatures.retain(|s| s.name == "ledger.fogproof.example/test");
    forged.note.signatures[0].bytes[10] ^= 1;
    let body = ledger::witness::request_body(3, &[], &forged);
    assert_eq!(w1.add_checkpoint(body.as_bytes(), 1).unwrap_err().status(), 403);
}

#[test]
fn proofs_match_independent_implementations() {
    // The log's tiles read by tlog_tiles (a port of Go's sumdb/tlog) as a C2SP client would:
    // every tile authenticated against the checkpoint, the root and proofs recomputed.
    let dir = tempfile::tempdir().unwrap();
    let mut w = ledger::log::LogWriter::create(dir.path(), log_key()).unwrap();
    let entries: Vec<Vec<u8>> = (0..70_000u32).map(|i| format!("entry {i}").into_bytes()).collect();
    let mut sizes = Vec::new();
    for chunk in [1usize, 255, 1, 4_000, 65_743] {
        let start = sizes.last().copied().unwrap_or(0);
        w.append(&entries[start..start + chunk], &[]).unwrap();
        sizes.push(start + chunk);
    }
    let cp = w.checkpoint().checkpoint.clone();
    assert_eq!(cp.size, 70_000);

    struct Tiles<'a>(&'a Path);
    impl tlog_tiles::TileReader for Tiles<'_> {
        fn height(&self) -> u8 {
            8
        }
        fn read_tiles(
            &self,
            tiles: &[tlog_tiles::Tile],
        ) -> Result<Vec<Vec<u8>>, tlog_tiles::Error> {
            tiles
                .iter()
                .map(|t| {
                    let path =
                        ledger::store::tile_path(t.level(), t.level_index(), u64::from(t.width()));
                    std::fs::read(self.0.join(path)).map_err(|_| tlog_tiles::Error::InvalidTile)
                })
                .collect()
        }
        fn save_tiles(&self, _: &[tlog_tiles::Tile], _: &[Vec<u8>]) {}
    }
    let tiles = Tiles(dir.path());
    let reader = tlog_tiles::TileHashReader::new(cp.size, tlog_tiles::Hash(cp.root), &tiles);
    assert_eq!(tlog_tiles::tree_hash(cp.size, &reader).unwrap().0, cp.root);
    let ours = DirReader::new(dir.path());
    let nodes = ledger::log::TileNodes::new(&ours, cp.size);
    for i in [0u64, 1, 255, 256, 4_257, 65_535, 65_536, 69_999] {
        let theirs: Vec<[u8; 32]> = tlog_tiles::prove_record(cp.size, i, &reader)
            .unwrap()
            .into_iter()
            .map(|h| h.0)
            .collect();
        let mine = merkle::prove_inclusion(&nodes, i, cp.size).unwrap();
        assert_eq!(mine, theirs, "inclusion proof of {i}");
        let leaf = merkle::leaf_hash(&entries[i as usize]);
        tlog_tiles::check_record(
            &theirs.iter().map(|h| tlog_tiles::Hash(*h)).collect(),
            cp.size,
            tlog_tiles::Hash(cp.root),
            i,
            tlog_tiles::Hash(leaf),
        )
        .unwrap();
    }
    let mem = merkle::MemoryTree::new(entries.iter().map(|e| merkle::leaf_hash(e)).collect());
    for &old in &sizes {
        let old = old as u64;
        let old_root = merkle::root(&mem, old).unwrap();
        let theirs: Vec<[u8; 32]> = tlog_tiles::prove_tree(cp.size, old, &reader)
            .unwrap()
            .into_iter()
            .map(|h| h.0)
            .collect();
        let mine = merkle::prove_consistency(&nodes, old, cp.size).unwrap();
        assert_eq!(mine, theirs, "consistency proof from {old}");
        merkle::verify_consistency(old, cp.size, &mine, &old_root, &cp.root).unwrap();
    }

    // ct-merkle (RFC 6962 over an in-memory tree) agrees on roots and proofs of a smaller tree.
    let mut ct = ct_merkle::mem_backed_tree::MemoryBackedTree::<sha2::Sha256, Vec<u8>>::new();
    for e in &entries[..1_000] {
        ct.push(e.clone());
    }
    let small =
        merkle::MemoryTree::new(entries[..1_000].iter().map(|e| merkle::leaf_hash(e)).collect());
    assert_eq!(ct.root().as_bytes().as_slice(), merkle::root(&small, 1_000).unwrap());
    for i in [0usize, 7, 500, 999] {
        let mine = merkle::prove_inclusion(&small, i as u64, 1_000).unwrap();
        assert_eq!(ct.prove_inclusion(i).as_bytes(), mine.concat().as_slice());
        ct.root()
            .verify_inclusion(
                &entries[i],
                i as u64,
                &ct_merkle::InclusionProof::from_bytes(mine.concat()),
            )
            .unwrap();
    }
}
