//! Admission of new work, at the bottom of the server's modules: what a request would add
//! ([`Admit`]), the refusal while the host is full ([`Busy`], a `503` with `Retry-After`), and
//! the poison-free mutex [`lock`] every module uses. `Shared::admit` (crate::state) decides.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, taking the data even if a panicking thread poisoned it (the state a panic
/// could leave is never half-written: every update is one assignment).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a request would add to the host's work ([`Shared::admit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// A sign-in.
    SignIn,
    /// A new match: a challenge, a seek, an accept.
    Match,
}

/// The host refuses new work for now: why, and when to try again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Busy {
    /// What is full, naming the limit.
    pub message: String,
    /// Seconds to wait (`Retry-After`).
    pub retry_after_s: u32,
}

impl Busy {
    /// A refusal naming `message`, to retry after `retry_after_s` seconds.
    pub fn new(message: String, retry_after_s: u32) -> Busy {
        metrics::counter!(crate::metrics::ADMISSION_REFUSED).increment(1);
        Busy { message, retry_after_s }
    }
}
