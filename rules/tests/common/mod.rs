//! Shared test helpers: a small, stable, non-cryptographic digest for pinned "observation
//! perft" files, and a reader for data-driven test files.
#![allow(dead_code, reason = "each test binary uses a different subset of the helpers")]

/// FNV-1a, 64-bit: stable across platforms and versions, enough to pin what sides are told.
/// (The rules crate takes no cryptography crate, not even in tests.)
#[derive(Clone, Copy, Debug)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds a length-prefixed string, so concatenations cannot collide trivially.
    pub fn str(&mut self, s: &str) {
        self.update(&(s.len() as u64).to_le_bytes());
        self.update(s.as_bytes());
    }

    /// The digest as 16 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Reads a data file under `tests/data/`, skipping blank lines and `#` comments, and splits
/// each remaining line on `;` into trimmed fields.
pub fn data_lines(name: &str) -> Vec<Vec<String>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').map(|f| f.trim().to_string()).collect())
        .collect()
}

/// Checks a pinned observation-perft file `tests/data/<name>`: lines `position ; depth ; white
/// digest ; black digest`, where `digest(position, depth)` recomputes both digests. With env
/// `FOGPROOF_BLESS` set, the file is rewritten with the recomputed digests instead; without it,
/// any difference fails, listing the lines to pin.
pub fn check_pinned_digests(name: &str, digest: impl Fn(&str, u32) -> [String; 2]) {
    let bless = std::env::var_os("FOGPROOF_BLESS").is_some();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    let mut mismatches = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let fields: Vec<&str> = trimmed.split(';').map(str::trim).collect();
        let depth = fields.get(1).and_then(|d| d.parse::<u32>().ok());
        let depth = depth.unwrap_or_else(|| panic!("{name}: no depth in line {trimmed:?}"));
        let [white, black] = digest(fields[0], depth);
        if fields.get(2..4) != Some(&[white.as_str(), black.as_str()][..]) {
            mismatches.push(format!("{} ; {depth} ; {white} ; {black}", fields[0]));
        }
        out.push_str(&format!("{} ; {depth} ; {white} ; {black}\n", fields[0]));
    }
    if bless {
        std::fs::write(&path, out).expect("rewrite the pinned file");
    } else {
        assert!(
            mismatches.is_empty(),
            "{name}: changed digests (bless with FOGPROOF_BLESS=1):\n{}",
            mismatches.join("\n")
        );
    }
}
