//! Readable forms of game bytes for evidence, `fogproof record show` and PGN: moves as UCI
//! text, observations as JSON (the rules crate's own plain serde forms, squares by name).
//! Anything that does not decode is shown as hex, so rendering never fails.

use protocol::game;
use rules::{AnyAction, AnyObservation, Variant};
use serde::Serialize;
use serde_json::Value;

/// Lower-case hex of `bytes`, prefixed so it cannot be mistaken for decoded text.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    format!("hex:{}", protocol::hex::encode(bytes))
}

/// A rules value as readable JSON: its plain serde form, whose squares are names.
#[must_use]
pub fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// An action as JSON: a move as its UCI string, other actions as the rules' JSON
/// ([`AnyAction::serialize_untagged`]).
#[must_use]
pub fn action_json(variant: Variant, bytes: &[u8]) -> Value {
    struct Untagged(AnyAction);
    impl Serialize for Untagged {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize_untagged(s)
        }
    }
    game::decode_action(variant, bytes)
        .map_or_else(|_| Value::String(hex(bytes)), |a| json(&Untagged(a)))
}

/// An action as short text: the UCI move, or compact JSON.
#[must_use]
pub fn action_text(variant: Variant, bytes: &[u8]) -> String {
    match action_json(variant, bytes) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// What the rules tell a side, or what an umpire or owner signed, as JSON: the game's
/// observation type (for SIC also its start view).
#[must_use]
pub fn observation_json(variant: Variant, bytes: &[u8]) -> Value {
    let decoded = game::decode_observation(variant, bytes).or_else(|e| {
        if variant == Variant::Sic { game::decode_start_observation(bytes) } else { Err(e) }
    });
    decoded.map_or_else(|_| Value::String(hex(bytes)), |o| observation_value(&o))
}

/// A typed observation as JSON: the game's own value (without the enum's tag,
/// [`AnyObservation::serialize_untagged`]).
fn observation_value(o: &AnyObservation) -> Value {
    struct Untagged<'a>(&'a AnyObservation);
    impl Serialize for Untagged<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize_untagged(s)
        }
    }
    json(&Untagged(o))
}

/// A SIC start view (the umpire's first observation to each side) as JSON.
#[must_use]
pub fn start_view_json(bytes: &[u8]) -> Value {
    game::decode_start_observation(bytes)
        .map_or_else(|_| Value::String(hex(bytes)), |o| observation_value(&o))
}

/// Compact JSON text of an observation.
#[must_use]
pub fn observation_text(variant: Variant, bytes: &[u8]) -> String {
    observation_json(variant, bytes).to_string()
}

/// Where two JSON values differ, as paths (`capture.square`, `checks[0]`, `events[1].scores`),
/// at most six; for lists of strings (legal moves, red squares) what one has that the other
/// lacks. An enum's one-key wrapper (`{"legal": {...}}`) is looked through when both share it.
#[must_use]
pub fn differing_fields(signed: &Value, rules: &Value) -> Vec<String> {
    fn strings(v: &[Value]) -> Option<Vec<&str>> {
        v.iter().map(Value::as_str).collect()
    }
    fn join(path: &str, key: &str) -> String {
        if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
    }
    fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
        if a == b || out.len() >= 6 {
            return;
        }
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let (va, vb) =
                        (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                    walk(&join(path, k), va, vb, out);
                }
            }
            (Value::Array(x), Value::Array(y)) => match (strings(x), strings(y)) {
                (Some(sx), Some(sy)) => {
                    let extra: Vec<&str> = sx.iter().filter(|s| !sy.contains(s)).copied().collect();
                    let missing: Vec<&str> =
                        sy.iter().filter(|s| !sx.contains(s)).copied().collect();
                    let mut what = Vec::new();
                    if !missing.is_empty() {
                        what.push(format!("signed lacks {}", missing.join(" ")));
                    }
                    if !extra.is_empty() {
                        what.push(format!("signed adds {}", extra.join(" ")));
                    }
                    if what.is_empty() {
                        what.push("order differs".to_owned());
                    }
                    out.push(format!(
                        "{} ({})",
                        if path.is_empty() { "list" } else { path },
                        what.join("; ")
                    ));
                }
                _ if x.len() == y.len() => {
                    for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                        walk(&format!("{path}[{i}]"), va, vb, out);
                    }
                }
                _ => {
                    out.push(format!("{path} ({} items signed, {} by the rules)", x.len(), y.len()))
                }
            },
            _ => out.push(if path.is_empty() {
                "the whole value".to_owned()
            } else {
                path.to_owned()
            }),
        }
    }
    let unwrap = |v: &Value| -> Option<(String, Value)> {
        let obj = v.as_object()?;
        let (k, inner) = obj.iter().next()?;
        (obj.len() == 1 && inner.is_object()).then(|| (k.clone(), inner.clone()))
    };
    let mut out = Vec::new();
    match (unwrap(signed), unwrap(rules)) {
        (Some((ka, a)), Some((kb, b))) if ka == kb => walk("", &a, &b, &mut out),
        _ => walk("", signed, rules, &mut out),
    }
    out
}
