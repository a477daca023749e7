//! Placeholder for the `secretchess6` game module; its helper replaces this file.

use crate::{Analysis, FenError};

/// Placeholder position.
#[derive(Clone, Debug)]
pub struct Position;

impl Analysis for Position {
    fn from_fen(_fen: &str) -> Result<Self, FenError> {
        Err(FenError::new("variant", "secretchess6 is not implemented yet"))
    }
    fn to_fen(&self) -> String {
        String::new()
    }
    fn legal_uci(&self) -> Vec<String> {
        Vec::new()
    }
    fn perft(&self, _depth: u32) -> u64 {
        0
    }
    fn divide(&self, _depth: u32) -> Vec<(String, u64)> {
        Vec::new()
    }
}

/// Placeholder start.
pub const EXAMPLE_FEN: &str = "";
