//! `fogproof ledger`: create a log, append verified records, print its key, prove and check
//! inclusion, prove consistency between two checkpoints, gather witness cosignatures, and audit
//! a published log on every core (formats in `docs/LEDGER.md`).

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ledger::checkpoint::{Policy, SignedCheckpoint};
use ledger::entry::{Absence, EntryBody, Sha256Digest, TournamentRound, sha256};
use ledger::note::{KeyKind, SignerKey, VerifierKey};
use ledger::proof::TlogProof;
use ledger::store::DirReader;
use ledger::tournament::ByeKind;
use ledger::{Ledger, Submission};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The ledger's subcommands.
#[derive(Subcommand)]
pub enum LedgerCommand {
    /// Create an empty log in DIR signed by the key in --key (created, owner-only, if absent).
    Init {
        /// The log directory.
        dir: PathBuf,
        /// The log's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// The log's origin (its key name), e.g. `ledger.example.org/main`; needed to create a key.
        #[arg(long)]
        origin: Option<String>,
    },
    /// Print the log's verifier key (C2SP signed-note vkey) from its secret key file.
    Key {
        /// The log's secret key file.
        #[arg(long)]
        key: PathBuf,
    },
    /// Verify records and append them, in batches, each batch under a new checkpoint.
    Append(AppendArgs),
    /// Start a tournament round: its pairings follow from the log and these absences.
    StartRound {
        /// The log directory.
        dir: PathBuf,
        /// The log's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// The tournament id (64 hex digits).
        #[arg(long)]
        tournament: String,
        /// The round, from 1.
        #[arg(long)]
        round: u32,
        /// An absent player: INDEX or INDEX:zero|half|full (zero by default). Repeatable.
        #[arg(long)]
        absent: Vec<String>,
    },
    /// Print a C2SP tlog-proof that the match (or tournament) ID is in the log's checkpoint.
    Prove {
        /// The log directory.
        dir: PathBuf,
        /// The match id or tournament id (64 hex digits).
        id: String,
        /// Write the proof here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Check a tlog-proof under a policy (log key, witnesses, quorum); print what it proves.
    CheckProof {
        /// The proof file.
        proof: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
        /// Also check that this record is the one the entry names, and re-verify it.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Check a signed inclusion promise against the log: kept (exit 0, the inclusion proof
    /// verified), broken (exit 1: a checkpoint witnessed after the deadline lacks the match),
    /// pending (exit 2), or not a valid promise (exit 3).
    CheckPromise {
        /// The promise file (`<match id>.promise`, from `GET /api/match/{id}/promise`).
        promise: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
        /// The log directory.
        #[arg(long, conflicts_with = "server", required_unless_present = "server")]
        log: Option<PathBuf>,
        /// The server whose log to read (its `/ledger/` files), e.g. `http://host:8080`.
        #[arg(long)]
        server: Option<String>,
        /// Also check that this record file is the one promised.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Prove and check that checkpoint NEW extends checkpoint OLD, from the log's tiles.
    Consistency {
        /// The older checkpoint file.
        old: PathBuf,
        /// The newer checkpoint file.
        new: PathBuf,
        /// The log directory whose tiles give the proof.
        #[arg(long)]
        log: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
    },
    /// Audit a published log: every tile re-hashed, the root recomputed, every record
    /// re-verified into its entry, on every core. Exit 1 if anything is wrong.
    Audit {
        /// The log directory.
        dir: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
        /// Threads (default: one per core).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
    },
    /// Print the C2SP tlog-witness add-checkpoint request for a witness at size OLD.
    WitnessRequest {
        /// The log directory.
        dir: PathBuf,
        /// The log's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// The size the witness last cosigned (0 if never).
        #[arg(long)]
        old: u64,
    },
    /// Add witness cosignature lines (standard input) to the checkpoint, checking each.
    AddCosignatures {
        /// The log directory.
        dir: PathBuf,
        /// The log's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// A witness's verifier key. Repeatable.
        #[arg(long, required = true)]
        witness: Vec<String>,
    },
}

/// Arguments of `fogproof ledger append`.
#[derive(Args)]
pub struct AppendArgs {
    /// The log directory.
    dir: PathBuf,
    /// The log's secret key file.
    #[arg(long)]
    key: PathBuf,
    /// Record files.
    records: Vec<PathBuf>,
    /// A signed tournament definition file to publish (before the records).
    #[arg(long)]
    definition: Option<PathBuf>,
    /// The tournament (id, 64 hex digits) the records were played in.
    #[arg(long, requires = "round")]
    tournament: Option<String>,
    /// The round they were played in.
    #[arg(long, requires = "tournament")]
    round: Option<u32>,
    /// Records per checkpoint.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    batch: u32,
}

/// What a reader trusts.
#[derive(Args)]
pub struct PolicyArgs {
    /// The log's verifier key (`name+id+base64`, as `fogproof ledger key` prints).
    #[arg(long)]
    log_key: String,
    /// A witness's verifier key. Repeatable.
    #[arg(long)]
    witness: Vec<String>,
    /// How many of the witnesses must have cosigned (default: all given).
    #[arg(long)]
    quorum: Option<usize>,
}

impl PolicyArgs {
    /// The policy.
    pub fn policy(&self) -> Result<Policy> {
        let log = VerifierKey::parse(&self.log_key).context("--log-key")?;
        let witnesses = self
            .witness
            .iter()
            .map(|w| VerifierKey::parse(w).context("--witness"))
            .collect::<Result<Vec<_>>>()?;
        let quorum = self.quorum.unwrap_or(witnesses.len());
        if quorum > witnesses.len() {
            bail!("a quorum of {quorum} needs at least {quorum} --witness keys");
        }
        Ok(Policy { log, witnesses, quorum })
    }
}

/// Reads a signed-note secret key file (owner-only, as written by [`write_secret_key`]).
pub fn read_secret_key(path: &Path) -> Result<SignerKey> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read key file {}", path.display()))?;
    if meta.permissions().mode() & 0o077 != 0 {
        bail!(
            "key file {} is readable by others: run chmod 600 {}",
            path.display(),
            path.display()
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read key file {}", path.display()))?;
    SignerKey::parse(&text).with_context(|| format!("key file {}", path.display()))
}

/// Writes a new secret key file, owner-only; never overwrites.
pub fn write_secret_key(path: &Path, key: &SignerKey) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| {
            format!("cannot create key file {} (it is never overwritten)", path.display())
        })?;
    f.write_all(format!("{}\n", key.to_secret_text()).as_bytes())?;
    f.sync_all()?;
    Ok(())
}

/// Parses 64 hex digits.
pub fn parse_id(hex: &str) -> Result<Sha256Digest> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("bad id '{hex}': expected 64 hex digits");
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)?;
    }
    Ok(out)
}

