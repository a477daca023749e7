//! The JSON the local API gives the pages, as Rust types: the one place its shape is written.
//! [`crate::local::snapshot`] and [`crate::local::hub`] build these and serialise them (the
//! module is also `crate::local::types`); the pages' TypeScript types (`web/src/types/*.ts`)
//! are generated from them by ts-rs (the crate's `ts` feature, `export_typescript`), and
//! `tests/tests/typescript.rs` fails when the committed files differ from what the Rust types
//! give (regenerate with `FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-tests --test typescript`).
//!
//! The seat's view ([`SeatView`]) and everything in it come from `rules` (its `ts` feature),
//! a signed display name from `protocol` ([`SignedName`], its `ts` feature): the pages read the
//! same serde forms the agent writes. The module sits below both `local` and `lichess` and
//! uses neither: the constructors that need lichess's names ([`LichessVariant::of`],
//! [`VariantInfo::all`]) are written in [`crate::lichess`].

use protocol::names::SignedName;
use rules::seat::SeatView;
use rules::{Color, Variant};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Where a match stands, as the hub knows it (the API's `stage`: the lowercase name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Stage"))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Being played.
    Started,
    /// The result is known; openings and disclosures are being exchanged.
    Over,
    /// The record is final (and saved).
    Finished,
    /// The seat stopped before the record was final (`Snapshot::faults` says why; the agent's
    /// log has the details). Its journal stays: restarting the agent resumes the match.
    Stopped,
}

impl Status {
    /// The lowercase name used in the API.
    pub fn name(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Over => "over",
            Status::Finished => "finished",
            Status::Stopped => "stopped",
        }
    }
}

/// The `gameState` line of a game stream (and `GET /api/bot/game/{id}`): lichess's fields,
/// then fogproof's (docs/AGENT-API.md). Built by `Snapshot::state`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GameState {
    /// Always `gameState`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(type = "\"gameState\""))]
    pub kind: &'static str,
    /// lichess's `moves`: every move in UCI, space-separated, where the seat knows them all.
    pub moves: String,
    /// White's remaining time, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub wtime: u64,
    /// Black's remaining time, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub btime: u64,
    /// White's increment, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub winc: u64,
    /// Black's increment, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub binc: u64,
    /// lichess's status name ([`crate::lichess::status_name`]).
    pub status: &'static str,
    /// lichess's winner: `white`, `black` or none.
    pub winner: Option<&'static str>,
    /// Whether White offers a draw.
    pub wdraw: bool,
    /// Whether Black offers a draw.
    pub bdraw: bool,
    /// The match id (64 hex digits).
    pub id: String,
    /// Bumped at every change.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub seq: u64,
    /// fogproof's stage of the match.
    pub stage: Status,
    /// The seat's side, once known.
    pub side: Option<Color>,
    /// White's key, once the side is known (filled in by the hub).
    pub white: Option<String>,
    /// Black's key, once the side is known (filled in by the hub).
    pub black: Option<String>,
    /// The seat's view: its own knowledge, never hidden truth.
    pub view: Option<SeatView>,
    /// The question outstanding.
    pub ask: Option<AskJson>,
    /// Who offers a draw, as the player can tell.
    #[serde(rename = "drawOffer")]
    pub draw_offer: Option<Color>,
    /// The score (`1-0`, `0-1`, `1/2-1/2`, `*`), once the end is known.
    pub result: Option<&'static str>,
    /// Why it ended.
    pub reason: Option<String>,
    /// The last refusal of something this player sent.
    pub refused: Option<String>,
    /// Faults the player's machine found in what it was delivered.
    pub faults: Vec<String>,
    /// The clocks as the server last showed them.
    pub clock: Option<Clock>,
    /// The server's verdict on the final record (the server's JSON, passed on).
    pub verdict: Option<Value>,
    /// Where the final record was saved.
    pub record: Option<String>,
    /// The end as the final record shows it (the agent's own replay of it).
    #[serde(rename = "final")]
    pub final_board: Option<FinalBoard>,
    /// The moves in the game's notation, as far as the seat knows them.
    pub san: Vec<String>,
    /// The answers this player sent, in order.
    pub sent: Vec<Sent>,
    /// The display names the players' keys signed, checked by the agent (filled in by the hub).
    pub names: BTreeMap<String, SignedName>,
}

