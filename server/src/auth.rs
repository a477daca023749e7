//! Sign-in without passwords: the server hands out a fresh 32-byte challenge, the client signs
//! it with its key ([`protocol::wire::sign_in`], bound to the server's relay key and to the
//! origin the client connected to, as WebAuthn binds the origin), and gets a bearer token for
//! its requests and sockets. The server accepts only its own public origins
//! (`serve --public-url`), so a sign-in relayed by a proxy at another origin gets no token. An
//! account is its key and a display name.
//!
//! Challenges are single-use, expire and live in memory. Tokens expire, and a server started
//! by [`crate::server::start`] **signs** them with the host's relay key ([`Auth::set_issuer`]):
//! a token is the key it stands for, its expiry and the relay's signature over both
//! ([`protocol::tags::HOST_TOKEN`]), so every node of a cluster (which all hold the host's relay key)
//! honours a token any of them issued, and a restarted server the tokens it issued before,
//! without a database write per sign-in or read per request (docs/SERVER.md, several nodes).
//! A token checked once is kept in memory ([`MAX_CACHED_TOKENS`]).
//!
//! A display name is a [`SignedName`] (docs/PROTOCOL.md, display names): the key's own
//! statement, checked here ([`accept_name`]) and kept in the account (its JSON in the accounts
//! table's `name` column), never written by the server. Every answer that shows keys carries
//! the names of those keys with their signatures ([`names_for`]), so whoever reads it checks
//! them: a host can withhold a name or show an older one, never invent or change one.

use crate::address::Bucket;
use crate::admission::lock;
use crate::error::AppError;
use crate::store::Store;
use axum::http::StatusCode;
use protocol::names::SignedName;
use protocol::{PublicKey, Signature};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

/// The most display names the server keeps in memory ([`Auth::remember_name`]); past it one is
/// dropped for each new one (the store keeps them all: a dropped one is read again when
/// shown).
pub const MAX_CACHED_NAMES: usize = 65_536;
/// The most keys of one answer whose names are read from the store when not in memory (the
/// others are left out of that answer's `names`).
pub const MAX_NAME_LOOKUPS: usize = 64;

/// The most tokens kept in memory once checked (past it a token is checked by its signature
/// on every request, still honoured).
pub const MAX_CACHED_TOKENS: usize = 262_144;

/// The hex length of a signed token: key (32), expiry (8), signature (64).
const SIGNED_TOKEN_HEX: usize = 2 * (32 + 8 + 64);

/// Outstanding challenges and live tokens.
#[derive(Debug, Default)]
pub struct Auth {
    /// The host's relay key, which signs the tokens ([`Auth::set_issuer`]); none: tokens are
    /// random and known to this process only.
    issuer: Option<protocol::Identity>,
    /// Each challenge's expiry and the address bucket it was handed to.
    challenges: BTreeMap<[u8; 32], (u64, Option<Bucket>)>,
    /// Outstanding challenges by address bucket ([`Bucket`]: an IPv6 address's /64).
    by_address: BTreeMap<Bucket, usize>,
    /// Challenges by expiry, for sweeping.
    expiry: VecDeque<(u64, [u8; 32])>,
    tokens: BTreeMap<String, (PublicKey, u64)>,
    /// Display names, as their keys signed them (at most [`MAX_CACHED_NAMES`]).
    names: BTreeMap<PublicKey, SignedName>,
}

/// Why a sign-in was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SignInError {
    /// Too many challenges outstanding.
    #[error("too many sign-ins in progress ({0} challenges outstanding, max_sign_in_challenges)")]
    Busy(usize),
    /// Too many challenges outstanding for one address.
    #[error(
        "too many sign-ins in progress from {0} ({1} challenges outstanding, \
         max_sign_in_challenges_per_address)"
    )]
    BusyAddress(Bucket, usize),
    /// The challenge is unknown, used or expired.
    #[error("unknown, used or expired challenge: ask for a new one")]
    Challenge,
    /// The signature does not verify.
    #[error("the signature does not sign this challenge for this server with that key: {0}")]
    Signature(String),
    /// The sign-in names an origin that is not one of this server's public URLs: the client
    /// reached this server through another address (a proxy), or the operator has not set the
    /// server's public URL (`serve --public-url`).
    #[error(
        "the sign-in names the origin {origin}, this server is {}: a sign-in relayed from \
         another address is refused (behind a proxy, start the server with --public-url)",
        accepted.join(", ")
    )]
    Origin {
        /// The origin the sign-in names.
        origin: String,
        /// This server's origins.
        accepted: Vec<String>,
    },
}

