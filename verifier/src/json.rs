//! The verdict as JSON: what `fogproof verify --json` prints and what the server serves at
//! `/api/match/{id}/verdict`, from one implementation.

use crate::envelope::Description;
use crate::{Fault, Verdict, VerifiedMatch};
use protocol::PublicKey;
use rules::{Color, GameResult};
use serde_json::{Value, json};

/// The fault kind's stable kebab-case name.
#[must_use]
pub fn kind_name(f: &Fault) -> String {
    match serde_json::to_value(f.kind) {
        Ok(Value::String(s)) => s,
        _ => format!("{:?}", f.kind),
    }
}

/// A key and its fingerprint.
#[must_use]
pub fn key(key: &PublicKey) -> Value {
    json!({ "key": key.to_string(), "fingerprint": key.fingerprint() })
}

/// A result: its score, winner and reason.
#[must_use]
pub fn result(r: &GameResult) -> Value {
    let winner = r.winner.map(|c| match c {
        Color::White => "white",
        Color::Black => "black",
    });
    json!({ "score": r.score(), "winner": winner, "reason": r.reason.name() })
}

/// A verdict: `status` (`valid` or `faults`), the `result` of a valid record, every fault with
/// its culprit and evidence, and the `sanction` of a faulty one (a forfeit, or `void`).
#[must_use]
pub fn verdict(verdict: &Verdict) -> Value {
    let faults: Vec<Value> = verdict
        .faults()
        .iter()
        .map(|f| {
            json!({
                "kind": kind_name(f),
                "culprit": f.culprit.map(|k| k.to_string()),
                "role": serde_json::to_value(f.role).unwrap_or(Value::Null),
                "entry": f.entry,
                "message": f.message.map(|m| m.to_string()),
                "evidence": f.evidence,
                "explanation": f.explanation,
            })
        })
        .collect();
    json!({
        "status": if verdict.is_valid() { "valid" } else { "faults" },
        "result": match verdict { Verdict::Valid { result: r } => result(r), _ => Value::Null },
        "faults": faults,
        "sanction": match verdict {
            Verdict::Valid { .. } => Value::Null,
            Verdict::Faults(_) => verdict.sanctioned_result().as_ref().map_or(json!("void"), result),
        },
    })
}

/// [`verdict`] with what the record says it is (variant, ruleset, the players by colour).
#[must_use]
pub fn described(v: &Verdict, description: Option<&Description>) -> Value {
    let mut out = verdict(v);
    if let (Some(d), Value::Object(map)) = (description, &mut out) {
        map.insert("variant".into(), json!(d.variant));
        map.insert("ruleset".into(), json!(d.ruleset));
        map.insert("colours_known".into(), json!(d.colours_known));
        map.insert("white".into(), key(&d.colours.white));
        map.insert("black".into(), key(&d.colours.black));
    }
    out
}

/// A [`VerifiedMatch`]: the verdict, the record's SHA-256, the match id, the parties, the
/// countersigners and the verifier's version.
#[must_use]
pub fn verified(m: &VerifiedMatch) -> Value {
    let mut out = verdict(&m.verdict);
    if let Value::Object(map) = &mut out {
        map.insert("record_sha256".into(), json!(protocol::hex::encode(&m.record_sha256)));
        map.insert("match_id".into(), json!(m.match_id.map(|id| protocol::hex::encode(&id.0))));
        if let Some((variant, ruleset)) = &m.variant {
            map.insert("variant".into(), json!(variant));
            map.insert("ruleset".into(), json!(ruleset));
        }
        map.insert("colours_known".into(), json!(m.colours_known));
        if let Some(p) = &m.players {
            map.insert("white".into(), key(&p.white));
            map.insert("black".into(), key(&p.black));
        }
        map.insert("umpire".into(), m.umpire.as_ref().map_or(Value::Null, key));
        map.insert("relay".into(), m.relay.as_ref().map_or(Value::Null, key));
        map.insert(
            "countersigned".into(),
            m.countersigned.iter().map(|k| json!(k.to_string())).collect(),
        );
        map.insert("verifier_version".into(), json!(m.verifier_version));
    }
    out
}