/// The question outstanding (`ask` of a [`GameState`]): its `id` (how many were asked) and
/// `kind`, with what the kind needs.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Ask"))]
pub struct AskJson {
    /// How many questions were asked so far: this one's id.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: u64,
    /// What is asked.
    pub kind: AskKind,
    /// `move`, `attempt`: the texts of the actions offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub moves: Option<Vec<String>>,
    /// `secretchess6-setup`: the most false squares allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub max_false_squares: Option<usize>,
    /// `secretchess6-tiebreak`: how many turns the opponent had.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub opponent_turns: Option<u32>,
}

/// What kind of question is asked ([`crate::view::ask_kind`] names it the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum AskKind {
    /// A move, among those offered.
    Move,
    /// A Kriegspiel attempt, among those offered.
    Attempt,
    /// Intrigue's secret setup.
    IntrigueSetup,
    /// 6x6's secret setup.
    #[serde(rename = "secretchess6-setup")]
    SecretChess6Setup,
    /// 6x6's tie-break.
    #[serde(rename = "secretchess6-tiebreak")]
    SecretChess6Tiebreak,
}

/// The clocks as the server last showed them.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Clock {
    /// White's remaining ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub white_ms: u64,
    /// Black's remaining ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub black_ms: u64,
    /// Whose clock runs (`white`, `black`), if any.
    #[cfg_attr(feature = "ts", ts(as = "Option<Color>"))]
    pub running: Option<String>,
}

/// One answer this player sent, and whether the rules refused it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Sent {
    /// Its text.
    pub text: String,
    /// Whether the rules refused it (a Kriegspiel attempt the umpire called illegal).
    pub refused: bool,
}

/// The end of a match as its final record shows it (`final_json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FinalBoard {
    /// The full position at the end (the rules' position string), if the game had one.
    pub board: Option<String>,
    /// The full position when play began (after any secret setups).
    pub start: Option<String>,
    /// Each side's setup as the record opens it (the setup action's JSON), or none.
    pub setups: rules::ByColor<Option<Value>>,
    /// The number of actions replayed.
    pub steps: usize,
}

/// The `gameFull` line that opens a game stream: lichess's fields, then fogproof's.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GameFull {
    /// Always `gameFull`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(type = "\"gameFull\""))]
    pub kind: &'static str,
    /// The match id.
    pub id: String,
    /// When the agent registered the match (Unix ms).
    #[serde(rename = "createdAt")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: u64,
    /// Always false.
    pub rated: bool,
    /// The game.
    pub variant: LichessVariant,
    /// lichess's speed name.
    pub speed: &'static str,
    /// lichess's perf (`name`: the speed).
    pub perf: Perf,
    /// lichess's `initialFen`: `startpos`, or none for games from secret setups.
    #[serde(rename = "initialFen")]
    pub initial_fen: Option<&'static str>,
    /// White's player object (filled in by the stream once the side is known).
    #[cfg_attr(feature = "ts", ts(as = "Option<Player>"))]
    pub white: Value,
    /// Black's player object.
    #[cfg_attr(feature = "ts", ts(as = "Option<Player>"))]
    pub black: Value,
    /// The clock: initial and increment, ms.
    pub clock: FullClock,
    /// The terms' players, in order (keys).
    pub players: [String; 2],
    /// The umpire's key, in umpired games.
    pub umpire: Option<String>,
    /// The terms' options.
    pub options: BTreeMap<String, String>,
    /// The state now.
    pub state: GameState,
}

/// lichess's `perf` object.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Perf {
    /// The speed's name.
    pub name: &'static str,
}

/// A `gameFull`'s clock.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FullClock {
    /// Each side's initial time, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub initial: u64,
    /// The increment, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub increment: u64,
}

/// lichess's `variant` object, with fogproof's `id`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LichessVariant {
    /// lichess's key (`standard` for chess; fogproof's id otherwise).
    pub key: &'static str,
    /// The readable name.
    pub name: &'static str,
    /// A short name.
    pub short: &'static str,
    /// fogproof's id.
    pub id: Variant,
}