/// Milliseconds since the Unix epoch now (the edge of the program: the library takes time in).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn write_checkpoint_line(out: &mut impl Write, cp: &SignedCheckpoint) -> Result<()> {
    writeln!(
        out,
        "checkpoint {} {} {}",
        cp.checkpoint.origin,
        cp.checkpoint.size,
        protocol::hex::encode(&cp.checkpoint.root)
    )?;
    Ok(())
}

/// Runs one `ledger` subcommand; the exit status (0 ok, 1 a check failed).
pub fn run(command: LedgerCommand, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        LedgerCommand::Init { dir, key, origin } => {
            let signer = if key.exists() {
                let k = read_secret_key(&key)?;
                if let Some(o) = &origin
                    && o != k.name()
                {
                    bail!("key file {} is for origin {}, not {o}", key.display(), k.name());
                }
                k
            } else {
                let origin = origin.context("no key file yet: give --origin to create one")?;
                let k = SignerKey::generate(&origin, KeyKind::Ed25519)?;
                write_secret_key(&key, &k)?;
                writeln!(out, "wrote {}", key.display())?;
                k
            };
            let ledger = Ledger::create(&dir, signer)?;
            writeln!(out, "log-key: {}", ledger.verifier_key())?;
            write_checkpoint_line(out, ledger.checkpoint())?;
        }
        LedgerCommand::Key { key } => writeln!(out, "{}", read_secret_key(&key)?.verifier())?,
        LedgerCommand::Append(args) => append(args, out)?,
        LedgerCommand::StartRound { dir, key, tournament, round, absent } => {
            let mut ledger = Ledger::open(&dir, read_secret_key(&key)?)?;
            let absent = absent
                .iter()
                .map(|a| {
                    let (p, kind) = a.split_once(':').unwrap_or((a, "zero"));
                    let bye = match kind {
                        "zero" => ByeKind::Zero,
                        "half" => ByeKind::Half,
                        "full" => ByeKind::Full,
                        other => bail!("bad bye '{other}' in --absent {a}: zero, half or full"),
                    };
                    Ok(Absence { player: p.parse().with_context(|| format!("--absent {a}"))?, bye })
                })
                .collect::<Result<Vec<_>>>()?;
            let tournament = parse_id(&tournament)?;
            let cp = ledger.append(&[Submission::Round {
                tournament,
                round,
                absent,
                started_at_ms: now_ms(),
            }])?;
            write_checkpoint_line(out, cp)?;
            let state = ledger.tournament(&tournament).context("tournament")?;
            if let Some(r) = state.rounds.last() {
                for (board, (w, b)) in r.pairings.games.iter().enumerate() {
                    let name = |i: usize| &state.definition.players[i].name;
                    writeln!(out, "board {}: {} - {}", board + 1, name(*w), name(*b))?;
                }
                if let Some(b) = r.pairings.bye {
                    writeln!(out, "bye: {}", state.definition.players[b].name)?;
                }
            }
        }
        LedgerCommand::Prove { dir, id, out: file } => {
            let proof = ledger::service::prove_in(&DirReader::new(&dir), &parse_id(&id)?)?;
            match file {
                Some(f) => std::fs::write(&f, proof.to_text())
                    .with_context(|| format!("cannot write {}", f.display()))?,
                None => write!(out, "{}", proof.to_text())?,
            }
        }
        LedgerCommand::CheckProof { proof, policy, record } => {
            let bytes = std::fs::read(&proof)
                .with_context(|| format!("cannot read {}", proof.display()))?;
            let parsed = TlogProof::parse(&bytes)?;
            let (trusted, entry) = match parsed.verify(&policy.policy()?) {
                Ok(v) => v,
                Err(e) => {
                    writeln!(out, "{}: NOT PROVEN: {e}", proof.display())?;
                    return Ok(ExitCode::from(1));
                }
            };
            let cp = &trusted.signed.checkpoint;
            write!(
                out,
                "{}: entry {} of checkpoint {} (size {})",
                proof.display(),
                parsed.index,
                cp.origin,
                cp.size
            )?;
            writeln!(out, ", {} witness cosignature(s)", trusted.cosigners.len())?;
            describe(out, &entry.body)?;
            if let Some(record) = record {
                let EntryBody::Match(m) = &entry.body else {
                    bail!("the entry is not a match; --record does not apply")
                };
                let bytes = std::fs::read(&record)
                    .with_context(|| format!("cannot read {}", record.display()))?;
                if sha256(&bytes) != m.record_sha256 {
                    writeln!(
                        out,
                        "{}: NOT the record the entry names (SHA-256 differs)",
                        record.display()
                    )?;
                    return Ok(ExitCode::from(1));
                }
                let again = match ledger::entry::MatchEntry::from_record(&bytes, m.context) {
                    Err(e @ ledger::entry::EntryError::CloseTime { .. }) => {
                        writeln!(out, "{}: re-verified, {e}", record.display())?;
                        return Ok(ExitCode::from(1));
                    }
                    r => r?,
                };
                if !m.same_judgement(&again) {
                    writeln!(
                        out,
                        "{}: re-verified, it gives another verdict than the entry",
                        record.display()
                    )?;
                    return Ok(ExitCode::from(1));
                }
                writeln!(
                    out,
                    "{}: the record the entry names, re-verified: same verdict",
                    record.display()
                )?;
            }
        }
        LedgerCommand::CheckPromise { promise, policy, log, server, record } => {
            return check_promise(&promise, &policy.policy()?, log, server, record, out);
        }
        LedgerCommand::Consistency { old, new, log, policy } => {
            let policy = policy.policy()?;
            let read = |p: &Path| -> Result<SignedCheckpoint> {
                let b = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
                let c = SignedCheckpoint::parse(&b).with_context(|| p.display().to_string())?;
                policy.verify(&c).with_context(|| p.display().to_string())?;
                Ok(c)
            };
            let (a, b) = (read(&old)?, read(&new)?);
            let (a, b) = (a.checkpoint, b.checkpoint);
            if a.size == 0 {
                writeln!(out, "consistent: the empty tree is a prefix of every tree")?;
                return Ok(ExitCode::SUCCESS);
            }
            let reader = DirReader::new(&log);
            let proof = ledger::merkle::prove_consistency(
                &ledger::log::TileNodes::new(&reader, b.size),
                a.size,
                b.size,
            )?;
            for h in &proof {
                writeln!(out, "{}", base64(h))?;
            }
            match ledger::merkle::verify_consistency(a.size, b.size, &proof, &a.root, &b.root) {
                Ok(()) => {
                    writeln!(out, "consistent: size {} is a prefix of size {}", a.size, b.size)?
                }
                Err(e) => {
                    writeln!(out, "NOT CONSISTENT: {e}")?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
        LedgerCommand::Audit { dir, policy, jobs } => {
            return audit(&dir, &policy.policy()?, jobs, out);
        }
        LedgerCommand::WitnessRequest { dir, key, old } => {
            let ledger = Ledger::open(&dir, read_secret_key(&key)?)?;
            write!(out, "{}", ledger.witness_request(old)?)?;
        }
        LedgerCommand::AddCosignatures { dir, key, witness } => {
            let mut ledger = Ledger::open(&dir, read_secret_key(&key)?)?;
            let witnesses = witness
                .iter()
                .map(|w| VerifierKey::parse(w).context("--witness"))
                .collect::<Result<Vec<_>>>()?;
            let mut lines = String::new();
            std::io::stdin().read_to_string(&mut lines)?;
            let cp = ledger.add_cosignatures(&lines, &witnesses)?;
            write!(out, "{}", cp.to_text())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn base64(h: &[u8]) -> String {
    use base64ct::{Base64, Encoding};
    Base64::encode_string(h)
}

fn describe(out: &mut impl Write, body: &EntryBody) -> Result<()> {
    match body {
        EntryBody::Match(m) => {
            let verdict = match &m.verdict {
                ledger::entry::EntryVerdict::Valid => "valid".to_string(),
                ledger::entry::EntryVerdict::Faults { total, .. } => format!("{total} fault(s)"),
            };
            let result = m.result.map_or("void".to_string(), |r| {
                let score = match r.winner {
                    Some(rules::Color::White) => "1-0",
                    Some(rules::Color::Black) => "0-1",
                    None => "1/2-1/2",
                };
                format!("{score} ({:?})", r.reason)
            });
            writeln!(
                out,
                "match {} ({}): {verdict}, {result}",
                protocol::hex::encode(&m.match_id),
                m.variant
            )?;
            writeln!(out, "record sha256 {}", protocol::hex::encode(&m.record_sha256))?;
        }
        EntryBody::Tournament(t) => {
            writeln!(
                out,
                "tournament {} ({}, {})",
                protocol::hex::encode(&t.definition_sha256),
                t.name,
                t.variant
            )?;
        }
        EntryBody::Round(r) => {
            writeln!(
                out,
                "round {} of tournament {}",
                r.round,
                protocol::hex::encode(&r.tournament)
            )?;
        }
        EntryBody::NoShow(n) => {
            let who = match (n.white_absent, n.black_absent) {
                (true, true) => "neither player showed",
                (true, false) => "White did not show",
                _ => "Black did not show",
            };
            writeln!(
                out,
                "no-show in round {} of tournament {}: {} (White) against {} (Black), {who} by {} ms",
                n.round,
                protocol::hex::encode(&n.tournament),
                n.white,
                n.black,
                n.deadline_ms
            )?;
        }
    }
    Ok(())
}

fn append(args: AppendArgs, out: &mut impl Write) -> Result<()> {
    let mut ledger = Ledger::open(&args.dir, read_secret_key(&args.key)?)?;
    // The log's own clock bounds the close times it takes (no relay clock far ahead).
    ledger.set_clock(Box::new(now_ms));
    if let Some(def) = &args.definition {
        let definition =
            std::fs::read(def).with_context(|| format!("cannot read {}", def.display()))?;
        let id = sha256(&definition);
        let cp =
            ledger.append(&[Submission::Tournament { definition, published_at_ms: now_ms() }])?;
        writeln!(out, "tournament {}", protocol::hex::encode(&id))?;
        write_checkpoint_line(out, cp)?;
    }
    let tournament = match (&args.tournament, args.round) {
        (Some(t), Some(round)) => Some(TournamentRound { tournament: parse_id(t)?, round }),
        _ => None,
    };
    for chunk in args.records.chunks(args.batch as usize) {
        let mut batch = Vec::with_capacity(chunk.len());
        for path in chunk {
            let record =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            // A record already in the log (same bytes) is skipped; another record of a logged
            // match is refused by the append.
            let vm_id = protocol::record::MatchRecord::read_prefix(&record)
                .map(|r| protocol::terms::match_id(&r.terms.terms).0);
            if let Some(id) = vm_id
                && let Some(at) = ledger.history().match_index(&id)
                && ledger
                    .entry_bytes(at)
                    .ok()
                    .and_then(|b| ledger::entry::LedgerEntry::from_bytes(&b).ok())
                    .is_some_and(|e| {
                        e.as_match().is_some_and(|m| m.record_sha256 == sha256(&record))
                    })
            {
                writeln!(out, "{}: already in the log at index {at}", path.display())?;
                continue;
            }
            batch.push(Submission::Match { record, tournament });
        }
        if batch.is_empty() {
            continue;
        }
        let cp = ledger.append(&batch).map_err(|e| match &e {
            ledger::AppendError::Refused { index, .. }
            | ledger::AppendError::Inconsistent { index, .. } => {
                anyhow::anyhow!("{}: {e}", chunk[*index].display())
            }
            ledger::AppendError::Write(_) => anyhow::anyhow!(e),
        })?;
        write_checkpoint_line(out, cp)?;
    }
    Ok(())
}

fn audit(dir: &Path, policy: &Policy, jobs: Option<u16>, out: &mut impl Write) -> Result<ExitCode> {
    let reader = DirReader::new(dir);
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} {wide_bar} {pos} entries checked ({per_sec})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let progress = |n: u64| bar.set_position(n);
    let threads = jobs.map_or(0, usize::from);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let started = std::time::Instant::now();
    let report = pool.install(|| ledger::audit::audit(&reader, policy, &progress));
    bar.finish_and_clear();
    let report = report.with_context(|| format!("audit of {}", dir.display()))?;
    let cp = &report.checkpoint.signed.checkpoint;
    let secs = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "{}: checkpoint {} size {}, {} witness cosignature(s); {} matches, {} tournaments, {} rounds, {} no-shows re-checked in {secs:.2} s on {} thread(s)",
        dir.display(),
        cp.origin,
        cp.size,
        report.checkpoint.cosigners.len(),
        report.matches,
        report.tournaments,
        report.rounds,
        report.no_shows,
        pool.current_num_threads(),
    )?;
    for f in &report.findings {
        writeln!(out, "entry {}: {}", f.index, f.what)?;
    }
    if report.findings.is_empty() {
        writeln!(out, "ok: every tile, the root and every record check out")?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{} finding(s)", report.findings.len())?;
        Ok(ExitCode::from(1))
    }
}

/// `fogproof ledger check-promise` (docs/LEDGER.md, inclusion promises).
fn check_promise(
    file: &Path,
    policy: &Policy,
    log: Option<PathBuf>,
    server: Option<String>,
    record: Option<PathBuf>,
    out: &mut impl Write,
) -> Result<ExitCode> {
    use ledger::promise::{Promise, Verdict};
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let promise = match Promise::verify(&bytes, &policy.log) {
        Ok(p) => p,
        Err(e) => {
            writeln!(out, "{}: NOT A VALID PROMISE: {e}", file.display())?;
            return Ok(ExitCode::from(3));
        }
    };
    let hex = protocol::hex::encode;
    writeln!(
        out,
        "{}: log {} promised at {} ms to include match {} (record {}) by {} ms",
        file.display(),
        promise.origin,
        promise.promised_at_ms,
        hex(&promise.match_id),
        hex(&promise.record_sha256),
        promise.include_by_ms
    )?;
    if let Some(record) = record {
        let r =
            std::fs::read(&record).with_context(|| format!("cannot read {}", record.display()))?;
        if sha256(&r) != promise.record_sha256 {
            writeln!(out, "{}: NOT the record promised (SHA-256 differs)", record.display())?;
            return Ok(ExitCode::from(1));
        }
        writeln!(out, "{}: the record promised", record.display())?;
    }
    let verdict = match (log, server) {
        (Some(dir), _) => ledger::promise::check(&DirReader::new(dir), &promise, policy)?,
        (None, Some(url)) => ledger::promise::check(&HttpReader::new(&url)?, &promise, policy)?,
        (None, None) => bail!("give --log DIR or --server URL"),
    };
    let time = |t: Option<u64>| {
        t.map_or("no trusted time (no witness quorum)".to_string(), |t| {
            format!("witnessed at {t} ms")
        })
    };
    match verdict {
        Verdict::Kept { proof, trusted } => {
            let cp = &trusted.signed.checkpoint;
            writeln!(
                out,
                "KEPT: entry {} of checkpoint {} (size {}), inclusion proof verified, {} witness \
                 cosignature(s)",
                proof.index,
                cp.origin,
                cp.size,
                trusted.cosigners.len()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Pending { trusted, trusted_at_ms } => {
            let cp = &trusted.signed.checkpoint;
            writeln!(
                out,
                "PENDING: checkpoint {} (size {}, {}) does not hold the match yet; due by {} ms",
                cp.origin,
                cp.size,
                time(trusted_at_ms),
                promise.include_by_ms
            )?;
            if now_ms() > promise.include_by_ms {
                writeln!(
                    out,
                    "OVERDUE by this machine's clock; provable to others only with a checkpoint \
                     cosigned by the policy's witnesses after {} ms",
                    promise.include_by_ms
                )?;
            }
            Ok(ExitCode::from(2))
        }
        Verdict::Broken { trusted, trusted_at_ms, other_record } => {
            let cp = &trusted.signed.checkpoint;
            match other_record {
                Some((index, other)) => writeln!(
                    out,
                    "BROKEN: log operator {} logged match {} at entry {} with record {}, not the \
                     record promised",
                    promise.origin,
                    hex(&promise.match_id),
                    index,
                    hex(&other)
                )?,
                None => writeln!(
                    out,
                    "BROKEN: log operator {} promised match {} by {} ms; checkpoint size {} ({}) \
                     does not hold it",
                    promise.origin,
                    hex(&promise.match_id),
                    promise.include_by_ms,
                    cp.size,
                    time(trusted_at_ms)
                )?,
            }
            writeln!(out, "evidence: the promise file, this checkpoint, and the log's entries:")?;
            write!(out, "{}", trusted.signed.to_text())?;
            Ok(ExitCode::from(1))
        }
    }
}

/// A log served over HTTP at `<server>/ledger/` (C2SP tlog-tiles), read with bounded bodies.
struct HttpReader {
    base: String,
    client: reqwest::Client,
    runtime: tokio::runtime::Runtime,
}

impl HttpReader {
    fn new(server: &str) -> Result<HttpReader> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let client =
            reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build()?;
        Ok(HttpReader { base: server.trim_end_matches('/').to_string(), client, runtime })
    }
}

impl ledger::store::LogReader for HttpReader {
    fn read(&self, path: &str, max_bytes: usize) -> Result<Vec<u8>, ledger::store::ReadError> {
        use ledger::store::ReadError;
        let url = format!("{}/ledger/{path}", self.base);
        let io =
            |e: String| ReadError::Io { path: path.to_string(), source: std::io::Error::other(e) };
        self.runtime.block_on(async {
            let mut resp = self.client.get(&url).send().await.map_err(|e| io(e.to_string()))?;
            if resp.status() == reqwest::StatusCode::NOT_FOUND {
                return Err(ReadError::NotFound(path.to_string()));
            }
            if !resp.status().is_success() {
                return Err(io(format!("{url}: HTTP {}", resp.status())));
            }
            let mut body = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(|e| io(e.to_string()))? {
                body.extend_from_slice(&chunk);
                if body.len() > max_bytes {
                    return Err(ReadError::TooLarge { path: path.to_string(), max_bytes });
                }
            }
            Ok(body)
        })
    }
}
