//! The server's clock, injected (a trait), so tests run on tokio's paused time and a
//! simulation can drive it.
//!
//! Relay time (the `time_ms` of receipts, what the match clocks run on) is this clock's
//! milliseconds minus a per-match offset: zero for a new match, and after a restart whatever
//! makes the match's time resume where its last receipt left it (docs/SERVER.md, restarts).

use std::time::{SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// Milliseconds, and the instant a timer should fire for a given millisecond.
pub trait Clock: Send + Sync + 'static {
    /// Now, in ms since the Unix epoch (or the clock's own origin).
    fn now_ms(&self) -> u64;
    /// The tokio instant at which this clock reads `ms`.
    fn instant_at(&self, ms: u64) -> Instant;
}

/// Wall-clock milliseconds read once at start, advanced by tokio's monotonic clock: real time
/// in production, virtual time under `tokio::time::pause` in tests.
#[derive(Clone, Debug)]
pub struct TokioClock {
    base_ms: u64,
    base: Instant,
}

impl TokioClock {
    /// Starts at the system's current time.
    pub fn system() -> TokioClock {
        let base_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        TokioClock::starting_at(base_ms)
    }

    /// Starts at `base_ms`.
    pub fn starting_at(base_ms: u64) -> TokioClock {
        TokioClock { base_ms, base: Instant::now() }
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.base.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.base_ms.saturating_add(elapsed)
    }

    fn instant_at(&self, ms: u64) -> Instant {
        self.base + std::time::Duration::from_millis(ms.saturating_sub(self.base_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn paused_time_moves_the_clock_and_its_timers_together() {
        let clock = TokioClock::starting_at(1_000);
        assert_eq!(clock.now_ms(), 1_000);
        tokio::time::sleep_until(clock.instant_at(6_000)).await;
        assert_eq!(clock.now_ms(), 6_000);
        // An instant in the past is now: a timer for it fires at once.
        assert!(clock.instant_at(10) <= Instant::now());
    }
}
