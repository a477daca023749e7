//! `fogproof verify FILE...`: verifies match records offline and prints a summary per record
//! (or one JSON object per record with `--json`). Exit status: 0 every record valid, 1 a fault
//! was found, 2 an input is unreadable (missing, or not a match record at all).

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rules::GameResult;
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use verifier::envelope::Description;
use verifier::{MatchRole, Verdict};

/// Arguments of `fogproof verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Match record files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per record (one per line) instead of the summary.
    #[arg(long)]
    json: bool,
    /// The files are evidence of relay equivocation (two receipts that cannot both be true,
    /// as `fogproof record evidence` writes), not records: exit 1 if one proves a relay
    /// fault, 2 if one proves nothing.
    #[arg(long)]
    evidence: bool,
    /// How many records to verify at once (default: one per core). Reports still come out in
    /// the order the files were given.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// A delivery notice (docs/PROTOCOL.md, delivery notices: what a delivery witness signed
    /// and the agent keeps beside its record). Repeatable. A notice that proves the relay timed
    /// a party out for a message it was offered in time makes the verdict "relay fault: dropped
    /// message".
    #[arg(long, value_name = "FILE")]
    notice: Vec<PathBuf>,
    /// A delivery witness the notices may be signed by: `ed25519:<hex>` or the witness's
    /// verifier key (`fogproof witness key`, as the host's witness policy at `/api/ledger`
    /// names it). Repeatable; notices by any other key prove nothing.
    #[arg(long, value_name = "KEY")]
    witness_key: Vec<String>,
}

/// The notices and the witness keys given.
struct Notices {
    files: Vec<(PathBuf, protocol::delivery::Delivered)>,
    keys: Vec<protocol::PublicKey>,
}

impl Notices {
    fn read(args: &VerifyArgs) -> Result<Notices, String> {
        use protocol::codec::Canonical;
        let mut files = Vec::new();
        for f in &args.notice {
            let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let d = protocol::delivery::Delivered::from_canonical(&bytes)
                .map_err(|e| format!("{}: not a delivery notice: {e}", f.display()))?;
            files.push((f.clone(), d));
        }
        let keys =
            args.witness_key.iter().map(|k| parse_witness_key(k)).collect::<Result<Vec<_>, _>>()?;
        if !files.is_empty() && keys.is_empty() {
            return Err("--notice needs --witness-key: the witnesses whose notices count".into());
        }
        Ok(Notices { files, keys })
    }
}

/// `ed25519:<hex>`, or a note verifier key (a witness's cosignature key).
pub fn parse_witness_key(text: &str) -> Result<protocol::PublicKey, String> {
    if let Ok(k) = text.parse::<protocol::PublicKey>() {
        return Ok(k);
    }
    ledger::note::VerifierKey::parse(text)
        .map(|v| protocol::PublicKey(v.public()))
        .map_err(|e| format!("witness key {text:?}: neither ed25519:<hex> nor a verifier key: {e}"))
}

/// What became of one file.
enum Report {
    /// The file could not be read, or is not a match record at all.
    Unreadable(String),
    /// The verifier's verdict, what the record says it is, and what each notice proved.
    Verified { description: Option<Description>, verdict: Verdict, notices: Vec<String> },
}

impl Report {
    fn status(&self) -> u8 {
        match self {
            Report::Unreadable(_) => 2,
            Report::Verified { verdict, .. } if verdict.is_valid() => 0,
            Report::Verified { .. } => 1,
        }
    }
}

fn report(path: &Path, notices: &Notices) -> Report {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Report::Unreadable(e.to_string()),
    };
    if let Some(why) = verifier::envelope::not_a_record(&bytes) {
        return Report::Unreadable(format!("not a fogproof match record: {why}"));
    }
    let description = verifier::envelope::describe(&bytes);
    if notices.files.is_empty() {
        return Report::Verified {
            description,
            verdict: verifier::verify(&bytes),
            notices: vec![],
        };
    }
    let given: Vec<_> = notices.files.iter().map(|(_, d)| d.clone()).collect();
    let judged = verifier::verify_with_notices(&bytes, &given, &notices.keys);
    let lines = notices
        .files
        .iter()
        .zip(&judged.findings)
        .map(|((f, _), finding)| match finding {
            verifier::NoticeFinding::ProvesDrop { entry } => format!(
                "{}: proves the relay dropped a message (its fault is at entry {entry})",
                f.display()
            ),
            verifier::NoticeFinding::ProvesNothing(why) => {
                format!("{}: proves nothing: {why}", f.display())
            }
        })
        .collect();
    Report::Verified { description, verdict: judged.verdict, notices: lines }
}

/// Runs `fogproof verify` and returns its exit status.
pub fn main(args: &VerifyArgs) -> ExitCode {
    if args.evidence {
        return evidence(args);
    }
    let notices = match Notices::read(args) {
        Ok(n) => n,
        Err(why) => {
            eprintln!("fogproof: {why}");
            return ExitCode::from(2);
        }
    };
    let notices = &notices;
    let bar = progress(args.files.len());
    let jobs = args.jobs.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism().map(std::num::NonZero::get).unwrap_or(1)
    });
    let jobs = jobs.min(args.files.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (done, reports) = std::sync::mpsc::channel::<(usize, Report)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let done = done.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = args.files.get(i) else { break };
                    if done.send((i, report(file, notices))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        write_in_order(args, &bar, reports)
    })
}

