//! RFC 6962 / RFC 9162 Merkle tree hashing, proofs and their verification, and the subtree
//! proofs of draft-ietf-plants-merkle-tree-certs (section 4), over SHA-256.
//!
//! ```text
//! leaf hash  = SHA-256(0x00 || entry)
//! node hash  = SHA-256(0x01 || left || right)
//! MTH({})    = SHA-256("")
//! MTH(D[n])  = node(MTH(D[0:k]), MTH(D[k:n]))   k the largest power of two below n
//! ```
//!
//! Proof *generation* reads complete-subtree hashes from a [`NodeReader`] (the log's tiles), so
//! it never needs the whole tree in memory. Proof *verification* is the algorithm of RFC 9162
//! §2.1.3.2 (inclusion) and §2.1.4.2 (consistency), and for subtrees the draft's section 4.3 and
//! 4.4; every function returns a typed error and never panics on any input. Every file of the
//! transparency-dev proof vectors is a known-answer test (`ledger/tests/merkle_vectors.rs`), and
//! proofs are cross-checked against ct-merkle and tlog_tiles (`ledger/tests/merkle_cross.rs`).

use sha2::{Digest, Sha256};

/// A SHA-256 hash of a node, a leaf or a tree.
pub type Hash = [u8; 32];

/// The root of the empty tree: SHA-256 of the empty string (RFC 6962 §2.1).
pub const EMPTY_ROOT: Hash = [
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
];

/// `SHA-256(0x00 || entry)`.
pub fn leaf_hash(entry: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(entry);
    h.finalize().into()
}

/// `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The Merkle Tree Hash of a list of hashes taken as the leaves of a tree (their MTH with the
/// leaf hashing already done): for `2^k` hashes this is the hash of their complete subtree.
pub fn mth_of_hashes(hashes: &[Hash]) -> Hash {
    match hashes.len() {
        0 => EMPTY_ROOT,
        1 => hashes[0],
        n => {
            let k = largest_power_of_two_below(n as u64) as usize;
            node_hash(&mth_of_hashes(&hashes[..k]), &mth_of_hashes(&hashes[k..]))
        }
    }
}

/// The largest power of two strictly below `n` (`n >= 2`).
fn largest_power_of_two_below(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1 << (63 - (n - 1).leading_zeros())
}

/// Where proofs read hashes from: the hash of the complete subtree of `2^level` leaves starting
/// at leaf `index << level`.
pub trait NodeReader {
    /// Why a hash could not be read.
    type Error;
    /// The hash of complete subtree `index` at `level` (a leaf hash at level 0).
    fn node(&self, level: u8, index: u64) -> Result<Hash, Self::Error>;
}

/// `MTH(D[lo:hi])` for a subtree that RFC 6962's recursion visits (`lo` a multiple of the
/// largest power of two not above `hi - lo`), from complete-subtree hashes.
pub fn subtree_hash<R: NodeReader>(r: &R, lo: u64, hi: u64) -> Result<Hash, R::Error> {
    // Complete subtrees of decreasing size, left to right, then folded from the right.
    let mut parts = Vec::new();
    let mut at = lo;
    while at < hi {
        let width = hi - at;
        let level = 63 - width.leading_zeros();
        let size = 1u64 << level;
        parts.push(r.node(level as u8, at >> level)?);
        at += size;
    }
    let mut acc = match parts.pop() {
        Some(h) => h,
        None => return Ok(EMPTY_ROOT),
    };
    while let Some(left) = parts.pop() {
        acc = node_hash(&left, &acc);
    }
    Ok(acc)
}

/// The root of the tree of `size` leaves.
pub fn root<R: NodeReader>(r: &R, size: u64) -> Result<Hash, R::Error> {
    subtree_hash(r, 0, size)
}

/// Why a proof could not be made.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProveError<E> {
    /// The leaf index is not in the tree.
    #[error("leaf {index} is not in a tree of {size} leaves")]
    IndexOutOfRange {
        /// The index asked for.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// The sizes are not `0 < old <= new`.
    #[error("no consistency proof from size {old} to size {new} (needs 0 < old <= new)")]
    BadSizes {
        /// The older size.
        old: u64,
        /// The newer size.
        new: u64,
    },
    /// A hash could not be read.
    #[error(transparent)]
    Read(E),
}

/// The inclusion proof (audit path, RFC 6962 §2.1.1) of leaf `index` in the tree of `size`.
pub fn prove_inclusion<R: NodeReader>(
    r: &R,
    index: u64,
    size: u64,
) -> Result<Vec<Hash>, ProveError<R::Error>> {
    if index >= size {
        return Err(ProveError::IndexOutOfRange { index, size });
    }
    let mut out = Vec::new();
    path(r, index, 0, size, &mut out).map_err(ProveError::Read)?;
    Ok(out)
}