impl Auth {
    /// From now on tokens are signed by `relay` (the host's key, the same on every node) and
    /// any token it signed is honoured until its expiry.
    pub fn set_issuer(&mut self, relay: protocol::Identity) {
        self.issuer = Some(relay);
    }

    /// What the relay signs for a token (under [`protocol::tags::HOST_TOKEN`]): the key's 32
    /// bytes and the expiry's 8 (big-endian ms).
    fn token_bytes(key: &PublicKey, until: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(40);
        b.extend_from_slice(&key.0);
        b.extend_from_slice(&until.to_be_bytes());
        b
    }

    /// A token for `key` until `until` ms: signed by the issuer, else random.
    fn new_token(&self, key: &PublicKey, until: u64) -> Result<String, SignInError> {
        let Some(relay) = &self.issuer else {
            return protocol::keys::random_32()
                .map(|b| protocol::hex::encode(&b))
                .map_err(|e| SignInError::Signature(e.to_string()));
        };
        let mut b = Auth::token_bytes(key, until);
        let sig = relay.sign(protocol::tags::HOST_TOKEN, &b);
        b.extend_from_slice(&sig.r);
        b.extend_from_slice(&sig.s);
        Ok(protocol::hex::encode(&b))
    }

    /// The key that signs tokens, if any ([`Auth::set_issuer`]).
    pub fn issuer(&self) -> Option<PublicKey> {
        self.issuer.as_ref().map(protocol::Identity::public)
    }

    /// The key and expiry of a token `issuer` signed, if `token` is one (its expiry not judged
    /// here). A signature check: callers make it outside the lock on [`Auth`].
    pub fn signed_token(issuer: &PublicKey, token: &str) -> Option<(PublicKey, u64)> {
        if token.len() != SIGNED_TOKEN_HEX {
            return None;
        }
        let b = protocol::hex::decode(token)?;
        let key = PublicKey(b[..32].try_into().ok()?);
        let until = u64::from_be_bytes(b[32..40].try_into().ok()?);
        let sig = Signature { r: b[40..72].try_into().ok()?, s: b[72..104].try_into().ok()? };
        issuer.verify(protocol::tags::HOST_TOKEN, &b[..40], &sig).ok()?;
        Some((key, until))
    }

