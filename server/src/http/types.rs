//! The JSON the server's HTTP API answers with, as Rust types: the handlers of [`super`] build
//! these and serialise them, and the host pages' TypeScript types (`web/src/types/host/*.ts`)
//! are generated from them by ts-rs (the crate's `ts` feature, on in its own tests only). The
//! test below fails when the committed files differ from what the Rust types give (regenerate
//! with `FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-server --lib http::types`).
//!
//! The shapes built outside `http` are typed where they are built, so that no module below
//! `http` needs it: the lobby's challenge and player objects ([`crate::lobby::ChallengeJson`],
//! [`crate::lobby::PlayerJson`]), a live match's public facts ([`crate::live::MatchInfo`]),
//! the ledger's answers ([`crate::ledger::LedgerInfo`], [`crate::ledger::LedgerProof`],
//! [`crate::ledger::RatingList`]), its witness policy ([`crate::witnessing::WitnessPolicy`]) and
//! a finished game's verdict summary ([`crate::web::VerdictSummary`]). The verifier's own JSON
//! (the verdict, the compact replay) is the verifier's; the pages type it by hand
//! (`web/src/host/verdict.ts`, `replay.ts`).

pub use crate::error::ErrorBody;
use crate::live::MatchInfo;
use crate::lobby::ChallengeJson;
use crate::web::VerdictSummary;
use protocol::names::SignedName;
use serde::Serialize;
use serde_json::Value;

/// An answer with the display names of the keys it shows (`names`: key → the name its key
/// signed, docs/PROTOCOL.md, display names), the answer's own fields flattened beside it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Named<T> {
    /// The answer.
    #[serde(flatten)]
    pub body: T,
    /// The names ([`crate::auth::names_for`]).
    #[cfg_attr(feature = "ts", ts(as = "std::collections::BTreeMap<String, SignedName>"))]
    pub names: Value,
}

/// `GET /api/info`: what the server is and the limits a client must know.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Info {
    /// Always `fogproof`.
    #[cfg_attr(feature = "ts", ts(type = "\"fogproof\""))]
    pub server: &'static str,
    /// The server's version.
    pub version: &'static str,
    /// The protocol's version.
    pub protocol: u8,
    /// The relay's key.
    pub relay: String,
    /// The default umpire's key, if any.
    pub umpire: Option<String>,
    /// The house bot's key, if any.
    pub bot: Option<String>,
    /// Every variant's id.
    #[cfg_attr(feature = "ts", ts(as = "Vec<rules::Variant>"))]
    pub variants: Vec<&'static str>,
    /// Limits a client must respect.
    pub limits: InfoLimits,
    /// Deadlines a client must meet.
    pub deadlines: InfoDeadlines,
}

/// [`Info`]'s limits.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InfoLimits {
    /// A WebSocket frame's most bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub max_frame_bytes: usize,
    /// A request body's most bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub max_body_bytes: usize,
    /// Open challenges per key.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub max_open_challenges_per_key: usize,
    /// How long terms wait for their signatures, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub max_terms_wait_ms: u64,
}

/// [`Info`]'s deadlines.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InfoDeadlines {
    /// To reveal, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub reveal_ms: u64,
    /// To answer, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub answer_ms: u64,
}

/// `POST /api/auth/challenge`: what to sign to sign in.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SignInChallenge {
    /// The challenge (64 hex digits).
    pub challenge: String,
    /// The relay's key.
    pub server: String,
    /// How long it stays valid, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub expires_in_ms: u64,
}

/// `POST /api/auth/login`: the token, and the account's key and name.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SignedIn {
    /// The bearer token.
    pub token: String,
    /// The key signed in.
    pub key: String,
    /// Its display name, if it signed one.
    pub name: Option<String>,
    /// The signed statement of `name`.
    #[serde(rename = "signedName")]
    pub signed_name: Option<SignedName>,
}

/// `GET /api/account` (and `POST`'s answer, where `name` is always set).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AccountAnswer {
    /// The key.
    pub key: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// Its display name, if it signed one.
    pub name: Option<String>,
    /// The signed statement of `name`.
    #[serde(rename = "signedName")]
    pub signed_name: Option<SignedName>,
}

