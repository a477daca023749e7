//! `fogproof record show FILE` (the record as readable JSON) and `fogproof record pgn FILE
//! --view white|black|full` (the game as PGN: the revealed game, or what one side knew).
//! Formats are documented in `docs/record.md`.

use crate::referee::secretchess6 as six_shapes;
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use protocol::codec::Canonical;
use protocol::commitment::Purpose;
use protocol::keys::ByColor;
use protocol::message::{Claim, MessageBody, Outcome, Payload, Receipt};
use protocol::record::MatchRecord;
use protocol::terms::{ColorAssignment, MatchTerms};
use protocol::{Channel, PublicKey};
use rules::secretchess6::{Action as SixAction, Observation as SixObservation};
use rules::{Color, Variant};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use verifier::replay::text;

/// `fogproof record ...`.
#[derive(Subcommand)]
pub enum RecordCommand {
    /// Print a match record as JSON: terms, every entry with its decoded (and, if sealed,
    /// disclosed) payload, and the disclosures. Shows; does not verify (see `fogproof verify`).
    Show {
        /// The record file.
        file: PathBuf,
    },
    /// Print the game of a match record as PGN.
    Pgn {
        /// The record file.
        file: PathBuf,
        /// `full` (the revealed game), or `white` / `black` (what that side knew).
        #[arg(long, default_value = "full")]
        view: String,
    },
    /// Write evidence of relay equivocation from two logs of one match (two records, e.g. the
    /// one each player kept): the receipts at the first position where they differ. Check it
    /// with `fogproof verify --evidence`.
    Evidence {
        /// One record of the match.
        first: PathBuf,
        /// Another record of the same match.
        second: PathBuf,
        /// Where to write the evidence.
        #[arg(long)]
        out: PathBuf,
    },
}

/// Runs a `record` subcommand.
pub fn run(command: RecordCommand, out: &mut impl Write) -> Result<()> {
    match command {
        RecordCommand::Show { file } => {
            let bytes = read(&file)?;
            let value = show(&bytes).with_context(|| format!("{}", file.display()))?;
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        }
        RecordCommand::Pgn { file, view } => {
            let view = match view.as_str() {
                "full" => None,
                "white" => Some(Color::White),
                "black" => Some(Color::Black),
                other => bail!("bad view '{other}': expected white, black or full"),
            };
            let bytes = read(&file)?;
            let text =
                verifier::pgn::pgn(&bytes, view).with_context(|| format!("{}", file.display()))?;
            write!(out, "{text}")?;
        }
        RecordCommand::Evidence { first, second, out: path } => {
            let [a, b] = [&first, &second].map(|f| {
                read(f).and_then(|bytes| {
                    decode_record(&bytes).with_context(|| format!("{}", f.display()))
                })
            });
            let (a, b) = (a?, b?);
            if a.terms != b.terms {
                bail!("the two records are of different matches (their terms differ)");
            }
            let receipts =
                |r: &MatchRecord| r.entries.iter().map(|e| e.receipt.clone()).collect::<Vec<_>>();
            let Some(evidence) =
                verifier::evidence::extract(&a.terms, &receipts(&a), &receipts(&b))
            else {
                bail!("the two logs agree as far as the shorter goes: no contradiction to show");
            };
            std::fs::write(&path, evidence.to_canonical())
                .with_context(|| format!("cannot write {}", path.display()))?;
            writeln!(out, "evidence written to {}", path.display())?;
        }
    }
    Ok(())
}

fn read(file: &Path) -> Result<Vec<u8>> {
    std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))
}

fn decode_record(bytes: &[u8]) -> Result<MatchRecord> {
    MatchRecord::from_canonical(bytes).context("not a fogproof match record")
}

// ------------------------------------------------------------------------------------ show

fn key(k: &PublicKey) -> Value {
    Value::String(k.to_string())
}

fn hex(bytes: &[u8]) -> Value {
    Value::String(protocol::hex::encode(bytes))
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::WhiteWins => "white-wins",
        Outcome::BlackWins => "black-wins",
        Outcome::Draw => "draw",
        Outcome::NoResult => "no-result",
    }
}

