//! Finished matches as the store keeps them (below `crate::state`: it is given the store): the row of a finished match and its record's
//! bytes, rebuilt from the stored entries (served by `crate::http`, appended by
//! `crate::ledger`, promised by `crate::promise`), and a match whose record is final as the
//! finish hooks get it ([`FinishedMatch`]).

use crate::error::{ApiResult, AppError, internal, parse_match_id};
use crate::store::{MatchRow, Store};
use axum::http::StatusCode;
use std::sync::Arc;

/// A match whose record is final, handed to whoever appends finished matches (the ledger).
#[derive(Clone, Debug)]
pub struct FinishedMatch {
    /// The stored match.
    pub row: MatchRow,
    /// The record's bytes.
    pub record: Arc<Vec<u8>>,
    /// The verifier's verdict on them.
    pub verified: verifier::VerifiedMatch,
    /// When it finished (server ms).
    pub finished_ms: u64,
}

/// The finished match `id` (404 if unknown, 409 while it is being played).
pub(crate) async fn finished_row(store: &dyn Store, id: &str) -> ApiResult<MatchRow> {
    let id = parse_match_id(id)?;
    let row = store
        .get_match(&id)
        .await
        .map_err(internal)?
        .ok_or_else(|| AppError::new(StatusCode::NOT_FOUND, "no such match"))?;
    if row.finish.is_none() {
        return Err(AppError::new(
            StatusCode::CONFLICT,
            "the match is being played: its record is published after the end",
        ));
    }
    Ok(row)
}

/// The record bytes of a finished match, rebuilt from its stored entries.
pub async fn record_bytes(store: &dyn Store, row: &MatchRow) -> ApiResult<Vec<u8>> {
    use protocol::codec::Canonical;
    let terms = protocol::terms::SignedTerms::from_canonical(&row.terms).map_err(internal)?;
    let mut bytes = protocol::record::MatchRecord::header_bytes(&terms);
    for e in store.entries(&row.id).await.map_err(internal)? {
        let entry = protocol::relay::Entry::from_canonical(&e).map_err(internal)?;
        bytes.extend(protocol::record::MatchRecord::entry_frame(&entry));
    }
    Ok(bytes)
}
