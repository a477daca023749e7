//! Judging evidence of relay equivocation ([`protocol::evidence`]): two receipts the relay
//! signed for one match that cannot both be true convict the relay, from its signatures alone.

use crate::{Fault, FaultKind, Role};
use protocol::codec::Canonical;
use protocol::evidence::{Contradiction, Evidence, EvidenceError};

/// The relay's fault that `bytes` (canonical [`Evidence`]) proves, or why it proves nothing.
pub fn judge(bytes: &[u8]) -> Result<Fault, EvidenceError> {
    let evidence = Evidence::from_canonical(bytes)?;
    let (terms, contradiction) = evidence.check()?;
    let entry = match contradiction {
        Contradiction::Fork { seq } | Contradiction::BrokenChain { seq } => seq,
        Contradiction::Duplicate { second, .. } | Contradiction::TimeReversed { second, .. } => {
            second
        }
    };
    Ok(Fault {
        kind: FaultKind::Equivocation,
        culprit: Some(terms.terms.relay),
        role: Role::Relay,
        entry: usize::try_from(entry).ok(),
        message: None,
        evidence: format!("match {}: {contradiction}", terms.match_id),
        explanation: "The relay signed two receipts for this match that cannot both be true: it \
                      showed different logs to different parties."
            .to_owned(),
    })
}

/// Builds evidence from two logs of one match (two records, or a player's receipts and a
/// published record): the receipts at the first position where they differ, or at the first
/// position of the longer log that the shorter one's successor does not chain from. `None`
/// when one log is a prefix of the other.
pub fn extract(
    terms: &protocol::terms::SignedTerms,
    a: &[protocol::message::SignedReceipt],
    b: &[protocol::message::SignedReceipt],
) -> Option<Evidence> {
    let i = a.iter().zip(b).position(|(x, y)| x != y)?;
    Some(Evidence {
        version: protocol::codec::VERSION,
        terms: terms.clone(),
        receipts: [a[i].clone(), b[i].clone()],
    })
}
