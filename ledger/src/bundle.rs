//! Tournament bundles: a self-contained directory from which anyone recomputes a tournament
//! offline, and the check that does it.
//!
//! ```text
//! checkpoint                  the log's checkpoint with its cosignatures, verbatim
//! definition                  the organiser-signed definition file (its SHA-256 is the id)
//! proofs/<index>.tlog-proof   tlog proofs, in that checkpoint, of the tournament entry, every
//!                             round entry and every match entry of the tournament
//! records/<sha256 hex>        every match record
//! pairings.json               per round: absences, pairings, byes, results, match ids
//! standings.json              the standings after the completed rounds, with tie-breaks
//! ratings.json                Glicko-2 ratings from the tournament's games alone
//! tournament.trf              the tournament in TRF-16
//! ```
//!
//! [`verify`] checks the checkpoint under the reader's policy, every proof against it, the
//! definition and every record against their entries (re-verifying each record), replays the
//! entries (pairings are recomputed, each match must be one of them), recomputes the four
//! derived files and names every file that differs. It also names every file that should not
//! be there (anything but the files above; under `records/`, anything no proven match entry
//! names) and every proof that is missing: the leaf indices `pairings.json` gives (the
//! tournament's entry, each round's, each result's) must each have their
//! `proofs/<index>.tlog-proof`.
//!
//! Honest limit: a bundle proves that what it holds is in the log and consistent; it cannot
//! prove that the log holds no other game of the tournament's **last** round (earlier rounds
//! are complete, or the next round could not have started). An audit of the whole log can.

use crate::checkpoint::{Policy, SignedCheckpoint};
use crate::entry::{EntryBody, LedgerEntry, MatchEntry, Sha256Digest, sha256};
use crate::history::{History, TournamentState, rated_game};
use crate::log::{OpenError, TileNodes, read_bundle};
use crate::merkle;
use crate::proof::TlogProof;
use crate::rating::{Params, Ratings};
use crate::store::{DirReader, DurableDir, LogReader, TILE_WIDTH, record_path};
use crate::tournament::{ByeKind, GameResult};
use serde_json::{Value, json};
use std::path::Path;