    fn forget(&mut self, c: &[u8; 32]) -> bool {
        let Some((_, address)) = self.challenges.remove(c) else { return false };
        // A /64's own first address has the client's levels.
        for (a, _) in address.map(|a| crate::address::levels(a.ip())).unwrap_or_default() {
            if let Some(n) = self.by_address.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    self.by_address.remove(&a);
                }
            }
        }
        true
    }

    fn sweep(&mut self, now_ms: u64) {
        while let Some(&(at, c)) = self.expiry.front() {
            if at > now_ms {
                break;
            }
            self.expiry.pop_front();
            self.forget(&c);
        }
        self.tokens.retain(|_, (_, until)| *until > now_ms);
    }

    /// A fresh challenge, valid for `valid_ms`, for a client at `address` (if known): at most
    /// `max` outstanding over all, and `max_per_address` for one address bucket ([`Bucket`];
    /// an IPv6 client's /56 and /48 hold 4 and 8 times it, [`crate::address::levels`]).
    pub fn challenge(
        &mut self,
        now_ms: u64,
        valid_ms: u64,
        max: usize,
        address: Option<IpAddr>,
        max_per_address: usize,
    ) -> Result<[u8; 32], SignInError> {
        self.sweep(now_ms);
        let levels = address.map(crate::address::levels).unwrap_or_default();
        for &(a, times) in &levels {
            let n = self.by_address.get(&a).copied().unwrap_or(0);
            if n >= max_per_address.saturating_mul(times) {
                return Err(SignInError::BusyAddress(a, n));
            }
        }
        let address = address.map(Bucket::of);
        if self.challenges.len() >= max {
            return Err(SignInError::Busy(self.challenges.len()));
        }
        let c = protocol::keys::random_32().map_err(|e| SignInError::Signature(e.to_string()))?;
        self.challenges.insert(c, (now_ms + valid_ms, address));
        for (a, _) in levels {
            *self.by_address.entry(a).or_insert(0) += 1;
        }
        self.expiry.push_back((now_ms + valid_ms, c));
        Ok(c)
    }

    /// Checks a signed challenge (using it up) and returns a token valid for `valid_ms`. The
    /// sign-in names `origin` (what the client connected to); it must be one of `origins`
    /// (this server's public URLs, [`protocol::wire::origin`] form) and is signed with the
    /// relay key `server`.
    #[allow(clippy::too_many_arguments, reason = "each is one checked part of the sign-in")]
    pub fn sign_in(
        &mut self,
        server: &PublicKey,
        origins: &[String],
        origin: &str,
        key: &PublicKey,
        challenge: &[u8; 32],
        signature: &Signature,
        now_ms: u64,
        valid_ms: u64,
    ) -> Result<String, SignInError> {
        self.sweep(now_ms);
        if !self.forget(challenge) {
            return Err(SignInError::Challenge);
        }
        if !origins.iter().any(|o| o == origin) {
            return Err(SignInError::Origin {
                origin: origin.to_owned(),
                accepted: origins.to_vec(),
            });
        }
        protocol::wire::check_sign_in(key, server, origin, challenge, signature)
            .map_err(|e| SignInError::Signature(e.to_string()))?;
        let until = now_ms.saturating_add(valid_ms);
        let token = self.new_token(key, until)?;
        if self.tokens.len() < MAX_CACHED_TOKENS {
            self.tokens.insert(token.clone(), (*key, until));
        }
        Ok(token)
    }

    /// The key a token stands for, if it is live: one kept in memory, or one the issuer
    /// signed (on this node or another of the host's, before or since a restart), then kept.
    pub fn key_of(&mut self, token: &str, now_ms: u64) -> Option<PublicKey> {
        if let Some(known) = self.cached(token, now_ms) {
            return known;
        }
        let signed = Auth::signed_token(&self.issuer()?, token)?;
        self.remember(token, signed, now_ms)
    }

    /// What memory says of a token: `Some(key or none)` when it is kept (live or expired),
    /// `None` when it was never seen (then [`Auth::signed_token`] may still know it).
    pub fn cached(&self, token: &str, now_ms: u64) -> Option<Option<PublicKey>> {
        self.tokens.get(token).map(|(k, until)| (*until > now_ms).then_some(*k))
    }

    /// Keeps a token whose signature was checked ([`Auth::signed_token`]), if it is live and
    /// there is room ([`MAX_CACHED_TOKENS`]); its key while it is live.
    pub fn remember(
        &mut self,
        token: &str,
        (key, until): (PublicKey, u64),
        now_ms: u64,
    ) -> Option<PublicKey> {
        if until <= now_ms {
            return None;
        }
        if self.tokens.len() < MAX_CACHED_TOKENS {
            self.tokens.insert(token.to_owned(), (key, until));
        }
        Some(key)
    }

    /// Keeps a checked display name in memory, unless an equal or newer one of its key is
    /// there already.
    pub fn remember_name(&mut self, name: SignedName) {
        match self.names.get(&name.key) {
            Some(old) if !name.replaces(old) => return,
            Some(_) => {}
            None => {
                if self.names.len() >= MAX_CACHED_NAMES
                    && let Some(k) = self.names.keys().next().copied()
                {
                    self.names.remove(&k);
                }
            }
        }
        self.names.insert(name.key, name);
    }

    /// The display name of `key` kept in memory, if any.
    pub fn cached_name(&self, key: &PublicKey) -> Option<SignedName> {
        self.names.get(key).cloned()
    }
}

/// What the display-name functions below need of the server: its name cache, its store, its
/// clock and its `max_name_bytes`. `crate::state::Shared` implements it; a trait here keeps `auth`
/// below `state` (issue 17: no module cycles).
pub trait NameBook {
    /// The sign-in state, whose name cache the functions below read and fill.
    fn auth(&self) -> &Mutex<Auth>;
    /// Where accounts (and their names) are kept.
    fn store(&self) -> &dyn Store;
    /// The server's clock (ms).
    fn now_ms(&self) -> u64;
    /// The configured `max_name_bytes`.
    fn max_name_bytes(&self) -> usize;
}

impl<T: NameBook + ?Sized> NameBook for std::sync::Arc<T> {
    fn auth(&self) -> &Mutex<Auth> {
        (**self).auth()
    }
    fn store(&self) -> &dyn Store {
        (**self).store()
    }
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
    fn max_name_bytes(&self) -> usize {
        (**self).max_name_bytes()
    }
}

