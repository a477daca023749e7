//! An agent that crashes mid-match resumes from its journal: `fogproof bot` runs as a child
//! process, is killed with SIGKILL several times while it plays, and restarted with the same
//! key and directory. The match finishes with a valid record: the journal made every secret
//! and decision durable before anything depending on it was sent, so the rebuilt player writes
//! the very same messages again and never contradicts what it had signed.

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use protocol::challenge::ChallengeRequest;
use rules::Variant;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

mod common;

fn bot(server: &str, key: &Path, dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["bot", "--server", server, "--key"])
        .arg(key)
        .arg("--dir")
        .arg(dir)
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof bot starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_killed_mid_match_resumes_from_its_journal() {
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("agent-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let relay = Identity::from_seed(&[1; 32]);
    let umpire = Identity::from_seed(&[2; 32]);
    let mut config = server::Config::new(dir.join("server"), relay);
    config.default_umpire = Some(umpire.public());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let running = server::start(config, listener, Arc::new(server::clock::TokioClock::system()))
        .await
        .expect("server");
    let base = format!("http://{}", running.addr);
    let agent = |identity: Identity, name: &str, umpire: bool| AgentConfig {
        server_key: None,
        server: base.clone(),
        identity,
        name: Some(name.into()),
        dir: dir.join(name),
        umpire,
        accept: Accept::Nothing,
        variants: Vec::new(),
        decider: Arc::new(move |_| {
            if umpire {
                (Decider::None, None)
            } else {
                // Alice takes 60 ms over each decision, so the match outlasts the four kills
                // (about 2.8 s): at 20 ms a SIC game once ended after the first kill.
                common::unhurried(client::RandomBot::new([5; 32]), Duration::from_millis(60))
            }
        }),
    };
    let u = Agent::connect(agent(umpire, "umpire", true)).await.expect("umpire");
    let ur = u.clone();
    tokio::spawn(async move { ur.run().await });
    let alice =
        Agent::connect(agent(Identity::from_seed(&[3; 32]), "alice", false)).await.expect("alice");
    let ar = alice.clone();
    tokio::spawn(async move { ar.run().await });

    let bot_key = dir.join("bot.key");
    let bot_identity = Identity::from_seed(&[4; 32]);
    client::keyfile::write_new(&bot_key, &bot_identity, "bot").expect("key file");
    let bot_dir = dir.join("bot");
    let mut child = bot(&base, &bot_key, &bot_dir);
    tokio::time::sleep(Duration::from_millis(500)).await;
    alice
        .challenge(&ChallengeRequest::addressed(Variant::Sic, 600, 0, bot_identity.public()))
        .await
        .expect("challenge");
    let mut kills = 0;
    for pause_ms in [900u64, 400, 1_300, 150] {
        tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        if !alice.records().is_empty() {
            break;
        }
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        kills += 1;
        child = bot(&base, &bot_key, &bot_dir);
    }
    assert!(
        kills >= 2,
        "the bot was killed mid-match ({kills} times); alice's seat ended with {:?}",
        alice.records().into_values().next().map(|r| r.map(|rec| rec.len()))
    );
    let mut waited = 0;
    let record = loop {
        if let Some(r) = alice.records().into_values().next() {
            break r.expect("alice's seat ends with the record");
        }
        waited += 1;
        assert!(waited < 18_000, "no end within 180 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let verified = verifier::verify_match(&record);
    assert!(verified.verdict.is_valid(), "{:#?}", verified.verdict);
    // The bot's journal holds the match; once finished, nothing is left to resume.
    let journals: Vec<_> = std::fs::read_dir(&bot_dir)
        .expect("the bot's directory")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "journal"))
        .collect();
    assert_eq!(journals.len(), 1);
    child.kill().expect("kill");
    let _ = child.wait();
    running.shutdown().await.expect("shutdown");
    let _ = std::fs::remove_dir_all(&dir);
}
