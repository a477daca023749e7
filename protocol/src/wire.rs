//! The network framing between a participant and the relay's server (docs/PROTOCOL.md section
//! 22), and the sign-in that proves a key to the server.
//!
//! A WebSocket carries binary frames, each one canonical postcard value: [`ClientFrame`] from
//! the participant, [`ServerFrame`] from the server. Either one socket per participant and
//! match (`Hello`, then `Message`s), or one socket per participant for all its matches (the
//! multiplexed socket: `Hello`, then `Open`, `To` and `Leave` naming a match each, answered by
//! frames wrapped in [`ServerFrame::For`]). A message
//! travels as the exact bytes its author signed ([`ClientFrame::Message`]), so the relay accepts
//! and receipts the bytes as received; an accepted entry comes back as [`ServerFrame::Entry`] to
//! every party entitled to read its channel (the author included: the receipt is its proof).
//!
//! ```text
//! sign-in   = Sign(key, signing_input(fogproof/v2/sign-in, frame(fogproof/v2/sign-in;
//!                  ("server", relay key), ("challenge", 32 bytes from the server))))
//! ```
//!
//! The challenge is fresh per sign-in and the server's relay key is inside, so a sign-in made
//! for one server (or one challenge) is worth nothing at another.

use crate::codec::{self, Canonical, DecodeError};
use crate::keys::{Identity, PublicKey, Signature, SignatureError};
use crate::message::{SignedMessage, SignedReceipt};
use crate::relay::Entry;
use crate::tags;
use crate::terms::SignedTerms;
use crate::transcript::Frame;
use crate::{MatchId, MessageHash};
use serde::{Deserialize, Serialize};

/// The longest reason text a [`ServerFrame::Refused`] carries (longer ones are cut).
pub const MAX_REASON_BYTES: usize = 1024;

/// What a participant sends on its match socket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientFrame {
    /// The first frame on a socket: the protocol version, and the index of the last entry the
    /// participant already holds among the entries it may read, in the relay's order (`None`:
    /// nothing yet). The server answers with [`ServerFrame::Welcome`], then every entry it may
    /// read after that one. The index counts only the participant's own view (the public
    /// channel and its own), never another side's channel.
    Hello {
        /// [`codec::VERSION`].
        version: u8,
        /// The last position held.
        since: Option<u64>,
    },
    /// A signed message, as the canonical bytes of its [`SignedMessage`], exactly as signed.
    Message(Vec<u8>),
    /// On the multiplexed socket: follow `match_id` from the last position held (`None`:
    /// nothing yet), as a `Hello` on a match's own socket does. Answered by that match's
    /// `Welcome`, catch-up and live entries, each wrapped in [`ServerFrame::For`]; opening a
    /// match already open on the socket starts it again from `since`.
    Open {
        /// The match.
        match_id: MatchId,
        /// The last position held.
        since: Option<u64>,
    },
    /// On the multiplexed socket: a signed message for `match_id` (opened first), as the
    /// canonical bytes of its [`SignedMessage`], exactly as signed.
    To {
        /// The match.
        match_id: MatchId,
        /// The bytes.
        message: Vec<u8>,
    },
    /// On the multiplexed socket: stop following `match_id` (nothing is answered).
    Leave {
        /// The match.
        match_id: MatchId,
    },
}

impl Canonical for ClientFrame {
    const NAME: &'static str = "client frame";
    const MAX_BYTES: usize = SignedMessage::MAX_BYTES + 16 + 32;

    fn check(&self) -> Result<(), DecodeError> {
        match self {
            ClientFrame::Hello { version, .. } => codec::check_version(Self::NAME, *version),
            _ => Ok(()),
        }
    }
}