/// Why a bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The log could not be read.
    #[error(transparent)]
    Log(#[from] OpenError),
    /// The tournament is not in the log.
    #[error("tournament {} is not in the log", protocol::hex::encode(.0))]
    NotFound(Sha256Digest),
    /// The log's entries do not replay.
    #[error("the log does not replay: {0}")]
    History(String),
    /// A proof could not be made.
    #[error("cannot prove entry {index}: {why}")]
    Prove {
        /// Leaf index.
        index: u64,
        /// Why.
        why: String,
    },
    /// The bundle could not be written.
    #[error("cannot write the bundle: {0}")]
    Io(#[from] std::io::Error),
}

/// Writes the bundle of tournament `id` from the log `reader` serves into `out` (which must
/// not exist yet or be empty).
pub fn write<R: LogReader>(reader: &R, id: &Sha256Digest, out: &Path) -> Result<(), BundleError> {
    let checkpoint_bytes = reader.checkpoint().map_err(OpenError::from)?;
    let signed = SignedCheckpoint::parse(&checkpoint_bytes).map_err(OpenError::from)?;
    let size = signed.checkpoint.size;
    // Replay the whole log to find the tournament's entries.
    let mut history = History::new();
    let mut mine: Vec<(u64, Vec<u8>, LedgerEntry)> = Vec::new();
    for b in 0..size.div_ceil(TILE_WIDTH) {
        for (k, bytes) in read_bundle(reader, b, size)?.into_iter().enumerate() {
            let index = b * TILE_WIDTH + k as u64;
            let entry = LedgerEntry::from_bytes(&bytes)
                .map_err(|e| BundleError::History(format!("entry {index}: {e}")))?;
            let stored = match &entry.body {
                EntryBody::Tournament(t) => {
                    Some(reader.record(&t.definition_sha256).map_err(OpenError::from)?)
                }
                _ => None,
            };
            history
                .apply(&entry, stored.as_deref())
                .map_err(|e| BundleError::History(format!("entry {index}: {e}")))?;
            let belongs = entry.tournament() == Some(*id);
            if belongs {
                mine.push((index, bytes, entry));
            }
        }
    }
    let state = history.tournament(id).ok_or(BundleError::NotFound(*id))?;
    let mut dd = DurableDir::new(out);
    dd.write("checkpoint", &checkpoint_bytes)?;
    dd.write("definition", &state.definition_file)?;
    let nodes = TileNodes::new(reader, size);
    for (index, bytes, entry) in &mine {
        let proof = merkle::prove_inclusion(&nodes, *index, size)
            .map_err(|e| BundleError::Prove { index: *index, why: e.to_string() })?;
        let p = TlogProof {
            extra: Some(bytes.clone()),
            index: *index,
            proof,
            checkpoint: signed.clone(),
        };
        dd.write(&format!("proofs/{index}.tlog-proof"), p.to_text().as_bytes())?;
        if let EntryBody::Match(m) = &entry.body {
            let record = reader.record(&m.record_sha256).map_err(OpenError::from)?;
            dd.write(&record_path(&m.record_sha256), &record)?;
        }
    }
    let matches: Vec<&MatchEntry> = mine.iter().filter_map(|(_, _, e)| e.as_match()).collect();
    for (name, text) in derived_files(state, &matches) {
        dd.write(name, text.as_bytes())?;
    }
    dd.sync_dirs()?;
    Ok(())
}

/// `pairings.json`: the leaf index of the tournament's entry (`entry`), and per round the leaf
/// index of its entry, the absences, the games with their results and the leaf index of the
/// entry that gave each result (a match, a no-show, or the round's own entry for an absent
/// player's forfeit), and the pairing-allocated bye. The server's `GET /api/tournament/{id}`
/// shows the same.
pub fn pairings_json(state: &TournamentState) -> Value {
    let def = &state.definition;
    let player = |i: usize| player_json(def, i);
    let rounds: Vec<Value> = state
        .rounds
        .iter()
        .map(|r| {
            let games: Vec<Value> = r
                .pairings
                .games
                .iter()
                .zip(&r.results)
                .enumerate()
                .map(|(board, (&(w, b), res))| {
                    json!({
                        "board": board + 1,
                        "white": player(w),
                        "black": player(b),
                        "result": res.map_or("*", |(g, _)| result_text(g)),
                        "entry": res.map(|(_, at)| at),
                    })
                })
                .collect();
            json!({
                "round": r.round,
                "entry": r.entry_index,
                "absent": r.absent.iter().map(|&(p, k)| json!({ "player": player(p), "bye": bye_text(k) })).collect::<Vec<_>>(),
                "games": games,
                "pairing_allocated_bye": r.pairings.bye.map(player),
            })
        })
        .collect();
    json!({
        "tournament": protocol::hex::encode(&state.id),
        "entry": state.entry_index,
        "name": def.name,
        "variant": def.variant.id(),
        "rounds": rounds,
    })
}

/// `standings.json`: the standings after the completed rounds, with the definition's
/// tie-breaks (or `{"error"}` if they cannot be computed). The server's
/// `GET /api/tournament/{id}` shows the same.
pub fn standings_json(state: &TournamentState) -> Value {
    let def = &state.definition;
    match state.standings() {
        Ok(s) => json!(s
            .iter()
            .map(|s| json!({
                "rank": s.rank,
                "player": player_json(def, s.player),
                "points": format!("{}{}", s.half_points / 2, if s.half_points % 2 == 1 { ".5" } else { "" }),
                "tie_breaks": def.tie_breaks.iter().zip(&s.tie_breaks).map(|(t, v)| json!({ "name": format!("{t:?}"), "value": v })).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>()),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

fn player_json(def: &crate::tournament::definition::TournamentDefinition, i: usize) -> Value {
    let p = &def.players[i];
    json!({ "index": i, "name": p.name, "key": p.key.to_string() })
}

/// The files a bundle derives from its entries: pairings, standings, ratings, TRF.
fn derived_files(state: &TournamentState, matches: &[&MatchEntry]) -> Vec<(&'static str, String)> {
    let def = &state.definition;
    let player = |i: usize| player_json(def, i);
    let pairings = pairings_json(state);
    let standings = standings_json(state);
    let mut ratings = Ratings::new(Params::LICHESS);
    // In (close time, match id) order, as the log's ratings (S9), not in leaf order.
    let mut ordered = matches.to_vec();
    ordered.sort_by_key(|m| (m.context.finished_at_ms, m.match_id));
    for m in ordered {
        if let Some(g) = rated_game(m) {
            // A game a player plays against themselves is not rated (the definition refuses
            // duplicate keys, so this does not happen in a tournament).
            let _ = ratings.apply(&g);
        }
    }
    let ratings = json!(
        def.players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let r = ratings.get(def.variant, &p.key);
                json!({
                    "player": player(i),
                    "rating": r.rating,
                    "deviation": r.deviation,
                    "volatility": r.volatility,
                    "games": r.games,
                    "provisional": r.provisional,
                })
            })
            .collect::<Vec<_>>()
    );
    let rounds_for_trf: Vec<crate::tournament::Round> =
        state.rounds.iter().map(|r| r.to_round()).collect();
    let trf = crate::tournament::trf::Trf::from_tournament(def, &rounds_for_trf).write();
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
    vec![
        ("pairings.json", pretty(&pairings)),
        ("standings.json", pretty(&standings)),
        ("ratings.json", pretty(&ratings)),
        ("tournament.trf", trf),
    ]
}

fn result_text(g: GameResult) -> &'static str {
    match g {
        GameResult::Pending => "*",
        GameResult::WhiteWins => "1-0",
        GameResult::Draw => "1/2-1/2",
        GameResult::BlackWins => "0-1",
        GameResult::WhiteWinsByForfeit => "1-0 forfeit",
        GameResult::BlackWinsByForfeit => "0-1 forfeit",
        GameResult::DoubleForfeit => "0-0 forfeit",
    }
}

fn bye_text(k: ByeKind) -> &'static str {
    match k {
        ByeKind::PairingAllocated => "pairing-allocated",
        ByeKind::Half => "half",
        ByeKind::Zero => "zero",
        ByeKind::Full => "full",
    }
}

/// One difference [`verify`] found, naming the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The file, relative to the bundle.
    pub file: String,
    /// What is wrong with it.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.what)
    }
}