/// `{"ok": true}`: a request done.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Done {
    /// Always true.
    #[cfg_attr(feature = "ts", ts(type = "true"))]
    pub ok: bool,
}

/// `POST /api/pending/{id}/sign`: done, and whether the match started with this signature.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Signed {
    /// Always true.
    #[cfg_attr(feature = "ts", ts(type = "true"))]
    pub ok: bool,
    /// The match id, once every party signed.
    pub started: Option<String>,
}

/// `POST /api/challenge`: the challenge made.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Created {
    /// It.
    pub challenge: ChallengeJson,
}

/// `GET /api/challenge`: the open challenges to and from the key.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MyChallenges {
    /// To it.
    #[serde(rename = "in")]
    pub incoming: Vec<ChallengeJson>,
    /// From it.
    pub out: Vec<ChallengeJson>,
}

/// `GET /api/lobby`: open seeks and live matches (with `names`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LobbyView {
    /// Open challenges to anyone.
    pub seeks: Vec<ChallengeJson>,
    /// Matches being played here.
    pub live: Vec<MatchInfo>,
}

/// Where a stored match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum StoredStatus {
    /// Being played (here or on another node).
    Live,
    /// Its record is final.
    Finished,
}

/// A stored match (`GET /api/games`' rows, `GET /api/match/{id}` of a match not played here).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FinishedGame {
    /// The match id (hex).
    pub id: String,
    /// The variant id.
    #[cfg_attr(feature = "ts", ts(as = "rules::Variant"))]
    pub variant: String,
    /// Rated or casual.
    pub rated: bool,
    /// The terms' players, in order.
    pub players: [String; 2],
    /// When it started (server ms).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub started_ms: u64,
    /// Where it stands.
    pub status: StoredStatus,
    /// When it finished (server ms).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub finished_ms: Option<u64>,
    /// The score (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: Option<String>,
    /// The final record's SHA-256 (hex).
    pub record_sha256: Option<String>,
    /// What its verdict says.
    pub verdict: Option<VerdictSummary>,
}

/// `GET /api/games`: finished matches, newest first (with `names`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Games {
    /// Them.
    pub games: Vec<FinishedGame>,
}

/// A match played here now, as `GET /api/match/{id}` shows it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LiveMatch {
    /// Its public facts.
    #[serde(flatten)]
    pub info: MatchInfo,
    /// Always `live`.
    #[cfg_attr(feature = "ts", ts(type = "\"live\""))]
    pub status: &'static str,
}

/// `GET /api/match/{id}` (with `names`): a match played here now, or a stored one.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum MatchAnswer {
    /// Played here now.
    Live(LiveMatch),
    /// Stored (finished, or live on another node).
    Stored(FinishedGame),
}

/// `POST /api/verify` of bytes that are no record: the verifier's verdict is not reached.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Unreadable {
    /// Always `unreadable`.
    #[cfg_attr(feature = "ts", ts(type = "\"unreadable\""))]
    pub status: &'static str,
    /// Why.
    pub error: String,
}

/// One line of `GET /api/match/{id}/watch` (NDJSON; keep-alives are empty lines).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum WatchLine {
    /// The first line: the game so far.
    Start {
        /// The match id.
        id: String,
        /// The variant.
        #[cfg_attr(feature = "ts", ts(as = "rules::Variant"))]
        variant: &'static str,
        /// White's key, once known.
        white: Option<String>,
        /// Black's key, once known.
        black: Option<String>,
        /// The position (the rules' position string), where the game has one.
        board: Option<String>,
        /// Every move so far, in UCI.
        moves: Vec<String>,
        /// The result, once over.
        result: Option<rules::GameResult>,
    },
    /// A move played.
    Move {
        /// How many moves so far.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        ply: usize,
        /// It, in UCI.
        uci: String,
        /// The position after it.
        board: Option<String>,
        /// The result, once over.
        result: Option<rules::GameResult>,
    },
    /// The last line: the stream ends (the game is over, the watcher fell behind, or the
    /// server stops).
    Closed,
}