/// What the server sends on a match socket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerFrame {
    /// The answer to [`ClientFrame::Hello`]: the match's signed terms, how many entries of the
    /// relay's log the participant may read now, and how many of those come after its `since`:
    /// exactly that many [`ServerFrame::Entry`] frames follow at once (the catch-up), then
    /// live entries as they are accepted. (For a finished match, whose record is public, both
    /// count every entry, and `since` is taken as an index among them: a participant resuming
    /// with its own view's index is sent some entries again, which it knows by their channel
    /// and position.)
    Welcome {
        /// [`codec::VERSION`].
        version: u8,
        /// The match id.
        match_id: MatchId,
        /// The terms every party signed.
        terms: SignedTerms,
        /// Entries in the relay's log that the participant may read.
        entries: u64,
        /// Entry frames that follow at once (the catch-up).
        catch_up: u64,
    },
    /// An accepted message with its receipt, on a channel the recipient reads.
    Entry(Entry),
    /// The relay refused the participant's message; nothing was stored. `message` is its hash
    /// when the bytes decoded that far.
    Refused {
        /// The refused message's hash, if it decoded.
        message: Option<MessageHash>,
        /// Why, in words (at most [`MAX_REASON_BYTES`]).
        reason: String,
    },
    /// The match is over and its record final (at `GET /api/match/{id}/record`); the server
    /// closes the socket after this frame.
    Finished {
        /// Entries in the final record.
        entries: u64,
    },
    /// On the multiplexed socket: a frame of match `match_id` (never itself a `For`).
    For {
        /// The match.
        match_id: MatchId,
        /// Its frame.
        frame: Box<ServerFrame>,
    },
    /// On the multiplexed socket, wrapped in `For`: the server stopped following this match
    /// on this socket, saying why (a fault of this match's frames, the match stopped, or it
    /// cannot be opened); the other matches on the socket go on. `Open` it again to resume.
    Left {
        /// Why, in words (at most [`MAX_REASON_BYTES`]).
        reason: String,
    },
}

/// The variant index of [`ServerFrame::Entry`] in its encoding.
const ENTRY_INDEX: u8 = 1;
/// The variant index of [`ServerFrame::For`] in its encoding.
const FOR_INDEX: u8 = 4;

impl Canonical for ServerFrame {
    const NAME: &'static str = "server frame";
    const MAX_BYTES: usize = SignedTerms::MAX_BYTES
        + SignedMessage::MAX_BYTES
        + SignedReceipt::MAX_BYTES
        + MAX_REASON_BYTES
        + 64
        + 33;

    fn check(&self) -> Result<(), DecodeError> {
        match self {
            ServerFrame::Welcome { version, .. } => codec::check_version(Self::NAME, *version),
            ServerFrame::Refused { reason, .. } | ServerFrame::Left { reason }
                if reason.len() > MAX_REASON_BYTES =>
            {
                Err(DecodeError::TooLong {
                    what: "refusal reason",
                    len: reason.len(),
                    max_bytes: MAX_REASON_BYTES,
                })
            }
            ServerFrame::For { frame, .. } => match **frame {
                ServerFrame::For { .. } => Err(DecodeError::Malformed {
                    what: Self::NAME,
                    reason: postcard::Error::DeserializeBadEnum,
                }),
                ref inner => inner.check(),
            },
            _ => Ok(()),
        }
    }
}

impl ServerFrame {
    /// A refusal, its reason cut to [`MAX_REASON_BYTES`] at a character boundary.
    pub fn refused(message: Option<MessageHash>, reason: &str) -> ServerFrame {
        let mut end = reason.len().min(MAX_REASON_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        ServerFrame::Refused { message, reason: reason[..end].to_owned() }
    }

    /// A [`ServerFrame::Left`], its reason cut to [`MAX_REASON_BYTES`] at a character boundary.
    pub fn left(reason: &str) -> ServerFrame {
        let mut end = reason.len().min(MAX_REASON_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        ServerFrame::Left { reason: reason[..end].to_owned() }
    }

    /// The encoding of `Entry(entry)` from the encoding of `entry` (the bytes the server
    /// stores), without encoding it again.
    pub fn entry(entry: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + entry.len());
        out.push(ENTRY_INDEX);
        out.extend_from_slice(entry);
        out
    }

    /// The encoding of `For { match_id, frame }` from the encoding of `frame`, without
    /// decoding or encoding it again: the server encodes an entry once and sends the same
    /// bytes, wrapped once per match, to every socket that reads it.
    pub fn wrap(match_id: &MatchId, frame: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + 32 + frame.len());
        out.push(FOR_INDEX);
        out.extend_from_slice(&match_id.0);
        out.extend_from_slice(frame);
        out
    }
}

/// The bytes a key signs to sign in to a server: the server's relay key (`server`) and the
/// origin the client connected to (`origin`, as [`origin`] writes it), as WebAuthn binds the
/// origin. The server refuses a sign-in that names another relay key or an origin that is not
/// one of its public URLs, so a proxy that relays a server's challenge to a client gets a
/// signature naming the proxy's origin, which the real server refuses.
pub fn sign_in_bytes(server: &PublicKey, origin: &str, challenge: &[u8; 32]) -> Vec<u8> {
    Frame::new(tags::SIGN_IN)
        .append("server", &server.0)
        .append("origin", origin.as_bytes())
        .append("challenge", challenge)
        .into_bytes()
}

