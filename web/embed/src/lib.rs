//! The built web front end (`web/dist`, committed; `npm run build` in `web/` rebuilds it),
//! embedded in the binary so the agent (`fogproof play`, `fogproof agent`) and the server
//! (`fogproof serve`) serve their pages without Node or any file beside the binary.
//!
//! Pages are single-page apps: the agent serves [`agent_page`] at `/` and at any unknown
//! non-API path, the server [`host_page`]; both serve every other file at `/assets/{path}`
//! through [`asset`].

use rust_embed::Embed;

#[derive(Embed)]
#[folder = "../dist"]
struct Dist;

/// One file of the front end: its bytes and the `Content-Type` to serve them with.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    /// The file's bytes, as built.
    pub bytes: &'static [u8],
    /// Its media type, from its extension.
    pub content_type: &'static str,
}

/// The media type of a file, from its extension; `None` for a kind the front end never ships
/// (so nothing unexpected is served with a guessed type).
fn content_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => return None,
    })
}

/// The file at `path` relative to `web/dist` (`"agent.js"`, `"pieces/wk.svg"`), or `None`.
pub fn asset(path: &str) -> Option<Asset> {
    let content_type = content_type(path)?;
    let file = Dist::get(path)?;
    let bytes = match file.data {
        std::borrow::Cow::Borrowed(b) => b,
        // `debug-embed` embeds in every profile, so the data is always borrowed; a copy would
        // only ever be made if that feature were dropped, and then it is leaked once per call.
        std::borrow::Cow::Owned(v) => Vec::leak(v),
    };
    Some(Asset { bytes, content_type })
}

/// Every file of the bundle, by path relative to `web/dist`, sorted.
pub fn paths() -> Vec<String> {
    let mut all: Vec<String> = Dist::iter().map(|p| p.into_owned()).collect();
    all.sort();
    all
}

fn page(name: &str) -> Asset {
    // The build always writes both pages (build.mjs), and the test below checks they exist.
    asset(name).unwrap_or(Asset {
        bytes: b"<!doctype html><title>fogproof</title><p>The web pages were not built (web/: npm run build).",
        content_type: "text/html; charset=utf-8",
    })
}

/// The agent's page (`agent.html`): the lobby and the game pages of the player's own agent.
pub fn agent_page() -> Asset {
    page("agent.html")
}

/// The host site's page (`host.html`): lobby, games, replays, ratings, ledger, audit.
pub fn host_page() -> Asset {
    page("host.html")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_file_is_served_with_its_type_and_unknown_paths_are_not() {
        let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist");
        let mut on_disk = Vec::new();
        let mut stack = vec![dist.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("web/dist is readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(&dist).expect("under dist");
                    on_disk.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        assert_eq!(paths(), on_disk, "the embedded files are exactly web/dist's");
        for p in ["agent.html", "agent.js", "host.html", "host.js", "style.css", "pieces/wk.svg"] {
            assert!(on_disk.iter().any(|d| d == p), "{p} is built");
        }
        for p in &on_disk {
            let a = asset(p).unwrap_or_else(|| panic!("{p} is served"));
            let want = std::fs::read(dist.join(p)).expect("readable");
            assert_eq!(a.bytes, want.as_slice(), "{p}: the bytes as built");
            let expected = match p.rsplit_once('.').map(|(_, e)| e) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                Some("svg") => "image/svg+xml",
                other => panic!("{p}: a file of an unexpected kind {other:?} in dist"),
            };
            assert_eq!(a.content_type, expected, "{p}");
        }
        assert_eq!(agent_page().bytes, asset("agent.html").expect("agent page").bytes);
        assert_eq!(host_page().bytes, asset("host.html").expect("host page").bytes);
        for unknown in ["", "nope.js", "agent.htm", "../Cargo.toml", "pieces/zz.svg", "agent"] {
            assert!(asset(unknown).is_none(), "{unknown:?} is not served");
        }
    }
}
