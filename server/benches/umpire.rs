//! The umpire service's CPU per answer, in-process, against the cryptography it must do at
//! the least, measured in the same run: issue 14's bar for the umpire (at most its
//! cryptography plus 20%).
//!
//! `cargo bench -p fogproof-server --bench umpire` (`FOGPROOF_UMPIRE_BENCH_SECONDS=S`, default
//! 3 per side). Every entry of a self-played Kriegspiel match (seed 1: the players' sealed
//! attempts, the relay's notices, the umpire's own messages coming back) is delivered in
//! order to a fresh `protocol::roles::Umpire` with the match's umpire key and secret, the
//! machine the umpire service runs for every match (`client::agent`, through its seat); what
//! it writes is taken from it (`poll_output`), and checked to be, byte for byte, the umpire's
//! messages of the record (the umpire is deterministic from its secret).
//!
//! The cryptography it must do, timed on the same entries:
//! - **check**: for every entry not its own, the author's signature (`SignedMessage::
//!   verify_for`); for every entry, the relay's receipt (`SignedReceipt::verify_signed_hash`);
//! - **open**: every message sealed to it (`seal::Inbox::open`, one key agreement per channel);
//! - **seal**: every sealed message it writes (`seal::Sealer`, one key agreement per channel,
//!   the seal seeds it disclosed at the end), at the padded size of its answers;
//! - **sign**: every message it writes (`SignedMessage::sign` of the same body).
//!
//! Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, `sim::measure::thread_cpu_ns`);
//! the two sides alternate.
//! With `FOGPROOF_UMPIRE_BENCH_PHASES=1` the bare side is printed by operation too.

use protocol::codec::Canonical;
use protocol::message::{MessageBody, Payload, SignedMessage, seal_context};
use protocol::relay::Entry;
use protocol::roles::{Input, Output, Participant, Umpire};
use protocol::seal::{Inbox, SealSecret, Sealer};
use protocol::{Channel, Identity};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

fn thread_cpu_ns() -> u64 {
    sim::measure::thread_cpu_ns().expect("the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)")
}

struct Game {
    umpire: Identity,
    secret: [u8; 32],
    agreed: protocol::terms::AgreedTerms,
    entries: Vec<Entry>,
    /// Decoded bodies of the entries, for the bare side.
    bodies: Vec<MessageBody>,
    /// The umpire's messages in the record, in order.
    written: Vec<Vec<u8>>,
    /// The umpire's seal secret for the match.
    seal: SealSecret,
    /// The seal seed of each channel the umpire sealed on (from its disclosures).
    seeds: BTreeMap<Channel, [u8; 32]>,
    /// The players' keys by color.
    colors: protocol::ByColor<protocol::PublicKey>,
}

fn game() -> Game {
    let played = sim::selfplay_with(sim::SelfplayConfig::new(rules::Variant::Kriegspiel, 1))
        .expect("self-play");
    let cast = sim::selfplay::cast(1);
    let agreed = played.record.terms.verify().expect("terms");
    let u = agreed.terms.umpire.as_ref().expect("an umpired game");
    let seal = SealSecret::for_match(&cast.umpire, &u.nonce);
    assert_eq!(seal.public(), u.seal_key, "the umpire's seal key");
    let mut bodies = Vec::new();
    let mut written = Vec::new();
    let mut seeds = BTreeMap::new();
    for e in &played.record.entries {
        let body = e.message.verify().expect("message");
        if body.author == cast.umpire.public() {
            written.push(e.message.to_canonical());
            if let Payload::Disclose(d) = &body.payload {
                for d in d {
                    seeds.insert(d.channel, d.seal_seed);
                }
            }
        }
        bodies.push(body);
    }
    Game {
        umpire: cast.umpire.clone(),
        secret: sim::selfplay::derive(1, "umpire-secret"),
        agreed,
        entries: played.record.entries.clone(),
        bodies,
        written,
        seal,
        seeds,
        colors: played.colors.expect("colors"),
    }
}

/// One match through the umpire's machine; returns its messages written.
fn umpire(g: &Game) -> Vec<SignedMessage> {
    let mut u = Umpire::new(g.umpire.clone(), g.agreed.clone(), g.secret).expect("umpire");
    let mut out = Vec::new();
    for e in &g.entries {
        u.handle(Input::Delivered(e.clone())).expect("delivered");
        while let Some(o) = u.poll_output() {
            if let Output::Send(m) = o {
                out.push(m);
            }
        }
    }
    out
}