/// What a bundle that checks out says.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The tournament's name.
    pub name: String,
    /// Rounds started.
    pub rounds: usize,
    /// Match records re-verified.
    pub records: usize,
    /// The checkpoint's tree size.
    pub checkpoint_size: u64,
}

/// Recomputes a bundle offline for a reader with `policy` (see the module docs). Every
/// difference is named; `Ok` only when there is none.
pub fn verify(dir: &Path, policy: &Policy) -> Result<Verified, Vec<Difference>> {
    let reader = DirReader::new(dir);
    let diff = |file: &str, what: String| vec![Difference { file: file.to_string(), what }];
    let cp_bytes = reader.checkpoint().map_err(|e| diff("checkpoint", e.to_string()))?;
    let signed =
        SignedCheckpoint::parse(&cp_bytes).map_err(|e| diff("checkpoint", e.to_string()))?;
    policy.verify(&signed).map_err(|e| diff("checkpoint", e.to_string()))?;

    // The proven entries, by leaf index.
    let mut proven: Vec<(u64, LedgerEntry)> = Vec::new();
    let mut differences = Vec::new();
    let proofs_dir = dir.join("proofs");
    let mut names: Vec<String> = match std::fs::read_dir(&proofs_dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect(),
        Err(e) => return Err(diff("proofs", e.to_string())),
    };
    names.sort();
    for name in &names {
        let file = format!("proofs/{name}");
        let parsed = reader
            .read(&file, crate::note::MAX_NOTE_BYTES + 2 * crate::entry::MAX_ENTRY_BYTES)
            .map_err(|e| e.to_string())
            .and_then(|b| TlogProof::parse(&b).map_err(|e| e.to_string()));
        let proof = match parsed {
            Ok(p) => p,
            Err(e) => {
                differences.push(Difference { file, what: e });
                continue;
            }
        };
        if proof.checkpoint.checkpoint != signed.checkpoint {
            differences.push(Difference {
                file,
                what: "proves inclusion in another checkpoint than the bundle's".into(),
            });
            continue;
        }
        if *name != format!("{}.tlog-proof", proof.index) {
            differences
                .push(Difference { file, what: format!("is the proof of entry {}", proof.index) });
            continue;
        }
        match proof.verify(policy) {
            Ok((_, entry)) => proven.push((proof.index, entry)),
            Err(e) => differences.push(Difference { file, what: e.to_string() }),
        }
    }
    proven.sort_by_key(|(i, _)| *i);
    let proof_names: std::collections::BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let missing = missing_proofs(&reader, &proof_names);
    let missing_any = !missing.is_empty();
    differences.extend(missing);
    differences.extend(unexpected_files(dir, &proven));
    let Some((_, first)) = proven.first() else {
        differences.push(Difference { file: "proofs".into(), what: "no proven entry".into() });
        return Err(differences);
    };
    let EntryBody::Tournament(t) = &first.body else {
        differences.push(Difference {
            file: "proofs".into(),
            what: "the first proven entry is not the tournament's".into(),
        });
        return Err(differences);
    };
    let id = t.definition_sha256;
    let definition = match reader.read("definition", crate::entry::MAX_DEFINITION_BYTES) {
        Ok(d) => d,
        Err(e) => {
            differences.extend(diff("definition", e.to_string()));
            return Err(differences);
        }
    };
    if sha256(&definition) != id {
        differences.push(Difference {
            file: "definition".into(),
            what: "its SHA-256 is not the tournament id the log names".into(),
        });
        return Err(differences);
    }

    // Replay, checking each record against its entry.
    let mut history = History::new();
    let mut matches: Vec<MatchEntry> = Vec::new();
    let mut records = 0;
    for (index, entry) in &proven {
        let belongs = entry.tournament() == Some(id);
        if !belongs {
            differences.push(Difference {
                file: format!("proofs/{index}.tlog-proof"),
                what: "an entry of another tournament".into(),
            });
            continue;
        }
        if let EntryBody::Match(m) = &entry.body {
            let file = record_path(&m.record_sha256);
            match reader.record(&m.record_sha256) {
                Err(e) => differences.push(Difference { file, what: e.to_string() }),
                Ok(bytes) if sha256(&bytes) != m.record_sha256 => differences.push(Difference {
                    file,
                    what: "its SHA-256 is not the one its entry names".into(),
                }),
                Ok(bytes) => match MatchEntry::from_record(&bytes, m.context) {
                    Ok(r) if m.same_judgement(&r) => records += 1,
                    Ok(_) => differences.push(Difference {
                        file,
                        what: "re-verifying it gives another verdict than its entry".into(),
                    }),
                    Err(e) => differences.push(Difference { file, what: e.to_string() }),
                },
            }
            matches.push(m.clone());
        }
        let stored =
            matches!(entry.body, EntryBody::Tournament(_)).then_some(definition.as_slice());
        if let Err(e) = history.apply_at(*index, entry, stored) {
            // With a proof missing, a later entry failing to replay is its consequence: the
            // missing file is what is named.
            if !missing_any {
                differences.push(Difference {
                    file: format!("proofs/{index}.tlog-proof"),
                    what: format!("does not replay: {e}"),
                });
            }
            return Err(differences);
        }
    }
    let Some(state) = history.tournament(&id) else {
        differences.push(Difference {
            file: "definition".into(),
            what: "the tournament does not replay".into(),
        });
        return Err(differences);
    };
    let refs: Vec<&MatchEntry> = matches.iter().collect();
    for (name, expected) in derived_files(state, &refs) {
        let read = reader
            .read(name, MAX_DERIVED_FILE_BYTES)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|_| "is not UTF-8 text".to_string()));
        match read {
            Err(e) => differences.push(Difference { file: name.into(), what: e }),
            Ok(found) if found != expected => {
                let line =
                    found.lines().zip(expected.lines()).position(|(a, b)| a != b).map_or_else(
                        || found.lines().count().min(expected.lines().count()) + 1,
                        |l| l + 1,
                    );
                differences.push(Difference {
                    file: name.into(),
                    what: format!("differs from what the entries give, from line {line}"),
                });
            }
            Ok(_) => {}
        }
    }
    if differences.is_empty() {
        Ok(Verified {
            name: state.definition.name.clone(),
            rounds: state.rounds.len(),
            records,
            checkpoint_size: signed.checkpoint.size,
        })
    } else {
        Err(differences)
    }
}

