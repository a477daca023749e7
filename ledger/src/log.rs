//! The transparency log: entries, tiles, checkpoints, proofs (C2SP tlog-tiles).
