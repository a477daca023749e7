//! A cluster follower's means to forward the log's routes to the ledger's leader (the routes'
//! middleware is `crate::http::forward`): one HTTP client and the places
//! (`max_forwarded_requests`), and the cluster's key to attest for whom a request was forwarded
//! ([`ForwardKey`]). Below `crate::state`, which holds one.

use crate::error::AppError;
use hmac::{Hmac, Mac as _};
use sha2::Sha256;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

/// The header a forwarded request carries (the forwarding node's URL): it is not forwarded again.
pub const FORWARDED_BY: &str = "x-fogproof-forwarded-by";
/// The header of a forwarded answer: the node URL of the ledger's leader that gave it.
pub const FORWARDED_TO: &str = "x-fogproof-forwarded-to";

/// How long the leader has to accept a forwarded request's connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the leader may stay silent while it answers a forwarded request.
pub const READ_TIMEOUT: Duration = Duration::from_secs(15);

/// A follower's means to forward: one HTTP client (one pool of connections to the leader), the
/// places (`max_forwarded_requests`), and the key that attests for whom (a leader checks with it).
pub struct Forwarder {
    client: std::sync::OnceLock<reqwest::Client>,
    places: Arc<tokio::sync::Semaphore>,
    key: ForwardKey,
}

impl Forwarder {
    /// A forwarder with `places` forwards at once, for the host whose relay key is `relay`.
    pub fn new(places: usize, relay: &protocol::Identity) -> Forwarder {
        Forwarder {
            client: std::sync::OnceLock::new(),
            places: Arc::new(tokio::sync::Semaphore::new(places)),
            key: ForwardKey::of(relay),
        }
    }

    /// The key attesting forwarded requests.
    pub fn key(&self) -> &ForwardKey {
        &self.key
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

/// The header of a forwarded request naming, for the leader's per-address limits, the client
/// address the follower forwarded it for: `<address> <issued ms> <MAC hex>`
/// ([`ForwardKey::attest`]). Without it every client of a follower would share the follower's
/// address at the leader, and one busy follower would use up that address's request rate for
/// all of them.
pub const FORWARDED_FOR: &str = "x-fogproof-forwarded-for";

/// How far an attestation's issue time may be from the leader's clock (either way): nodes'
/// clocks must agree within it.
pub const ATTESTATION_MAX_SKEW_MS: u64 = 60_000;

/// The cluster's key for attesting forwarded requests: derived from the host's relay key, which
/// every node of a cluster holds (as it signs tokens with it), under its own tag, so it is
/// nothing else's key. An HMAC, not a signature: checking one costs the leader next to nothing,
/// so a stranger sending false attestations costs it no more than any other request.
pub struct ForwardKey([u8; 32]);

impl std::fmt::Debug for ForwardKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ForwardKey(..)")
    }
}

impl ForwardKey {
    /// The key of the cluster whose relay key is `relay`.
    pub fn of(relay: &protocol::Identity) -> ForwardKey {
        ForwardKey(relay.derived_secret(protocol::tags::FORWARD_KEY))
    }

    fn mac(&self, a: &Attested<'_>) -> Hmac<Sha256> {
        let bytes = protocol::transcript::Frame::new(protocol::tags::FORWARD_ATTESTATION)
            .append("node", a.node.as_bytes())
            .append("client", a.client.to_string().as_bytes())
            .append("method", a.method.as_bytes())
            .append("path", a.path.as_bytes())
            .append_u64("issued-ms", a.issued_ms)
            .into_bytes();
        let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        mac.update(&bytes);
        mac
    }

    /// The [`FORWARDED_FOR`] header value attesting `a`.
    pub fn attest(&self, a: &Attested<'_>) -> String {
        let tag = self.mac(a).finalize().into_bytes();
        format!("{} {} {}", a.client, a.issued_ms, protocol::hex::encode(&tag))
    }