/// Signs in to `server` (its relay key), reached at `origin`, with `challenge`.
pub fn sign_in(
    identity: &Identity,
    server: &PublicKey,
    origin: &str,
    challenge: &[u8; 32],
) -> Signature {
    identity.sign(tags::SIGN_IN, &sign_in_bytes(server, origin, challenge))
}

/// Checks a sign-in signature.
pub fn check_sign_in(
    key: &PublicKey,
    server: &PublicKey,
    origin: &str,
    challenge: &[u8; 32],
    signature: &Signature,
) -> Result<(), SignatureError> {
    key.verify(tags::SIGN_IN, &sign_in_bytes(server, origin, challenge), signature)
}

/// The origin of a URL, in the one form both sides compare and sign: `scheme://host[:port]`,
/// lower case, the scheme `http` or `https`, without a path, query or fragment, and without the
/// scheme's default port (80, 443). `None` for anything else (another scheme, no host, user
/// information, a port that is not a number).
pub fn origin(url: &str) -> Option<String> {
    let url = url.trim().to_ascii_lowercase();
    let (scheme, rest) = url.split_once("://")?;
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return None;
    }
    // The port is after the last ':' outside an IPv6 literal's brackets.
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    if host.is_empty() || host == "[]" {
        return None;
    }
    match port {
        Some(p) if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) => None,
        Some(p) if p.trim_start_matches('0') == default_port => Some(format!("{scheme}://{host}")),
        Some(p) => {
            let n: u16 = p.parse().ok()?;
            Some(format!("{scheme}://{host}:{n}"))
        }
        None => Some(format!("{scheme}://{host}")),
    }
}

/// The reason a relay refuses a second connection of a match's umpire while one is connected
/// (the seat's live socket is its lease among the umpire processes of one key): the umpire
/// process refused leaves the seat to the one connected.
pub const UMPIRE_SEATED: &str =
    "the umpire's seat of this match is served by another connection; leave it to that one";

/// The words around the owner's URL in the reason a cluster node gives for a match it does not
/// run (docs/SERVER.md, several nodes): close code 1013 on a match's own socket, a `Left` on
/// the multiplexed one. [`owner_redirect`] writes it, [`redirect_target`] reads it back.
const REDIRECT_BEFORE: &str = "the match is running on the node at ";
const REDIRECT_AFTER: &str = "; reconnect there";

/// The reason a cluster node gives for a match whose lease the node at `url` holds.
pub fn owner_redirect(url: &str) -> String {
    format!("{REDIRECT_BEFORE}{url}{REDIRECT_AFTER}")
}

