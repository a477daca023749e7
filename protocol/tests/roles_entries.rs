//! What a player or umpire machine does with a delivered entry it should refuse: a message
//! whose signature is forged (its own message with a changed signature included, which the
//! machine must not take for the one it signed) and a receipt the relay did not sign, or signed
//! for another message. Every such entry is refused, changes nothing, and the real entry is
//! taken afterwards (docs/LOADTEST.md: a machine skips checking only its own signature on the
//! exact bytes it signed). A machine gives the hash of each message it opened, once, and none
//! for an entry it refused (`Participant::take_opened`, which its seat keys its sent messages by).
mod common;

use common::{cast, sign, terms};
use protocol::codec::{Canonical, VERSION};
use protocol::message::{Receipt, SignedMessage, SignedReceipt, genesis_head, genesis_order};
use protocol::relay::{Entry, Relay};
use protocol::roles::{Input, Output, Participant, Player, Umpire};
use protocol::terms::ColorAssignment;
use protocol::{Identity, PublicKey};

/// An entry for `message` with a receipt `signer` signed at position `seq`, stating
/// `receipted` as the message it received.
fn entry_signed_by(
    signer: &Identity,
    agreed: &protocol::terms::AgreedTerms,
    message: &SignedMessage,
    receipted: &SignedMessage,
    seq: u64,
) -> Entry {
    let channel = protocol::message::MessageBody::from_canonical(&message.body)
        .map_or(protocol::Channel::Public, |b| b.channel);
    let receipt = Receipt {
        version: VERSION,
        match_id: agreed.match_id,
        channel,
        position: seq,
        time_ms: seq,
        message: receipted.signed_hash(),
        head: genesis_head(&agreed.match_id, channel),
        after: genesis_order(&agreed.match_id),
    };
    Entry { message: message.clone(), receipt: SignedReceipt::sign(&receipt, signer) }
}

/// The forged variants of `real` (the relay's entry for `message`): the message with its
/// signature changed under a receipt the relay signed for exactly those bytes; the real message
/// under a receipt signed by someone else; under the relay's receipt for another message.
fn forgeries(
    c: &common::Cast,
    agreed: &protocol::terms::AgreedTerms,
    real: &Entry,
) -> Vec<(&'static str, Entry)> {
    let seq = Receipt::from_canonical(&real.receipt.receipt).expect("the relay's receipt").position;
    let mut forged = real.message.clone();
    forged.signature.s[0] ^= 1;
    let mut other = real.message.clone();
    other.signature.r[0] ^= 1;
    vec![
        ("a forged signature", entry_signed_by(&c.relay, agreed, &forged, &forged, seq)),
        (
            "a receipt not the relay's",
            entry_signed_by(&c.outsider, agreed, &real.message, &real.message, seq),
        ),
        (
            "a receipt for another message",
            entry_signed_by(&c.relay, agreed, &real.message, &other, seq),
        ),
    ]
}

enum Who {
    Player(Box<Player>),
    Umpire(Box<Umpire>),
}

impl Who {
    fn handle(&mut self, input: Input) -> Result<(), protocol::roles::RoleError> {
        match self {
            Who::Player(p) => p.handle(input),
            Who::Umpire(u) => u.handle(input),
        }
    }
    fn poll_output(&mut self) -> Option<Output> {
        match self {
            Who::Player(p) => p.poll_output(),
            Who::Umpire(u) => u.poll_output(),
        }
    }
    fn take_opened(&mut self) -> Option<protocol::MessageHash> {
        match self {
            Who::Player(p) => p.take_opened(),
            Who::Umpire(u) => u.take_opened(),
        }
    }
}

/// Drives an umpired Kriegspiel match through the relay until the umpire has written a message
/// and seen it delivered. Before each entry reaches a machine, that machine is handed the
/// forgeries of it and must refuse each; returns how many refusals were checked, by whether the
/// forged entry carried the receiving machine's own message.
#[test]
fn machines_refuse_forged_messages_and_receipts_their_own_included() {
    let c = cast();
    let signed = sign(&c, &terms(&c, ColorAssignment::FirstIsWhite, true, 1));
    let agreed = signed.verify().expect("fixture terms verify");
    let mut relay = Relay::new(c.relay.clone(), agreed.clone(), 0).expect("the relay starts");
    let mut machines: Vec<(PublicKey, Who)> = vec![
        (
            c.alice.public(),
            Who::Player(Box::new(
                Player::asking(c.alice.clone(), agreed.clone(), [1; 32]).expect("alice"),
            )),
        ),
        (
            c.bob.public(),
            Who::Player(Box::new(
                Player::asking(c.bob.clone(), agreed.clone(), [2; 32]).expect("bob"),
            )),
        ),
        (
            c.umpire.public(),
            Who::Umpire(Box::new(
                Umpire::new(c.umpire.clone(), agreed.clone(), [3; 32]).expect("the umpire"),
            )),
        ),
    ];
    let mut delivered = 0;
    let mut now = 0;
    let (mut own_refused, mut others_refused, mut umpire_refused) = (0, 0, 0);
    let mut umpire_wrote = false;
    for _round in 0..50 {
        // Deliver every new entry to every machine, the forgeries first.
        let entries = relay.entries()[delivered..].to_vec();
        delivered += entries.len();
        for entry in &entries {
            let author = entry.message.verify().expect("the relay's entries verify").author;
            for (key, machine) in &mut machines {
                for (what, forged) in forgeries(&c, &agreed, entry) {
                    let refused = machine.handle(Input::Delivered(forged));
                    assert!(refused.is_err(), "{what} of {author}'s message was taken by {key}");
                    // A refused entry gives its seat no hash to key what it sent by.
                    assert_eq!(machine.take_opened(), None, "{what} to {key}");
                    if author == *key {
                        own_refused += 1;
                    } else {
                        others_refused += 1;
                    }
                    if *key == c.umpire.public() {
                        umpire_refused += 1;
                    }
                }
                machine
                    .handle(Input::Delivered(entry.clone()))
                    .unwrap_or_else(|e| panic!("{key} refused a real entry: {e}"));
                // The opened entry's message hash, once.
                assert_eq!(machine.take_opened(), Some(entry.message.hash()), "{key}");
                assert_eq!(machine.take_opened(), None, "{key}");
            }
            if author == c.umpire.public() {
                umpire_wrote = true;
            }
        }
        if umpire_wrote {
            break;
        }
        // What the machines wrote goes to the relay.
        let mut wrote = Vec::new();
        for (_, machine) in &mut machines {
            while let Some(out) = machine.poll_output() {
                if let Output::Send(m) = out {
                    wrote.push(m);
                }
            }
        }
        assert!(!wrote.is_empty() || delivered < relay.entries().len(), "the match stalled");
        for m in wrote {
            now += 1;
            relay.accept(&m.to_canonical(), now).expect("the relay accepts an honest message");
        }
    }
    assert!(umpire_wrote, "the umpire never wrote");
    // Each machine refused forgeries of its own messages and of the others', the umpire too.
    assert!(own_refused >= 3 * 3, "own: {own_refused}");
    assert!(others_refused >= 3 * 3, "others: {others_refused}");
    assert!(umpire_refused >= 3 * 3, "umpire: {umpire_refused}");
}
