//! The verdict as JSON: what `fogproof verify --json` prints and what the server serves at
//! `/api/match/{id}/verdict` and `POST /api/verify`, from one implementation.
//!
//! The shapes are Rust types ([`VerdictJson`] and what it holds), serialised by serde; the
//! pages' TypeScript types (`web/src/types/verifier/*.ts`) are generated from them by ts-rs
//! (the crate's `ts` feature, `export_typescript`). `tests/tests/typescript.rs` fails when
//! the committed files differ from what the Rust types give (regenerate with
//! `FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-tests --test typescript`). The functions return
//! a [`Value`] (the same bytes as before the types: keys in `serde_json`'s order).

use crate::envelope::Description;
use crate::{Fault, FaultKind, MatchRole, Verdict, VerifiedMatch};
use protocol::PublicKey;
use rules::{Color, EndReason, GameResult};
use serde::Serialize;
use serde_json::Value;

/// The fault kind's stable kebab-case name.
#[must_use]
pub fn kind_name(f: &Fault) -> String {
    match serde_json::to_value(f.kind) {
        Ok(Value::String(s)) => s,
        _ => format!("{:?}", f.kind),
    }
}

/// A key and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct KeyJson {
    /// The key, as `PublicKey`'s text form.
    pub key: String,
    /// Its fingerprint.
    pub fingerprint: String,
}

impl KeyJson {
    /// `key`'s JSON.
    #[must_use]
    pub fn of(key: &PublicKey) -> KeyJson {
        KeyJson { key: key.to_string(), fingerprint: key.fingerprint() }
    }
}

/// A result: its score, winner and reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct OutcomeJson {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub score: String,
    /// The winner; `null` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl OutcomeJson {
    /// `r`'s JSON.
    #[must_use]
    pub fn of(r: &GameResult) -> OutcomeJson {
        OutcomeJson { score: r.score().to_owned(), winner: r.winner, reason: r.reason }
    }
}

/// One fault: what, who (key and role), where (entry, message), the evidence and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct FaultJson {
    /// The fault's kind.
    pub kind: FaultKind,
    /// The key that signed the false statement; `null` when the record itself is at fault.
    pub culprit: Option<String>,
    /// That key's role.
    pub role: MatchRole,
    /// The record entry the fault is in.
    pub entry: Option<usize>,
    /// The hash of the message the fault is in.
    pub message: Option<String>,
    /// What was signed and what the rules or cryptography give instead.
    pub evidence: String,
    /// A sentence a human arbiter can read.
    pub explanation: String,
}

/// The verdict's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every check passed.
    Valid,
    /// At least one fault.
    Faults,
}

/// A sanction that is no result: the game is void.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
#[serde(rename_all = "kebab-case")]
pub enum Void {
    /// `"void"`.
    Void,
}

/// What a record with faults gives: a forfeit's result, or `"void"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
#[serde(untagged)]
pub enum Sanction {
    /// A result (a forfeit).
    Result(OutcomeJson),
    /// No result.
    Void(Void),
}

/// A verdict, with what the record says it is where that is known ([`described`],
/// [`verified`]). Fields a function does not fill are left out of the JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
pub struct VerdictJson {
    /// `valid` or `faults`.
    pub status: Status,
    /// The result of a valid record; `null` with faults.
    pub result: Option<OutcomeJson>,
    /// Every fault, in the order found (empty when valid).
    pub faults: Vec<FaultJson>,
    /// The sanction of a faulty record; `null` when valid.
    pub sanction: Option<Sanction>,
    /// SHA-256 of the record file, hex ([`verified`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub record_sha256: Option<String>,
    /// The match id, hex, where the terms can be read ([`verified`]; present and `null` when
    /// they cannot).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub match_id: Option<Option<String>>,
    /// The terms' variant, where readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub variant: Option<rules::Variant>,
    /// The terms' ruleset, where readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub ruleset: Option<String>,
    /// Whether `white` and `black` are by color (else in the terms' `players` order).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(rename = "colours_known")] // the published JSON key
    pub colors_known: Option<bool>,
    /// White's key (see `colours_known`), where readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub white: Option<KeyJson>,
    /// Black's key, likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub black: Option<KeyJson>,
    /// The umpire's key ([`verified`]; `null` in an unumpired game or unreadable terms).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub umpire: Option<Option<KeyJson>>,
    /// The relay's key ([`verified`]; `null` with unreadable terms).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub relay: Option<Option<KeyJson>>,
    /// The parties that countersigned the relay's close of a valid record ([`verified`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub countersigned: Option<Vec<String>>,
    /// The verifier's version ([`verified`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub verifier_version: Option<String>,
}

impl VerdictJson {
    /// The verdict alone: status, result, faults and sanction.
    #[must_use]
    pub fn of(verdict: &Verdict) -> VerdictJson {
        let faults = verdict
            .faults()
            .iter()
            .map(|f| FaultJson {
                kind: f.kind,
                culprit: f.culprit.map(|k| k.to_string()),
                role: f.role,
                entry: f.entry,
                message: f.message.map(|m| m.to_string()),
                evidence: f.evidence.clone(),
                explanation: f.explanation.clone(),
            })
            .collect();
        VerdictJson {
            status: if verdict.is_valid() { Status::Valid } else { Status::Faults },
            result: match verdict {
                Verdict::Valid { result: r } => Some(OutcomeJson::of(r)),
                Verdict::Faults(_) => None,
            },
            faults,
            sanction: match verdict {
                Verdict::Valid { .. } => None,
                Verdict::Faults(_) => Some(
                    verdict.sanctioned_result().as_ref().map_or(Sanction::Void(Void::Void), |r| {
                        Sanction::Result(OutcomeJson::of(r))
                    }),
                ),
            },
            record_sha256: None,
            match_id: None,
            variant: None,
            ruleset: None,
            colors_known: None,
            white: None,
            black: None,
            umpire: None,
            relay: None,
            countersigned: None,
            verifier_version: None,
        }
    }

