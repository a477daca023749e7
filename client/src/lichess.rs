//! lichess's Bot and Board API shapes for the agent's local API ([`crate::local`]): the names
//! and fields lichess uses, so that a lichess client (`berserk`, the `lichess-bot` bridge) reads
//! fogproof's streams unmodified. fogproof's own knowledge stays in fields lichess does not
//! have (docs/AGENT-API.md).

use crate::api_types::{LichessVariant, Player, Status, VariantInfo};
use protocol::message::{Claim, ClaimReason, Outcome};
use protocol::names::SignedName;
use rules::seat::SeatView;
use rules::{EndReason, Variant};
use serde_json::{Value, json};

/// lichess's key of a variant: `standard` for chess; fogproof's own id for the others (no
/// lichess variant is the same game).
pub fn variant_key(v: Variant) -> &'static str {
    match v {
        Variant::Chess => "standard",
        other => other.id(),
    }
}

/// The variant a key names: lichess's `standard` (or fogproof's `chess`) is chess; any other
/// key is fogproof's id.
pub fn parse_variant(key: &str) -> Option<Variant> {
    match key {
        "standard" => Some(Variant::Chess),
        other => other.parse().ok(),
    }
}

/// A variant's readable name: lichess's `Standard` for chess, [`Variant::name`] otherwise.
pub fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::Chess => "Standard",
        other => other.name(),
    }
}

/// A variant's short name (lichess's `short`): [`Variant::short_name`].
pub fn variant_short(v: Variant) -> &'static str {
    v.short_name()
}

/// The `variant` object: `key`, `name`, `short`, and fogproof's `id`.
pub fn variant_json(v: Variant) -> Value {
    json!(LichessVariant::of(v))
}

/// The pages' list of variants ([`VariantInfo`]): lichess's key beside fogproof's id and name.
impl VariantInfo {
    /// Every variant, in `Variant::ALL`'s order.
    pub fn all() -> Vec<VariantInfo> {
        Variant::ALL.into_iter().map(VariantInfo::of).collect()
    }

    /// One variant's.
    pub fn of(v: Variant) -> VariantInfo {
        let mode = match v.mode() {
            rules::Mode::Open => "open",
            rules::Mode::Owner => "owner",
            rules::Mode::Umpire => "umpire",
        };
        VariantInfo {
            id: v,
            name: v.name(),
            key: variant_key(v),
            size: v.board_size().width(),
            mode,
        }
    }
}

impl LichessVariant {
    /// The object of `v`.
    pub fn of(v: Variant) -> LichessVariant {
        LichessVariant {
            key: variant_key(v),
            name: variant_name(v),
            short: variant_short(v),
            id: v,
        }
    }
}

/// lichess's speed of a clock (initial and increment in ms): by the estimated duration, the
/// initial time plus 40 increments.
pub fn speed(initial_ms: u64, increment_ms: u64) -> &'static str {
    let estimate_s = initial_ms / 1000 + 40 * (increment_ms / 1000);
    match estimate_s {
        0..30 => "ultraBullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    }
}

/// lichess's game `status` name: `started` while playing, then the end's (`mate`, `resign`,
/// `stalemate`, `draw`, `outoftime`, `timeout` for an abandonment, `cheat` for a forfeit,
/// `variantEnd` for a game's own end, `aborted` when nothing was played), `unknownFinish` for
/// a seat that stopped with no result known.
pub fn status_name(stage: Status, claim: Option<&Claim>) -> &'static str {
    let Some(c) = claim else {
        return match stage {
            Status::Started => "started",
            _ => "unknownFinish",
        };
    };
    match c.reason {
        ClaimReason::Game(r) => match r {
            EndReason::Checkmate => "mate",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition
            | EndReason::FiftyMove
            | EndReason::InsufficientMaterial
            | EndReason::Agreement => "draw",
            EndReason::KingCaptured | EndReason::Score | EndReason::TieBreak => "variantEnd",
            EndReason::Resignation => "resign",
            EndReason::Timeout => "outoftime",
            EndReason::Forfeit => "cheat",
            EndReason::Abandonment => "timeout",
        },
        ClaimReason::BadTerms | ClaimReason::UmpireTimeout => "aborted",
    }
}

/// lichess's `winner`: `white`, `black`, or none.
pub fn winner(claim: Option<&Claim>) -> Option<&'static str> {
    match claim?.outcome {
        Outcome::WhiteWins => Some("white"),
        Outcome::BlackWins => Some("black"),
        Outcome::Draw | Outcome::NoResult => None,
    }
}

/// lichess's `moves`: every move of the game in UCI, space-separated, where the seat knows
/// them all (chess, Espionage); empty in the hidden games (the seat's own answers are in
/// `sent`, what it was told in `view`).
pub fn moves_uci(view: Option<&SeatView>) -> String {
    let Some(view) = view else { return String::new() };
    let Some(moves) = view.knows.open_moves() else { return String::new() };
    moves.iter().map(|m| m.uci(view.variant.alphabet())).collect::<Vec<_>>().join(" ")
}

/// lichess's `initialFen`: `startpos` for the games that start from the standard position
/// (chess, Kriegspiel, Espionage); none for those that start from secret setups.
pub fn initial_fen(v: Variant) -> Option<&'static str> {
    (!v.has_secret_setup()).then_some("startpos")
}