/// A player object (`white`, `black`, `opponent`, `challenger`, `destUser`):
/// [`crate::lichess::player_json`].
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Player {
    /// The key.
    pub id: String,
    /// The display name its key signed (checked by the agent), or the key.
    pub name: String,
    /// The same as `name`.
    pub username: String,
    /// Always none (fogproof's ratings are the log's).
    #[cfg_attr(feature = "ts", ts(type = "null"))]
    pub rating: Option<u32>,
    /// Always none.
    #[cfg_attr(feature = "ts", ts(type = "null"))]
    pub title: Option<String>,
    /// The key's fingerprint.
    pub fingerprint: Option<String>,
    /// The signed statement of `name`, for anyone to check again.
    #[serde(rename = "signedName")]
    pub signed_name: Option<SignedName>,
}

/// `GET /api/account`: this agent's key and name, its server, and the server's own keys.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Account {
    /// This agent's key.
    pub id: String,
    /// lichess's `username`: the display name this key signed, or the key.
    pub username: String,
    /// Always `BOT` (lichess-bot plays only as a BOT account).
    #[cfg_attr(feature = "ts", ts(type = "\"BOT\""))]
    pub title: &'static str,
    /// The display name this key signed, if any.
    pub name: Option<String>,
    /// Its signed statement.
    #[serde(rename = "signedName")]
    pub signed_name: Option<SignedName>,
    /// The key's fingerprint.
    pub fingerprint: String,
    /// The server's base URL.
    pub server: String,
    /// The server's house bot's key, if it has one.
    pub bot: Option<String>,
    /// The server's umpire's key, if it has one.
    pub umpire: Option<String>,
}

/// `POST /api/account`'s answer.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NameSet {
    /// Always true.
    pub ok: bool,
    /// The name as normalised and signed.
    pub name: String,
    /// Its signed statement.
    #[serde(rename = "signedName")]
    pub signed_name: SignedName,
}

/// A `gameStart` event's `game`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GameStartGame {
    /// The match id.
    pub id: String,
    /// The same (lichess's name).
    #[serde(rename = "gameId")]
    pub game_id: String,
    /// The same (lichess's name).
    #[serde(rename = "fullId")]
    pub full_id: String,
    /// The game, where the agent knows the match.
    pub variant: Option<LichessVariant>,
    /// lichess's speed name.
    pub speed: Option<&'static str>,
    /// Always false.
    pub rated: bool,
    /// This seat's side, once known.
    pub color: Option<Color>,
    /// The opponent's player object.
    #[cfg_attr(feature = "ts", ts(as = "Option<Player>"))]
    pub opponent: Value,
    /// Whether a question is outstanding.
    #[serde(rename = "isMyTurn")]
    pub is_my_turn: bool,
    /// Always `friend`.
    pub source: &'static str,
    /// lichess's `compat`.
    pub compat: Compat,
    /// lichess's status (`name`).
    pub status: StatusName,
    /// fogproof's stage.
    pub stage: Option<Status>,
}

/// lichess's `compat` object.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Compat {
    /// Playable by a bot.
    pub bot: bool,
    /// Playable on a board.
    pub board: bool,
}

/// lichess's `status` object.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StatusName {
    /// lichess's status name.
    pub name: Option<&'static str>,
}

/// One game fogproof plays, for the pages' lists: `rules::Variant`'s id, the readable name the
/// pages show, lichess's key, the board's width and how it is adjudicated. The pages' one list
/// of variants (`web/src/types/variants.ts`) is generated from [`VariantInfo::all`].
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VariantInfo {
    /// fogproof's id.
    pub id: Variant,
    /// The name the pages show ([`Variant::name`]).
    pub name: &'static str,
    /// lichess's key.
    pub key: &'static str,
    /// Files and ranks.
    pub size: u8,
    /// `open`, `owner` or `umpire`.
    #[cfg_attr(feature = "ts", ts(type = "\"open\" | \"owner\" | \"umpire\""))]
    pub mode: &'static str,
}