/// `PATH(m, D[lo:hi])`, bottom hash first.
fn path<R: NodeReader>(
    r: &R,
    m: u64,
    lo: u64,
    hi: u64,
    out: &mut Vec<Hash>,
) -> Result<(), R::Error> {
    if hi - lo == 1 {
        return Ok(());
    }
    let k = largest_power_of_two_below(hi - lo);
    if m < lo + k {
        path(r, m, lo, lo + k, out)?;
        out.push(subtree_hash(r, lo + k, hi)?);
    } else {
        path(r, m, lo + k, hi, out)?;
        out.push(subtree_hash(r, lo, lo + k)?);
    }
    Ok(())
}

/// The consistency proof (RFC 6962 §2.1.2) from the tree of `old` leaves to the tree of `new`
/// leaves; empty when the sizes are equal.
pub fn prove_consistency<R: NodeReader>(
    r: &R,
    old: u64,
    new: u64,
) -> Result<Vec<Hash>, ProveError<R::Error>> {
    if old == 0 || old > new {
        return Err(ProveError::BadSizes { old, new });
    }
    let mut out = Vec::new();
    if old < new {
        subproof(r, old, 0, new, true, &mut out).map_err(ProveError::Read)?;
    }
    Ok(out)
}

/// `SUBPROOF(m, D[lo:hi], b)`, bottom hash first.
fn subproof<R: NodeReader>(
    r: &R,
    m: u64,
    lo: u64,
    hi: u64,
    whole: bool,
    out: &mut Vec<Hash>,
) -> Result<(), R::Error> {
    if m == hi {
        if !whole {
            out.push(subtree_hash(r, lo, hi)?);
        }
        return Ok(());
    }
    let k = largest_power_of_two_below(hi - lo);
    if m <= lo + k {
        subproof(r, m, lo, lo + k, whole, out)?;
        out.push(subtree_hash(r, lo + k, hi)?);
    } else {
        subproof(r, m, lo + k, hi, false, out)?;
        out.push(subtree_hash(r, lo, lo + k)?);
    }
    Ok(())
}

/// Why an inclusion proof was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InclusionError {
    /// The index is not below the tree size.
    #[error("leaf {index} is not in a tree of {size} leaves")]
    IndexOutOfRange {
        /// The claimed index.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// The proof has the wrong number of hashes for this index and size.
    #[error("the proof has the wrong number of hashes for leaf {index} of {size}")]
    WrongLength {
        /// The claimed index.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// The proof leads to another root.
    #[error("the proof does not lead to the expected root")]
    RootMismatch,
    /// The subtree is not one a proof can be about.
    #[error("[{start}, {end}) is not a valid subtree")]
    InvalidSubtree {
        /// Its first leaf.
        start: u64,
        /// One past its last leaf.
        end: u64,
    },
}

/// The root an inclusion proof of `leaf` at `index` leads to in a tree of `size` leaves
/// (RFC 9162 §2.1.3.2, steps 1 to 4).
pub fn root_from_inclusion(
    index: u64,
    size: u64,
    leaf: &Hash,
    proof: &[Hash],
) -> Result<Hash, InclusionError> {
    if index >= size {
        return Err(InclusionError::IndexOutOfRange { index, size });
    }
    let wrong = InclusionError::WrongLength { index, size };
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return Err(wrong);
        }
        if f & 1 == 1 || f == s {
            r = node_hash(p, &r);
            // The node is the right edge of its level: it is promoted without a sibling until
            // it becomes a right child (or the root).
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(wrong);
    }
    Ok(r)
}

/// Verifies that `leaf` is leaf `index` of the tree of `size` leaves with root `root`.
pub fn verify_inclusion(
    index: u64,
    size: u64,
    leaf: &Hash,
    proof: &[Hash],
    root: &Hash,
) -> Result<(), InclusionError> {
    if root_from_inclusion(index, size, leaf, proof)? == *root {
        Ok(())
    } else {
        Err(InclusionError::RootMismatch)
    }
}

/// Why a consistency proof was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConsistencyError {
    /// The older tree is empty: everything is consistent with it, so a proof proves nothing.
    #[error("a consistency proof from an empty tree proves nothing")]
    OldTreeEmpty,
    /// The older size is above the newer one.
    #[error("the old size {old} is above the new size {new}")]
    OldTreeLarger {
        /// The claimed older size.
        old: u64,
        /// The claimed newer size.
        new: u64,
    },
    /// The proof has the wrong number of hashes for these sizes.
    #[error("the proof has the wrong number of hashes for sizes {old} and {new}")]
    WrongLength {
        /// The older size.
        old: u64,
        /// The newer size.
        new: u64,
    },
    /// The proof does not lead to the older root.
    #[error("the proof does not lead to the old root")]
    OldRootMismatch,
    /// The proof does not lead to the newer root.
    #[error("the proof does not lead to the new root")]
    NewRootMismatch,
    /// The subtree is not one a proof can be about.
    #[error("[{start}, {end}) is not a valid subtree of a tree of {size} leaves")]
    InvalidSubtree {
        /// Its first leaf.
        start: u64,
        /// One past its last leaf.
        end: u64,
        /// The tree size.
        size: u64,
    },
}

