//! Judging evidence of relay equivocation ([`protocol::evidence`]): two receipts the relay
//! signed for one match that cannot both be true convict the relay, from its signatures alone.

use crate::{Fault, FaultKind, MatchRole};
use protocol::codec::Canonical;
use protocol::evidence::{Evidence, EvidenceError, contradiction};
use protocol::message::{Receipt, SignedReceipt};
use std::collections::BTreeMap;

/// The relay's fault that `bytes` (canonical [`Evidence`]) proves, or why it proves nothing.
pub fn judge(bytes: &[u8]) -> Result<Fault, EvidenceError> {
    let evidence = Evidence::from_canonical(bytes)?;
    let (terms, contradiction) = evidence.check()?;
    Ok(Fault {
        kind: FaultKind::Equivocation,
        culprit: Some(terms.terms.relay),
        role: MatchRole::Relay,
        // The receipts name places in channels, not entries of a record.
        entry: None,
        message: None,
        evidence: format!("match {}: {contradiction}", terms.match_id),
        explanation: "The relay signed two receipts for this match that cannot both be true: it \
                      showed different logs to different parties."
            .to_owned(),
    })
}

/// Builds evidence from two logs of one match (two records, or a player's receipts and a
/// published record): the first receipt of `a` that contradicts one of `b`'s
/// ([`protocol::evidence::contradiction`]: the same place of a channel, the same order head
/// before, a neighbour in its channel, or the entry placed right before or after it). `None`
/// when nothing does (one log a prefix of the other, or two views of one history). Receipts
/// that do not decode are skipped: the evidence check refuses them anyway.
pub fn extract(
    terms: &protocol::terms::SignedTerms,
    a: &[SignedReceipt],
    b: &[SignedReceipt],
) -> Option<Evidence> {
    let decode = |r: &SignedReceipt| Receipt::from_canonical(&r.receipt).ok();
    let mut places: BTreeMap<(u8, u64), usize> = BTreeMap::new();
    let mut afters: BTreeMap<protocol::LogHead, usize> = BTreeMap::new();
    let mut orders: BTreeMap<protocol::LogHead, usize> = BTreeMap::new();
    let opened: Vec<Option<Receipt>> = b.iter().map(decode).collect();
    for (j, r) in opened.iter().enumerate() {
        if let Some(r) = r {
            places.entry((r.channel.byte(), r.position)).or_insert(j);
            afters.entry(r.after).or_insert(j);
            orders.entry(r.order()).or_insert(j);
        }
    }
    for (i, x) in a.iter().enumerate() {
        let Some(rx) = decode(x) else { continue };
        let c = rx.channel.byte();
        let candidates = [
            places.get(&(c, rx.position)),
            rx.position.checked_sub(1).and_then(|p| places.get(&(c, p))),
            rx.position.checked_add(1).and_then(|p| places.get(&(c, p))),
            afters.get(&rx.after),
            afters.get(&rx.order()),
            orders.get(&rx.after),
        ];
        for j in candidates.into_iter().flatten() {
            if let Some(ry) = &opened[*j]
                && contradiction(&rx, ry).is_some()
            {
                return Some(Evidence {
                    version: protocol::codec::VERSION,
                    terms: terms.clone(),
                    receipts: [a[i].clone(), b[*j].clone()],
                });
            }
        }
    }
    None
}
