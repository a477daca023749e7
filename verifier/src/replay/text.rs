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

/// A rules value as readable JSON (squares by name, moves as UCI text).
#[must_use]
pub fn json<T: Serialize>(value: &T) -> Value {
    readable(serde_json::to_value(value).unwrap_or(Value::Null))
}

/// The rules' squares serialize as indices (rank * 8 + file) and moves as `{from, to,
/// promotion}`: shown as square names and UCI text instead, so evidence reads like chess.
fn readable(v: Value) -> Value {
    const SQUARE_KEYS: [&str; 5] = ["square", "king", "informer", "from", "to"];
    let square = |v: &Value| {
        v.as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .and_then(rules::Square::from_index)
            .map(|s| s.to_string())
    };
    match v {
        Value::Object(map) => {
            if let (Some(from), Some(to)) =
                (map.get("from").and_then(square), map.get("to").and_then(square))
                && map.len() == 3
                && map.contains_key("promotion")
            {
                let promotion = map
                    .get("promotion")
                    .cloned()
                    .and_then(|r| serde_json::from_value::<rules::Role>(r).ok())
                    .and_then(|r| {
                        [rules::Alphabet::SIC, rules::Alphabet::ESPIONAGE]
                            .into_iter()
                            .find_map(|a| a.char(r))
                    })
                    .map(String::from)
                    .unwrap_or_default();
                return Value::String(format!("{from}{to}{promotion}"));
            }
            Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let v = match square(&v) {
                            Some(name) if SQUARE_KEYS.contains(&k.as_str()) => Value::String(name),
                            _ => readable(v),
                        };
                        (k, v)
                    })
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(readable).collect()),
        other => other,
    }
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

/// What the rules tell a side, or what an umpire or owner signed, as JSON: the game's
/// observation type (for SIC also its start view).
#[must_use]
pub fn observation_json(variant: Variant, bytes: &[u8]) -> Value {
    let value = match variant {
        Variant::Chess => decoded::<rules::chess::Played>(bytes),
        Variant::Kriegspiel => decoded::<rules::kriegspiel::Answer>(bytes),
        Variant::Sic => {
            decoded::<rules::sic::Observation>(bytes).or_else(|| decoded::<rules::sic::View>(bytes))
        }
        Variant::Intrigue => decoded::<rules::intrigue::Observation>(bytes),
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