/// The owner's URL in a reason written by [`owner_redirect`] (possibly after other words, as
/// in a close's "1013 …"), if it is one: an address to judge, not to trust (the agent follows
/// only an http(s) origin, signs in there afresh and checks the relay's key).
pub fn redirect_target(reason: &str) -> Option<&str> {
    let start = reason.find(REDIRECT_BEFORE)? + REDIRECT_BEFORE.len();
    let rest = &reason[start..];
    let url = &rest[..rest.find(REDIRECT_AFTER)?];
    (!url.is_empty() && !url.contains(char::is_whitespace)).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_other_versions() {
        let hello = ClientFrame::Hello { version: codec::VERSION, since: Some(7) };
        let bytes = hello.to_canonical();
        assert_eq!(ClientFrame::from_canonical(&bytes).unwrap(), hello);
        let old = ClientFrame::Hello { version: 1, since: None }.to_canonical();
        assert!(matches!(
            ClientFrame::from_canonical(&old),
            Err(DecodeError::UnsupportedVersion { found: 1, .. })
        ));
        let huge = vec![0u8; ClientFrame::MAX_BYTES + 1];
        assert!(matches!(ClientFrame::from_canonical(&huge), Err(DecodeError::TooLong { .. })));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(matches!(
            ClientFrame::from_canonical(&trailing),
            Err(DecodeError::TrailingBytes { .. })
        ));
        // An unknown frame kind does not decode.
        assert!(ClientFrame::from_canonical(&[9]).is_err());
    }

    #[test]
    fn a_wrapped_frame_is_the_encoding_of_for_and_for_does_not_nest() {
        let id = MatchId([7; 32]);
        let inner = ServerFrame::Finished { entries: 9 };
        let typed = ServerFrame::For { match_id: id, frame: Box::new(inner.clone()) };
        let wrapped = ServerFrame::wrap(&id, &inner.to_canonical());
        assert_eq!(wrapped, typed.to_canonical());
        assert_eq!(ServerFrame::from_canonical(&wrapped).unwrap(), typed);
        let left = ServerFrame::wrap(&id, &ServerFrame::left("gone").to_canonical());
        assert!(matches!(
            ServerFrame::from_canonical(&left).unwrap(),
            ServerFrame::For { frame, .. } if *frame == ServerFrame::Left { reason: "gone".into() }
        ));
        let nested = ServerFrame::wrap(&id, &wrapped);
        // An entry's frame is its stored bytes behind the variant index.
        let entry = Entry {
            message: SignedMessage {
                body: vec![1, 2, 3],
                signature: Signature { r: [4; 32], s: [5; 32] },
            },
            receipt: SignedReceipt {
                receipt: vec![6],
                signature: Signature { r: [7; 32], s: [8; 32] },
            },
        };
        assert_eq!(
            ServerFrame::entry(&entry.to_canonical()),
            ServerFrame::Entry(entry).to_canonical()
        );
        assert!(ServerFrame::from_canonical(&nested).is_err());
        // The multiplexed client frames round-trip; a To carries a whole signed message.
        for f in [
            ClientFrame::Open { match_id: id, since: Some(3) },
            ClientFrame::To { match_id: id, message: vec![1; SignedMessage::MAX_BYTES] },
            ClientFrame::Leave { match_id: id },
        ] {
            assert_eq!(ClientFrame::from_canonical(&f.to_canonical()).unwrap(), f);
        }
    }

    #[test]
    fn an_owner_redirect_reads_back_and_nothing_else_does() {
        let r = owner_redirect("http://10.0.0.2:8080");
        assert_eq!(redirect_target(&r), Some("http://10.0.0.2:8080"));
        assert_eq!(redirect_target(&format!("closed: 1013 {r}")), Some("http://10.0.0.2:8080"));
        assert_eq!(redirect_target("the match is not running here; reconnect"), None);
        assert_eq!(redirect_target(&owner_redirect("")), None);
        assert_eq!(redirect_target(&owner_redirect("http://a b")), None);
        // Cut short (a close frame's 123 bytes): no URL rather than part of one.
        assert_eq!(redirect_target(&r[..r.len() - 3]), None);
    }

    #[test]
    fn refusal_reasons_are_cut_at_a_character_boundary() {
        let long = "é".repeat(MAX_REASON_BYTES);
        let ServerFrame::Refused { reason, .. } = ServerFrame::refused(None, &long) else {
            unreachable!()
        };
        assert!(reason.len() <= MAX_REASON_BYTES && reason.len() >= MAX_REASON_BYTES - 1);
        let frame = ServerFrame::refused(None, &long);
        assert_eq!(ServerFrame::from_canonical(&frame.to_canonical()).unwrap(), frame);
    }

    #[test]
    fn a_sign_in_is_bound_to_its_server_origin_and_challenge() {
        let me = Identity::from_seed(&[1; 32]);
        let server = Identity::from_seed(&[2; 32]).public();
        let other = Identity::from_seed(&[3; 32]).public();
        let at = "https://play.example";
        let sig = sign_in(&me, &server, at, &[5; 32]);
        assert!(check_sign_in(&me.public(), &server, at, &[5; 32], &sig).is_ok());
        assert!(check_sign_in(&me.public(), &other, at, &[5; 32], &sig).is_err());
        assert!(
            check_sign_in(&me.public(), &server, "https://evil.example", &[5; 32], &sig).is_err()
        );
        assert!(check_sign_in(&me.public(), &server, at, &[6; 32], &sig).is_err());
        assert!(check_sign_in(&other, &server, at, &[5; 32], &sig).is_err());
        // Not a message signature either: the tag differs.
        let bytes = sign_in_bytes(&server, at, &[5; 32]);
        assert!(me.public().verify(tags::MESSAGE, &bytes, &sig).is_err());
    }

    #[test]
    fn origins_have_one_form() {
        assert_eq!(
            origin("HTTP://Play.Example:80/api/x?y#z").as_deref(),
            Some("http://play.example")
        );
        assert_eq!(origin("https://play.example:443").as_deref(), Some("https://play.example"));
        assert_eq!(
            origin("https://play.example:8443/").as_deref(),
            Some("https://play.example:8443")
        );
        assert_eq!(origin("http://127.0.0.1:8080").as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(origin("http://[::1]:8080/x").as_deref(), Some("http://[::1]:8080"));
        assert_eq!(origin("http://[::1]").as_deref(), Some("http://[::1]"));
        for bad in
            ["ftp://x", "http://", "http://u@x", "http://x:", "http://x:99999", "x", "http://x:8a"]
        {
            assert_eq!(origin(bad), None, "{bad}");
        }
    }
}