/// The cryptography the umpire must do for the same match, by operation (ns: check, open,
/// seal, sign).
fn bare(g: &Game, ns: &mut [u64; 4]) {
    let me = g.umpire.public();
    let relay = g.agreed.terms.relay;
    let id = g.agreed.match_id;
    let mut inbox = Inbox::new(g.seal.clone());
    let mut sealers: BTreeMap<Channel, Sealer> = BTreeMap::new();
    let padded = protocol::game::sealed_plaintext_bytes(
        rules::Variant::Kriegspiel,
        protocol::game::SealDirection::FromUmpire,
    );
    let to_umpire = protocol::game::sealed_plaintext_bytes(
        rules::Variant::Kriegspiel,
        protocol::game::SealDirection::ToUmpire,
    );
    let plaintext = vec![0u8; padded / 2];
    for (e, body) in g.entries.iter().zip(&g.bodies) {
        let t = thread_cpu_ns();
        if body.author != me {
            black_box(e.message.verify_for(&id).expect("verify"));
        }
        black_box(
            e.receipt.verify_signed_hash(&relay, &id, e.message.signed_hash()).expect("receipt"),
        );
        let t2 = thread_cpu_ns();
        ns[0] += t2 - t;
        match (&body.payload, body.author == me) {
            (Payload::Sealed(sealed), false) if body.channel != Channel::Public => {
                black_box(inbox.open(&seal_context(body), sealed, to_umpire).expect("opens"));
                ns[1] += thread_cpu_ns() - t2;
            }
            (payload, true) => {
                if let Payload::Sealed(_) = payload {
                    let context = seal_context(body);
                    let sealer = sealers.entry(body.channel).or_insert_with(|| {
                        let side = body.channel.side().expect("a private channel");
                        let key = g.colors[side];
                        let recipient = g
                            .agreed
                            .terms
                            .players
                            .iter()
                            .find(|p| p.key == key)
                            .expect("the channel's player")
                            .seal_key;
                        Sealer::new(&recipient, &context, &g.seeds[&body.channel]).expect("sealer")
                    });
                    black_box(sealer.seal(&context, &plaintext, padded, false).expect("seals"));
                }
                let t3 = thread_cpu_ns();
                ns[2] += t3 - t2;
                black_box(SignedMessage::sign(body, &g.umpire));
                ns[3] += thread_cpu_ns() - t3;
            }
            _ => {}
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: f64 = std::env::var("FOGPROOF_UMPIRE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let g = game();
    let wrote: Vec<Vec<u8>> = umpire(&g).iter().map(Canonical::to_canonical).collect();
    assert_eq!(wrote, g.written, "the umpire writes the record's messages again");
    let mut phases = [0u64; 4];
    bare(&g, &mut phases);
    let (mut umpire_ns, mut rounds, mut bare_ns) = (0u64, 0u64, 0u64);
    let mut phases = [0u64; 4];
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < 2.0 * seconds {
        let t = thread_cpu_ns();
        black_box(umpire(&g));
        umpire_ns += thread_cpu_ns() - t;
        let t = thread_cpu_ns();
        bare(&g, &mut phases);
        bare_ns += thread_cpu_ns() - t;
        rounds += 1;
    }
    let per = |ns: u64| ns as f64 / 1e3 / (rounds as f64 * g.written.len() as f64);
    let players = g.bodies.iter().filter(|b| b.author != g.umpire.public()).count();
    println!(
        "umpire: {} entries of a Kriegspiel match (seed 1): {} it writes, {} others'",
        g.entries.len(),
        g.written.len(),
        players
    );
    println!("umpire machine: {:.1} us CPU per message it writes", per(umpire_ns));
    println!(
        "its cryptography (check, open, seal, sign): {:.1} us CPU per message it writes",
        per(bare_ns)
    );
    if std::env::var_os("FOGPROOF_UMPIRE_BENCH_PHASES").is_some() {
        println!(
            "  check {:.1}, open {:.1}, seal {:.1}, sign {:.1} us per message it writes",
            per(phases[0]),
            per(phases[1]),
            per(phases[2]),
            per(phases[3])
        );
    }
    println!("ratio: {:.2}x its cryptography", umpire_ns as f64 / bare_ns as f64);
}
