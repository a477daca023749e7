//! PGN of a match record (`fogproof record pgn`, the server's `/api/match/{id}/pgn`): the
//! revealed game, or the game as one side knew it (Berkeley-style filtered Kriegspiel, SIC's
//! views, Intrigue's hidden setups, 6x6's red squares and scores). Format in `docs/record.md`.

use crate::Verdict;
use crate::replay::{GameLog, Step, text};
use protocol::codec::Canonical;
use rules::secretchess6::{Action as SixAction, Event as SixEvent, Observation as SixObservation};
use rules::{Color, Variant};
use serde_json::Value;

/// Why a record has no PGN.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the record does not pass the envelope checks ({0}); run `fogproof verify`")]
pub struct PgnError(pub String);

/// A piece of movetext.
enum Token {
    /// A move (or `??` for one the viewer did not see) by a side.
    Move(Color, String),
    /// A `{comment}`.
    Comment(String),
}

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

fn uci(variant: Variant, m: &rules::Move) -> String {
    m.uci(variant.alphabet())
}

fn kriegspiel_announcement(a: &rules::kriegspiel::Announcement) -> String {
    let mut parts = Vec::new();
    if let Some(c) = a.capture {
        let kind = match c.kind {
            rules::kriegspiel::CaptureKind::Pawn => "pawn",
            rules::kriegspiel::CaptureKind::Piece => "piece",
        };
        let ep = if c.en_passant { ", en passant" } else { "" };
        parts.push(format!("capture at {} ({kind}{ep})", c.square));
    }
    if !a.checks.is_empty() {
        let kinds: Vec<&str> = a.checks.iter().map(|k| k.name()).collect();
        parts.push(format!("check: {}", kinds.join(", ")));
    }
    parts.push(format!("pawn tries: {}", a.pawn_tries));
    if let Some(end) = a.end {
        parts.push(end.name().to_owned());
    }
    parts.join("; ")
}