/// The largest derived file (`pairings.json`, `standings.json`, `ratings.json`,
/// `tournament.trf`) [`verify`] reads.
pub const MAX_DERIVED_FILE_BYTES: usize = 64 * 1024 * 1024;

/// The files at the top of a bundle.
const TOP_FILES: [&str; 6] = [
    "checkpoint",
    "definition",
    "pairings.json",
    "standings.json",
    "ratings.json",
    "tournament.trf",
];

/// The proofs `pairings.json` names (the tournament's entry, every round's, every result's)
/// that the bundle does not hold, each named as its missing file. A `pairings.json` that does
/// not parse names nothing here (the comparison with the recomputed file names it).
fn missing_proofs(
    reader: &DirReader,
    proof_names: &std::collections::BTreeSet<&str>,
) -> Vec<Difference> {
    let Ok(bytes) = reader.read("pairings.json", MAX_DERIVED_FILE_BYTES) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
        return Vec::new();
    };
    let mut claimed = std::collections::BTreeSet::new();
    claimed.extend(v["entry"].as_u64());
    for r in v["rounds"].as_array().into_iter().flatten() {
        claimed.extend(r["entry"].as_u64());
        for g in r["games"].as_array().into_iter().flatten() {
            claimed.extend(g["entry"].as_u64());
        }
    }
    claimed
        .into_iter()
        .filter(|i| !proof_names.contains(format!("{i}.tlog-proof").as_str()))
        .map(|i| Difference {
            file: format!("proofs/{i}.tlog-proof"),
            what: format!("is missing: pairings.json names entry {i}"),
        })
        .collect()
}