/// Reads a display name sent to the server (at sign-in or `POST /api/account`) for `key`: the
/// JSON form of a [`SignedName`] of `key`'s, whose signature verifies, in the allowed form, at
/// most `max_name_bytes`. Each refusal names its reason (400).
pub fn accept_name(
    shared: &(impl NameBook + ?Sized),
    key: &PublicKey,
    v: &Value,
) -> Result<SignedName, AppError> {
    let bad = |m: String| AppError::new(StatusCode::BAD_REQUEST, m);
    if v.is_string() {
        return Err(bad(
            "name: a display name is signed by its key: send {\"key\", \"name\", \"issued_ms\", \
             \"signature\"} (docs/PROTOCOL.md, display names; fogproof's clients sign it)"
                .into(),
        ));
    }
    let n: SignedName = serde_json::from_value(v.clone()).map_err(|e| bad(format!("name: {e}")))?;
    if n.key != *key {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            format!("name: the name is {}'s, and you are signed in as {key}", n.key),
        ));
    }
    n.verify().map_err(|e| bad(format!("name: {e}")))?;
    let max = shared.max_name_bytes();
    if n.name.len() > max {
        return Err(bad(format!(
            "name: {} bytes, this server keeps names of at most {max} bytes (max_name_bytes)",
            n.name.len()
        )));
    }
    Ok(n)
}

/// The display name in an account's `name` column (a [`SignedName`]'s JSON; anything else,
/// an empty text or a name from before names were signed, is no name).
pub fn stored_name(account: &crate::store::Account) -> Option<SignedName> {
    serde_json::from_str::<SignedName>(&account.name)
        .ok()
        .filter(|n| n.key == account.key && n.verify().is_ok())
}

/// Keeps `name` (checked by [`accept_name`]) as its key's display name, unless the account has
/// a newer one (409, naming when that one was chosen). Returns the name now kept.
pub async fn store_name(
    shared: &(impl NameBook + ?Sized),
    name: SignedName,
) -> Result<SignedName, AppError> {
    let internal = |e: crate::store::StoreError| {
        AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    };
    let now = shared.now_ms();
    let existing = shared.store().account(&name.key).await.map_err(internal)?;
    let old = existing.as_ref().and_then(stored_name);
    if let Some(old) = &old {
        if *old == name {
            lock(shared.auth()).remember_name(name.clone());
            return Ok(name);
        }
        if !name.replaces(old) {
            return Err(AppError::new(
                StatusCode::CONFLICT,
                format!(
                    "name: this key chose {:?} at {} ms, later than this name ({} ms): a newer \
                     name replaces an older one, never the reverse",
                    old.name, old.issued_ms, name.issued_ms
                ),
            ));
        }
    }
    let text = serde_json::to_string(&name)
        .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let account = crate::store::Account {
        key: name.key,
        name: text,
        created_ms: existing.map_or(now, |a| a.created_ms),
    };
    shared.store().put_account(&account).await.map_err(internal)?;
    lock(shared.auth()).remember_name(name.clone());
    Ok(name)
}

/// The display name of `key`, if it chose one: from memory, else from its account.
pub async fn name_of(shared: &(impl NameBook + ?Sized), key: &PublicKey) -> Option<SignedName> {
    let cached = lock(shared.auth()).cached_name(key);
    if cached.is_some() {
        return cached;
    }
    let account = shared.store().account(key).await.ok().flatten()?;
    let n = stored_name(&account)?;
    lock(shared.auth()).remember_name(n.clone());
    Some(n)
}

