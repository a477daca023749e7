//! The games' PGN movetext tokens (issue 17: the per-game notation with the games; the
//! verifier's `pgn` only decodes, numbers and wraps): per accepted action, the move as the
//! viewer may see it and comments with what the viewer was told (Berkeley-style filtered
//! Kriegspiel, SIC's reports, Intrigue's hidden setups, 6x6's red squares and scores).
//! The format is `docs/record.md`'s.

use crate::{
    AnyAction, AnyObservation, ByColor, Color, Move, Role, Variant, chess, intrigue, kriegspiel,
    secretchess6, sic,
};

/// A piece of movetext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// A move (or `??` for one the viewer did not see) by a side.
    Move(Color, String),
    /// A `{comment}`.
    Comment(String),
}

/// An accepted action as the notation reads it.
#[derive(Clone, Debug)]
pub struct Step {
    /// Who acted.
    pub actor: Color,
    /// The action.
    pub action: AnyAction,
    /// What each side was told (`None`: nothing, or nothing readable).
    pub told: ByColor<Option<AnyObservation>>,
}

/// The movetext tokens of a game of `variant` from `start_fen` (where the game has a position
/// string when play began; the standard start otherwise), with what each side was told before
/// the first action (`start`: SIC's views), as `view` saw it (`None`: the full game).
#[must_use]
pub fn movetext(
    variant: Variant,
    start_fen: Option<&str>,
    start: &ByColor<Option<AnyObservation>>,
    steps: &[Step],
    view: Option<Color>,
) -> Vec<Token> {
    let sans = san_steps(variant, start_fen, steps);
    let mut tokens = Vec::new();
    if let Some(side) = view
        && let Some(AnyObservation::SicStart(v)) = &start[side]
    {
        let army: Vec<String> =
            v.own.iter().map(|p| format!("{}{}", role_letter(p.role), p.square)).collect();
        tokens.push(Token::Comment(format!("your army: {}", army.join(" "))));
    }
    let mut attempts: Vec<String> = Vec::new();
    for (step, san) in steps.iter().zip(&sans) {
        match (&step.action, variant) {
            (AnyAction::Chess(m) | AnyAction::Espionage(m), _) => {
                let uci = m.uci(variant.alphabet());
                tokens.push(Token::Move(step.actor, san.clone().unwrap_or(uci)));
            }
            (AnyAction::Kriegspiel(m), _) => {
                kriegspiel_step(step, m, san.as_deref(), view, &mut attempts, &mut tokens);
            }
            (AnyAction::Sic(m), _) => sic_step(step, m, view, &mut tokens),
            (AnyAction::Intrigue(a), _) => intrigue_step(step, a, view, &mut tokens),
            (AnyAction::SecretChess6(a), _) => sc6_step(step, a, view, &mut tokens),
        }
    }
    tokens
}

/// SAN of each step of an orthodox game (chess, Kriegspiel), `None` for an illegal attempt.
fn san_steps(variant: Variant, start_fen: Option<&str>, steps: &[Step]) -> Vec<Option<String>> {
    if !matches!(variant, Variant::Chess | Variant::Kriegspiel) {
        return vec![None; steps.len()];
    }
    let start = start_fen.unwrap_or(chess::START_FEN);
    let Ok(mut pos) = <chess::Position as crate::Analysis>::from_fen(start) else {
        return vec![None; steps.len()];
    };
    steps
        .iter()
        .map(|step| {
            let m = step.action.as_move()?;
            if !pos.is_legal(m) {
                return None;
            }
            let text = pos.san(m);
            pos.play_unchecked(m);
            text
        })
        .collect()
}

/// A role's name as its serde form spells it (`dragon-king`).
fn role_name_of(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
        Role::Marshall => "marshall",
        Role::Archbishop => "archbishop",
        Role::Centaur => "centaur",
        Role::DragonHorse => "dragon-horse",
        Role::DragonKing => "dragon-king",
        Role::Spy => "spy",
        Role::Decoy => "decoy",
        Role::Cannon => "cannon",
    }
}

/// A 6x6 pass's reason as its serde form spells it.
fn pass_reason_name(r: secretchess6::PassReason) -> &'static str {
    match r {
        secretchess6::PassReason::OnlyKing => "only-king",
        secretchess6::PassReason::NoLegalMove => "no-legal-move",
    }
}

fn role_letter(r: Role) -> char {
    Variant::Sic.alphabet().char(r).unwrap_or('?').to_ascii_uppercase()
}

