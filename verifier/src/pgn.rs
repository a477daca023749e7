//! PGN of a match record (`fogproof record pgn`, the server's `/api/match/{id}/pgn`): the
//! revealed game, or the game as one side knew it (Berkeley-style filtered Kriegspiel, SIC's
//! views, Intrigue's hidden setups, 6x6's red squares and scores). Format in `docs/record.md`.

use crate::Verdict;
use crate::replay::GameLog;
use protocol::game;
use rules::notation::{self, Token};
use rules::{Color, Variant};
use serde_json::Value;

/// Why a record has no PGN.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the record does not pass the envelope checks ({0}); run `fogproof verify`")]
pub struct PgnError(pub String);

fn verdict_tag(v: &Verdict) -> String {
    match v.faults().first() {
        None => "valid".to_owned(),
        Some(f) => {
            let kind = serde_json::to_value(f.kind).ok();
            let role = serde_json::to_value(f.role).ok();
            let name = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_owned));
            format!("{} by {}", name(kind).unwrap_or_default(), name(role).unwrap_or_default())
        }
    }
}

/// The PGN of a record: `view` `None` is the full game, else what that side knew.
pub fn pgn(bytes: &[u8], view: Option<Color>) -> Result<String, PgnError> {
    let checked = match crate::envelope::check(bytes) {
        Ok(c) => c,
        Err(faults) => {
            return Err(PgnError(faults.first().map_or_else(String::new, |f| f.evidence.clone())));
        }
    };
    let trace = crate::replay::trace(&checked);
    let log = &trace.log;
    let variant = checked.variant;
    let mut out = String::new();
    let result = log.result.map_or("*", |r| r.score());
    let tags: Vec<(&str, String)> = vec![
        ("Event", "fogproof match".to_owned()),
        ("Site", "fogproof".to_owned()),
        ("Date", "????.??.??".to_owned()),
        ("Round", "-".to_owned()),
        ("White", checked.colors.white.fingerprint()),
        ("Black", checked.colors.black.fingerprint()),
        ("Result", result.to_owned()),
        ("Variant", variant.id().to_owned()),
        ("Ruleset", checked.terms.terms.ruleset().to_owned()),
        ("MatchId", checked.terms.match_id.to_string()),
        ("View", view.map_or("full", Color::name).to_owned()),
        ("Verdict", verdict_tag(&trace.verdict)),
    ];
    for (name, value) in tags {
        out.push_str(&format!(
            "[{name} \"{}\"]\n",
            value.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    }
    if let Some(r) = log.result {
        out.push_str(&format!("[Termination \"{}\"]\n", r.reason.name()));
    }
    if view.is_none()
        && let Some(fen) = &log.start_fen
        && *fen != rules::chess::START_FEN
    {
        out.push_str(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n"));
    }
    out.push('\n');
    let tokens = movetext(variant, log, view);
    out.push_str(&layout(&tokens, result));
    Ok(out)
}

/// The game's movetext tokens (`rules::notation`): the log's actions and what each side was
/// told, decoded (the log holds only actions the rules accepted, so each decodes; what a side
/// was told and cannot be read counts as nothing told).
fn movetext(variant: Variant, log: &GameLog, view: Option<Color>) -> Vec<Token> {
    let start =
        log.start.as_ref().map(|b| b.as_ref().and_then(|b| game::decode_start_observation(b).ok()));
    let steps: Vec<notation::Step> =
        log.steps
            .iter()
            .filter_map(|step| {
                Some(notation::Step {
                    actor: step.actor,
                    action: game::decode_action(variant, &step.action).ok()?,
                    told: step.told.as_ref().map(|b| {
                        b.as_ref().and_then(|b| game::decode_observation(variant, b).ok())
                    }),
                })
            })
            .collect();
    notation::movetext(variant, log.start_fen.as_deref(), &start, &steps, view)
}

/// Movetext: numbers, moves and comments, wrapped at 79 columns, then the result.
fn layout(tokens: &[Token], result: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut number = 1u32;
    let mut white_just_moved = false;
    for t in tokens {
        match t {
            Token::Move(Color::White, m) => {
                words.push(format!("{number}."));
                words.push(m.clone());
                white_just_moved = true;
            }
            Token::Move(Color::Black, m) => {
                if !white_just_moved {
                    words.push(format!("{number}..."));
                }
                words.push(m.clone());
                number += 1;
                white_just_moved = false;
            }
            Token::Comment(c) => {
                words.push(format!("{{{}}}", c.replace('}', ")")));
                white_just_moved = false;
            }
        }
    }
    words.push(result.to_owned());
    let mut out = String::new();
    let mut line = String::new();
    for w in words {
        // Comments may hold spaces; wrap between words of the comment too.
        for piece in w.split(' ') {
            let sep = if line.is_empty() { "" } else { " " };
            if !line.is_empty() && line.len() + sep.len() + piece.len() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            } else {
                line.push_str(sep);
            }
            line.push_str(piece);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}
