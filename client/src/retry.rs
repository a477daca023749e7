//! One retry schedule for the agent's calls to its server (sign-in, the event stream, a seat's
//! match socket, the final record): wait [`FIRST_DELAY`], then twice as long after each failed
//! try, at most [`MAX_DELAY`], for ever (the caller decides which errors are worth another try
//! and stops on the others). The delays come from `backon`'s exponential backoff, without
//! jitter; the waits are `tokio` sleeps, so dropping the future cancels a retry at once.
//!
//! Two shapes: [`Retryable`] (`(|| call()).retry(backoff()).when(pred)`) where one call is
//! retried, and [`Delays`] where a loop waits between tries of more than one step (a seat
//! reconnecting: open, then serve until the socket drops, with one schedule across both).

pub use backon::Retryable;
use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};
use std::time::Duration;

/// The first wait after a failed try.
pub const FIRST_DELAY: Duration = Duration::from_millis(100);

/// The longest wait between two tries.
pub const MAX_DELAY: Duration = Duration::from_secs(5);

/// The schedule: [`FIRST_DELAY`], doubling, at most [`MAX_DELAY`], unlimited tries.
pub fn backoff() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(FIRST_DELAY)
        .with_max_delay(MAX_DELAY)
        .without_max_times()
}

/// The waits of one [`backoff`] schedule, for a loop that retries more than one call.
#[derive(Debug)]
pub struct Delays(ExponentialBackoff);

impl Default for Delays {
    fn default() -> Self {
        Delays(backoff().build())
    }
}

impl Delays {
    /// The next wait (the schedule never runs out: at worst [`MAX_DELAY`]).
    pub fn next_delay(&mut self) -> Duration {
        self.0.next().unwrap_or(MAX_DELAY)
    }

    /// Sleeps for the next wait.
    pub async fn sleep(&mut self) {
        tokio::time::sleep(self.next_delay()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn the_waits_double_from_100ms_up_to_5s_and_never_run_out() {
        let mut d = Delays::default();
        let ms: Vec<u128> = (0..10).map(|_| d.next_delay().as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
        for _ in 0..1000 {
            assert_eq!(d.next_delay(), MAX_DELAY);
        }
    }

    #[tokio::test]
    async fn a_call_is_retried_while_the_error_is_worth_it_and_not_after() {
        let tries = AtomicU32::new(0);
        // Transient twice, then success.
        let got = (|| async {
            let n = tries.fetch_add(1, Ordering::SeqCst);
            if n < 2 { Err("transient") } else { Ok(n) }
        })
        .retry(backoff())
        .when(|e| *e == "transient")
        .await;
        assert_eq!(got, Ok(2));
        // A permanent error is returned at once.
        tries.store(0, Ordering::SeqCst);
        let got: Result<u32, &str> = (|| async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err("permanent")
        })
        .retry(backoff())
        .when(|e| *e == "transient")
        .await;
        assert_eq!((got, tries.load(Ordering::SeqCst)), (Err("permanent"), 1));
    }
}
