//! `fogproof loadtest` end to end, small: it spawns its own `fogproof serve`, plays three
//! Kriegspiel matches for a short window, prints every line of its report, and drains (White
//! resigns, every match ends). No speed is asserted: only that messages flowed, that each
//! figure was measured, and that the matches were played without a refusal or an error.

use std::process::Command;

/// The number after `prefix` in `line`.
fn number_after(line: &str, prefix: &str) -> f64 {
    let rest = &line
        [line.find(prefix).unwrap_or_else(|| panic!("{prefix:?} in {line:?}")) + prefix.len()..];
    let digits: String =
        rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.parse().unwrap_or_else(|_| panic!("a number after {prefix:?} in {line:?}"))
}

/// Runs a small load test (three Kriegspiel matches, a 3 s window) with `extra` arguments;
/// returns its output, after checking that it succeeded.
fn small_loadtest(extra: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(extra)
        .args([
            "--spawn-server",
            "--matches",
            "3",
            "--variant",
            "kriegspiel",
            "--duration",
            "3",
            "--warmup",
            "0.5",
            "--move-interval-ms",
            "50",
            "--ramp",
            "10",
            "--drain",
            "60",
            "--bound-seconds",
            "0.2",
            "--seed",
            "7",
            "--local-addresses",
            "4",
        ])
        .output()
        .expect("fogproof runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    stdout
}

/// The line of `stdout` starting with `prefix`.
fn line<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{stdout}"))
}

/// The end every small run must reach: messages flowed in the window; every match that ended
/// (the three resigned ones, and any that ended by the rules before) has a valid verdict on
/// the server; White resigned in the three matches and each ended; nothing was refused or
/// failed.
fn assert_three_matches_played_and_ended_valid(stdout: &str) {
    let line = |prefix: &str| line(stdout, prefix);
    assert!(number_after(line("throughput:"), "(") > 0.0, "{stdout}");
    let ends = line("ends:").trim_start_matches("ends:").trim();
    assert!(ends.contains("resignation (valid)"), "{stdout}");
    assert!(ends.split(", ").all(|e| e.ends_with("(valid)")), "{stdout}");
    assert!(line("drain:").contains("3 matches; 3 ended"), "{stdout}");
    assert!(
        line("errors:").starts_with("errors: 0 (0 matches given up, 0 messages refused)"),
        "{stdout}"
    );
}

#[test]
fn loadtest_plays_matches_and_prints_its_report() {
    let stdout = small_loadtest(&["loadtest"]);
    let line = |prefix: &str| line(&stdout, prefix);
    // The bound was timed: a positive cost per message.
    assert!(number_after(line("signature bound:"), "verify + sign") > 0.0);
    // Timed again in bursts during the window, and the server's CPU compared with both.
    assert!(number_after(line("signature bound under load:"), "verify + sign") > 0.0);
    assert!(line("signature bound under load:").contains("bursts of 64 messages"), "{stdout}");
    assert!(line("server CPU:").contains("x under load)"), "{stdout}");
    assert!(line("ramp:").starts_with("ramp: 3 matches playing"), "{stdout}");
    // The server's runtime, one worker thread per core by default.
    assert!(number_after(line("server runtime:"), "runtime:") >= 1.0, "{stdout}");
    // Receipts came back to players.
    assert!(line("receipt latency (server").contains("p99 <="), "{stdout}");
    let players = line("receipt latency (players");
    assert!(number_after(players, "over") > 0.0, "{stdout}");
    assert!(line("storage:").contains("commits/s"), "{stdout}");
    // The spawned server's pid is known, so its CPU and memory were read from /proc.
    assert!(line("server CPU:").contains("cores ="), "{stdout}");
    assert!(line("server memory:").contains("KiB per match"), "{stdout}");
    assert!(line("per core of server CPU:").contains("of the one-core signature bound"));
    assert!(line("load generator CPU:").contains("cores"), "{stdout}");
    assert_three_matches_played_and_ended_valid(&stdout);
}

/// `--umpire-process`: the umpire runs as `fogproof umpire` beside `fogproof serve
/// --external-umpire`; the matches are umpired by it (they are played and end with valid
/// verdicts), and its CPU is reported apart from the server's, with the per-core figures.
#[test]
fn loadtest_with_the_umpire_in_its_own_process() {
    let stdout = small_loadtest(&["loadtest", "--umpire-process", "--server-threads", "3"]);
    // The server runs the worker threads asked for (as its runtime reports them).
    assert_eq!(line(&stdout, "server runtime:"), "server runtime: 3 tokio worker threads");
    let line = |prefix: &str| line(&stdout, prefix);
    assert!(line("server:").contains("the umpire in a process of its own, pid"), "{stdout}");
    assert!(line("per core of server CPU:").contains("of the one-core signature bound"));
    assert!(line("umpire process CPU:").contains("us per accepted message"), "{stdout}");
    // The umpire's own bound was timed, and its process's CPU compared with it.
    assert!(number_after(line("umpire bound:"), "signatures") > 0.0, "{stdout}");
    assert!(line("umpire bound:").contains("opens, seals and signatures"), "{stdout}");
    assert!(line("umpire process CPU:").contains("x its receipt checks"), "{stdout}");
    assert!(line("per core of server + umpire CPU:").contains("messages/s per core"));
    assert_three_matches_played_and_ended_valid(&stdout);
}

/// `--matches-per-pair`: one pair of keys plays several matches at once, each player's
/// matches over its one multiplexed socket (a bot's or a simul player's load); every match is
/// played and ends valid, with nothing refused.
#[test]
fn loadtest_with_one_pair_playing_three_matches_at_once() {
    let stdout = small_loadtest(&["loadtest", "--matches-per-pair", "3"]);
    let line = |prefix: &str| line(&stdout, prefix);
    assert!(line("players:").starts_with("players: 2 keys, 3 matches at once per pair"));
    assert!(line("ramp:").starts_with("ramp: 3 matches playing"), "{stdout}");
    assert_three_matches_played_and_ended_valid(&stdout);
}
