//! The agent's second path to the relay (docs/PROTOCOL.md, delivery notices): a message of the
//! seat's that gets no receipt within [`GRACE_MS`] is offered to a delivery witness, which signs
//! a notice that it was offered it, forwards it to the relay and answers with the notice and the
//! relay's answer. The notice is kept beside the match's journal as
//! `<match id>.<message hash prefix>.notice`; given to `fogproof verify --notice`, it turns a
//! timeout the relay wrote instead of receipting the message into the relay's fault
//! ("relay fault: dropped message"). The entry itself, when the relay takes the message, comes
//! back through the socket like any other.

use protocol::codec::{Canonical, VERSION};
use protocol::delivery::CLOCK_TOLERANCE_MS;
pub use protocol::delivery::GRACE_MS;
use protocol::delivery::{DeliveryAnswer, DeliveryRequest, RelayAnswer};
use protocol::message::SignedMessage;
use protocol::terms::SignedTerms;
use protocol::{MatchId, MessageHash};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;
use tokio::time::Instant;

/// The largest witness answer read, in bytes.
pub const MAX_ANSWER_BYTES: usize = DeliveryAnswer::MAX_BYTES;
/// How long one offer to the witness may take, in ms.
pub const OFFER_TIMEOUT_MS: u64 = 10_000;
/// How long after a notice is in hand the seat waits before it sends its next message, in ms
/// (docs/PROTOCOL.md 16a, "skipped"): a notice proves a drop only if the rules would have
/// taken the message wherever within [`CLOCK_TOLERANCE_MS`] of the notice (by the relay's
/// clock) it could have arrived, so the seat's next message on the channel must not be
/// receipted in that window; twice the tolerance covers the witness's and the relay's clocks
/// disagreeing by up to the tolerance.
pub const NOTICE_WAIT_MS: u64 = 2 * CLOCK_TOLERANCE_MS;

/// Where a seat offers late messages, and where it keeps the notices.
#[derive(Clone, Debug)]
pub struct Courier {
    /// The witness, `http://host:port` (its `POST /deliver`).
    pub witness: String,
    /// The match's signed terms (the witness checks them).
    pub terms: SignedTerms,
    /// The directory notices go to (the agent's journal directory).
    pub dir: PathBuf,
    sent_at: BTreeMap<MessageHash, Instant>,
    offered: BTreeSet<MessageHash>,
    /// When each message with a notice in hand lets the next one go.
    released: BTreeMap<MessageHash, Instant>,
}

/// What became of one offer, for the seat to report.
#[derive(Clone, Debug)]
pub struct Offered {
    /// The notice file written.
    pub file: PathBuf,
    /// What the relay answered the witness.
    pub relay: RelayAnswer,
}

impl Courier {
    /// A courier for one match.
    pub fn new(witness: String, terms: SignedTerms, dir: PathBuf) -> Courier {
        Courier {
            witness: witness.trim_end_matches('/').to_owned(),
            terms,
            dir,
            sent_at: BTreeMap::new(),
            offered: BTreeSet::new(),
            released: BTreeMap::new(),
        }
    }

    /// The witness's notice for `hash` is in hand: the seat's next message may go
    /// [`NOTICE_WAIT_MS`] from now.
    pub fn noticed(&mut self, hash: MessageHash) {
        let at = Instant::now() + Duration::from_millis(NOTICE_WAIT_MS);
        self.released.entry(hash).or_insert(at);
    }

