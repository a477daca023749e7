//! A cluster follower's means to forward the log's routes to the ledger's leader (the routes'
//! middleware is `crate::http::forward`): one HTTP client and the places
//! (`max_forwarded_requests`). Below `crate::state`, which holds one.

use crate::error::AppError;
use std::sync::Arc;
use std::time::Duration;

/// How long the leader has to accept a forwarded request's connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the leader may stay silent while it answers a forwarded request.
pub const READ_TIMEOUT: Duration = Duration::from_secs(15);

/// A follower's means to forward: one HTTP client (one pool of connections to the leader), and
/// the places (`max_forwarded_requests`).
pub struct Forwarder {
    client: std::sync::OnceLock<reqwest::Client>,
    places: Arc<tokio::sync::Semaphore>,
}

impl Forwarder {
    /// A forwarder with `places` forwards at once.
    pub fn new(places: usize) -> Forwarder {
        Forwarder {
            client: std::sync::OnceLock::new(),
            places: Arc::new(tokio::sync::Semaphore::new(places)),
        }
    }

    /// A place to forward (held until the answer has been streamed back).
    pub fn place(&self) -> Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::TryAcquireError> {
        self.places.clone().try_acquire_owned()
    }

    /// The HTTP client (built on first use).
    pub fn client(&self) -> Result<&reqwest::Client, AppError> {
        if let Some(c) = self.client.get() {
            return Ok(c);
        }
        let built = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| crate::error::internal(format!("forwarding client: {e}")))?;
        Ok(self.client.get_or_init(|| built))
    }
}