fn role_name_of(r: rules::Role) -> String {
    serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn decoded<T: Canonical>(bytes: Option<&Vec<u8>>) -> Option<T> {
    bytes.and_then(|b| T::from_canonical(b).ok())
}

/// SAN of each step of an orthodox game (chess, Kriegspiel), `None` for an illegal attempt.
fn san_steps(variant: Variant, log: &GameLog) -> Vec<Option<String>> {
    if !matches!(variant, Variant::Chess | Variant::Kriegspiel) {
        return vec![None; log.steps.len()];
    }
    let start = log.start_fen.as_deref().unwrap_or(rules::chess::START_FEN);
    let Ok(mut pos) = <rules::chess::Position as rules::Analysis>::from_fen(start) else {
        return vec![None; log.steps.len()];
    };
    log.steps
        .iter()
        .map(|step| {
            let m = rules::Move::from_canonical(&step.action).ok()?;
            if !pos.is_legal(&m) {
                return None;
            }
            let text = pos.san(&m);
            pos.play_unchecked(&m);
            text
        })
        .collect()
}

fn movetext(variant: Variant, log: &GameLog, view: Option<Color>) -> Vec<Token> {
    let sans = san_steps(variant, log);
    let mut tokens = Vec::new();
    if variant == Variant::Sic
        && let Some(side) = view
        && let Some(v) = decoded::<rules::sic::View>(log.start[side].as_ref())
    {
        let army: Vec<String> =
            v.own.iter().map(|p| format!("{}{}", role_letter(p.role), p.square)).collect();
        tokens.push(Token::Comment(format!("your army: {}", army.join(" "))));
    }
    let mut attempts: Vec<String> = Vec::new();
    for (step, san) in log.steps.iter().zip(&sans) {
        match variant {
            Variant::Chess | Variant::Espionage => {
                let uci = text::action_text(variant, &step.action);
                tokens.push(Token::Move(step.actor, san.clone().unwrap_or(uci)));
            }
            Variant::Kriegspiel => {
                kriegspiel_step(step, san.as_deref(), view, &mut attempts, &mut tokens);
            }
            Variant::Sic => sic_step(step, view, &mut tokens),
            Variant::Intrigue => intrigue_step(step, view, &mut tokens),
            Variant::SecretChess6 => sc6_step(step, view, &mut tokens),
        }
    }
    tokens
}

fn role_letter(r: rules::Role) -> char {
    Variant::Sic.alphabet().char(r).unwrap_or('?').to_ascii_uppercase()
}

fn kriegspiel_step(
    step: &Step,
    san: Option<&str>,
    view: Option<Color>,
    attempts: &mut Vec<String>,
    t: &mut Vec<Token>,
) {
    let Some(answer) = decoded::<rules::kriegspiel::Answer>(step.told[step.actor].as_ref()) else {
        return;
    };
    let attempt = text::action_text(Variant::Kriegspiel, &step.action);
    let sees_move = view.is_none_or(|v| v == step.actor);
    match answer {
        // R-K1: the opponent never hears of illegal attempts.
        rules::kriegspiel::Answer::Illegal => {
            if sees_move {
                attempts.push(attempt);
            }
        }
        rules::kriegspiel::Answer::Legal(a) => {
            let mut comment = Vec::new();
            if !attempts.is_empty() {
                comment.push(format!("illegal: {}", attempts.join(" ")));
                attempts.clear();
            }
            comment.push(kriegspiel_announcement(&a));
            let shown = match (sees_move, san) {
                (false, _) => "??".to_owned(),
                (true, Some(san)) => san.to_owned(),
                (true, None) => attempt,
            };
            t.push(Token::Move(step.actor, shown));
            t.push(Token::Comment(comment.join("; ")));
        }
    }
}

fn sic_step(step: &Step, view: Option<Color>, t: &mut Vec<Token>) {
    use rules::sic::{CheckReport, Observation};
    let Ok(m) = rules::Move::from_canonical(&step.action) else { return };
    let mover = decoded::<Observation>(step.told[step.actor].as_ref());
    let other = decoded::<Observation>(step.told[!step.actor].as_ref());
    let mut comment = Vec::new();
    match view {
        Some(v) if v != step.actor => {
            // R-S10: the from and to squares only, the piece's tracking id, losses and checks.
            if let Some(Observation::OpponentMoved(r)) = other {
                t.push(Token::Move(step.actor, format!("{}{}", r.from, r.to)));
                comment.push(format!("piece from {}", r.id));
                if let Some(l) = r.lost {
                    comment.push(format!("lost your {} on {}", role_name_of(l.role), l.square));
                }
                match r.check {
                    Some(CheckReport::King) => comment.push("check".to_owned()),
                    Some(CheckReport::Decoy) => comment.push("check on your decoy".to_owned()),
                    None => {}
                }
            }
        }
        _ => {
            t.push(Token::Move(step.actor, uci(Variant::Sic, &m)));
            if let Some(Observation::YouMoved(r)) = mover {
                if let Some(role) = r.captured {
                    comment.push(format!("captured a {}", role_name_of(role)));
                }
                if r.check {
                    comment.push("check".to_owned());
                }
            }
        }
    }
    if !comment.is_empty() {
        t.push(Token::Comment(comment.join("; ")));
    }
}

fn intrigue_step(step: &Step, view: Option<Color>, t: &mut Vec<Token>) {
    use rules::intrigue::{Action, Observation};
    match rules::intrigue::Action::from_canonical(&step.action) {
        Ok(Action::Setup(s)) => {
            let queen = if s.queen_on_king_square { "yes" } else { "no" };
            let text = if view.is_none_or(|v| v == step.actor) {
                format!(
                    "{} sets up: king hides on {}, informer {}, queen on the king's square: {queen}",
                    step.actor, s.king, s.informer
                )
            } else {
                format!("{} sets up (secret); queen on the king's square: {queen}", step.actor)
            };
            t.push(Token::Comment(text));
        }
        Ok(Action::Move(m)) => {
            t.push(Token::Move(step.actor, uci(Variant::Intrigue, &m)));
            let Some(Observation::Move(r)) = decoded::<Observation>(step.told[step.actor].as_ref())
            else {
                return;
            };
            if let Some(i) = r.inspection {
                let text = match i.appeared {
                    Some(a) => {
                        let removed = a
                            .removed
                            .map(|p| format!(", removing the {} {}", p.color, role_name_of(p.role)))
                            .unwrap_or_default();
                        format!(
                            "the pawn was {}'s informer: its king appears on {}{removed}",
                            i.owner, a.square
                        )
                    }
                    None if i.informer => format!("the pawn was {}'s informer", i.owner),
                    None => format!("the pawn was not {}'s informer", i.owner),
                };
                t.push(Token::Comment(text));
            }
        }
        Err(_) => {}
    }
}

fn sc6_events(bytes: Option<&Vec<u8>>) -> Vec<SixEvent> {
    decoded::<SixObservation>(bytes).map(|o| o.events).unwrap_or_default()
}

fn names(squares: rules::Bitboard) -> Vec<String> {
    squares.map(|s| s.name()).collect()
}

fn sc6_step(step: &Step, view: Option<Color>, t: &mut Vec<Token>) {
    let Ok(action) = SixAction::from_canonical(&step.action) else { return };
    let own = view.is_none_or(|v| v == step.actor);
    match action {
        SixAction::Setup { formation, false_squares } => t.push(Token::Comment(if own {
            let squares = if false_squares.is_empty() {
                "none".to_owned()
            } else {
                names(false_squares).join(" ")
            };
            format!("{} sets up {formation}, false squares: {squares}", step.actor)
        } else {
            format!("{} sets up (secret)", step.actor)
        })),
        SixAction::Move { mv } => {
            t.push(Token::Move(step.actor, if own { mv.to_string() } else { "??".to_owned() }));
        }
        SixAction::LifeFreeze { piece } if own => {
            t.push(Token::Comment(format!("{} freezes the piece on {piece}", step.actor)));
        }
        SixAction::TieBreak { formation, moves } if own => {
            let moves: Vec<String> = moves.iter().map(ToString::to_string).collect();
            t.push(Token::Comment(format!(
                "{}'s tie-break: formation {formation}, moves {}",
                step.actor,
                moves.join(" ")
            )));
        }
        _ => {}
    }
    // What the viewer was told (the full view: White's copy, plus Black's board updates).
    let sides: Vec<Color> = view.map_or_else(|| Color::ALL.to_vec(), |v| vec![v]);
    let mut comment = Vec::new();
    for side in sides {
        for e in sc6_events(step.told[side].as_ref()) {
            match e {
                SixEvent::Board { red, .. } => {
                    comment.push(format!("{side}'s red squares: {}", names(red).join(" ")));
                }
                SixEvent::Scores { scores, .. } if side == Color::White || view.is_some() => {
                    comment.push(format!("scores {}-{}", scores.white, scores.black));
                }
                SixEvent::Passed { reason } => {
                    let reason = serde_json::to_value(reason).unwrap_or_default();
                    comment.push(format!("{side} passes ({})", reason.as_str().unwrap_or("")));
                }
                _ => {}
            }
        }
    }
    if !comment.is_empty() {
        t.push(Token::Comment(comment.join("; ")));
    }
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