/// Prints each report as soon as every file before it is printed; the exit status.
fn write_in_order(
    args: &VerifyArgs,
    bar: &ProgressBar,
    reports: std::sync::mpsc::Receiver<(usize, Report)>,
) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut status = 0;
    let mut waiting = std::collections::BTreeMap::new();
    let mut printed = 0;
    for (i, r) in reports {
        waiting.insert(i, r);
        while let Some(r) = waiting.remove(&printed) {
            let file = &args.files[printed];
            bar.set_message(file.display().to_string());
            status = status.max(r.status());
            let written = if args.json {
                writeln!(out, "{}", to_json(file, &r))
            } else {
                write_summary(&mut out, file, &r)
            };
            if let Err(e) = written.and_then(|()| out.flush()) {
                bar.finish_and_clear();
                eprintln!("fogproof: cannot write the report: {e}");
                // The workers stop at their next file: the receiver is dropped on return.
                return ExitCode::from(2);
            }
            bar.inc(1);
            printed += 1;
        }
    }
    bar.finish_and_clear();
    ExitCode::from(status)
}

/// A progress bar on stderr, only for several files and only when stderr is a terminal.
fn progress(files: usize) -> ProgressBar {
    if files < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} records  {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

fn player_labels(d: &Description) -> [&'static str; 2] {
    if d.colors_known { ["white", "black"] } else { ["player 1", "player 2"] }
}

fn result_text(r: &GameResult) -> String {
    format!("{} {}", r.score(), r.reason.name())
}

fn role_name(role: MatchRole) -> &'static str {
    match role {
        MatchRole::White => "white",
        MatchRole::Black => "black",
        MatchRole::Umpire => "the umpire",
        MatchRole::Relay => "the relay",
        MatchRole::Record => "the record",
    }
}

fn write_summary(out: &mut impl Write, file: &Path, r: &Report) -> std::io::Result<()> {
    let name = file.display();
    let (description, verdict) = match r {
        Report::Unreadable(why) => return writeln!(out, "{name}: unreadable: {why}"),
        Report::Verified { description, verdict, .. } => (description, verdict),
    };
    match verdict {
        Verdict::Valid { .. } => writeln!(out, "{name}: valid")?,
        Verdict::Faults(f) if f.len() == 1 => writeln!(out, "{name}: 1 fault")?,
        Verdict::Faults(f) if f.is_empty() => writeln!(out, "{name}: not valid (no fault named)")?,
        Verdict::Faults(f) => writeln!(out, "{name}: {} faults", f.len())?,
    }
    if let Some(d) = description {
        writeln!(out, "  variant: {} ({})", d.variant, d.ruleset)?;
        let [w, b] = player_labels(d);
        writeln!(out, "  {w}: {}", d.colors.white.fingerprint())?;
        writeln!(out, "  {b}: {}", d.colors.black.fingerprint())?;
    }
    match verdict {
        Verdict::Valid { result } => writeln!(out, "  result: {}", result_text(result))?,
        Verdict::Faults(faults) => {
            for (n, f) in faults.iter().enumerate() {
                let culprit =
                    f.culprit.map(|k| format!(" {}", k.fingerprint())).unwrap_or_default();
                let kind = verifier::json::kind_name(f);
                let at = match (f.entry, f.message) {
                    (Some(e), Some(m)) => format!(" (entry {e}, message {})", &m.to_string()[..16]),
                    (Some(e), None) => format!(" (entry {e})"),
                    _ => String::new(),
                };
                writeln!(out, "  fault {}: {kind} by {}{culprit}{at}", n + 1, role_name(f.role))?;
                writeln!(out, "    {}", f.explanation)?;
                writeln!(out, "    evidence: {}", f.evidence)?;
            }
            let sanction = match verdict.sanctioned_result() {
                Some(r) => result_text(&r),
                None => "void".to_owned(),
            };
            writeln!(out, "  sanction: {sanction}")?;
        }
    }
    if let Report::Verified { notices, .. } = r {
        for n in notices {
            writeln!(out, "  notice {n}")?;
        }
    }
    Ok(())
}

fn to_json(file: &Path, r: &Report) -> Value {
    let name = file.display().to_string();
    let mut v = match r {
        Report::Unreadable(why) => {
            return json!({ "file": name, "status": "unreadable", "error": why });
        }
        Report::Verified { description, verdict, .. } => {
            verifier::json::described(verdict, description.as_ref())
        }
    };
    if let Value::Object(map) = &mut v {
        map.insert("file".into(), json!(name));
        if let Report::Verified { notices, .. } = r
            && !notices.is_empty()
        {
            map.insert("notices".into(), json!(notices));
        }
    }
    v
}

/// `fogproof verify --evidence FILE...`.
fn evidence(args: &VerifyArgs) -> ExitCode {
    let mut status = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for file in &args.files {
        let name = file.display().to_string();
        let judged = std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|b| verifier::evidence::judge(&b).map_err(|e| e.to_string()));
        let (code, line) = match &judged {
            Ok(f) if args.json => (
                1,
                json!({
                    "file": name,
                    "status": "relay-fault",
                    "relay": f.culprit.map(|k| k.to_string()),
                    "kind": verifier::json::kind_name(f),
                    "evidence": f.evidence,
                    "explanation": f.explanation,
                })
                .to_string(),
            ),
            Ok(f) => (
                1,
                format!(
                    "{name}: relay fault: {} by the relay {}\n    {}\n    evidence: {}",
                    verifier::json::kind_name(f),
                    f.culprit.map(|k| k.fingerprint()).unwrap_or_default(),
                    f.explanation,
                    f.evidence
                ),
            ),
            Err(why) if args.json => {
                (2, json!({ "file": name, "status": "proves-nothing", "error": why }).to_string())
            }
            Err(why) => (2, format!("{name}: proves nothing: {why}")),
        };
        status = status.max(code);
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(2);
        }
    }
    ExitCode::from(status)
}
