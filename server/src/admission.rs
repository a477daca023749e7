//! Admission of new work, at the bottom of the server's modules: what a request would add
//! ([`Admit`]), the refusal while the host is full ([`Busy`], a `503` with `Retry-After`), and
//! the poison-free mutex [`lock`] every module uses. `Shared::admit` (crate::state) decides;
//! [`UmpireBacklog`] keeps what each umpire key owes, so that a match needing an umpire that
//! has fallen behind is refused before that umpire's lateness costs anyone a game.

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

/// Something an umpire key owes the host now ([`UmpireBacklog`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owed {
    /// Its seat or its signature on the terms of a challenge (by challenge id): asked when the
    /// challenge was accepted (both players agreed to play under this umpire).
    Terms(String),
    /// An answer (or a disclosure) in a live match it is seated in.
    Answer(protocol::MatchId),
}

/// What one umpire key owes, and since when.
#[derive(Debug, Default)]
struct Owes {
    since: std::collections::BTreeMap<Owed, tokio::time::Instant>,
    by_age: std::collections::BTreeSet<(tokio::time::Instant, Owed)>,
}

/// What each umpire key owes the host (docs/SERVER.md, limits: admission): the terms waiting
/// for its seat or signature and the live matches waiting for its answer, each with the moment
/// it was asked. Only parties that agreed to play under an umpire can ask it anything (a
/// challenge naming it is accepted first; a live match has its signature on the terms), and
/// what it owes is cleared by its own answers: naming a key as umpire fills nothing of its, and
/// only the umpire's own lateness (or the host's) makes the oldest item old.
///
/// [`UmpireBacklog::admit`] refuses new matches that need an umpire whose oldest item is older
/// than `max_umpire_lag_ms`, or that owes `max_umpire_terms_owed` terms, with a `503` (the
/// host's capacity, not anyone's quota), before that umpire falls behind the terms' `answer_ms`
/// in the matches it already umpires; once behind, it is refused new matches for `Retry-After`
/// seconds even if it caught up meanwhile (so that the matches told to come back do not all
/// come back at the first moment it is not behind, and put it behind again).
#[derive(Debug, Default)]
pub struct UmpireBacklog {
    by_umpire: Mutex<std::collections::BTreeMap<protocol::PublicKey, Owes>>,
    /// Umpires found behind, and until when they take no new match.
    behind: Mutex<std::collections::BTreeMap<protocol::PublicKey, tokio::time::Instant>>,
}

/// What one umpire owes now ([`UmpireBacklog::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owing {
    /// Terms waiting for its seat or signature.
    pub terms: usize,
    /// Live matches waiting for its answer.
    pub answers: usize,
    /// How long the oldest item has waited, in ms (0 when it owes nothing).
    pub oldest_ms: u64,
}

impl UmpireBacklog {
    /// `umpire` owes `item` from `at` on (again from `at` if it already owed it: a new
    /// question replaces the one it answered).
    pub fn owe(&self, umpire: protocol::PublicKey, item: Owed, at: tokio::time::Instant) {
        let mut all = lock(&self.by_umpire);
        let owes = all.entry(umpire).or_default();
        if let Some(before) = owes.since.insert(item.clone(), at) {
            owes.by_age.remove(&(before, item.clone()));
        }
        owes.by_age.insert((at, item));
    }

    /// `umpire` no longer owes `item` (answered, or the match or terms are gone).
    pub fn paid(&self, umpire: &protocol::PublicKey, item: &Owed) {
        let mut all = lock(&self.by_umpire);
        let Some(owes) = all.get_mut(umpire) else { return };
        if let Some(at) = owes.since.remove(item) {
            owes.by_age.remove(&(at, item.clone()));
        }
        if owes.since.is_empty() {
            all.remove(umpire);
        }
    }

    /// Forgets every `Terms` item whose challenge `keep` does not name (terms canceled or
    /// started by a path that did not say so: the lobby's sweep reconciles).
    pub fn retain_terms(&self, keep: impl Fn(&str) -> bool) {
        let mut all = lock(&self.by_umpire);
        for owes in all.values_mut() {
            let gone: Vec<(Owed, tokio::time::Instant)> = owes
                .since
                .iter()
                .filter(|(item, _)| matches!(item, Owed::Terms(id) if !keep(id)))
                .map(|(item, at)| (item.clone(), *at))
                .collect();
            for (item, at) in gone {
                owes.since.remove(&item);
                owes.by_age.remove(&(at, item));
            }
        }
        all.retain(|_, owes| !owes.since.is_empty());
    }

