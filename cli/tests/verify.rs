//! `fogproof verify`: exact output for a valid self-played record, a faulty one and an unreadable
//! one, in both formats, and the exit status of each case (0 valid, 1 a fault, 2 unreadable).

use protocol::message::Outcome;
use std::path::PathBuf;
use std::process::Command;

fn fogproof(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// A scratch directory of this test binary (one per test name: tests run in parallel).
fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fogproof-cli-verify-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// An honest self-played chess record, written to `dir`, with what the test expects of it.
struct Played {
    path: PathBuf,
    white: String,
    black: String,
    result: String,
    relay: String,
}

fn played(dir: &std::path::Path, name: &str, mangle: impl FnOnce(&mut Vec<u8>)) -> Played {
    let s =
        sim::selfplay::selfplay_with(sim::selfplay::SelfplayConfig::new(rules::Variant::Chess, 7))
            .expect("self-play");
    let colors = s.colors.expect("colors drawn");
    let claim = s.summary.result.expect("a result");
    let score = match claim.outcome {
        Outcome::WhiteWins => "1-0",
        Outcome::BlackWins => "0-1",
        Outcome::Draw => "1/2-1/2",
        Outcome::NoResult => "*",
    };
    let mut bytes = s.bytes;
    mangle(&mut bytes);
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write record");
    Played {
        path,
        white: colors.white.fingerprint(),
        black: colors.black.fingerprint(),
        result: format!("{score} {}", claim.reason),
        relay: s.cast.relay.public().fingerprint(),
    }
}

#[test]
fn valid_record_summary_and_exit_0() {
    let dir = scratch("valid");
    let p = played(&dir, "game.fpr", |_| {});
    let file = p.path.display().to_string();
    let (code, out, err) = fogproof(&["verify", &file]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out,
        format!(
            "{file}: valid\n  variant: chess (chess/fide)\n  white: {}\n  black: {}\n  result: {}\n",
            p.white, p.black, p.result
        )
    );
}

#[test]
fn valid_record_as_json() {
    let dir = scratch("json");
    let p = played(&dir, "game.fpr", |_| {});
    let file = p.path.display().to_string();
    let (code, out, _) = fogproof(&["verify", "--json", &file]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1, "one JSON object per record");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["status"], "valid");
    assert_eq!(v["file"], file);
    assert_eq!(v["variant"], "chess");
    assert_eq!(v["white"]["fingerprint"], p.white);
    assert_eq!(v["black"]["fingerprint"], p.black);
    assert_eq!(
        format!(
            "{} {}",
            v["result"]["score"].as_str().unwrap(),
            v["result"]["reason"].as_str().unwrap()
        ),
        p.result
    );
    assert_eq!(v["faults"], serde_json::json!([]));
}

#[test]
fn faulty_record_summary_and_exit_1() {
    // The last receipt's signature is broken: the record's fault, which voids the game.
    let dir = scratch("faulty");
    let p = played(&dir, "bad.fpr", |b| {
        let n = b.len();
        // The record ends with the last entry's frame, whose last bytes are the last receipt's
        // signature (chess has no disclosures): flip a bit of its `s`.
        b[n - 1] ^= 1;
    });
    let file = p.path.display().to_string();
    let (code, out, err) = fogproof(&["verify", &file]);
    assert_eq!((code, err.as_str()), (1, ""), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{file}: 1 fault"));
    assert_eq!(lines[1], "  variant: chess (chess/fide)");
    assert_eq!(lines[2], format!("  white: {}", p.white));
    assert_eq!(lines[3], format!("  black: {}", p.black));
    assert!(lines[4].starts_with("  fault 1: bad-receipt by the record (entry "), "{out}");
    assert!(lines[5].starts_with("    Entry ") && lines[5].ends_with("is not signed by the relay the terms name: the message was never shown to be accepted."), "{out}");
    assert!(
        lines[6].starts_with("    evidence: receipt signature does not verify under relay"),
        "{out}"
    );
    assert_eq!(lines[7], "  sanction: void");
    assert_eq!(lines.len(), 8, "{out}");
    let _ = p.relay;
}

#[test]
fn unreadable_inputs_exit_2_and_the_worst_status_wins() {
    let dir = scratch("unreadable");
    let p = played(&dir, "game.fpr", |_| {});
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello\n").expect("write");
    let missing = dir.join("missing.fpr");
    let (good, text, missing) =
        (p.path.display().to_string(), text.display().to_string(), missing.display().to_string());

    let (code, out, _) = fogproof(&["verify", &text]);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        format!(
            "{text}: unreadable: not a fogproof match record: the first byte is 0x68, not the \
             record version 0x03\n"
        )
    );
    let (code, out, _) = fogproof(&["verify", &missing]);
    assert_eq!(code, 2);
    assert_eq!(out, format!("{missing}: unreadable: No such file or directory (os error 2)\n"));

    // Several files: one report each, in order; the status is the worst of them.
    let (code, out, err) = fogproof(&["verify", "--json", &good, &missing]);
    assert_eq!((code, err.as_str()), (2, ""), "no progress bar when stderr is not a terminal");
    let v: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["status"], "valid");
    assert_eq!(v[1]["status"], "unreadable");
    assert_eq!(v[1]["error"], "No such file or directory (os error 2)");
}

