//! The pages' TypeScript types (`web/src/types`) are exactly what the Rust JSON types give.
//!
//! One tree, each declaration once: the agent's page API and every rules and protocol type
//! anything uses at the top (`client::api_types`), the host's API in `host/`
//! (`server::http::types`), the verifier's verdict and replay in `verifier/`
//! (`verifier::json`); each folder has an `index.ts` re-exporting its own files. A change to
//! any of those Rust types fails here until the TypeScript is regenerated:
//!
//! `FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-tests --test typescript`, then
//! `npm run check` in `web/` (the pages type-check against the new files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The committed tree.
fn types_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src/types")
}

/// Every file under `dir` (path relative to `root` with `/` separators, contents).
fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).expect("read dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            collect(root, &p, out);
        } else {
            let rel = p.strip_prefix(root).expect("under root");
            let name: Vec<String> =
                rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.insert(name.join("/"), std::fs::read_to_string(&p).expect("generated text"));
        }
    }
}

/// The folders that get an `index.ts` of their own, with who generates them.
const FOLDERS: [(&str, &str); 3] = [
    ("", "client/src/api_types.rs"),
    ("host", "server/src/http/types.rs"),
    ("verifier", "verifier/src/json.rs"),
];

/// Every generated file (name, contents).
fn generated() -> BTreeMap<String, String> {
    // One folder per call: the tests run in parallel in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("fogproof-ts-{}-{call}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    client::api_types::export_typescript(&dir).expect("the agent's page API");
    server::http::types::export_typescript(&dir).expect("the host's API");
    verifier::json::export_typescript(&dir).expect("the verdict and the replay");
    let mut out = BTreeMap::new();
    collect(&dir, &dir, &mut out);
    let _ = std::fs::remove_dir_all(&dir);
    for (folder, source) in FOLDERS {
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        let index: String = out
            .keys()
            .filter_map(|name| name.strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/') && *rest != "variants.ts")
            .map(|rest| format!("export type * from './{}';\n", rest.trim_end_matches(".ts")))
            .collect();
        out.insert(
            format!("{prefix}index.ts"),
            format!(
                "// Generated from {source}: every type of this folder, in one import.\n{index}"
            ),
        );
    }
    out
}

#[test]
fn committed_typescript_types_are_current() {
    let want = generated();
    let dir = types_dir();
    if std::env::var_os("FOGPROOF_WRITE_TYPES").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in &want {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().expect("in dir")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
    }
    let mut have = BTreeMap::new();
    if dir.is_dir() {
        collect(&dir, &dir, &mut have);
    }
    let stale: Vec<&String> = want
        .iter()
        .filter(|(name, text)| have.get(*name) != Some(*text))
        .map(|(name, _)| name)
        .chain(have.keys().filter(|name| !want.contains_key(*name)))
        .collect();
    assert!(
        stale.is_empty(),
        "web/src/types is not what the Rust types give ({stale:?} differ, are missing or are \
         extra): run FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-tests --test typescript, then \
         npm run check in web/"
    );
    // Each of the three sources put its own types where the pages import them from.
    for name in ["SeatView.ts", "variants.ts", "host/LobbyView.ts", "verifier/VerdictJson.ts"] {
        assert!(want.contains_key(name), "{name} not generated: {:?}", want.keys());
    }
}

/// One declaration per type: a rules or protocol type the three sources share is written
/// once, at the top, and the folders import it from there.
#[test]
fn no_type_is_declared_twice() {
    let want = generated();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for name in want.keys() {
        let file = name.rsplit('/').next().expect("a name");
        if file == "index.ts" {
            continue;
        }
        if let Some(first) = seen.insert(file, name) {
            panic!("{file} is generated twice: {first} and {name}");
        }
    }
    assert!(
        want.get("verifier/VerdictJson.ts").is_some_and(|t| t.contains("from \"../")),
        "the verifier's types import the shared ones from the top"
    );
}
