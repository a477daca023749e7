//! Tournament games being arranged, in the store (docs/SERVER.md, tournaments): the
//! invitation of each pairing, the seats its players brought, and whether its terms went to
//! be signed. The statements are written once, with `?` placeholders (SQLite's), and numbered
//! for PostgreSQL ([`numbered`]); each is one statement, so the database orders a seat and the
//! runner's removal at the deadline: the removal returns the seats as they were, and a seat
//! written after it finds no row.

/// Inserts an invitation unless its pairing has one (the table's `UNIQUE`).
pub(super) const PUT: &str = "INSERT INTO tournament_invitations
    (id, tournament, round, white, black, deadline_ms, challenge, white_seat, black_seat, handed)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0) ON CONFLICT DO NOTHING";

/// One invitation.
pub(super) const ONE: &str = "SELECT * FROM tournament_invitations WHERE id = ?";

/// A tournament's invitations.
pub(super) const OF_TOURNAMENT: &str =
    "SELECT * FROM tournament_invitations WHERE tournament = ? ORDER BY round, id";

/// A player's invitations.
pub(super) const FOR_KEY: &str = "SELECT * FROM tournament_invitations WHERE white = ? OR black = ?
    ORDER BY tournament, round, id";

/// A player's seat, before the deadline and the handing: binds key, seat, key, seat, id, key,
/// key, now.
pub(super) const SEAT: &str = "UPDATE tournament_invitations
    SET white_seat = CASE WHEN white = ? THEN ? ELSE white_seat END,
        black_seat = CASE WHEN black = ? THEN ? ELSE black_seat END
    WHERE id = ? AND (white = ? OR black = ?) AND deadline_ms > ? AND handed = 0
    RETURNING *";

/// The handing, once: both seats in, not handed.
pub(super) const HAND: &str = "UPDATE tournament_invitations SET handed = 1
    WHERE id = ? AND handed = 0 AND white_seat IS NOT NULL AND black_seat IS NOT NULL";

/// The removal, returning the row as it was.
pub(super) const REMOVE: &str = "DELETE FROM tournament_invitations WHERE id = ? RETURNING *";

/// The removal at the deadline of an invitation not handed, returning the row as it was.
pub(super) const END: &str =
    "DELETE FROM tournament_invitations WHERE id = ? AND handed = 0 RETURNING *";

/// The organiser's request to start.
pub(super) const REQUEST_START: &str =
    "INSERT INTO tournament_starts (tournament) VALUES (?) ON CONFLICT DO NOTHING";

/// Whether the organiser asked to start.
pub(super) const START_REQUESTED: &str =
    "SELECT COUNT(*) AS n FROM tournament_starts WHERE tournament = ?";

/// SQLite's `?` placeholders as PostgreSQL's `$1`, `$2`, … in order (the statements above
/// have no `?` inside a literal).
pub(super) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// An [`super::InvitationRow`] from a row of `tournament_invitations` (SQLite's or
/// PostgreSQL's: the same columns and types).
macro_rules! invitation_row {
    ($r:expr) => {{
        let r = $r;
        let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
        let t: String = r.try_get("tournament").map_err(get)?;
        Ok::<_, StoreError>(super::InvitationRow {
            id: r.try_get("id").map_err(get)?,
            tournament: protocol::hex::decode_array::<32>(&t)
                .ok_or_else(|| StoreError::Corrupt(format!("tournament id {t:?}")))?,
            round: u32::try_from(r.try_get::<i64, _>("round").map_err(get)?)
                .map_err(|e| StoreError::Corrupt(format!("round: {e}")))?,
            white: key(&r.try_get::<String, _>("white").map_err(get)?)?,
            black: key(&r.try_get::<String, _>("black").map_err(get)?)?,
            deadline_ms: from_ms(r.try_get("deadline_ms").map_err(get)?),
            challenge: r.try_get("challenge").map_err(get)?,
            white_seat: r.try_get("white_seat").map_err(get)?,
            black_seat: r.try_get("black_seat").map_err(get)?,
            handed: r.try_get::<i64, _>("handed").map_err(get)? != 0,
        })
    }};
}
pub(super) use invitation_row;

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_are_numbered_in_order() {
        assert_eq!(super::numbered("a = ? AND b = ? OR c = ?"), "a = $1 AND b = $2 OR c = $3");
        assert_eq!(
            super::numbered(super::ONE),
            "SELECT * FROM tournament_invitations WHERE id = $1"
        );
    }
}
