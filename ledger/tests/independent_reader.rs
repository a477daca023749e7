//! The independent reader of docs/LEDGER.md's specification, run against the code.
//!
//! `ledger/tests/oracle/ledger_reader.py` and `test_vectors.py` were written from the document
//! alone (S1 to S10 and the test vectors), in Python, by someone who did not read the code. This
//! test builds the spec example bundle (`ledger/examples/spec_bundle.rs`) in a temporary
//! directory and runs the reader on it: it must recompute `pairings.json`, `standings.json` and
//! `ratings.json` byte for byte and pass every check; then on tampered copies it must fail and
//! name the tampered file. `test_vectors.py` must pass every vector of the document.
//!
//! Needs `python3` with the `cryptography` package (`python3 -m pip install --user
//! cryptography`, as `.ci/run` and the README's test command do); without them the test fails
//! and says so.

#[path = "../examples/spec_bundle.rs"]
mod spec_bundle;

use base64ct::{Base64, Encoding};
use std::path::{Path, PathBuf};
use std::process::Command;

const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle");

/// What a Python script did: its exit status and its stdout and stderr together.
struct Run {
    ok: bool,
    out: String,
}

fn python(args: &[&std::ffi::OsStr]) -> Run {
    let output = Command::new("python3")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 ({e}): this test runs the independent Python reader of \
             docs/LEDGER.md; install Python 3 and `python3 -m pip install --user cryptography`"
            )
        });
    let mut out = String::from_utf8_lossy(&output.stdout).into_owned();
    out.push_str(&String::from_utf8_lossy(&output.stderr));
    if out.contains("No module named 'cryptography'") {
        panic!(
            "the independent reader needs the `cryptography` package: \
             `python3 -m pip install --user cryptography`\n{out}"
        );
    }
    Run { ok: output.status.success(), out }
}

fn reader(bundle: &Path, vkey: &str) -> Run {
    let script = PathBuf::from(ORACLE).join("ledger_reader.py");
    python(&[script.as_os_str(), bundle.as_os_str(), "--log-key".as_ref(), vkey.as_ref()])
}

/// Asserts that the run passed everything: exit 0, and a last line `N passed, 0 failed` with
/// N > 0.
fn assert_all_passed(what: &str, run: &Run) {
    let last = run.out.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    let passed =
        last.strip_suffix(" passed, 0 failed").and_then(|n| n.parse::<u32>().ok()).unwrap_or_else(
            || panic!("{what}: the last line is not `N passed, 0 failed`:\n{}", run.out),
        );
    assert!(passed > 0, "{what}: nothing was checked:\n{}", run.out);
    assert!(run.ok, "{what}: exit status not 0:\n{}", run.out);
}

/// Asserts that the run failed and that a `FAIL` line names `file`.
fn assert_names(what: &str, run: &Run, file: &str) {
    assert!(!run.ok, "{what}: the reader accepted the tampered bundle:\n{}", run.out);
    let last = run.out.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(
        last.ends_with(" failed") && !last.ends_with(" 0 failed"),
        "{what}: no failure count at the end:\n{}",
        run.out
    );
    assert!(
        run.out.lines().any(|l| l.starts_with("FAIL") && l.contains(file)),
        "{what}: no FAIL line names {file}:\n{}",
        run.out
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The leaf indices of the entries that gave the games' results, from `pairings.json`.
fn result_entries(bundle: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(bundle.join("pairings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["games"].as_array().unwrap().iter().filter_map(|g| g["entry"].as_u64()))
        .collect()
}

#[test]
fn the_reader_recomputes_the_spec_bundle_and_names_each_tampered_file() {
    let dir = tempfile::tempdir().unwrap();
    let vkey = spec_bundle::build(dir.path()).expect("the spec bundle builds and verifies");
    let bundle = dir.path().join("bundle");
    assert_all_passed("the spec bundle", &reader(&bundle, &vkey));

    let entries = result_entries(&bundle);
    let (first, last) = (entries[0], *entries.last().unwrap());
    assert_ne!(first, last, "the spec bundle has several result entries: {entries:?}");

    // A digit of standings.json.
    let t = dir.path().join("standings");
    copy_dir(&bundle, &t);
    let text = std::fs::read_to_string(t.join("standings.json")).unwrap();
    let at = text.find("\"value\": ").expect("a tie-break value") + "\"value\": ".len();
    let digit = text.as_bytes()[at];
    assert!(digit.is_ascii_digit(), "{text}");
    let other = if digit == b'9' { '1' } else { char::from(digit + 1) };
    let tampered = format!("{}{other}{}", &text[..at], &text[at + 1..]);
    std::fs::write(t.join("standings.json"), tampered).unwrap();
    assert_names("a digit of standings.json", &reader(&t, &vkey), "standings.json");

    // One byte of an entry, in its proof's `extra` line.
    let t = dir.path().join("entry");
    copy_dir(&bundle, &t);
    let name = format!("proofs/{first}.tlog-proof");
    let proof = std::fs::read_to_string(t.join(&name)).unwrap();
    let line = proof.lines().find(|l| l.starts_with("extra ")).expect("an extra line");
    let mut entry = Base64::decode_vec(&line["extra ".len()..]).unwrap();
    let last_byte = entry.len() - 1;
    entry[last_byte] ^= 0x01;
    let proof = proof.replacen(line, &format!("extra {}", Base64::encode_string(&entry)), 1);
    std::fs::write(t.join(&name), proof).unwrap();
    assert_names("one byte of an entry", &reader(&t, &vkey), &name);

    // A removed proof.
    let t = dir.path().join("removed");
    copy_dir(&bundle, &t);
    let name = format!("proofs/{last}.tlog-proof");
    std::fs::remove_file(t.join(&name)).unwrap();
    assert_names("a removed proof", &reader(&t, &vkey), &name);
}

#[test]
fn the_reader_passes_every_test_vector_of_the_document() {
    let script = PathBuf::from(ORACLE).join("test_vectors.py");
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/LEDGER.md");
    assert_all_passed("test_vectors.py", &python(&[script.as_os_str(), doc.as_os_str()]));
}
