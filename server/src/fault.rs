//! Crash points for tests that kill a server at an exact step (`FOGPROOF_FAULT=<point>`): the
//! process aborts there, as a SIGKILL would stop it, with nothing flushed or released. Without
//! the variable (any deployment) a point costs one environment lookup when it is reached.

/// A cluster node stops right after claiming the last signature of shared terms, before the
/// match is stored (`server::services::lobby`, docs/SERVER.md, several nodes).
pub const TERMS_CLAIMED: &str = "terms-claimed";

/// The environment variable that names the crash point.
pub const VARIABLE: &str = "FOGPROOF_FAULT";

/// Aborts the process if `FOGPROOF_FAULT` names `point`.
pub fn point(point: &str) {
    if std::env::var(VARIABLE).is_ok_and(|v| v == point) {
        tracing::error!(point, "FOGPROOF_FAULT: stopping here");
        std::process::abort();
    }
}
