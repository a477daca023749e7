//! Readable forms of game bytes for evidence, `fogproof record show` and PGN: moves as UCI
//! text, observations as JSON (the rules crate's own serde forms). Anything that does not
//! decode is shown as hex, so rendering never fails.

use protocol::codec::Canonical;
use protocol::game::sc6;
use rules::Variant;
use serde::Serialize;
use serde_json::Value;

/// Lower-case hex of `bytes`, prefixed so it cannot be mistaken for decoded text.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    format!("hex:{}", protocol::hex::encode(bytes))
}

fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn decoded<T: Canonical + Serialize>(bytes: &[u8]) -> Option<Value> {
    T::from_canonical(bytes).ok().map(|v| json(&v))
}

/// An action as JSON: a move as its UCI string, other actions as the rules' JSON.
#[must_use]
pub fn action_json(variant: Variant, bytes: &[u8]) -> Value {
    let alphabet = variant.alphabet();
    let value = match variant {
        Variant::Chess | Variant::Kriegspiel | Variant::Sic | Variant::Espionage => {
            rules::Move::from_canonical(bytes).ok().map(|m| Value::String(m.uci(alphabet)))
        }
        Variant::Intrigue => rules::intrigue::Action::from_canonical(bytes).ok().map(|a| match a {
            rules::intrigue::Action::Move(m) => Value::String(m.uci(alphabet)),
            setup @ rules::intrigue::Action::Setup(_) => json(&setup),
        }),
        Variant::SecretChess6 => sc6::Action::from_canonical(bytes)
            .ok()
            .map(|a| json(&rules::secretchess6::Action::from(a))),
    };
    value.unwrap_or_else(|| Value::String(hex(bytes)))
}

/// An action as short text: the UCI move, or compact JSON.
#[must_use]
pub fn action_text(variant: Variant, bytes: &[u8]) -> String {
    match action_json(variant, bytes) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// What the rules tell a side, or what an umpire or owner signed, as JSON. Tries, in order, the
/// game's observation type and the other game types that travel as observations (SIC's start
/// view; Intrigue's setup report and informer answer).
#[must_use]
pub fn observation_json(variant: Variant, bytes: &[u8]) -> Value {
    let value = match variant {
        Variant::Chess => decoded::<rules::chess::Played>(bytes),
        Variant::Kriegspiel => decoded::<rules::kriegspiel::Answer>(bytes),
        Variant::Sic => {
            decoded::<rules::sic::Observation>(bytes).or_else(|| decoded::<rules::sic::View>(bytes))
        }
        Variant::Intrigue => decoded::<rules::intrigue::Observation>(bytes)
            .or_else(|| decoded::<rules::intrigue::Inspection>(bytes))
            .or_else(|| decoded::<rules::intrigue::SetupReport>(bytes)),
        Variant::SecretChess6 => sc6::Observation::from_canonical(bytes)
            .ok()
            .map(|o| json(&rules::secretchess6::Observation::from(o))),
        Variant::Espionage => decoded::<rules::espionage::Observation>(bytes),
    };
    value.unwrap_or_else(|| Value::String(hex(bytes)))
}

/// A SIC start view (the umpire's first observation to each side) as JSON.
#[must_use]
pub fn start_view_json(bytes: &[u8]) -> Value {
    decoded::<rules::sic::View>(bytes).unwrap_or_else(|| Value::String(hex(bytes)))
}

/// Compact JSON text of an observation.
#[must_use]
pub fn observation_text(variant: Variant, bytes: &[u8]) -> String {
    observation_json(variant, bytes).to_string()
}

/// The top-level fields (or, for an enum in JSON form, the fields inside its one variant) in
/// which two JSON values differ: what an arbiter should look at first.
#[must_use]
pub fn differing_fields(signed: &Value, rules: &Value) -> Vec<String> {
    fn inner(v: &Value) -> Option<(&str, &serde_json::Map<String, Value>)> {
        let obj = v.as_object()?;
        if obj.len() == 1 {
            let (k, v) = obj.iter().next()?;
            if let Some(m) = v.as_object() {
                return Some((k.as_str(), m));
            }
        }
        None
    }
    let (a, b) = match (inner(signed), inner(rules)) {
        (Some((ka, a)), Some((kb, b))) if ka == kb => (a, b),
        _ => match (signed.as_object(), rules.as_object()) {
            (Some(a), Some(b)) => (a, b),
            _ => return Vec::new(),
        },
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}
