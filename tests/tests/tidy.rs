//! Tidy checks over the whole source tree, run as an ordinary test (in the manner of
//! rust-analyzer's `xtask/src/tidy.rs`): house rules that a reviewer should not have to catch.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Every `.rs` file of the workspace, outside `target/`, sorted for stable messages.
fn rust_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&workspace_root(), &mut out);
    out.sort();
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(workspace_root()).unwrap_or(path).display().to_string()
}

fn check(rule: &str, offenders: Vec<String>) {
    assert!(offenders.is_empty(), "{rule}:\n  {}", offenders.join("\n  "));
}

#[test]
fn tidy_sees_the_tree() {
    // Guards the other checks against silently walking nothing.
    let files = rust_files();
    assert!(files.iter().any(|p| p.ends_with("rules/src/lib.rs")), "rules/src/lib.rs not found");
    assert!(files.len() > 10, "only {} Rust files found", files.len());
}

#[test]
fn every_file_starts_with_a_module_doc() {
    let offenders = rust_files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|p| rel(&p))
        .collect();
    check("every .rs file must start with a `//!` line saying what it is", offenders);
}

#[test]
fn no_ignored_tests() {
    let needle = ["#[", "ignore"].concat();
    let offenders = rust_files()
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).unwrap_or_default().contains(&needle))
        .map(|p| rel(&p))
        .collect();
    check("no ignored tests: a test runs in CI or is deleted", offenders);
}

#[test]
fn every_allow_has_a_reason() {
    let mut offenders = Vec::new();
    for p in rust_files() {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let l = line.trim_start();
            if !(l.starts_with("#[allow(") || l.starts_with("#![allow(")) {
                continue;
            }
            // The attribute may span several lines: read up to its closing `)]`.
            let end = (i..lines.len()).find(|&j| lines[j].contains(")]")).unwrap_or(i);
            if !lines[i..=end].iter().any(|l| l.contains("reason")) {
                offenders.push(format!("{}:{}: {}", rel(&p), i + 1, l));
            }
        }
    }
    check("every `allow` carries a `reason = \"...\"`", offenders);
}

/// Deterministic crates: everything a verifier must reproduce is computed here.
const DETERMINISTIC_SRC: &[&str] = &["rules/src", "protocol/src", "verifier/src", "ledger/src"];

/// Where floats are allowed in deterministic code: Glicko-2 ratings, computed with IEEE-754
/// basic operations (correctly rounded, so the same everywhere) and the pure-Rust `libm` crate
/// for `exp` and `ln`, never the platform's (checked below).
const FLOAT_ALLOWED: &[&str] = &["ledger/src/rating.rs", "ledger/src/rating"];

#[test]
fn deterministic_code_has_no_hash_maps_floats_or_clocks() {
    let banned = [
        ["Hash", "Map"].concat(),
        ["Hash", "Set"].concat(),
        ["f3", "2"].concat(),
        ["f6", "4"].concat(),
        ["System", "Time"].concat(),
        ["Instant", "::now"].concat(),
        ["thread_", "rng"].concat(),
    ];
    let root = workspace_root();
    let mut offenders = Vec::new();
    for p in rust_files() {
        if !DETERMINISTIC_SRC.iter().any(|d| p.starts_with(root.join(d))) {
            continue;
        }
        let floats_allowed = FLOAT_ALLOWED.iter().any(|d| p.starts_with(root.join(d)));
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for b in &banned {
                let float = b.starts_with('f');
                if code.contains(b.as_str()) && !(float && floats_allowed) {
                    offenders.push(format!("{}:{}: `{b}`", rel(&p), i + 1));
                }
            }
        }
    }
    check(
        "deterministic crates use no HashMap/HashSet iteration, floats, wall clock or thread RNG",
        offenders,
    );
}

#[test]
fn rules_depends_on_no_cryptography_or_io_crate() {
    let manifest = std::fs::read_to_string(workspace_root().join("rules/Cargo.toml"))
        .expect("rules/Cargo.toml");
    let deps = manifest.split("[dependencies]").nth(1).unwrap_or("");
    let deps = deps.split("\n[").next().unwrap_or("");
    let banned = ["sha2", "ed25519", "hpke", "tokio", "axum", "sqlx", "postcard", "digest"];
    let offenders = banned.iter().filter(|b| deps.contains(*b)).map(|b| b.to_string()).collect();
    check("`rules` depends on no cryptography, network, storage or encoding crate", offenders);
}

#[test]
fn float_code_calls_no_platform_math() {
    // The platform's libm differs between systems; `libm::exp` / `libm::log` do not.
    let banned = [".exp(", ".ln(", ".log(", ".powf(", ".powi(", ".mul_add(", ".hypot(", ".tanh("];
    let root = workspace_root();
    let mut offenders = Vec::new();
    for p in rust_files() {
        if !FLOAT_ALLOWED.iter().any(|d| p.starts_with(root.join(d))) {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for b in banned {
                if code.contains(b) {
                    offenders.push(format!("{}:{}: `{b}`", rel(&p), i + 1));
                }
            }
        }
    }
    check("rating code uses IEEE basic operations and the `libm` crate only", offenders);
}

/// What the README's quick start writes in the repository root (a server's data directory, a
/// player's secret key and its records) is ignored by git, so `git add -A` never commits it.
/// Skipped only where the tree is not a git checkout (a source tarball).
#[test]
fn quick_start_files_are_ignored_by_git() {
    let root = workspace_root();
    if !root.join(".git").exists() {
        return;
    }
    let paths = ["fogproof-data/fogproof.db", "me.key", "me.fogproof/0011.rec", "alice.key"];
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["check-ignore", "--no-index", "--"])
        .args(paths)
        .output()
        .expect("git runs");
    let ignored = String::from_utf8_lossy(&out.stdout);
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| !ignored.lines().any(|l| l == **p))
        .map(|p| p.to_string())
        .collect();
    check("quick-start files are git-ignored", missing);
}
