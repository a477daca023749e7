//! What the person or bot deciding sees of one match ([`Snapshot`], [`Status`]) and the JSON
//! the local API and the pages read from it (`gameFull`, `gameState`, the end's `final`), with
//! the helpers that render a seat's view (notation, score). The JSON's shape is
//! [`super::types`]'s.

pub use super::types::Status;
use super::types::{
    AskJson, AskKind, Clock, FinalBoard, FullClock, GameFull, GameState, LichessVariant, Perf, Sent,
};
use protocol::message::{Claim, Outcome};
use protocol::roles::Ask;
use rules::seat::SeatView;
use rules::{ByColor, Color, Variant};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One match as the person or bot deciding sees it: the seat's view and what is asked. Never
/// hidden truth: the view is the seat's own knowledge.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The match id (64 hex digits).
    pub id: String,
    /// The game.
    pub variant: Variant,
    /// The terms' players, in order (keys).
    pub players: [String; 2],
    /// The umpire's key, in umpired games.
    pub umpire: Option<String>,
    /// Each side's initial clock and increment, ms.
    pub clock: (u64, u64),
    /// The terms' options.
    pub options: BTreeMap<String, String>,
    /// The seat's view, once the side is known.
    pub view: Option<SeatView>,
    /// The question outstanding, if any.
    pub ask: Option<Ask>,
    /// How many questions were asked so far: the id of the one outstanding.
    pub asked: u64,
    /// The texts of the actions offered, in order.
    pub offered: Vec<String>,
    /// Who offers a draw, as the player can tell.
    pub draw_offer: Option<Color>,
    /// Where the match stands.
    pub status: Status,
    /// The end, once known.
    pub claim: Option<Claim>,
    /// The relay's or the seat's last refusal of something this player sent.
    pub refused: Option<String>,
    /// Faults the player's machine found in what it was delivered.
    pub faults: Vec<String>,
    /// The clocks as the server last showed them: White's and Black's remaining ms, and whose
    /// runs.
    pub clocks: Option<(u64, u64, Option<String>)>,
    /// The server's verdict on the final record (JSON), once published.
    pub verdict: Option<Value>,
    /// Where the final record was saved.
    pub record: Option<PathBuf>,
    /// The end as the final record shows it ([`final_json`]): the full board and the opened
    /// setups, once the record is final.
    pub final_board: Option<FinalBoard>,
    /// The answers this player sent, by text, in order, each with whether the rules refused
    /// it (a Kriegspiel attempt the umpire called illegal): the player's own log.
    pub sent: Vec<(String, bool)>,
    /// Bumped at every change.
    pub seq: u64,
    /// When the agent registered the match (Unix ms; lichess's `createdAt`).
    pub created_ms: u64,
}

/// The moves played, in the game's own notation, as far as the seat knows them: SAN in chess
/// (every move is public), UCI with the game's letters in Espionage; empty for the hidden games,
/// whose seat knows only its own moves (`Snapshot::sent`) and what it was told.
pub fn notation(view: &SeatView) -> Vec<String> {
    use rules::seat::Knows;
    match &view.knows {
        Knows::Chess { moves } => {
            let mut pos = rules::chess::Position::start();
            moves
                .iter()
                .map(|m| {
                    let text = pos.san(m).unwrap_or_else(|| m.uci(Variant::Chess.alphabet()));
                    pos.play_unchecked(m);
                    text
                })
                .collect()
        }
        other => other
            .open_moves()
            .map(|moves| moves.iter().map(|m| m.uci(view.variant.alphabet())).collect())
            .unwrap_or_default(),
    }
}

/// The end of a match as its final record shows it, computed here from the record's own
/// bytes by the verifier's replay (never taken from the host): `board`, the full position at
/// the end with both sides' men (the rules' position string; `null` where the game never had
/// one); `start`, the full position when play began (after any secret setups); `setups`, each
/// side's setup as the record opens it (Intrigue's king square, informer and queen choice;
/// 6x6's formation, files a to f, and false squares), `null` for a side without one;
/// `steps`, the number of actions replayed. `None` when the record does not replay (the
/// server's verdict then says why). Everything here is public once the record is final.
pub fn final_json(record: &[u8]) -> Option<FinalBoard> {
    let replay = verifier::views::replay(record).ok()?;
    let mut setups: ByColor<Option<Value>> = ByColor::default();
    for f in &replay.frames {
        if let Ok(Value::Object(mut action)) = serde_json::from_str::<Value>(&f.action)
            && let Some(setup) = action.remove("setup")
        {
            setups[f.actor] = Some(setup);
        }
    }
    let board = replay
        .frames
        .iter()
        .rev()
        .find_map(|f| f.full.clone())
        .or_else(|| replay.start_full.clone());
    Some(FinalBoard { board, start: replay.start_full, setups, steps: replay.frames.len() })
}