/// A tournament's system (`{"swiss": 5}`, `{"round-robin": "double"}`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SystemJson {
    /// A Swiss of so many rounds.
    #[serde(rename = "swiss")]
    Swiss(u32),
    /// A round-robin, single or double.
    #[serde(rename = "round-robin")]
    RoundRobin(RoundRobinKind),
}

/// A round-robin's kind.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum RoundRobinKind {
    /// Each pair once.
    Single,
    /// Each pair twice.
    Double,
}

/// A tournament in `GET /api/tournaments` (and the start of `GET /api/tournament/{id}`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TournamentSummary {
    /// Its id (the definition's SHA-256, hex).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its variant.
    #[cfg_attr(feature = "ts", ts(as = "rules::Variant"))]
    pub variant: &'static str,
    /// Its organiser's key, if the definition reads.
    pub organiser: Option<String>,
    /// Its system.
    pub system: SystemJson,
    /// Its time control, as defined (`minutes+seconds`).
    pub time_control: String,
    /// How many entrants.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub players: usize,
    /// How many rounds in all.
    pub rounds: u32,
    /// How many started.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub rounds_started: usize,
    /// `joining`, `playing` or `finished`.
    #[cfg_attr(feature = "ts", ts(type = "\"joining\" | \"playing\" | \"finished\""))]
    pub status: &'static str,
    /// Its definition's log index.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub entry: u64,
}

/// `GET /api/tournaments` (with `names`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Tournaments {
    /// Every tournament in the log.
    pub tournaments: Vec<TournamentSummary>,
}

/// An entrant of a tournament.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Entrant {
    /// Its index in the definition.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub index: usize,
    /// Its name, as defined.
    pub name: String,
    /// Its key.
    pub key: String,
    /// Its rating, as defined.
    pub rating: Option<u16>,
    /// Whether it joined.
    pub joined: bool,
}

/// A player in the bundle's `pairings.json` and `standings.json` (`ledger::bundle`).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct BundlePlayer {
    /// Its index in the definition.
    pub index: u32,
    /// Its name.
    pub name: String,
    /// Its key.
    pub key: String,
}

/// The bundle's `pairings.json` (`ledger::bundle::pairings_json`): the shape the pages read,
/// checked against the ledger's JSON by a test below.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Pairings {
    /// The tournament's id.
    pub tournament: String,
    /// Its definition's log index.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub entry: u64,
    /// Its name.
    pub name: String,
    /// Its variant.
    pub variant: rules::Variant,
    /// The rounds started.
    pub rounds: Vec<PairedRound>,
}

/// A round of [`Pairings`].
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PairedRound {
    /// Its number (from 1).
    pub round: u32,
    /// Its log index.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub entry: u64,
    /// Who is absent, with the bye given.
    pub absent: Vec<Absent>,
    /// Its games.
    pub games: Vec<PairedGame>,
    /// Who the pairing gave a bye.
    pub pairing_allocated_bye: Option<BundlePlayer>,
}

/// An absent player of a round.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Absent {
    /// Who.
    pub player: BundlePlayer,
    /// The bye's kind.
    #[cfg_attr(
        feature = "ts",
        ts(type = "\"pairing-allocated\" | \"half\" | \"zero\" | \"full\"")
    )]
    pub bye: String,
}

/// A game of a round.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PairedGame {
    /// Its board (from 1).
    pub board: u32,
    /// White.
    pub white: BundlePlayer,
    /// Black.
    pub black: BundlePlayer,
    /// Its result (`1-0`, `+--`, …, `*` until known).
    pub result: String,
    /// Its result's log index.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub entry: Option<u64>,
}

/// A row of the bundle's `standings.json` (`ledger::bundle::standings_json`).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Standing {
    /// Its rank (from 1).
    pub rank: u32,
    /// Who.
    pub player: BundlePlayer,
    /// Points (`2.5`).
    pub points: String,
    /// The tie-breaks, in the definition's order.
    pub tie_breaks: Vec<TieBreakValue>,
}