impl AskKind {
    /// The kind of `ask` in `variant`.
    pub fn of(variant: Variant, ask: &protocol::roles::Ask) -> AskKind {
        use protocol::roles::Ask;
        use rules::setup_ask::SetupAsk;
        match ask {
            Ask::Choose(_) if variant == Variant::Kriegspiel => AskKind::Attempt,
            Ask::Choose(_) => AskKind::Move,
            Ask::Setup(setup) => match setup {
                SetupAsk::Intrigue => AskKind::IntrigueSetup,
                SetupAsk::SecretChess6 { .. } => AskKind::SecretChess6Setup,
                SetupAsk::SecretChess6TieBreak { .. } => AskKind::SecretChess6Tiebreak,
            },
        }
    }
}

/// Writes the TypeScript declarations of the agent's page API and all they use under `dir`
/// (the rules' and protocol's too, all at the top), and `variants.ts`, the pages' list of
/// variants. `tests/tests/typescript.rs` checks that `web/src/types` is what this gives.
#[cfg(feature = "ts")]
pub fn export_typescript(dir: &std::path::Path) -> Result<(), ts_rs::ExportError> {
    use ts_rs::TS;
    GameFull::export_all_to(dir)?;
    Account::export_all_to(dir)?;
    NameSet::export_all_to(dir)?;
    GameStartGame::export_all_to(dir)?;
    Player::export_all_to(dir)?;
    VariantInfo::export_all_to(dir)?;
    std::fs::write(dir.join("variants.ts"), variants_ts())?;
    Ok(())
}

/// The pages' list of variants, from [`VariantInfo::all`].
#[cfg(feature = "ts")]
pub fn variants_ts() -> String {
    let list = serde_json::to_string_pretty(&VariantInfo::all()).expect("plain data");
    format!(
        "// Generated from rules::Variant by client/src/api_types.rs (VariantInfo::all): \
         do not edit.\n\
         // Regenerate: FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-client --lib \
         api_types\n\
         import type {{ VariantInfo }} from './VariantInfo';\n\
         import type {{ Variant }} from './Variant';\n\n\
         /** Every game fogproof plays, in rules::Variant::ALL's order. */\n\
         export const VARIANTS: readonly VariantInfo[] = {list};\n\n\
         /** The name the pages show for a variant id (the id itself if unknown). */\n\
         export function variantName(id: string | null | undefined): string {{\n  \
         return VARIANTS.find((v) => v.id === id || v.key === id)?.name ?? String(id ?? '');\n\
         }}\n\n\
         /** Whether `id` names a variant. */\n\
         export function isVariant(id: unknown): id is Variant {{\n  \
         return VARIANTS.some((v) => v.id === id);\n\
         }}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ask's kind is the one [`crate::view::ask_kind`] names.
    #[test]
    fn ask_kinds_match_the_views_names() {
        use protocol::roles::Ask;
        use rules::setup_ask::SetupAsk;
        let asks = [
            (Variant::Chess, Ask::Choose(vec![])),
            (Variant::Kriegspiel, Ask::Choose(vec![])),
            (Variant::Intrigue, Ask::Setup(SetupAsk::Intrigue)),
            (Variant::SecretChess6, Ask::Setup(SetupAsk::SecretChess6 { max_false_squares: 2 })),
            (
                Variant::SecretChess6,
                Ask::Setup(SetupAsk::SecretChess6TieBreak { opponent_turns: 3 }),
            ),
        ];
        for (v, ask) in asks {
            assert_eq!(
                serde_json::to_value(AskKind::of(v, &ask)).expect("plain"),
                serde_json::json!(crate::view::ask_kind(v, &ask)),
                "{ask:?}"
            );
        }
    }

    /// Every variant has a distinct name and id in the pages' list, in `Variant::ALL`'s order.
    #[test]
    fn the_variant_list_covers_every_variant() {
        let all = VariantInfo::all();
        assert_eq!(all.iter().map(|v| v.id).collect::<Vec<_>>(), Variant::ALL.to_vec());
        let names: std::collections::BTreeSet<_> = all.iter().map(|v| v.name).collect();
        assert_eq!(names.len(), all.len());
        let sizes: std::collections::BTreeSet<u8> = all.iter().map(|v| v.size).collect();
        assert_eq!(sizes, [6, 7, 8].into(), "the 6x6, 7x7 and 8x8 boards");
    }
}
