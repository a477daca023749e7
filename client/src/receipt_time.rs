//! The agent's check of the relay's receipt times against its own clock (docs/PROTOCOL.md 16c).
//!
//! Receipt times are the relay's: the match clocks run on them, so a relay that post-dates a
//! player's message makes that player look slow (or late), and one that stamps a time before the
//! message was sent moves time from one clock to the other. No signature can show when a message
//! really arrived, but the sender knows when it sent it, by its own monotonic clock, and when the
//! receipt came back. This module compares the two.
//!
//! Write `c = time_ms − local_ms` for the relay's time minus the seat's monotonic time (ms since
//! the seat began). An honest relay stamps each message between its sending and the arrival of its
//! receipt, and each entry before it is delivered, so:
//! - every entry delivered live gives a lower bound: `c ≥ time_ms − arrived_ms`;
//! - every message of the seat's own gives an upper bound: `c ≤ time_ms − sent_ms`.
//!
//! Relay time never runs ahead of real time (`fogproof serve` can only let it stand still: over a
//! restart, or a storage stall it charges to nobody), so `c` never grows, and an upper bound
//! stays true for the rest of the match. A receipt of the seat's own message is then:
//! - **post-dated** when `time_ms − arrived_ms` exceeds the least upper bound seen before by more
//!   than [`RECEIPT_TIME_TOLERANCE_MS`]: by the seat's clock the relay claims it received the
//!   message after its receipt had already come back;
//! - **pre-dated** when `time_ms − sent_ms` is below the greatest lower bound seen (live, on the
//!   same socket) before the message was sent by more than the tolerance: the relay claims it
//!   received the message before it was sent. (Relay time that stood still for longer than the
//!   tolerance during a connection, a host stall, shows the same way: the message says so.)
//!
//! Lower bounds are forgotten at each new connection (relay time may have stood still over the
//! outage); entries of a catch-up are not timed (they were stamped before the connection). After
//! a finding the bounds start again from the message found, so a relay clock that jumped once is
//! reported once. The constants and the arithmetic are deterministic; only the seat reads a
//! clock, and passes its milliseconds in.

use protocol::MessageHash;
use std::collections::BTreeMap;

/// How far, in ms, a receipt time may be outside what the seat's own clock allows before the
/// seat reports it: room for the millisecond rounding of both clocks and their drift over a
/// match (the network's delays are already inside the bounds, never against them).
pub const RECEIPT_TIME_TOLERANCE_MS: u64 = 1_000;

/// The most messages of its own a seat times at once (the oldest is forgotten beyond it: a
/// message the relay never receipts is the delivery witness's business, not this check's).
pub const MAX_TIMED_MESSAGES: usize = 256;

/// Which way a receipt time is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skew {
    /// Stamped later than the seat's clock allows, by at least `by_ms`.
    PostDated {
        /// The least amount by which it is too late.
        by_ms: u64,
    },
    /// Stamped earlier than the seat's clock allows, by at least `by_ms`.
    PreDated {
        /// The least amount by which it is too early.
        by_ms: u64,
    },
}

/// A receipt of the seat's own message whose time its clock contradicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeFinding {
    /// The message.
    pub message: MessageHash,
    /// The relay's receipt time.
    pub time_ms: u64,
    /// When the seat first sent it (seat clock, ms).
    pub sent_ms: u64,
    /// When its receipt came back (seat clock, ms).
    pub arrived_ms: u64,
    /// How it is wrong.
    pub skew: Skew,
}

