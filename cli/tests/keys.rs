//! `fogproof keys new|show`: exact output, no secret printed, no overwrite.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("the binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// Writes a key file as its owner would keep it: readable by the owner only.
fn write_key(path: &PathBuf, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

/// The key of seed [0xa1; 32], as in protocol/tests/vectors.json.
const ALICE: &str = "fogproof-identity v1\n\
public-key: ed25519:bc7cbcb5636375fa1d82434d466724d92377f53b980695dd49d26d0ce12205a5\n\
secret-key: ed25519:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\n\
comment: alice\n";

#[test]
fn show_prints_public_parts_only() {
    let path = scratch("alice.key");
    write_key(&path, ALICE);
    let out = fogproof(&["keys", "show", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The fingerprint comes from the protocol's vector file, whose values
    // protocol/tests/vectors.rs recomputes independently. Seal keys are per match (derived
    // with the match's nonce), so a key file has none to show.
    let vectors: serde_json::Value =
        serde_json::from_str(include_str!("../../protocol/tests/vectors.json")).unwrap();
    let alice = &vectors["identities"][0];
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "public-key: ed25519:bc7cbcb5636375fa1d82434d466724d92377f53b980695dd49d26d0ce12205a5\n\
             fingerprint: {}\n\
             comment: alice\n",
            alice["fingerprint"].as_str().unwrap(),
        )
    );
}

#[test]
fn new_writes_a_key_file_and_refuses_to_overwrite() {
    let path = scratch("new.key");
    let p = path.to_str().unwrap();
    let out = fogproof(&["keys", "new", "--out", p, "--comment", "test key"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let secret = text.lines().nth(2).unwrap().strip_prefix("secret-key: ed25519:").unwrap();
    assert_eq!(secret.len(), 64);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains(secret), "the secret must never be printed");
    assert_eq!(stdout.lines().next(), Some(format!("wrote {p}").as_str()));
    // show agrees with what new printed.
    let shown = String::from_utf8(fogproof(&["keys", "show", p]).stdout).unwrap();
    assert_eq!(stdout.split_once('\n').unwrap().1, shown);
    assert!(shown.ends_with("comment: test key\n"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "key file readable by others: {mode:o}");
    }
    // A second `new` on the same path fails and leaves the file alone.
    let again = fogproof(&["keys", "new", "--out", p]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(again.stderr).unwrap(),
        format!("fogproof: refusing to overwrite existing file {p}\n")
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn show_names_what_is_wrong_with_a_bad_file() {
    let path = scratch("bad.key");
    let p = path.to_str().unwrap();
    write_key(&path, &ALICE.replace("public-key: ed25519:bc", "public-key: ed25519:cc"));
    let out = fogproof(&["keys", "show", p]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!("fogproof: bad key file {p}: key file's public key ")),
        "{err}"
    );
    assert!(err.contains("does not belong to its secret key"), "{err}");
    assert!(!err.contains("a1a1a1a1"), "the secret must not be echoed: {err}");
    let out = fogproof(&["keys", "show", scratch("missing.key").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("cannot read key file"));
}

#[cfg(unix)]
#[test]
fn show_refuses_a_key_file_others_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch("open.key");
    let p = path.to_str().unwrap();
    write_key(&path, ALICE);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = fogproof(&["keys", "show", p]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "fogproof: key file {p} is accessible by others (mode 0644); a key file must be \
             readable by its owner only: run `chmod 600 {p}`\n"
        )
    );
    assert!(out.stdout.is_empty(), "nothing of the key is printed");
}
