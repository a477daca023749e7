//! Layer 2: replays the game through the rules and compares every signed statement.
//! Placeholder: being written.

use crate::Verdict;
use crate::envelope::Checked;

/// Replays a checked record.
#[must_use]
pub fn replay(_checked: &Checked) -> Verdict {
    Verdict::Faults(Vec::new())
}