fn claim_json(c: &Claim) -> Value {
    json!({ "outcome": outcome(c.outcome), "reason": c.reason.name() })
}

/// An opening's value, readable where its purpose says what it is.
fn opening_value(purpose: Purpose, value: &[u8]) -> Value {
    match purpose {
        Purpose::IntrigueSetup => text::action_json(Variant::Intrigue, value),
        Purpose::SecretChess6Setup | Purpose::TieBreak => six_action_json(value),
        Purpose::PrivateSeed | Purpose::PublicContribution => hex(value),
    }
}

/// A 6x6 action in the referee's shape (`docs/referee/secretchess6.md`), or hex.
fn six_action_json(bytes: &[u8]) -> Value {
    SixAction::from_canonical(bytes)
        .map_or_else(|_| Value::String(text::hex(bytes)), |a| six_shapes::action_json(&a))
}

/// An action as JSON: 6x6 in the referee's shape, moves as UCI, others as the rules' JSON.
fn action_json(variant: Variant, bytes: &[u8]) -> Value {
    match variant {
        Variant::SecretChess6 => six_action_json(bytes),
        v => text::action_json(v, bytes),
    }
}

/// An observation as JSON: 6x6 in the referee's shape, others as the rules' JSON.
fn observation_json(variant: Variant, bytes: &[u8]) -> Value {
    match variant {
        Variant::SecretChess6 => SixObservation::from_canonical(bytes)
            .map_or_else(|_| Value::String(text::hex(bytes)), |o| six_shapes::observation_json(&o)),
        v => text::observation_json(v, bytes),
    }
}

/// A payload as JSON; `start_view` marks the umpire's first observation on a SIC channel.
fn payload_json(variant: Variant, p: &Payload, start_view: bool) -> Value {
    let game = |bytes: &[u8], f: fn(Variant, &[u8]) -> Value| f(variant, bytes);
    match p {
        Payload::Commit { purpose, commitment } => {
            json!({ "commit": { "purpose": purpose, "commitment": commitment.to_string() } })
        }
        Payload::Reveal { purpose, opening } | Payload::Open { purpose, opening } => {
            let kind = if matches!(p, Payload::Reveal { .. }) { "reveal" } else { "open" };
            json!({ kind: {
                "purpose": purpose,
                "value": opening_value(*purpose, &opening.value),
                "nonce": hex(&opening.nonce),
            } })
        }
        Payload::Sealed(s) => {
            json!({ "undisclosed": {
                "enc": s.setup.map(|setup| hex(&setup.enc)),
                "ciphertext_bytes": s.ciphertext.len(),
            } })
        }
        Payload::Action(bytes) => json!({ "action": game(bytes, action_json) }),
        Payload::Observation(bytes) if start_view => {
            json!({ "observation": text::start_view_json(bytes) })
        }
        Payload::Observation(bytes) => {
            json!({ "observation": game(bytes, observation_json) })
        }
        Payload::Claim(c) => json!({ "claim": claim_json(c) }),
        Payload::Ack { message } => json!({ "ack": message.to_string() }),
        Payload::Timeout { party, expectation, deadline_ms } => json!({ "timeout": {
            "party": match party {
                protocol::Party::White => "white",
                protocol::Party::Black => "black",
                protocol::Party::Umpire => "umpire",
            },
            "expectation": format!("{expectation:?}").to_lowercase(),
            "deadline_ms": deadline_ms,
        } }),
        Payload::Turn { next } => json!({ "turn": match next {
            protocol::message::Owed::Side(s) => s.to_string(),
            protocol::message::Owed::Both => "both".to_owned(),
            protocol::message::Owed::Nobody => "nobody".to_owned(),
        } }),
        Payload::Start => json!("start"),
        Payload::Close { .. } => json!("close"),
        Payload::Countersign => json!("countersign"),
        Payload::Disclose(items) => json!({ "disclose": items.iter().map(|d| json!({
            "channel": d.channel.to_string(),
            "seal_seed": hex(&d.seal_seed),
            "key": hex(&d.key),
        })).collect::<Vec<_>>() }),
    }
}

/// The colors: from the envelope check, else fixed by the terms, else unknown.
fn colors_of(bytes: &[u8], terms: &MatchTerms) -> Option<ByColor<PublicKey>> {
    verifier::envelope::check(bytes).ok().map(|c| c.colors).or_else(|| terms.fixed_colors())
}