/// The PGN-style score of a claim.
pub fn score(claim: &Claim) -> &'static str {
    match claim.outcome {
        Outcome::WhiteWins => "1-0",
        Outcome::BlackWins => "0-1",
        Outcome::Draw => "1/2-1/2",
        Outcome::NoResult => "*",
    }
}

pub(super) fn ask_json(variant: Variant, ask: &Ask, id: u64, offered: &[String]) -> AskJson {
    let mut out = AskJson {
        id,
        kind: AskKind::of(variant, ask),
        moves: None,
        max_false_squares: None,
        opponent_turns: None,
    };
    match ask {
        Ask::Choose(_) => out.moves = Some(offered.to_vec()),
        Ask::Setup(setup) => {
            out.max_false_squares = setup.max_false_squares();
            out.opponent_turns = setup.opponent_turns();
        }
    }
    out
}

impl Snapshot {
    /// The `gameState` line of the game stream: lichess's fields (`moves` in UCI, the clocks
    /// `wtime`/`btime`/`winc`/`binc` in ms, `status` and `winner` as lichess names them,
    /// `wdraw`/`bdraw`), then fogproof's (`stage`, `san`, `view`, `ask`, ...:
    /// docs/AGENT-API.md). `white`, `black` and `names` are left for the hub, which knows its
    /// own key and the names it checked.
    pub fn state(&self) -> GameState {
        let (wtime, btime) = match &self.clocks {
            Some((w, b, _)) => (*w, *b),
            None => (self.clock.0, self.clock.0),
        };
        GameState {
            kind: "gameState",
            moves: crate::lichess::moves_uci(self.view.as_ref()),
            wtime,
            btime,
            winc: self.clock.1,
            binc: self.clock.1,
            status: crate::lichess::status_name(self.status, self.claim.as_ref()),
            winner: crate::lichess::winner(self.claim.as_ref()),
            wdraw: self.draw_offer == Some(Color::White),
            bdraw: self.draw_offer == Some(Color::Black),
            id: self.id.clone(),
            seq: self.seq,
            stage: self.status,
            side: self.view.as_ref().map(|v| v.side),
            white: None,
            black: None,
            view: self.view.clone(),
            ask: self.ask.as_ref().map(|a| ask_json(self.variant, a, self.asked, &self.offered)),
            draw_offer: self.draw_offer,
            result: self.claim.as_ref().map(score),
            reason: self.claim.as_ref().map(|c| c.reason.to_string()),
            refused: self.refused.clone(),
            faults: self.faults.clone(),
            clock: self.clocks.as_ref().map(|(w, b, running)| Clock {
                white_ms: *w,
                black_ms: *b,
                running: running.clone(),
            }),
            verdict: self.verdict.clone(),
            record: self.record.as_ref().map(|p| p.display().to_string()),
            final_board: self.final_board.clone(),
            san: self.view.as_ref().map(notation).unwrap_or_default(),
            sent: self
                .sent
                .iter()
                .map(|(text, refused)| Sent { text: text.clone(), refused: *refused })
                .collect(),
            names: Default::default(),
        }
    }

    /// [`Snapshot::state`] as JSON.
    pub fn state_json(&self) -> Value {
        serde_json::to_value(self.state()).unwrap_or_default()
    }

    /// The `gameFull` line that opens the game stream: lichess's fields (`white` and `black`
    /// player objects, filled in by the stream once the side is known, `initialFen`,
    /// `variant`, `speed`, `clock`, `rated`, `state`), then fogproof's (`players`, `umpire`,
    /// `options`).
    pub fn full(&self) -> GameFull {
        let speed = crate::lichess::speed(self.clock.0, self.clock.1);
        GameFull {
            kind: "gameFull",
            id: self.id.clone(),
            created_at: self.created_ms,
            rated: false,
            variant: LichessVariant::of(self.variant),
            speed,
            perf: Perf { name: speed },
            initial_fen: crate::lichess::initial_fen(self.variant),
            white: Value::Null,
            black: Value::Null,
            clock: FullClock { initial: self.clock.0, increment: self.clock.1 },
            players: self.players.clone(),
            umpire: self.umpire.clone(),
            options: self.options.clone(),
            state: self.state(),
        }
    }
}
