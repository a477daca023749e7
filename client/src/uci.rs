//! A UCI engine as a house bot's brain (`fogproof bot --engine PATH`): the open games (chess,
//! and Espionage where the engine declares it in its `UCI_Variant` option) are played by any
//! UCI engine, one engine process per match.
//!
//! The engine is untrusted input like any peer: its output is read by a thread of its own,
//! line by line, each line cut at [`MAX_LINE_BYTES`], at most [`MAX_QUEUED_LINES`] lines queued
//! (the engine then blocks on its own output); every answer has a deadline ([`HANDSHAKE_MS`],
//! the move time plus [`MOVE_GRACE_MS`]); its move must be one of the moves offered. An engine
//! that is late, dies, or names a move not offered is replaced for that move by the house bot
//! (and, if it died or hung, for the rest of the match), so a broken engine never stalls a
//! match or signs an illegal move.

use crate::housebot::HouseBot;
use protocol::roles::{Ask, Policy};
use rules::seat::Seat;
use rules::{AnyAction, Color, Variant};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

/// The longest engine output line kept (longer lines are cut here).
pub const MAX_LINE_BYTES: usize = 4096;
/// How many engine lines may wait to be read before the engine blocks on its output.
pub const MAX_QUEUED_LINES: usize = 1024;
/// How long the engine has to answer `uci` with `uciok`, and `isready` with `readyok`, in ms.
pub const HANDSHAKE_MS: u64 = 10_000;
/// How long past the move time the engine has to give its `bestmove`, in ms (after which it is
/// told `stop`, and given this long again).
pub const MOVE_GRACE_MS: u64 = 2_000;
/// The most `UCI_Variant` names read from the engine.
pub const MAX_VARIANTS: usize = 256;

/// Why the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// It could not be started.
    #[error("{path}: {why}")]
    Start {
        /// The engine's path.
        path: String,
        /// Why.
        why: String,
    },
    /// It did not answer in time.
    #[error("the engine did not answer {what} within {ms} ms")]
    Timeout {
        /// What was asked.
        what: &'static str,
        /// The deadline.
        ms: u64,
    },
    /// It exited, or its pipes broke.
    #[error("the engine is gone: {0}")]
    Gone(String),
}

/// One running engine process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `id name`, as the engine gave it.
    pub name: String,
    /// The values of its `UCI_Variant` option, if it has one.
    pub variants: Vec<String>,
}

/// Reads `from` line by line into `to`, each line cut at [`MAX_LINE_BYTES`].
fn read_lines(from: impl Read, to: &SyncSender<String>) {
    let mut r = BufReader::with_capacity(MAX_LINE_BYTES, from);
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        // Take bytes up to a newline, keeping at most MAX_LINE_BYTES of them.
        let mut eof = false;
        loop {
            let buf = match r.fill_buf() {
                Ok(b) => b,
                Err(_) => return,
            };
            if buf.is_empty() {
                eof = true;
                break;
            }
            let (chunk, found) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            let room = MAX_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = found.unwrap_or(buf.len());
            r.consume(used);
            if found.is_some() {
                break;
            }
        }
        if !line.is_empty() || !eof {
            let text = String::from_utf8_lossy(&line).trim().to_owned();
            if to.send(text).is_err() {
                return;
            }
        }
        if eof {
            return;
        }
    }
}

impl Engine {
    /// Starts the engine at `path` and does the UCI handshake (`uci` … `uciok`, `isready` …
    /// `readyok`).
    pub fn start(path: &Path) -> Result<Engine, EngineError> {
        let start = |why: String| EngineError::Start { path: path.display().to_string(), why };
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| start(e.to_string()))?;
        let stdin = child.stdin.take().ok_or_else(|| start("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| start("no stdout".into()))?;
        let (tx, lines) = sync_channel(MAX_QUEUED_LINES);
        std::thread::spawn(move || read_lines(stdout, &tx));
        let mut engine = Engine { child, stdin, lines, name: String::new(), variants: Vec::new() };
        engine.send("uci")?;
        let deadline = Instant::now() + Duration::from_millis(HANDSHAKE_MS);
        loop {
            let line = engine.line_by(deadline, "uci")?;
            if line == "uciok" {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.chars().take(200).collect();
            } else if let Some(rest) = line.strip_prefix("option name UCI_Variant ") {
                engine.variants = rest
                    .split(" var ")
                    .skip(1)
                    .map(|v| v.split_whitespace().next().unwrap_or("").to_owned())
                    .filter(|v| !v.is_empty())
                    .take(MAX_VARIANTS)
                    .collect();
            }
        }
        engine.ready()?;
        Ok(engine)
    }

    /// Whether the engine plays `variant`: chess always; another only where the engine lists
    /// it in its `UCI_Variant` option (fogproof's id).
    pub fn plays(&self, variant: Variant) -> bool {
        variant == Variant::Chess || self.variants.iter().any(|v| v == variant.id())
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| EngineError::Gone(e.to_string()))
    }