fn kriegspiel_announcement(a: &kriegspiel::Announcement) -> String {
    let mut parts = Vec::new();
    if let Some(c) = a.capture {
        let kind = match c.kind {
            kriegspiel::CaptureKind::Pawn => "pawn",
            kriegspiel::CaptureKind::Piece => "piece",
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

fn kriegspiel_step(
    step: &Step,
    m: &Move,
    san: Option<&str>,
    view: Option<Color>,
    attempts: &mut Vec<String>,
    t: &mut Vec<Token>,
) {
    let Some(AnyObservation::Kriegspiel(answer)) = &step.told[step.actor] else {
        return;
    };
    let attempt = m.uci(Variant::Kriegspiel.alphabet());
    let sees_move = view.is_none_or(|v| v == step.actor);
    match answer {
        // R-K1: the opponent never hears of illegal attempts.
        kriegspiel::Answer::Illegal => {
            if sees_move {
                attempts.push(attempt);
            }
        }
        kriegspiel::Answer::Legal(a) => {
            let mut comment = Vec::new();
            if !attempts.is_empty() {
                comment.push(format!("illegal: {}", attempts.join(" ")));
                attempts.clear();
            }
            comment.push(kriegspiel_announcement(a));
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

fn sic_told(told: Option<&AnyObservation>) -> Option<&sic::Observation> {
    match told {
        Some(AnyObservation::Sic(o)) => Some(o),
        _ => None,
    }
}

fn sic_step(step: &Step, m: &Move, view: Option<Color>, t: &mut Vec<Token>) {
    use sic::{CheckReport, Observation};
    let mover = sic_told(step.told[step.actor].as_ref());
    let other = sic_told(step.told[!step.actor].as_ref());
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
            t.push(Token::Move(step.actor, m.uci(Variant::Sic.alphabet())));
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

fn intrigue_step(step: &Step, action: &intrigue::Action, view: Option<Color>, t: &mut Vec<Token>) {
    use intrigue::{Action, Observation};
    match action {
        Action::Setup(s) => {
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
        Action::Move(m) => {
            t.push(Token::Move(step.actor, m.uci(Variant::Intrigue.alphabet())));
            let Some(AnyObservation::Intrigue(Observation::Move(r))) = &step.told[step.actor]
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
    }
}

fn sc6_events(told: Option<&AnyObservation>) -> &[secretchess6::Event] {
    match told {
        Some(AnyObservation::SecretChess6(o)) => &o.events,
        _ => &[],
    }
}

fn names(squares: crate::Bitboard) -> Vec<String> {
    squares.map(|s| s.name()).collect()
}

fn sc6_step(step: &Step, action: &secretchess6::Action, view: Option<Color>, t: &mut Vec<Token>) {
    use secretchess6::{Action as SixAction, Event as SixEvent};
    let own = view.is_none_or(|v| v == step.actor);
    match action {
        SixAction::Setup { formation, false_squares } => t.push(Token::Comment(if own {
            let squares = if crate::Bitboard::is_empty(*false_squares) {
                "none".to_owned()
            } else {
                names(*false_squares).join(" ")
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
                    comment.push(format!("{side}'s red squares: {}", names(*red).join(" ")));
                }
                SixEvent::Scores { scores, .. } if side == Color::White || view.is_some() => {
                    comment.push(format!("scores {}-{}", scores.white, scores.black));
                }
                SixEvent::Passed { reason } => {
                    comment.push(format!("{side} passes ({})", pass_reason_name(*reason)));
                }
                _ => {}
            }
        }
    }
    if !comment.is_empty() {
        t.push(Token::Comment(comment.join("; ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names written into comments are the serde names the JSON outputs use.
    #[test]
    fn names_are_the_serde_names() {
        for r in Role::ALL {
            assert_eq!(serde_json::to_value(r).expect("a name"), role_name_of(r), "{r:?}");
        }
        for p in [secretchess6::PassReason::OnlyKing, secretchess6::PassReason::NoLegalMove] {
            assert_eq!(serde_json::to_value(p).expect("a name"), pass_reason_name(p), "{p:?}");
        }
    }

    /// A short chess game: SAN from the start, the viewer's filter changes nothing in an open
    /// game; an illegal Kriegspiel attempt shows only to its author.
    #[test]
    fn chess_is_san_and_kriegspiel_hides_attempts_from_the_opponent() {
        use crate::{AnyGame, GameOptions};
        let mut steps = Vec::new();
        let mut game = AnyGame::start(&GameOptions::Chess, None).expect("chess");
        for uci in ["e2e4", "e7e5", "g1f3"] {
            let action = game
                .legal_actions()
                .into_iter()
                .find(|a| a.as_move().is_some_and(|m| m.uci(Variant::Chess.alphabet()) == uci))
                .expect("legal");
            let actor = game.to_act()[0];
            let t = game.apply(actor, &action).expect("legal");
            steps.push(Step { actor, action, told: t.told });
            game = t.state;
        }
        let none = ByColor::default();
        let full = movetext(Variant::Chess, None, &none, &steps, None);
        let want = vec![
            Token::Move(Color::White, "e4".into()),
            Token::Move(Color::Black, "e5".into()),
            Token::Move(Color::White, "Nf3".into()),
        ];
        assert_eq!(full, want);
        assert_eq!(movetext(Variant::Chess, None, &none, &steps, Some(Color::Black)), want);
        // Kriegspiel: White tries e1e2 (own pawn: illegal), then e2e4.
        let k = AnyGame::start(&GameOptions::default_for(Variant::Kriegspiel), None).expect("k");
        let sq = |n: &str| crate::Square::parse(n, crate::BoardSize::Eight).expect("a square");
        let mut steps = Vec::new();
        let mut game = k;
        for (from, to) in [("d1", "d3"), ("e2", "e4")] {
            let action = AnyAction::Kriegspiel(Move::new(sq(from), sq(to)));
            let t = game.apply(Color::White, &action).expect("answered");
            steps.push(Step { actor: Color::White, action, told: t.told });
            game = t.state;
        }
        let white = movetext(Variant::Kriegspiel, None, &none, &steps, Some(Color::White));
        let black = movetext(Variant::Kriegspiel, None, &none, &steps, Some(Color::Black));
        assert_eq!(white[0], Token::Move(Color::White, "e4".into()));
        assert_eq!(black[0], Token::Move(Color::White, "??".into()));
        let (Token::Comment(w), Token::Comment(b)) = (&white[1], &black[1]) else {
            panic!("{white:?} {black:?}")
        };
        assert!(w.starts_with("illegal: d1d3; "), "{w}");
        assert!(!b.contains("illegal"), "{b}");
    }
}