impl TimeFinding {
    /// The finding in words, naming the relay.
    pub fn describe(&self) -> String {
        let took = self.arrived_ms.saturating_sub(self.sent_ms);
        match self.skew {
            Skew::PostDated { by_ms } => format!(
                "relay fault (receipt time): the relay stamped message {} at {} ms, at least \
                 {by_ms} ms later than this agent's clock allows (its receipt came back {took} ms \
                 after the message was sent): a post-dated receipt charges this player time it \
                 did not take",
                self.message, self.time_ms
            ),
            Skew::PreDated { by_ms } => format!(
                "relay fault (receipt time): the relay stamped message {} at {} ms, at least \
                 {by_ms} ms before this agent sent it by its own clock (a pre-dated receipt, or \
                 relay time that stood still while this agent was connected)",
                self.message, self.time_ms
            ),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    at_ms: u64,
    /// The lower bound on `c` when it was sent.
    floor: Option<i128>,
}

/// The seat's record of its sends and the bounds its deliveries give (module docs).
#[derive(Clone, Debug, Default)]
pub struct ReceiptClock {
    sent: BTreeMap<MessageHash, Sent>,
    order: std::collections::VecDeque<MessageHash>,
    /// The least `time_ms − sent_ms` of the seat's receipted messages.
    ceiling: Option<i128>,
    /// The greatest `time_ms − arrived_ms` of the entries delivered live on this connection.
    floor: Option<i128>,
}

fn diff(a: u64, b: u64) -> i128 {
    i128::from(a) - i128::from(b)
}

fn ms(x: i128) -> u64 {
    u64::try_from(x.max(0)).unwrap_or(u64::MAX)
}

impl ReceiptClock {
    /// A clock with nothing seen.
    pub fn new() -> ReceiptClock {
        ReceiptClock::default()
    }

    /// The seat sent `message` at `now_ms` (a message sent again keeps its first time).
    pub fn sent(&mut self, message: MessageHash, now_ms: u64) {
        if self.sent.contains_key(&message) {
            return;
        }
        if self.order.len() == MAX_TIMED_MESSAGES
            && let Some(old) = self.order.pop_front()
        {
            self.sent.remove(&old);
        }
        self.sent.insert(message, Sent { at_ms: now_ms, floor: self.floor });
        self.order.push_back(message);
    }

    /// A new connection: relay time may have stood still over the outage, so the lower bounds
    /// seen so far no longer hold (the upper bounds still do).
    pub fn reconnected(&mut self) {
        self.floor = None;
        for s in self.sent.values_mut() {
            s.floor = None;
        }
    }

    /// An entry for `message` stamped `time_ms` came in at `now_ms`; `live` is false for an
    /// entry of a catch-up (not timed). Returns a finding if it is the seat's own message and
    /// its time is outside what the seat's clock allows.
    pub fn delivered(
        &mut self,
        message: MessageHash,
        time_ms: u64,
        now_ms: u64,
        live: bool,
    ) -> Option<TimeFinding> {
        let own = self.sent.remove(&message);
        if own.is_some() {
            self.order.retain(|h| *h != message);
        }
        if !live {
            return None;
        }
        let low = diff(time_ms, now_ms);
        let Some(sent) = own else {
            self.floor = Some(self.floor.map_or(low, |f| f.max(low)));
            return None;
        };
        let high = diff(time_ms, sent.at_ms);
        let tolerance = i128::from(RECEIPT_TIME_TOLERANCE_MS);
        let finding =
            |skew| TimeFinding { message, time_ms, sent_ms: sent.at_ms, arrived_ms: now_ms, skew };
        if let Some(ceiling) = self.ceiling
            && low > ceiling + tolerance
        {
            self.ceiling = Some(high);
            self.floor = Some(low);
            return Some(finding(Skew::PostDated { by_ms: ms(low - ceiling) }));
        }
        if let Some(floor) = sent.floor
            && high < floor - tolerance
        {
            self.ceiling = Some(self.ceiling.map_or(high, |c| c.min(high)));
            self.floor = Some(low);
            return Some(finding(Skew::PreDated { by_ms: ms(floor - high) }));
        }
        self.ceiling = Some(self.ceiling.map_or(high, |c| c.min(high)));
        self.floor = Some(self.floor.map_or(low, |f| f.max(low)));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(i: u8) -> MessageHash {
        MessageHash([i; 32])
    }

    /// An honest relay whose clock reads the seat's plus `offset`, stamping each message
    /// `latency` ms after it is sent, its receipt arriving `latency` ms later.
    struct Honest {
        offset: u64,
        latency: u64,
    }

    impl Honest {
        fn round(&self, c: &mut ReceiptClock, m: MessageHash, sent: u64) -> Option<TimeFinding> {
            c.sent(m, sent);
            let stamped = sent + self.latency + self.offset;
            c.delivered(m, stamped, sent + 2 * self.latency, true)
        }
    }

    #[test]
    fn an_honest_relay_is_never_reported_whatever_its_delays() {
        let mut c = ReceiptClock::new();
        let relay = Honest { offset: 1_700_000_000_000, latency: 0 };
        let mut t = 0;
        for (i, latency) in [0u64, 3_000, 15, 40_000, 1, 0, 900].into_iter().enumerate() {
            let r = Honest { latency, ..relay };
            // The opponent's entry, delivered after some network delay.
            let other = u8::try_from(100 + i).expect("small");
            assert_eq!(c.delivered(h(other), t + r.offset, t + latency, true), None);
            t += latency + 10;
            assert_eq!(r.round(&mut c, h(u8::try_from(i).expect("small")), t), None, "{i}");
            t += 2 * latency + 1_000;
        }
    }

    #[test]
    fn relay_time_standing_still_over_an_outage_is_not_reported() {
        let mut c = ReceiptClock::new();
        let before = Honest { offset: 1_000_000, latency: 5 };
        assert_eq!(c.delivered(h(9), 1_000_000, 3, true), None);
        assert_eq!(before.round(&mut c, h(1), 10), None);
        // The server was down for a minute: relay time resumed where it stopped.
        c.reconnected();
        let after = Honest { offset: 940_000, latency: 5 };
        assert_eq!(c.delivered(h(8), 1_000_020, 70_100, false), None, "catch-up");
        assert_eq!(after.round(&mut c, h(2), 70_200), None);
        assert_eq!(after.round(&mut c, h(3), 71_000), None);
    }

    #[test]
    fn a_post_dated_receipt_is_reported_once_per_jump() {
        let mut c = ReceiptClock::new();
        let r = Honest { offset: 1_000_000, latency: 20 };
        assert_eq!(r.round(&mut c, h(1), 100), None);
        // Stamped 10 s late: by the seat's clock, after its receipt came back.
        c.sent(h(2), 2_000);
        let f = c.delivered(h(2), 2_000 + 20 + 1_000_000 + 10_000, 2_040, true).expect("found");
        assert_eq!(f.message, h(2));
        assert!(
            matches!(f.skew, Skew::PostDated { by_ms } if (9_900..=10_000).contains(&by_ms)),
            "{f:?}"
        );
        assert!(f.describe().contains("post-dated"), "{}", f.describe());
        // The relay's clock stays 10 s ahead: reported once, not at every message.
        let jumped = Honest { offset: 1_010_000, latency: 20 };
        assert_eq!(jumped.round(&mut c, h(3), 3_000), None);
        // Just within the tolerance: not reported.
        c.sent(h(4), 4_000);
        let at = 4_040 + 1_010_000 + RECEIPT_TIME_TOLERANCE_MS - 50;
        assert_eq!(c.delivered(h(4), at, 4_040, true), None);
    }

    #[test]
    fn a_receipt_stamped_before_its_send_is_reported() {
        let mut c = ReceiptClock::new();
        // The opponent's move, delivered at 1_000 with relay time 501_000.
        assert_eq!(c.delivered(h(9), 501_000, 1_000, true), None);
        // Sent 30 s later, stamped as if 29 s earlier than that.
        c.sent(h(1), 31_000);
        let f = c.delivered(h(1), 502_000, 31_050, true).expect("found");
        assert!(
            matches!(f.skew, Skew::PreDated { by_ms } if (28_900..=29_000).contains(&by_ms)),
            "{f:?}"
        );
        assert!(f.describe().contains("before this agent sent it"), "{}", f.describe());
    }

    #[test]
    fn a_catch_up_is_not_timed_and_its_messages_are_forgotten() {
        let mut c = ReceiptClock::new();
        c.sent(h(1), 10);
        assert_eq!(c.delivered(h(1), 999_999_999, 20, false), None);
        // Neither a bound from it nor a later finding about it.
        assert_eq!(c.delivered(h(1), 5, 30, true), None);
        assert!(c.ceiling.is_none());
    }

    #[test]
    fn the_messages_timed_are_bounded() {
        let mut c = ReceiptClock::new();
        for i in 0..(MAX_TIMED_MESSAGES + 10) {
            let mut b = [0u8; 32];
            b[..8].copy_from_slice(&(i as u64).to_le_bytes());
            c.sent(MessageHash(b), i as u64);
        }
        assert_eq!(c.sent.len(), MAX_TIMED_MESSAGES);
        assert_eq!(c.order.len(), MAX_TIMED_MESSAGES);
    }
}