/// Every key (`ed25519:<64 hex>`) a JSON value shows, in order, at most `max`.
fn keys_in(v: &Value, out: &mut BTreeSet<PublicKey>, max: usize) {
    if out.len() >= max {
        return;
    }
    match v {
        Value::String(s) if s.len() == 72 && s.starts_with("ed25519:") => {
            if let Ok(k) = s.parse() {
                out.insert(k);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys_in(x, out, max)),
        Value::Object(m) => m.values().for_each(|x| keys_in(x, out, max)),
        _ => {}
    }
}

/// The `names` of an answer: for every key `v` shows (the first [`MAX_NAME_LOOKUPS`] read from
/// the store when not in memory), its display name with the key's signature, by key. Keys
/// without a name are left out.
pub async fn names_for(shared: &(impl NameBook + ?Sized), v: &Value) -> Value {
    let mut keys = BTreeSet::new();
    keys_in(v, &mut keys, 4 * MAX_NAME_LOOKUPS);
    let mut out = serde_json::Map::new();
    let mut lookups = 0;
    for k in keys {
        let cached = lock(shared.auth()).cached_name(&k);
        let n = match cached {
            Some(n) => Some(n),
            None if lookups < MAX_NAME_LOOKUPS => {
                lookups += 1;
                name_of(shared, &k).await
            }
            None => None,
        };
        if let Some(n) = n {
            out.insert(k.to_string(), json!(n));
        }
    }
    Value::Object(out)
}

/// `v` with its `names` ([`names_for`]) added, where `v` is an object.
pub async fn with_names(shared: &(impl NameBook + ?Sized), mut v: Value) -> Value {
    let names = names_for(shared, &v).await;
    if let Value::Object(m) = &mut v {
        m.insert("names".into(), names);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::Identity;

    const AT: &str = "https://play.example";

    fn origins() -> Vec<String> {
        vec!["http://127.0.0.1:8080".into(), AT.into()]
    }

    #[test]
    fn a_sign_in_naming_another_origin_is_refused() {
        let server = Identity::from_seed(&[9; 32]).public();
        let me = Identity::from_seed(&[1; 32]);
        let mut a = Auth::default();
        // A proxy at another origin relayed this server's challenge: the player's agent signed
        // the origin it connected to, the proxy's.
        let c = a.challenge(0, 1000, 10, None, 10).unwrap();
        let proxy = "https://play-example.evil";
        let sig = protocol::wire::sign_in(&me, &server, proxy, &c);
        let err = a.sign_in(&server, &origins(), proxy, &me.public(), &c, &sig, 1, 5000);
        assert!(
            matches!(&err, Err(SignInError::Origin { origin, .. }) if origin == proxy),
            "{err:?}"
        );
        // Nor can the proxy claim this server's origin for that signature.
        let c = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig = protocol::wire::sign_in(&me, &server, proxy, &c);
        let err = a.sign_in(&server, &origins(), AT, &me.public(), &c, &sig, 1, 5000);
        assert!(matches!(err, Err(SignInError::Signature(_))), "{err:?}");
        // Signed for this server's origin: a token.
        let c = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig = protocol::wire::sign_in(&me, &server, AT, &c);
        assert!(a.sign_in(&server, &origins(), AT, &me.public(), &c, &sig, 1, 5000).is_ok());
    }

    #[test]
    fn a_challenge_signs_in_once_and_expires() {
        let server = Identity::from_seed(&[9; 32]).public();
        let me = Identity::from_seed(&[1; 32]);
        let mut a = Auth::default();
        let c = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig = protocol::wire::sign_in(&me, &server, AT, &c);
        let token = a.sign_in(&server, &origins(), AT, &me.public(), &c, &sig, 10, 5000).unwrap();
        assert_eq!(a.key_of(&token, 20), Some(me.public()));
        assert_eq!(a.key_of(&token, 5010), None, "expired");
        // Used up: the same signature does not sign in twice.
        assert_eq!(
            a.sign_in(&server, &origins(), AT, &me.public(), &c, &sig, 10, 5000),
            Err(SignInError::Challenge)
        );
        // Expired challenge.
        let c2 = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig2 = protocol::wire::sign_in(&me, &server, AT, &c2);
        assert_eq!(
            a.sign_in(&server, &origins(), AT, &me.public(), &c2, &sig2, 1000, 5000),
            Err(SignInError::Challenge)
        );
        // Another key's claim on my signature.
        let c3 = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig3 = protocol::wire::sign_in(&me, &server, AT, &c3);
        let other = Identity::from_seed(&[2; 32]).public();
        assert!(matches!(
            a.sign_in(&server, &origins(), AT, &other, &c3, &sig3, 1, 5000),
            Err(SignInError::Signature(_))
        ));
    }

    #[test]
    fn a_token_signed_by_the_hosts_relay_key_is_honoured_by_every_node_of_the_host() {
        let relay = Identity::from_seed(&[9; 32]);
        let me = Identity::from_seed(&[1; 32]);
        let node = || {
            let mut a = Auth::default();
            a.set_issuer(relay.clone());
            a
        };
        let (mut a, mut b) = (node(), node());
        let c = a.challenge(0, 1000, 10, None, 10).unwrap();
        let sig = protocol::wire::sign_in(&me, &relay.public(), AT, &c);
        let token =
            a.sign_in(&relay.public(), &origins(), AT, &me.public(), &c, &sig, 10, 5000).unwrap();
        // Node B never saw the sign-in: it honours the token until its expiry, not after.
        assert_eq!(b.key_of(&token, 20), Some(me.public()));
        assert_eq!(node().key_of(&token, 5009), Some(me.public()));
        assert_eq!(node().key_of(&token, 5010), None, "expired");
        assert_eq!(b.key_of(&token, 5010), None, "expired, though kept in memory");
        // Another host's node (another relay key) does not.
        let mut other = Auth::default();
        other.set_issuer(Identity::from_seed(&[8; 32]));
        assert_eq!(other.key_of(&token, 20), None);
        // Nor a node without an issuer, nor a token changed in any part: another key, a later
        // expiry, another signature.
        assert_eq!(Auth::default().key_of(&token, 20), None);
        let bytes = protocol::hex::decode(&token).unwrap();
        for at in [0, 39, 40, 103] {
            let mut forged = bytes.clone();
            forged[at] ^= 1;
            assert_eq!(node().key_of(&protocol::hex::encode(&forged), 20), None, "byte {at}");
        }
        assert_eq!(node().key_of(&token[..token.len() - 2], 20), None);
        assert_eq!(node().key_of("", 20), None);
    }

    #[test]
    fn outstanding_challenges_are_bounded() {
        let mut a = Auth::default();
        for _ in 0..3 {
            a.challenge(0, 1000, 3, None, 3).unwrap();
        }
        assert_eq!(a.challenge(0, 1000, 3, None, 3), Err(SignInError::Busy(3)));
        // Expired ones free their places.
        assert!(a.challenge(1000, 1000, 3, None, 3).is_ok());
    }

    #[test]
    fn one_address_cannot_take_the_whole_pool() {
        let mut a = Auth::default();
        let greedy: IpAddr = "2001:db8::1".parse().unwrap();
        let neighbour: IpAddr = "2001:db8::ffff".parse().unwrap(); // the same /64
        let other: IpAddr = "198.51.100.7".parse().unwrap();
        let server = protocol::Identity::from_seed(&[9; 32]).public();
        let me = protocol::Identity::from_seed(&[1; 32]);
        let first = a.challenge(0, 1000, 100, Some(greedy), 2).unwrap();
        a.challenge(0, 1000, 100, Some(greedy), 2).unwrap();
        let bucket = Bucket::of(greedy);
        assert_eq!(
            a.challenge(0, 1000, 100, Some(neighbour), 2),
            Err(SignInError::BusyAddress(bucket, 2)),
            "a /64 is one address"
        );
        // Another address still signs in, the pool being far from full.
        assert!(a.challenge(0, 1000, 100, Some(other), 2).is_ok());
        // A challenge used up frees its address's place.
        let sig = protocol::wire::sign_in(&me, &server, AT, &first);
        a.sign_in(&server, &origins(), AT, &me.public(), &first, &sig, 1, 5000).unwrap();
        assert!(a.challenge(1, 1000, 100, Some(greedy), 2).is_ok());
        assert!(a.challenge(1, 1000, 100, Some(greedy), 2).is_err());
        // Expired ones too.
        assert!(a.challenge(1001, 1000, 100, Some(greedy), 2).is_ok());
    }

    /// A home connection's /56 holds 4 times an address's challenges over all its /64s, a /48
    /// 8 times: a few such hosts cannot take the whole pool.
    #[test]
    fn a_56_and_a_48_hold_a_few_addresses_worth_of_challenges() {
        let mut a = Auth::default();
        let at = |s: String| Some(s.parse::<IpAddr>().unwrap());
        for sub in 0..4 {
            for _ in 0..2 {
                a.challenge(0, 1000, 100, at(format!("2001:db8:0:{sub}::1")), 2).unwrap();
            }
        }
        let refused = a.challenge(0, 1000, 100, at("2001:db8:0:ff::1".into()), 2).unwrap_err();
        assert_eq!(
            refused.to_string().split(" (").next(),
            Some("too many sign-ins in progress from 2001:db8::/56")
        );
        for sub in 0..4 {
            for _ in 0..2 {
                a.challenge(0, 1000, 100, at(format!("2001:db8:0:1{sub}0::1")), 2).unwrap();
            }
        }
        let refused = a.challenge(0, 1000, 100, at("2001:db8:0:f00::1".into()), 2).unwrap_err();
        assert!(refused.to_string().contains("from 2001:db8::/48 (16 challenges"), "{refused}");
        assert!(a.challenge(0, 1000, 100, at("2001:db8:1::1".into()), 2).is_ok(), "another /48");
        // Expired, they free every level.
        assert!(a.challenge(1000, 1000, 100, at("2001:db8:0:f00::1".into()), 2).is_ok());
        assert_eq!(a.by_address.len(), 3, "only the last one's levels are counted");
    }
}