    fn line_by(&self, deadline: Instant, what: &'static str) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                Err(EngineError::Timeout { what, ms: u64::try_from(left.as_millis()).unwrap_or(0) })
            }
            Err(RecvTimeoutError::Disconnected) => Err(EngineError::Gone("no more output".into())),
        }
    }

    fn ready(&mut self) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + Duration::from_millis(HANDSHAKE_MS);
        while self.line_by(deadline, "isready")? != "readyok" {}
        Ok(())
    }

    /// Sets the engine's variant (`UCI_Variant`) for a game other than chess.
    pub fn set_variant(&mut self, variant: Variant) -> Result<(), EngineError> {
        if variant != Variant::Chess {
            self.send(&format!("setoption name UCI_Variant value {}", variant.id()))?;
            self.ready()?;
        }
        Ok(())
    }

    /// The engine's move after `moves` (UCI, from the start position), thinking `movetime_ms`.
    pub fn best_move(&mut self, moves: &[String], movetime_ms: u64) -> Result<String, EngineError> {
        let mut position = "position startpos".to_owned();
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position)?;
        self.send(&format!("go movetime {movetime_ms}"))?;
        let grace = Duration::from_millis(MOVE_GRACE_MS);
        let mut deadline = Instant::now() + Duration::from_millis(movetime_ms) + grace;
        let mut stopped = false;
        loop {
            match self.line_by(deadline, "go") {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix("bestmove") {
                        return Ok(rest.split_whitespace().next().unwrap_or("").to_owned());
                    }
                }
                Err(EngineError::Timeout { .. }) if !stopped => {
                    stopped = true;
                    self.send("stop")?;
                    deadline = Instant::now() + grace;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // Give it a moment to leave by itself, then make sure.
        for _ in 0..20 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A policy playing the open games through a UCI engine, the house bot for everything else
/// (and wherever the engine fails: the module docs).
pub struct EngineBot {
    path: PathBuf,
    movetime_ms: u64,
    engine: Option<Engine>,
    /// The engine failed for good in this match: the house bot plays on.
    failed: bool,
    fallback: HouseBot,
    /// Moves the engine chose (for logs and tests).
    pub engine_moves: u64,
}

impl EngineBot {
    /// A bot asking the engine at `path` (started at its first move), thinking `movetime_ms`
    /// per move; `seed` seeds the house bot it falls back on.
    pub fn new(path: PathBuf, movetime_ms: u64, seed: [u8; 32]) -> EngineBot {
        EngineBot {
            path,
            movetime_ms,
            engine: None,
            failed: false,
            fallback: HouseBot::new(seed),
            engine_moves: 0,
        }
    }

    /// The engine's move for `seat` (the player's own knowledge: in the open games, every
    /// move), if it gives one of `offered`.
    fn engine_move(
        &mut self,
        seat: &Seat,
        variant: Variant,
        offered: &[(String, AnyAction)],
    ) -> Result<Option<AnyAction>, EngineError> {
        let view = seat.view();
        let Some(moves) = view.knows.open_moves() else { return Ok(None) };
        let moves: Vec<String> = moves.iter().map(|m| m.uci(variant.alphabet())).collect();
        if self.engine.is_none() {
            let mut e = Engine::start(&self.path)?;
            if !e.plays(variant) {
                tracing::warn!(variant = %variant, "the engine does not play this game");
                self.failed = true;
                return Ok(None);
            }
            e.set_variant(variant)?;
            self.engine = Some(e);
        }
        let Some(engine) = self.engine.as_mut() else { return Ok(None) };
        let best = run_blocking(|| engine.best_move(&moves, self.movetime_ms))?;
        let chosen = offered.iter().find(|(t, _)| t.eq_ignore_ascii_case(&best));
        match chosen {
            Some(_) => tracing::debug!(engine_move = %best, "the engine moves"),
            None => {
                tracing::warn!(engine_move = %best, "the engine's move is not among the legal moves");
            }
        }
        Ok(chosen.map(|(_, b)| b.clone()))
    }
}

/// Runs `f`, which blocks on the engine, without holding up other tasks of a multi-threaded
/// tokio runtime.
fn run_blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

impl Policy for EngineBot {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        self.fallback.decide(variant, side, ask)
    }

    fn decide_seeing(
        &mut self,
        seat: Option<&Seat>,
        variant: Variant,
        side: Color,
        ask: &Ask,
    ) -> AnyAction {
        let open = variant.mode() == rules::Mode::Open;
        if open
            && !self.failed
            && let (Ask::Choose(_), Some(seat)) = (ask, seat)
        {
            let offered = crate::view::offered(ask);
            match self.engine_move(seat, variant, &offered) {
                Ok(Some(action)) => {
                    self.engine_moves += 1;
                    return action;
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "the engine failed: the house bot plays on");
                    self.failed = true;
                    self.engine = None;
                }
            }
        }
        self.fallback.decide_seeing(seat, variant, side, ask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_lines_are_cut_and_split() {
        let long = "x".repeat(MAX_LINE_BYTES * 3);
        let input = format!("id name Test\n{long}\nuciok\nlast");
        let (tx, rx) = sync_channel(MAX_QUEUED_LINES);
        read_lines(input.as_bytes(), &tx);
        drop(tx);
        let lines: Vec<String> = rx.iter().collect();
        assert_eq!(lines.len(), 4, "{:?}", lines.iter().map(String::len).collect::<Vec<_>>());
        assert_eq!(lines[0], "id name Test");
        assert_eq!(lines[1].len(), MAX_LINE_BYTES);
        assert_eq!(lines[2], "uciok");
        assert_eq!(lines[3], "last");
    }

    #[test]
    fn a_missing_engine_is_an_error_naming_it() {
        let e = Engine::start(Path::new("/nonexistent/engine")).err().expect("no engine");
        assert!(e.to_string().contains("/nonexistent/engine"), "{e}");
    }
}