/// Verifies that the tree of `old` leaves with root `old_root` is a prefix of the tree of `new`
/// leaves with root `new_root` (RFC 9162 §2.1.4.2). Equal sizes need an empty proof and equal
/// roots.
pub fn verify_consistency(
    old: u64,
    new: u64,
    proof: &[Hash],
    old_root: &Hash,
    new_root: &Hash,
) -> Result<(), ConsistencyError> {
    if old > new {
        return Err(ConsistencyError::OldTreeLarger { old, new });
    }
    if old == 0 {
        return Err(ConsistencyError::OldTreeEmpty);
    }
    let wrong = ConsistencyError::WrongLength { old, new };
    if old == new {
        if !proof.is_empty() {
            return Err(wrong);
        }
        return if old_root == new_root { Ok(()) } else { Err(ConsistencyError::NewRootMismatch) };
    }
    // Step 2: when the old tree is a complete subtree its root is the first path element.
    let mut path = proof.iter();
    let seed = if old.is_power_of_two() { *old_root } else { *path.next().ok_or(wrong)? };
    let (mut f, mut s) = (old - 1, new - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (seed, seed);
    for c in path {
        if s == 0 {
            return Err(wrong);
        }
        if f & 1 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(wrong);
    }
    if fr != *old_root {
        return Err(ConsistencyError::OldRootMismatch);
    }
    if sr != *new_root {
        return Err(ConsistencyError::NewRootMismatch);
    }
    Ok(())
}

/// Whether `[start, end)` is a subtree in the sense of the draft's section 4.1: non-empty, and
/// `start` a multiple of the smallest power of two not below `end - start`.
pub fn is_valid_subtree(start: u64, end: u64) -> bool {
    if start >= end {
        return false;
    }
    let width = end - start;
    match width.checked_next_power_of_two() {
        Some(p) => start.is_multiple_of(p),
        // Only widths above 2^63 have no next power of two in u64; then start must be 0.
        None => start == 0,
    }
}

/// Verifies a subtree inclusion proof (the draft's section 4.3): `leaf` is leaf `index` of the
/// subtree `[start, end)` whose hash is `subtree_root`.
pub fn verify_subtree_inclusion(
    index: u64,
    start: u64,
    end: u64,
    leaf: &Hash,
    proof: &[Hash],
    subtree_root: &Hash,
) -> Result<(), InclusionError> {
    if !is_valid_subtree(start, end) {
        return Err(InclusionError::InvalidSubtree { start, end });
    }
    if index < start || index >= end {
        return Err(InclusionError::IndexOutOfRange { index, size: end });
    }
    verify_inclusion(index - start, end - start, leaf, proof, subtree_root)
}

/// The number of significant bits of `x` (0 for 0).
fn bit_length(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// Verifies a subtree consistency proof (the draft's section 4.4): the subtree `[start, end)`
/// with hash `subtree_root` is part of the tree of `size` leaves with root `root`. The empty
/// subtree (`start == end`) is part of every tree, with an empty proof and the empty root.
pub fn verify_subtree_consistency(
    start: u64,
    end: u64,
    size: u64,
    proof: &[Hash],
    subtree_root: &Hash,
    root: &Hash,
) -> Result<(), ConsistencyError> {
    let wrong = ConsistencyError::WrongLength { old: end, new: size };
    if start == end && end <= size {
        // The empty subtree is part of every tree: its hash must be the empty tree's and there
        // is nothing to prove (the transparency-dev reference accepts exactly this).
        if !proof.is_empty() {
            return Err(wrong);
        }
        return if *subtree_root == EMPTY_ROOT {
            Ok(())
        } else {
            Err(ConsistencyError::OldRootMismatch)
        };
    }
    if !is_valid_subtree(start, end) || end > size {
        return Err(ConsistencyError::InvalidSubtree { start, end, size });
    }
    if start == 0 && end == size {
        if !proof.is_empty() {
            return Err(wrong);
        }
        return if subtree_root == root { Ok(()) } else { Err(ConsistencyError::NewRootMismatch) };
    }
    if proof.is_empty() {
        return Err(wrong);
    }
    // The subtree is the node of height `height` above leaf `start`, in the tree of `end`
    // leaves and (grown, when end < size) in the tree of `size` leaves.
    let height = bit_length((end - 1) ^ start);
    let computed = if end == size {
        // The node is on the right edge of the whole tree: only left siblings remain, one for
        // every ancestor that is a right child.
        let node_index = start >> height;
        if proof.len() != node_index.count_ones() as usize {
            return Err(wrong);
        }
        let mut r = *subtree_root;
        for p in proof {
            r = node_hash(p, &r);
        }
        r
    } else {
        // Below `fork`, the paths from leaf end - 1 and leaf size - 1 differ, so a left child on
        // the path from end - 1 has a right sibling in the bigger tree.
        let fork = bit_length((end - 1) ^ (size - 1));
        // The proof starts at the rightmost complete subtree inside [start, end).
        let shift = (end - start).trailing_zeros();
        let mut rest = proof.iter();
        let seed =
            if end - start == 1u64 << shift { *subtree_root } else { *rest.next().ok_or(wrong)? };
        let (mut small, mut grown) = (seed, seed);
        for level in shift..height {
            if ((end - 1) >> level) & 1 == 1 {
                let p = rest.next().ok_or(wrong)?;
                small = node_hash(p, &small);
                grown = node_hash(p, &grown);
            } else if level < fork {
                let p = rest.next().ok_or(wrong)?;
                grown = node_hash(&grown, p);
            }
        }
        if small != *subtree_root {
            return Err(ConsistencyError::OldRootMismatch);
        }
        // The rest proves the grown node's inclusion in the tree whose leaves are the nodes of
        // height `height`.
        let remaining: Vec<Hash> = rest.copied().collect();
        let node_index = start >> height;
        let nodes = ((size - 1) >> height) + 1;
        root_from_inclusion(node_index, nodes, &grown, &remaining).map_err(|_| wrong)?
    };
    if computed == *root { Ok(()) } else { Err(ConsistencyError::NewRootMismatch) }
}

/// Complete-subtree hashes of an in-memory list of leaf hashes (tests and small trees).
#[derive(Clone, Debug, Default)]
pub struct MemoryTree {
    /// `levels[l][i]`: the hash of complete subtree `i` at level `l`.
    levels: Vec<Vec<Hash>>,
}

impl MemoryTree {
    /// A tree over these leaf hashes.
    pub fn new(leaves: Vec<Hash>) -> MemoryTree {
        let mut levels = vec![leaves];
        loop {
            let below = &levels[levels.len() - 1];
            if below.len() < 2 {
                break;
            }
            let above: Vec<Hash> = below.chunks_exact(2).map(|p| node_hash(&p[0], &p[1])).collect();
            levels.push(above);
        }
        MemoryTree { levels }
    }

    /// The number of leaves.
    pub fn len(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// Whether there are no leaves.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A node the tree does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the tree has no complete subtree {index} at level {level}")]
pub struct MissingNode {
    /// The level.
    pub level: u8,
    /// The index.
    pub index: u64,
}

impl NodeReader for MemoryTree {
    type Error = MissingNode;
    fn node(&self, level: u8, index: u64) -> Result<Hash, MissingNode> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.levels.get(usize::from(level))?.get(i))
            .copied()
            .ok_or(MissingNode { level, index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(n: u64) -> MemoryTree {
        MemoryTree::new((0..n).map(|i| leaf_hash(&i.to_le_bytes())).collect())
    }

    #[test]
    fn every_proof_of_small_trees_verifies_and_no_other() {
        for n in 1..=40u64 {
            let t = tree(n);
            let r = root(&t, n).unwrap();
            for i in 0..n {
                let leaf = leaf_hash(&i.to_le_bytes());
                let p = prove_inclusion(&t, i, n).unwrap();
                verify_inclusion(i, n, &leaf, &p, &r).unwrap();
                // Another leaf, or this leaf at another place, does not verify.
                assert!(verify_inclusion(i, n, &leaf_hash(b"other"), &p, &r).is_err());
                if n > 1 {
                    assert!(verify_inclusion((i + 1) % n, n, &leaf, &p, &r).is_err());
                }
            }
            for m in 1..=n {
                let rm = root(&t, m).unwrap();
                let p = prove_consistency(&t, m, n).unwrap();
                verify_consistency(m, n, &p, &rm, &r).unwrap();
                if m < n {
                    assert!(verify_consistency(m, n, &p, &r, &r).is_err());
                }
            }
        }
    }

    #[test]
    fn valid_subtrees() {
        assert!(is_valid_subtree(0, 1));
        assert!(is_valid_subtree(4, 8));
        assert!(is_valid_subtree(8, 13));
        assert!(!is_valid_subtree(2, 5));
        assert!(!is_valid_subtree(3, 3));
        assert!(is_valid_subtree(0, u64::MAX));
    }
}