    /// What `umpire` owes at `now`.
    pub fn of(&self, umpire: &protocol::PublicKey, now: tokio::time::Instant) -> Owing {
        let all = lock(&self.by_umpire);
        let Some(owes) = all.get(umpire) else {
            return Owing { terms: 0, answers: 0, oldest_ms: 0 };
        };
        let terms = owes.since.keys().filter(|i| matches!(i, Owed::Terms(_))).count();
        let oldest_ms = owes.by_age.first().map_or(0, |(at, _)| {
            u64::try_from(now.saturating_duration_since(*at).as_millis()).unwrap_or(u64::MAX)
        });
        Owing { terms, answers: owes.since.len() - terms, oldest_ms }
    }

    /// Whether a new match under `umpire` is admitted now: refused (a `503` naming the
    /// umpire's backlog) while the oldest thing it owes has waited longer than
    /// `limits.max_umpire_lag_ms` or it owes `limits.max_umpire_terms_owed` terms, and for
    /// `limits.retry_after_s` after it was last found so.
    pub fn admit(
        &self,
        umpire: &protocol::PublicKey,
        limits: &crate::config::Limits,
    ) -> Result<(), Busy> {
        let now = tokio::time::Instant::now();
        let owing = self.of(umpire, now);
        let (max_lag_ms, max_terms) = (limits.max_umpire_lag_ms, limits.max_umpire_terms_owed);
        let retry_after_s = limits.retry_after_s;
        // The refusal names the limit, never what the umpire owes: how many matches wait for
        // it, and since when, would tell a prober when another match's umpire was asked
        // (a Kriegspiel attempt, R-K1). The operator's log has the figures.
        // The count is a cap on starts in flight, not a sign of lateness: at a start's few
        // round trips it is reached by a fast ramp with the umpire on time, and it admits
        // again as soon as one is signed (no hold: marking the umpire behind for it held
        // every start back for `retry_after_s` at 30 starts a second, with the oldest item
        // 0.36 s old).
        if owing.oldest_ms <= max_lag_ms && owing.terms >= max_terms {
            return Err(Busy::new(
                format!(
                    "the umpire {umpire} has max_umpire_terms_owed {max_terms} terms to sign \
                     at once; matches it umpires go on: try again in a moment"
                ),
                1,
            ));
        }
        let why = if owing.oldest_ms > max_lag_ms {
            format!("max_umpire_lag_ms {max_lag_ms}")
        } else {
            let mut behind = lock(&self.behind);
            match behind.get(umpire) {
                Some(until) if *until > now => {
                    let left = until.saturating_duration_since(now).as_millis();
                    return Err(Busy::new(
                        format!(
                            "the umpire {umpire} was behind moments ago: it takes no new match \
                             for {left} ms more (max_umpire_lag_ms, Retry-After): try again \
                             later"
                        ),
                        retry_after_s,
                    ));
                }
                Some(_) => {
                    behind.remove(umpire);
                }
                None => {}
            }
            return Ok(());
        };
        let until = now + std::time::Duration::from_secs(u64::from(retry_after_s));
        let mut behind = lock(&self.behind);
        behind.retain(|_, t| *t > now);
        behind.insert(*umpire, until);
        drop(behind);
        tracing::info!(
            %umpire, terms = owing.terms, answers = owing.answers, oldest_ms = owing.oldest_ms,
            "an umpire is behind: new matches under it are refused"
        );
        Err(Busy::new(
            format!(
                "the umpire {umpire} is behind ({why}); matches it umpires go on: try again later"
            ),
            retry_after_s,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::{Duration, Instant};

    #[test]
    fn an_umpire_is_refused_new_matches_only_while_its_oldest_debt_is_old() {
        let u = protocol::Identity::from_seed(&[1; 32]).public();
        let other = protocol::Identity::from_seed(&[2; 32]).public();
        let b = UmpireBacklog::default();
        let t0 = Instant::now();
        let m = |i: u8| Owed::Answer(protocol::MatchId([i; 32]));
        b.owe(u, Owed::Terms("c1".into()), t0);
        b.owe(u, m(1), t0 + Duration::from_millis(100));
        b.owe(u, m(2), t0 + Duration::from_millis(200));
        let at = t0 + Duration::from_millis(1_000);
        assert_eq!(b.of(&u, at), Owing { terms: 1, answers: 2, oldest_ms: 1_000 });
        assert_eq!(b.of(&other, at), Owing { terms: 0, answers: 0, oldest_ms: 0 });
        // The terms signed: the oldest is now the first answer.
        b.paid(&u, &Owed::Terms("c1".into()));
        assert_eq!(b.of(&u, at).oldest_ms, 900);
        // A new question in match 1 replaces the one answered: match 2's is the oldest.
        b.owe(u, m(1), t0 + Duration::from_millis(900));
        assert_eq!(b.of(&u, at), Owing { terms: 0, answers: 2, oldest_ms: 800 });
        b.paid(&u, &m(2));
        b.paid(&u, &m(1));
        assert_eq!(b.of(&u, at), Owing { terms: 0, answers: 0, oldest_ms: 0 });
        assert!(lock(&b.by_umpire).is_empty(), "nothing kept for an umpire that owes nothing");
        // Reconciling with the lobby drops terms that are gone, and only those.
        b.owe(u, Owed::Terms("gone".into()), t0);
        b.owe(u, Owed::Terms("kept".into()), t0);
        b.owe(u, m(3), t0);
        b.retain_terms(|id| id == "kept");
        assert_eq!(b.of(&u, at), Owing { terms: 1, answers: 1, oldest_ms: 1_000 });
    }

    #[tokio::test(start_paused = true)]
    async fn admission_names_the_umpires_backlog_and_its_limit() {
        let u = protocol::Identity::from_seed(&[1; 32]).public();
        let other = protocol::Identity::from_seed(&[2; 32]).public();
        let mut limits = crate::config::Limits::DEFAULT;
        limits.max_umpire_lag_ms = 500;
        limits.max_umpire_terms_owed = 3;
        limits.retry_after_s = 5;
        let b = UmpireBacklog::default();
        b.owe(u, Owed::Answer(protocol::MatchId([1; 32])), Instant::now());
        assert_eq!(b.admit(&u, &limits), Ok(()));
        tokio::time::advance(Duration::from_millis(501)).await;
        let busy = b.admit(&u, &limits).expect_err("behind");
        assert!(busy.message.contains("max_umpire_lag_ms"), "{}", busy.message);
        assert!(busy.message.contains(&u.to_string()), "{}", busy.message);
        assert_eq!(busy.retry_after_s, 5);
        assert_eq!(b.admit(&other, &limits), Ok(()), "another umpire is not behind");
        // Caught up, it still takes no new match until Retry-After has passed.
        b.paid(&u, &Owed::Answer(protocol::MatchId([1; 32])));
        let busy = b.admit(&u, &limits).expect_err("behind moments ago");
        assert!(busy.message.contains("was behind"), "{}", busy.message);
        tokio::time::advance(Duration::from_millis(5_001)).await;
        assert_eq!(b.admit(&u, &limits), Ok(()));
        // Terms it owes, at most `max_umpire_terms_owed` however young.
        for id in ["a", "b", "c"] {
            b.owe(u, Owed::Terms(id.into()), Instant::now());
        }
        let busy = b.admit(&u, &limits).expect_err("too many terms");
        assert!(busy.message.contains("max_umpire_terms_owed"), "{}", busy.message);
        assert_eq!(busy.retry_after_s, 1, "a cap on starts in flight, not a lateness");
        // One signed, the next start is admitted at once: the cap holds nothing back.
        b.paid(&u, &Owed::Terms("a".into()));
        assert_eq!(b.admit(&u, &limits), Ok(()));
        // Late as well as full: lateness wins, and holds for Retry-After.
        b.owe(u, Owed::Terms("d".into()), Instant::now());
        tokio::time::advance(Duration::from_millis(501)).await;
        let busy = b.admit(&u, &limits).expect_err("behind");
        assert!(busy.message.contains("max_umpire_lag_ms"), "{}", busy.message);
        for id in ["b", "c", "d"] {
            b.paid(&u, &Owed::Terms(id.into()));
        }
        assert!(b.admit(&u, &limits).expect_err("held").message.contains("was behind"));
    }
}