    /// Whether the seat may send its next message, `unconfirmed` being its messages sent without
    /// a receipt or refusal yet: only once each of them has its notice and [`NOTICE_WAIT_MS`]
    /// have passed since (docs/PROTOCOL.md 16a). Otherwise the relay could drop one, receipt
    /// the next, and the earlier one's notice would look like a message sent after it.
    pub fn may_send<'a>(&self, mut unconfirmed: impl Iterator<Item = &'a MessageHash>) -> bool {
        let now = Instant::now();
        unconfirmed.all(|h| self.released.get(h).is_some_and(|t| *t <= now))
    }

    /// When the seat may next send, if it waits on notices it has (`None`: it waits on a
    /// receipt, a refusal or a notice not in hand yet, or on nothing).
    pub fn next_release<'a>(
        &self,
        mut unconfirmed: impl Iterator<Item = &'a MessageHash>,
    ) -> Option<Instant> {
        let mut latest = None;
        for h in &mut unconfirmed {
            let t = *self.released.get(h)?;
            latest = Some(latest.map_or(t, |l: Instant| l.max(t)));
        }
        latest
    }

    /// The seat sent (or queued) `hash` now; a message sent again keeps its first time.
    pub fn sent(&mut self, hash: MessageHash) {
        self.sent_at.entry(hash).or_insert_with(Instant::now);
    }

    /// When the next of `unconfirmed` not yet offered is overdue.
    pub fn next_due<'a>(
        &self,
        unconfirmed: impl IntoIterator<Item = &'a MessageHash>,
    ) -> Option<Instant> {
        unconfirmed
            .into_iter()
            .filter(|h| !self.offered.contains(*h))
            .filter_map(|h| self.sent_at.get(h))
            .min()
            .map(|t| *t + Duration::from_millis(GRACE_MS))
    }

    /// The messages of `unconfirmed` (in order) overdue now and not yet offered; marks them
    /// offered. Offered in order, so the witness forwards them in the author's numbering.
    pub fn take_overdue(
        &mut self,
        unconfirmed: &[(MessageHash, SignedMessage)],
    ) -> Vec<SignedMessage> {
        let now = Instant::now();
        let grace = Duration::from_millis(GRACE_MS);
        let mut out = Vec::new();
        for (h, m) in unconfirmed {
            let due = self.sent_at.get(h).is_some_and(|t| *t + grace <= now);
            if due && !self.offered.contains(h) {
                self.offered.insert(*h);
                out.push(m.clone());
            }
        }
        out
    }

    /// The notice file for a message of match `id`.
    pub fn file_for(&self, id: &MatchId, m: &SignedMessage) -> PathBuf {
        let h = protocol::hex::encode(&m.hash().0);
        self.dir.join(format!("{}.{}.notice", protocol::hex::encode(&id.0), &h[..16]))
    }

    /// Offers `messages` to the witness, one after the other (in the author's numbering), and
    /// keeps each notice. Stops at the first that fails.
    pub async fn offer_all(
        self,
        match_id: MatchId,
        messages: Vec<SignedMessage>,
    ) -> Vec<Result<Offered, String>> {
        let mut out = Vec::new();
        for m in messages {
            let r = self.offer(match_id, &m).await;
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        out
    }

    /// Offers one message; the notice file written and the relay's answer.
    pub async fn offer(&self, match_id: MatchId, m: &SignedMessage) -> Result<Offered, String> {
        let request =
            DeliveryRequest { version: VERSION, terms: self.terms.clone(), message: m.clone() };
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(OFFER_TIMEOUT_MS))
            .build()
            .map_err(|e| e.to_string())?;
        let mut response = client
            .post(format!("{}/deliver", self.witness))
            .body(request.to_canonical())
            .send()
            .await
            .map_err(|e| format!("the delivery witness: {e}"))?;
        let status = response.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(format!("the witness's answer is over {MAX_ANSWER_BYTES} bytes"));
            }
            bytes.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(format!(
                "the delivery witness refused (HTTP {}): {}",
                status.as_u16(),
                String::from_utf8_lossy(&bytes).trim_end()
            ));
        }
        let answer = DeliveryAnswer::from_canonical(&bytes)
            .map_err(|e| format!("the witness's answer: {e}"))?;
        // Keep the notice only if it is one: a witness's notice for this very message.
        let witness = protocol::codec::decode::<protocol::delivery::DeliveryNotice>(
            &answer.delivered.notice.notice,
        )
        .map_err(|e| format!("the witness's notice: {e}"))?
        .witness;
        answer
            .delivered
            .check(&[witness], &match_id)
            .map_err(|e| format!("the witness's notice: {e}"))?;
        if answer.delivered.message != *m {
            return Err("the witness's notice names another message".into());
        }
        let file = self.file_for(&match_id, m);
        std::fs::create_dir_all(&self.dir).map_err(|e| e.to_string())?;
        std::fs::write(&file, answer.delivered.to_canonical())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(Offered { file, relay: answer.relay })
    }
}