/// A player object (`white`, `black`, `opponent`): the key is the `id`; `name` and `username`
/// are the display name the key signed (`name`, checked by the agent: `signedName` carries the
/// statement for anyone to check again), or the key where it signed none; `fingerprint` is the
/// key's (what a page shows beside the name); no rating (fogproof's ratings are the log's, not
/// the host's word).
pub fn player_json(key: Option<&str>, name: Option<&SignedName>) -> Value {
    let Some(k) = key else { return Value::Null };
    let fingerprint = k.parse::<protocol::PublicKey>().ok().map(|p| p.fingerprint());
    let name = name.filter(|n| n.key.to_string() == k);
    let shown = name.map_or(k, |n| n.name.as_str());
    json!(Player {
        id: k.to_owned(),
        name: shown.to_owned(),
        username: shown.to_owned(),
        rating: None,
        title: None,
        fingerprint,
        signed_name: name.cloned(),
    })
}

/// A challenge as the server shows it, in lichess's shape: `status` `created` for an open one,
/// `variant` a full object with lichess's key, `timeControl` with `type` and `show`, and the
/// rest as the server wrote it (the agent checks terms against the server's own copy).
pub fn challenge(c: &Value) -> Value {
    let mut c = c.clone();
    if c["status"] == "open" {
        c["status"] = json!("created");
    }
    if let Some(v) = c.pointer("/variant/key").and_then(Value::as_str).and_then(parse_variant) {
        c["variant"] = variant_json(v);
    }
    if let Some(tc) = c.get_mut("timeControl").and_then(Value::as_object_mut) {
        let (limit, inc) =
            (tc.get("limit").and_then(Value::as_u64), tc.get("increment").and_then(Value::as_u64));
        tc.entry("type").or_insert(json!("clock"));
        if let (Some(l), Some(i)) = (limit, inc) {
            let minutes = match l {
                15 => "¼".to_owned(),
                30 => "½".to_owned(),
                45 => "¾".to_owned(),
                l if l % 60 == 0 => (l / 60).to_string(),
                l => format!("{}.{}", l / 60, l % 60 * 10 / 60),
            };
            tc.entry("show").or_insert(json!(format!("{minutes}+{i}")));
        }
    }
    // lichess's `speed`, `perf` and `finalColor` (the colors of a `random` challenge are drawn
    // by the protocol once the match starts: until then `finalColor` stays `random`), and
    // player objects with a `name`: what lichess-bot reads of a challenge.
    let limit_ms = c.pointer("/timeControl/limit").and_then(Value::as_u64).map(|s| s * 1000);
    let inc_ms = c.pointer("/timeControl/increment").and_then(Value::as_u64).map(|s| s * 1000);
    if let (Some(l), Some(i)) = (limit_ms, inc_ms) {
        let speed = speed(l, i);
        c["speed"] = json!(speed);
        c["perf"] = json!({ "name": speed });
    }
    if c.get("finalColor").is_none() {
        c["finalColor"] = c["color"].clone();
    }
    for who in ["challenger", "destUser"] {
        if let Some(p) = c.get_mut(who).and_then(Value::as_object_mut)
            && let Some(id) = p.get("id").cloned()
        {
            p.entry("name").or_insert(id);
            p.entry("title").or_insert(Value::Null);
            p.entry("rating").or_insert(Value::Null);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_has_what_lichess_bot_reads() {
        let server = json!({
            "id": "00aa", "status": "open", "challenger": { "id": "ed25519:1" },
            "destUser": { "id": "ed25519:2" }, "variant": { "key": "chess" }, "rated": false,
            "timeControl": { "type": "clock", "limit": 300, "increment": 3 }, "color": "random",
        });
        let c = challenge(&server);
        assert_eq!(c["status"], "created");
        assert_eq!(c["variant"]["key"], "standard");
        assert_eq!(c["speed"], "blitz");
        assert_eq!(c["perf"]["name"], "blitz");
        // The colors are drawn later, by the protocol.
        assert_eq!(c["finalColor"], "random");
        assert_eq!(c["challenger"]["name"], "ed25519:1");
        assert_eq!(c["destUser"]["name"], "ed25519:2");
        assert!(c["challenger"]["title"].is_null());
        assert_eq!(
            challenge(&json!({ "color": "white", "destUser": null }))["finalColor"],
            "white"
        );
    }

    #[test]
    fn names_are_lichess_names() {
        assert_eq!(variant_key(Variant::Chess), "standard");
        assert_eq!(parse_variant("standard"), Some(Variant::Chess));
        assert_eq!(parse_variant("chess"), Some(Variant::Chess));
        assert_eq!(parse_variant("kriegspiel"), Some(Variant::Kriegspiel));
        assert_eq!(parse_variant("atomic"), None);
        // lichess: 5+3 is blitz (300 + 120 s), 1+0 bullet, 15+10 rapid, 30+0 classical.
        assert_eq!(speed(300_000, 3_000), "blitz");
        assert_eq!(speed(60_000, 0), "bullet");
        assert_eq!(speed(15_000, 0), "ultraBullet");
        assert_eq!(speed(900_000, 10_000), "rapid");
        assert_eq!(speed(1_800_000, 0), "classical");
        let claim = |outcome, reason: EndReason| Claim { outcome, reason: reason.into() };
        let mate = claim(Outcome::WhiteWins, EndReason::Checkmate);
        assert_eq!(status_name(Status::Over, Some(&mate)), "mate");
        assert_eq!(winner(Some(&mate)), Some("white"));
        let resign = claim(Outcome::BlackWins, EndReason::Resignation);
        assert_eq!(status_name(Status::Finished, Some(&resign)), "resign");
        assert_eq!(winner(Some(&resign)), Some("black"));
        let draw = claim(Outcome::Draw, EndReason::Repetition);
        assert_eq!(status_name(Status::Finished, Some(&draw)), "draw");
        assert_eq!(winner(Some(&draw)), None);
        assert_eq!(
            status_name(Status::Over, Some(&claim(Outcome::BlackWins, EndReason::Timeout))),
            "outoftime"
        );
        assert_eq!(status_name(Status::Started, None), "started");
        assert_eq!(status_name(Status::Stopped, None), "unknownFinish");
    }
}