/// Every file or directory in the bundle that is not one of its files: anything at the top but
/// [`TOP_FILES`], `proofs/` and `records/`; anything under `records/` that no proven match entry
/// names; anything under `proofs/` or `records/` that is not a plain file.
fn unexpected_files(dir: &Path, proven: &[(u64, LedgerEntry)]) -> Vec<Difference> {
    let records: std::collections::BTreeSet<String> = proven
        .iter()
        .filter_map(|(_, e)| e.as_match().map(|m| record_path(&m.record_sha256)))
        .collect();
    let mut out = Vec::new();
    let list = |d: &Path| -> Vec<(String, std::fs::FileType)> {
        let mut v: Vec<(String, std::fs::FileType)> = std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter_map(|e| {
                        Some((e.file_name().to_string_lossy().into_owned(), e.file_type().ok()?))
                    })
                    .collect()
            })
            .unwrap_or_default();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    for (name, kind) in list(dir) {
        let plain = kind.is_file();
        match name.as_str() {
            "proofs" | "records" if kind.is_dir() => {
                for (inner, k) in list(&dir.join(&name)) {
                    let file = format!("{name}/{inner}");
                    if !k.is_file() {
                        out.push(Difference {
                            file,
                            what: "should not be in the bundle: not a plain file".into(),
                        });
                    } else if name == "records" && !records.contains(&file) {
                        out.push(Difference {
                            file,
                            what: "should not be in the bundle: no proven match entry names it"
                                .into(),
                        });
                    }
                }
            }
            n if plain && TOP_FILES.contains(&n) => {}
            _ => out.push(Difference {
                file: name,
                what: "should not be in the bundle: not one of its files".into(),
            }),
        }
    }
    out
}