    /// The client address a [`FORWARDED_FOR`] value attests for a request by `node` with
    /// `method` and `path`, if its MAC checks and it was issued within
    /// [`ATTESTATION_MAX_SKEW_MS`] of `now_ms`; `None` for anything else.
    pub fn check(
        &self,
        value: &str,
        node: &str,
        method: &str,
        path: &str,
        now_ms: u64,
    ) -> Option<IpAddr> {
        let mut fields = value.split(' ');
        let client: IpAddr = fields.next()?.parse().ok()?;
        let issued_ms: u64 = fields.next()?.parse().ok()?;
        let tag = protocol::hex::decode(fields.next()?)?;
        if fields.next().is_some() || now_ms.abs_diff(issued_ms) > ATTESTATION_MAX_SKEW_MS {
            return None;
        }
        let a = Attested { node, client, method, path, issued_ms };
        self.mac(&a).verify_slice(&tag).ok()?;
        Some(client)
    }
}

/// What a follower attests of a request it forwards.
#[derive(Clone, Copy, Debug)]
pub struct Attested<'a> {
    /// The forwarding node's URL (the request's [`FORWARDED_BY`]).
    pub node: &'a str,
    /// The client's address, as the follower's own per-address limits counted it.
    pub client: IpAddr,
    /// The request's method.
    pub method: &'a str,
    /// The request's path and query.
    pub path: &'a str,
    /// When the follower forwarded it (ms since the Unix epoch, the follower's clock).
    pub issued_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attested(issued_ms: u64) -> Attested<'static> {
        Attested {
            node: "http://b.test:8080",
            client: "192.0.2.9".parse().expect("an address"),
            method: "GET",
            path: "/api/ledger?x=1",
            issued_ms,
        }
    }

    #[test]
    fn an_attestation_checks_only_for_what_it_attests() {
        let key = ForwardKey::of(&protocol::Identity::from_seed(&[3; 32]));
        let now = 1_800_000_000_000;
        let a = attested(now);
        let v = key.attest(&a);
        let check = |v: &str, node: &str, method: &str, path: &str, now: u64| {
            key.check(v, node, method, path, now)
        };
        assert_eq!(check(&v, a.node, "GET", a.path, now), Some(a.client));
        // The clock may differ by the skew either way, no more.
        for t in [now - ATTESTATION_MAX_SKEW_MS, now + ATTESTATION_MAX_SKEW_MS] {
            assert_eq!(check(&v, a.node, "GET", a.path, t), Some(a.client));
        }
        for t in [now - ATTESTATION_MAX_SKEW_MS - 1, now + ATTESTATION_MAX_SKEW_MS + 1] {
            assert_eq!(check(&v, a.node, "GET", a.path, t), None);
        }
        // Another node, method or path.
        assert_eq!(check(&v, "http://c.test:8080", "GET", a.path, now), None);
        assert_eq!(check(&v, a.node, "POST", a.path, now), None);
        assert_eq!(check(&v, a.node, "GET", "/api/ledger?x=2", now), None);
        // Another address or time written in, the MAC kept.
        let mac = v.rsplit(' ').next().expect("three fields");
        assert_eq!(check(&format!("192.0.2.8 {now} {mac}"), a.node, "GET", a.path, now), None);
        assert_eq!(
            check(&format!("192.0.2.9 {} {mac}", now + 1), a.node, "GET", a.path, now),
            None
        );
        // Another key.
        let other = ForwardKey::of(&protocol::Identity::from_seed(&[4; 32]));
        assert_eq!(other.check(&v, a.node, "GET", a.path, now), None);
        // Malformed values.
        for bad in ["", "192.0.2.9", "192.0.2.9 1 zz", &format!("{v} extra"), "x 1 00"] {
            assert_eq!(check(bad, a.node, "GET", a.path, now), None, "{bad}");
        }
    }

    #[test]
    fn the_forward_key_is_the_relay_keys_own_and_nothing_elses() {
        let relay = protocol::Identity::from_seed(&[3; 32]);
        let key = ForwardKey::of(&relay).0;
        assert_eq!(key, ForwardKey::of(&protocol::Identity::from_seed(&[3; 32])).0);
        assert_ne!(key, ForwardKey::of(&protocol::Identity::from_seed(&[4; 32])).0);
        assert_ne!(key, relay.derived_secret(protocol::tags::HOST_TOKEN));
        assert_ne!(key, relay.derived_secret(protocol::tags::UMPIRE_SECRET));
    }
}