fn role_name(
    terms: &MatchTerms,
    colors: Option<&ByColor<PublicKey>>,
    k: &PublicKey,
) -> &'static str {
    if colors.is_some_and(|c| c.white == *k) {
        "white"
    } else if colors.is_some_and(|c| c.black == *k) {
        "black"
    } else if terms.umpire.as_ref().is_some_and(|u| u.key == *k) {
        "umpire"
    } else if terms.relay == *k {
        "relay"
    } else if terms.players.iter().any(|p| p.key == *k) {
        "player"
    } else {
        "unknown"
    }
}

/// The JSON of `fogproof record show`.
pub fn show(bytes: &[u8]) -> Result<Value> {
    let record = decode_record(bytes)?;
    let terms = MatchTerms::from_canonical(&record.terms.terms).context("terms")?;
    let variant = terms.variant();
    let colors = colors_of(bytes, &terms);
    let disclosures = record.disclosures();
    let mut umpire_spoke: BTreeSet<Channel> = BTreeSet::new();
    let mut entries = Vec::with_capacity(record.entries.len());
    for (index, e) in record.entries.iter().enumerate() {
        let hash = e.message.hash();
        let body = MessageBody::from_canonical(&e.message.body)
            .with_context(|| format!("entry {index}: message body"))?;
        let receipt = Receipt::from_canonical(&e.receipt.receipt)
            .with_context(|| format!("entry {index}: receipt"))?;
        let sealed = matches!(body.payload, Payload::Sealed(_));
        let inner = if sealed {
            disclosures.get(&hash).and_then(|(_, d)| Payload::from_canonical(&d.plaintext).ok())
        } else {
            None
        };
        let payload = inner.as_ref().unwrap_or(&body.payload);
        let by_umpire = terms.umpire.as_ref().is_some_and(|u| u.key == body.author);
        let start_view = variant == Variant::Sic
            && by_umpire
            && matches!(payload, Payload::Observation(_))
            && umpire_spoke.insert(body.channel);
        entries.push(json!({
            "index": index,
            "hash": hash.to_string(),
            "channel": body.channel.to_string(),
            "author": key(&body.author),
            "role": role_name(&terms, colors.as_ref(), &body.author),
            "seq": body.seq,
            "seen": body.seen.map(|s| json!({ "order": s.order.to_string() })),
            "re": body.re.map(|h| h.to_string()),
            "position": receipt.position,
            "head": receipt.head.to_string(),
            "after": receipt.after.to_string(),
            "order": receipt.order().to_string(),
            "time_ms": receipt.time_ms,
            "sealed": sealed,
            "payload": payload_json(variant, payload, start_view),
        }));
    }
    let players: Vec<Value> = terms
        .players
        .iter()
        .map(|p| json!({ "key": key(&p.key), "seal_key": hex(&p.seal_key.0), "nonce": hex(&p.nonce) }))
        .collect();
    let tc = terms.time_control;
    Ok(json!({
        "version": record.version,
        "match_id": protocol::terms::match_id(&record.terms.terms).to_string(),
        "terms": {
            "variant": terms.variant(),
            "ruleset": terms.ruleset(),
            "options": terms.game.to_map(),
            "players": players,
            "colours": match terms.colors { ColorAssignment::FirstIsWhite => "first-is-white", ColorAssignment::Drawn => "drawn" },
            "relay": key(&terms.relay),
            "umpire": terms.umpire.as_ref().map(|u| json!({ "key": key(&u.key), "seal_key": hex(&u.seal_key.0) })),
            "time_control": { "initial_ms": tc.initial_ms, "increment_ms": tc.increment_ms, "reveal_ms": tc.reveal_ms },
        },
        "colours": colors.map(|c| json!({ "white": key(&c.white), "black": key(&c.black) })),
        "entries": entries,
        "disclosures": disclosures.iter().map(|(m, (entry, d))| json!({
            "message": m.to_string(),
            "entry": entry,
            "seal_seed": hex(&d.seal_seed),
        })).collect::<Vec<_>>(),
    }))
}