/// One tie-break's value.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TieBreakValue {
    /// The tie-break's name.
    pub name: String,
    /// Its value.
    pub value: u32,
}

/// The standings, or why there are none.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Standings {
    /// Best first.
    Rows(Vec<Standing>),
    /// Why they cannot be computed.
    Error(ErrorBody),
}

/// `GET /api/tournament/{id}` (with `names`): the summary, then the definition, entrants,
/// pairings, standings and games being arranged.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TournamentView {
    /// What the list shows.
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// The signed definition's bytes (hex).
    pub definition: String,
    /// The tie-breaks' names.
    pub tie_breaks: Vec<String>,
    /// The entrants, in the definition's order.
    pub entrants: Vec<Entrant>,
    /// The bundle's `pairings.json`, exactly.
    #[cfg_attr(feature = "ts", ts(as = "Pairings"))]
    pub pairings: Value,
    /// The bundle's `standings.json`, exactly.
    #[cfg_attr(feature = "ts", ts(as = "Standings"))]
    pub standings: Value,
    /// The `tournamentGame` events of the games being arranged.
    #[cfg_attr(feature = "ts", ts(type = "unknown[]"))]
    pub invitations: Vec<Value>,
}

/// `POST /api/tournament`: the tournament published.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Published {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// `POST /api/tournament/{id}/join` and `/withdraw`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Entered {
    /// Always true.
    #[cfg_attr(feature = "ts", ts(type = "true"))]
    pub ok: bool,
    /// The tournament's id.
    pub tournament: String,
}

/// `v` with the names of the keys it shows ([`crate::auth::names_for`]).
pub async fn named<T: Serialize>(
    shared: &crate::state::Shared,
    body: T,
) -> Result<Named<T>, crate::error::AppError> {
    let v = serde_json::to_value(&body).map_err(crate::error::internal)?;
    let names = crate::auth::names_for(shared, &v).await;
    Ok(Named { body, names })
}