    /// The verdict with what the record says it is (variant, ruleset, the players by color).
    #[must_use]
    pub fn described(v: &Verdict, description: Option<&Description>) -> VerdictJson {
        let mut out = VerdictJson::of(v);
        if let Some(d) = description {
            out.variant = Some(d.variant);
            out.ruleset = Some(d.ruleset.clone());
            out.colors_known = Some(d.colors_known);
            out.white = Some(KeyJson::of(&d.colors.white));
            out.black = Some(KeyJson::of(&d.colors.black));
        }
        out
    }

    /// A [`VerifiedMatch`]: the verdict, the record's SHA-256, the match id, the parties, the
    /// countersigners and the verifier's version.
    #[must_use]
    pub fn verified(m: &VerifiedMatch) -> VerdictJson {
        let mut out = VerdictJson::of(&m.verdict);
        out.record_sha256 = Some(protocol::hex::encode(&m.record_sha256));
        out.match_id = Some(m.match_id.map(|id| protocol::hex::encode(&id.0)));
        if let Some((variant, ruleset)) = &m.variant {
            out.variant = Some(*variant);
            out.ruleset = Some(ruleset.clone());
        }
        out.colors_known = Some(m.colors_known);
        if let Some(p) = &m.players {
            out.white = Some(KeyJson::of(&p.white));
            out.black = Some(KeyJson::of(&p.black));
        }
        out.umpire = Some(m.umpire.as_ref().map(KeyJson::of));
        out.relay = Some(m.relay.as_ref().map(KeyJson::of));
        out.countersigned = Some(m.countersigned.iter().map(ToString::to_string).collect());
        out.verifier_version = Some(m.verifier_version.to_owned());
        out
    }
}

/// Plain data: serialising it cannot fail.
fn value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A key and its fingerprint ([`KeyJson`]).
#[must_use]
pub fn key(key: &PublicKey) -> Value {
    value(&KeyJson::of(key))
}

/// A result: its score, winner and reason ([`OutcomeJson`]).
#[must_use]
pub fn result(r: &GameResult) -> Value {
    value(&OutcomeJson::of(r))
}

/// A verdict: `status` (`valid` or `faults`), the `result` of a valid record, every fault with
/// its culprit and evidence, and the `sanction` of a faulty one (a forfeit, or `void`).
#[must_use]
pub fn verdict(verdict: &Verdict) -> Value {
    value(&VerdictJson::of(verdict))
}

/// [`verdict`] with what the record says it is (variant, ruleset, the players by color).
#[must_use]
pub fn described(v: &Verdict, description: Option<&Description>) -> Value {
    value(&VerdictJson::described(v, description))
}

/// A [`VerifiedMatch`]: the verdict, the record's SHA-256, the match id, the parties, the
/// countersigners and the verifier's version.
#[must_use]
pub fn verified(m: &VerifiedMatch) -> Value {
    value(&VerdictJson::verified(m))
}

/// Writes the TypeScript declarations of the verdict's and the replay's JSON and all they use
/// under `dir`: the verifier's own in `verifier/`, the rules' and protocol's at the top.
/// `tests/tests/typescript.rs` checks that `web/src/types` is what this gives.
#[cfg(feature = "ts")]
pub fn export_typescript(dir: &std::path::Path) -> Result<(), ts_rs::ExportError> {
    use ts_rs::TS;
    VerdictJson::export_all_to(dir)?;
    crate::views::Replay::export_all_to(dir)?;
    crate::views::CompactReplay::export_all_to(dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed JSON is the JSON the pages have always read: every key, and only the keys
    /// each function fills (a valid verdict, a faulty one with a void sanction, and one with a
    /// forfeit).
    #[test]
    fn the_json_keeps_its_shape() {
        let white = protocol::Identity::from_seed(&[1; 32]).public();
        let valid = Verdict::Valid { result: GameResult::win(Color::White, EndReason::Checkmate) };
        let v = verdict(&valid);
        assert_eq!(
            v,
            serde_json::json!({
                "status": "valid",
                "result": { "score": "1-0", "winner": "white", "reason": "checkmate" },
                "faults": [],
                "sanction": null,
            })
        );
        let fault = Fault {
            kind: FaultKind::FalseAnnouncement,
            culprit: Some(white),
            role: MatchRole::Umpire,
            entry: Some(7),
            message: None,
            evidence: "e".into(),
            explanation: "x".into(),
        };
        let faulty = Verdict::Faults(vec![fault]);
        let v = verdict(&faulty);
        assert_eq!(v["status"], "faults");
        assert_eq!(v["result"], Value::Null);
        assert_eq!(
            v["faults"][0],
            serde_json::json!({
                "kind": "false-announcement",
                "culprit": white.to_string(),
                "role": "umpire",
                "entry": 7,
                "message": null,
                "evidence": "e",
                "explanation": "x",
            })
        );
        assert_eq!(kind_name(&faulty.faults()[0]), "false-announcement");
        // The sanction is the verifier's: a result object, or "void".
        let sanction = &v["sanction"];
        match faulty.sanctioned_result() {
            Some(r) => assert_eq!(*sanction, result(&r)),
            None => assert_eq!(*sanction, "void"),
        }
        assert_eq!(v.as_object().map(serde_json::Map::len), Some(4), "{v}");
    }
}