#[test]
fn no_file_is_a_usage_error() {
    let (code, _, err) = fogproof(&["verify"]);
    assert_eq!(code, 2);
    assert!(err.contains("FILES"), "{err}");
}

#[test]
fn evidence_of_a_forked_log_convicts_the_relay() {
    use protocol::codec::Canonical;
    use protocol::message::SignedReceipt;
    use protocol::record::MatchRecord;
    let dir = scratch("evidence");
    let s =
        sim::selfplay::selfplay_with(sim::selfplay::SelfplayConfig::new(rules::Variant::Chess, 7))
            .expect("self-play");
    // The relay's second log: the same last message, receipted at another time (so another
    // head) at the same position, as a relay showing one player a different history would.
    let relay = &s.cast.relay;
    let mut other = s.record.clone();
    let last = other.entries.last_mut().expect("entries");
    let mut r = last.receipt.open(&relay.public()).expect("receipt");
    r.time_ms += 1;
    // The channel's head before it: its previous entry's on the same channel.
    let before = other.entries[..other.entries.len() - 1]
        .iter()
        .map(|e| e.receipt.open(&relay.public()).unwrap())
        .rfind(|p| p.channel == r.channel)
        .map_or_else(|| protocol::message::genesis_head(&r.match_id, r.channel), |p| p.head);
    r.head = protocol::message::next_head(&before, r.position, r.time_ms, &r.message);
    other.entries.last_mut().unwrap().receipt = SignedReceipt::sign(&r, relay);
    let (a, b) = (dir.join("a.fpr"), dir.join("b.fpr"));
    std::fs::write(&a, s.record.to_canonical()).unwrap();
    std::fs::write(&b, MatchRecord::to_canonical(&other)).unwrap();
    let e = dir.join("fork.evidence");
    let args = |x: &std::path::Path, y: &std::path::Path, out: &std::path::Path| {
        [
            "record",
            "evidence",
            x.to_str().unwrap(),
            y.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_owned)
    };
    let made = fogproof(&args(&a, &b, &e).each_ref().map(String::as_str));
    assert_eq!(made.0, 0, "{made:?}");
    let (code, out, _) = fogproof(&["verify", "--evidence", e.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let relay_fp = relay.public().fingerprint();
    assert!(out.contains("relay fault: equivocation") && out.contains(&relay_fp), "{out}");
    let place = format!("position {} of the {} channel", r.position, r.channel);
    assert!(out.contains(&format!("two different entries signed for {place}")), "{out}");
    // The same log twice shows nothing; a record is not evidence.
    let none = dir.join("none.evidence");
    let same = fogproof(&args(&a, &a, &none).each_ref().map(String::as_str));
    assert_eq!(same.0, 2, "{same:?}");
    assert!(same.2.contains("no contradiction"), "{same:?}");
    let (code, out, _) = fogproof(&["verify", "--evidence", a.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("proves nothing"), "{out}");
}

#[test]
fn many_files_on_several_cores_report_in_the_order_given() {
    let dir = scratch("jobs");
    let good = played(&dir, "good.fpr", |_| {});
    let bad = played(&dir, "bad.fpr", |b| {
        let n = b.len();
        b[n - 1] ^= 1;
    });
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello\n").expect("write");
    let (good, bad, text) = (
        good.path.display().to_string(),
        bad.path.display().to_string(),
        text.display().to_string(),
    );
    // Twenty files, the faulty and unreadable ones in the middle.
    let mut files: Vec<&str> = vec![good.as_str(); 20];
    files[7] = &bad;
    files[12] = &text;
    let run = |jobs: &str| {
        let mut args = vec!["verify", "--json", "--jobs", jobs];
        args.extend(&files);
        fogproof(&args)
    };
    let (code, one, _) = run("1");
    assert_eq!(code, 2, "the worst status");
    let statuses: Vec<String> = one
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["status"].to_string())
        .collect();
    assert_eq!(statuses.len(), 20);
    assert_eq!(statuses[7], "\"faults\"");
    assert_eq!(statuses[12], "\"unreadable\"");
    assert!(statuses.iter().enumerate().all(|(i, s)| i == 7 || i == 12 || s == "\"valid\""));
    for jobs in ["2", "4", "32"] {
        assert_eq!(run(jobs), (2, one.clone(), String::new()), "--jobs {jobs}");
    }
    let (code, _, err) = fogproof(&["verify", "--jobs", "0", &good]);
    assert_eq!(code, 2);
    assert!(err.contains("--jobs"), "{err}");
}