#[cfg(all(test, feature = "ts"))]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use ts_rs::TS;

    /// Where the generated files live.
    fn types_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src/types/host")
    }

    /// Every generated file (name, contents).
    fn generated() -> BTreeMap<String, String> {
        let dir = std::env::temp_dir().join(format!("fogproof-host-ts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        macro_rules! export {
            ($($t:ty),* $(,)?) => { $( <$t>::export_all_to(&dir).expect("export"); )* };
        }
        export!(
            ErrorBody,
            Info,
            SignInChallenge,
            SignedIn,
            AccountAnswer,
            Done,
            Signed,
            Created,
            MyChallenges,
            Named<LobbyView>,
            LobbyView,
            Games,
            MatchAnswer,
            Unreadable,
            WatchLine,
            Tournaments,
            TournamentView,
            Published,
            Entered,
            crate::ledger::LedgerInfo,
            crate::ledger::LedgerProof,
            crate::ledger::RatingList,
        );
        let mut out = BTreeMap::new();
        collect(&dir, &dir, &mut out);
        let _ = std::fs::remove_dir_all(&dir);
        let index: String = out
            .keys()
            .filter(|name| !name.contains('/'))
            .map(|name| format!("export type * from './{}';\n", name.trim_end_matches(".ts")))
            .collect();
        out.insert(
            "index.ts".into(),
            format!(
                "// Generated by server/src/http/types.rs: every type, in one import.\n{index}"
            ),
        );
        out
    }

    fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                collect(root, &p, out);
            } else {
                let name = p.strip_prefix(root).expect("under root").to_string_lossy().into_owned();
                out.insert(name, std::fs::read_to_string(&p).expect("generated text"));
            }
        }
    }

    /// The committed `web/src/types/host` is exactly what the Rust types give: a change to the
    /// API's Rust types fails here until the TypeScript is regenerated (and the host pages
    /// then type-check against it, `npm run check`).
    #[test]
    fn committed_typescript_types_are_current() {
        let want = generated();
        let dir = types_dir();
        if std::env::var_os("FOGPROOF_WRITE_TYPES").is_some() {
            let _ = std::fs::remove_dir_all(&dir);
            for (name, text) in &want {
                let path = dir.join(name);
                std::fs::create_dir_all(path.parent().expect("in dir")).expect("mkdir");
                std::fs::write(path, text).expect("write");
            }
        }
        let mut have = BTreeMap::new();
        if dir.is_dir() {
            collect(&dir, &dir, &mut have);
        }
        let stale: Vec<&String> = want
            .iter()
            .filter(|(name, text)| have.get(*name) != Some(*text))
            .map(|(name, _)| name)
            .chain(have.keys().filter(|name| !want.contains_key(*name)))
            .collect();
        assert!(
            stale.is_empty(),
            "web/src/types/host is not what the Rust types give ({stale:?} differ, are missing \
             or are extra): run FOGPROOF_WRITE_TYPES=1 cargo test -p fogproof-server --lib \
             http::types, then npm run check in web/"
        );
        assert!(want.contains_key("LobbyView.ts") && want.contains_key("WatchLine.ts"), "{want:?}");
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;
    use ledger::history::{RoundState, TournamentState};
    use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
    use ledger::tournament::{ByeKind, GameResult};

    /// Three entrants, one round: board 1 played (White won), the third player's pairing bye;
    /// with `absent`, the third is also listed absent (which the standings refuse).
    fn state(absent: bool) -> TournamentState {
        let key = |i: u8| protocol::Identity::from_seed(&[i; 32]).public();
        let players = (0..3)
            .map(|i| Entrant { key: key(i + 1), name: format!("p{i}"), rating: Some(1500) })
            .collect();
        TournamentState {
            id: [7; 32],
            entry_index: 3,
            definition_file: vec![1, 2, 3],
            definition: TournamentDefinition {
                name: "spring".into(),
                variant: rules::Variant::Kriegspiel,
                ruleset: "kriegspiel/1899-icc".into(),
                system: System::RoundRobin { double: false },
                players,
                tie_breaks: vec![TieBreak::Buchholz],
                time_control: "5+3".into(),
            },
            rounds: vec![RoundState {
                round: 1,
                entry_index: 4,
                absent: if absent { vec![(2, ByeKind::Zero)] } else { vec![] },
                pairings: ledger::tournament::Pairings { games: vec![(0, 1)], bye: Some(2) },
                results: vec![Some((GameResult::WhiteWins, 9))],
            }],
        }
    }

    /// The bundle's pairings and standings (the ledger's JSON, which the tournament route
    /// passes on as it is) have exactly the shapes the pages are told ([`Pairings`],
    /// [`Standings`]): every field the ledger writes, no other, the same values back.
    #[test]
    fn the_bundles_pairings_and_standings_have_the_typed_shape() {
        for absent in [false, true] {
            let t = state(absent);
            let pairings = ledger::bundle::pairings_json(&t);
            let typed: Pairings = serde_json::from_value(pairings.clone()).expect("the shape");
            assert_eq!(serde_json::to_value(&typed).expect("plain"), pairings);
            assert_eq!(typed.rounds[0].games[0].white.name, "p0");
            assert_eq!(typed.rounds[0].absent.len(), usize::from(absent));
            let standings = ledger::bundle::standings_json(&t);
            let typed: Standings = serde_json::from_value(standings.clone()).expect("the shape");
            assert_eq!(serde_json::to_value(&typed).expect("plain"), standings);
            // A player both given the pairing bye and absent: the standings cannot be computed,
            // and say why (the other form of the type).
            match typed {
                Standings::Rows(rows) => assert!(!absent && rows.len() == 3, "{rows:?}"),
                Standings::Error(e) => {
                    assert!(absent && e.error.contains("more than once"), "{e:?}")
                }
            }
        }
        // A field the type lacks is refused: the check above would see a new one.
        let mut extra = ledger::bundle::pairings_json(&state(false));
        extra["rounds"][0]["games"][0]["umpire"] = serde_json::json!("x");
        assert!(serde_json::from_value::<Pairings>(extra).is_err(), "a field the type lacks");
    }
}
