//! Prometheus metrics at `/metrics` (text format): matches live, messages accepted and
//! refused, receipt latency, storage commit time, connections.

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

/// Gauge: matches being played.
pub const MATCHES_LIVE: &str = "fogproof_matches_live";
/// Counter: matches finished.
pub const MATCHES_FINISHED: &str = "fogproof_matches_finished_total";
/// Counter: messages the relay accepted (its own notices excluded).
pub const MESSAGES_ACCEPTED: &str = "fogproof_messages_accepted_total";
/// Counter: messages the relay refused.
pub const MESSAGES_REFUSED: &str = "fogproof_messages_refused_total";
/// Histogram: from a message's arrival to its receipt leaving the server, seconds.
pub const RECEIPT_SECONDS: &str = "fogproof_receipt_latency_seconds";
/// Histogram: one storage commit (a group of entries), seconds.
pub const COMMIT_SECONDS: &str = "fogproof_storage_commit_seconds";
/// Counter: entries committed to storage.
pub const ENTRIES_COMMITTED: &str = "fogproof_entries_committed_total";
/// Gauge: open connections (sockets and event streams).
pub const CONNECTIONS: &str = "fogproof_connections";
/// Counter: connections closed for breaking a limit or the protocol.
pub const CONNECTIONS_REFUSED: &str = "fogproof_connections_refused_total";

/// Counter: requests refused with a `503` by the admission limits (`max_live_matches`,
/// `max_pending_commits`, `max_concurrent_renderings`, `max_queued_verifications`,
/// `max_open_seeks`, the sign-in pools).
pub const ADMISSION_REFUSED: &str = "fogproof_admission_refused_total";
/// Counter: storage commits slower than `max_host_stall_ms`, whose excess was charged to
/// nobody's clock.
pub const HOST_STALLS: &str = "fogproof_host_stalls_total";

/// Counter: finished matches appended to the ledger.
pub const LEDGER_APPENDED: &str = "fogproof_ledger_appended_total";
/// Counter: finished matches the ledger refused (kept out of the log, reason in the store).
pub const LEDGER_REFUSED: &str = "fogproof_ledger_refused_total";
/// Counter: appends that could not be written (retried at the next round).
pub const LEDGER_WRITE_FAILURES: &str = "fogproof_ledger_write_failures_total";
/// Counter: matches that finished (the appender takes each at its next round; finished minus
/// appended and refused is what it has still to take).
pub const LEDGER_FINISHED: &str = "fogproof_ledger_finished_total";
/// Counter: finished matches handed to the ledger with the verification made when they ended
/// (`ledger::Submission::Verified`: not verified a second time).
pub const LEDGER_VERIFICATIONS_REUSED: &str = "fogproof_ledger_verifications_reused_total";
/// Gauge: the worker threads of the server's tokio runtime (one per core unless
/// `TOKIO_WORKER_THREADS` says otherwise).
pub const RUNTIME_WORKERS: &str = "fogproof_runtime_workers";
/// Counter: tournament games forfeited by a no-show.
pub const TOURNAMENT_NO_SHOWS: &str = "fogproof_tournament_no_shows_total";

const LATENCY_BUCKETS_SECONDS: [f64; 14] =
    [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the process's metrics recorder (once; later calls reuse it) and returns the
/// handle that renders `/metrics`, or `None` if another recorder was installed first.
pub fn install() -> Option<PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full(RECEIPT_SECONDS.into()),
                    &LATENCY_BUCKETS_SECONDS,
                )
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full(COMMIT_SECONDS.into()),
                        &LATENCY_BUCKETS_SECONDS,
                    )
                })
                .ok()?
                .install_recorder()
                .ok()
        })
        .clone()
}
