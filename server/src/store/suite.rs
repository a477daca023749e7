//! The storage test suite, run against every implementation of [`Store`]: SQLite always, and
//! PostgreSQL when `FOGPROOF_TEST_POSTGRES=postgres://...` names a server (each test on a fresh
//! database of its own; without the variable the PostgreSQL tests print SKIPPED and pass). CI
//! (`.ci/run`) starts a PostgreSQL server and sets the variable, so there they always run.

use super::postgres::{PostgresStore, fresh_database};
use super::sqlite::SqliteStore;
use super::*;

/// The variable naming the PostgreSQL server of the tests.
pub const POSTGRES_VAR: &str = "FOGPROOF_TEST_POSTGRES";

/// Where a test's store lives; [`Backend::open`] opens it (again).
enum Backend {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Backend {
    fn sqlite(name: &str) -> Backend {
        let d = std::env::temp_dir().join(format!("fogproof-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Backend::Sqlite(d)
    }

    /// A fresh database on the tests' PostgreSQL server; none (SKIPPED printed) without one.
    async fn postgres(name: &str) -> Option<Backend> {
        let Ok(url) = std::env::var(POSTGRES_VAR) else {
            println!("SKIPPED: {name} on PostgreSQL: {POSTGRES_VAR} is not set");
            return None;
        };
        let db = format!("fogproof_t{}_{name}", std::process::id());
        Some(Backend::Postgres(fresh_database(&url, &db).await.expect("a fresh database")))
    }

    async fn open(&self) -> Box<dyn Store> {
        match self {
            Backend::Sqlite(d) => Box::new(SqliteStore::open(d).await.expect("open")),
            Backend::Postgres(url) => Box::new(PostgresStore::open(url).await.expect("open")),
        }
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Backend::Sqlite(d) = self {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Each named test, once on SQLite and once on PostgreSQL.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $test() {
                    super::$test(super::Backend::sqlite(stringify!($test))).await
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $test() {
                    if let Some(b) = super::Backend::postgres(stringify!($test)).await {
                        super::$test(b).await
                    }
                }
            )*
        }
    };
}

on_both!(
    matches_and_entries_survive_a_reopen_and_a_gap_is_corruption,
    accounts_and_challenges_round_trip,
    finished_matches_and_ledger_marks_page_in_order,
    tournament_rows_round_trip_in_order,
    a_tournament_withdrawal_survives_a_reopen_until_the_player_joins_again,
    tournament_invitations_keep_their_seats_and_are_handed_and_ended_once,
    a_group_commit_stores_each_entry_under_its_own_match,
);

fn key_of(seed: u8) -> PublicKey {
    protocol::Identity::from_seed(&[seed; 32]).public()
}

pub(crate) fn live(id: MatchId, created_ms: u64) -> MatchRow {
    MatchRow {
        id,
        terms: vec![1, 2, 3, 0, 255],
        variant: "chess".into(),
        players: [key_of(1), key_of(2)],
        rated: true,
        challenge: Some("c1".into()),
        created_ms,
        status: MatchStatus::Live,
        finish: None,
    }
}

pub(crate) fn finish(at: u64) -> Finish {
    Finish {
        finished_ms: at,
        record_sha256: [at as u8; 32],
        verdict: "{\"valid\":true}".into(),
        result: "1-0".into(),
    }
}

async fn matches_and_entries_survive_a_reopen_and_a_gap_is_corruption(b: Backend) {
    let id = MatchId([7; 32]);
    let row = live(id, 5);
    let entry = |seq| EntryRow { match_id: id, seq, bytes: vec![seq as u8; 3] };
    {
        let s = b.open().await;
        s.create_match(&row, &[entry(0)]).await.unwrap();
        s.append_entries(&[entry(1), entry(2)]).await.unwrap();
        // A position taken twice is refused, and the batch with it stores nothing.
        assert!(s.append_entries(&[entry(3), entry(2)]).await.is_err());
        // A match created twice is refused, and its first entries with it.
        assert!(s.create_match(&row, &[]).await.is_err());
    }
    let s = b.open().await;
    assert_eq!(s.live_matches().await.unwrap(), vec![row.clone()]);
    assert_eq!(s.get_match(&id).await.unwrap(), Some(row.clone()));
    assert_eq!(s.get_match(&MatchId([8; 32])).await.unwrap(), None);
    assert_eq!(s.entries(&id).await.unwrap(), vec![vec![0; 3], vec![1; 3], vec![2; 3]]);
    // A batch longer than one INSERT statement is stored whole, in order.
    let many: Vec<EntryRow> = (3..600).map(entry).collect();
    s.append_entries(&many).await.unwrap();
    assert_eq!(s.entries(&id).await.unwrap().len(), 600);
    assert_eq!(s.entries(&id).await.unwrap()[599], vec![(599 % 256) as u8; 3]);
    let f = finish(9);
    s.finish_match(&id, &f).await.unwrap();
    let got = s.get_match(&id).await.unwrap().unwrap();
    assert_eq!(got.status, MatchStatus::Finished);
    assert_eq!(got.finish, Some(f));
    assert!(s.live_matches().await.unwrap().is_empty());
    s.append_entries(&[entry(601)]).await.unwrap();
    let e = s.entries(&id).await.unwrap_err();
    assert!(e.to_string().contains("entry 600 is missing"), "{e}");
}

/// A group commit of several matches' entries (and a new match's) stores each entry under its
/// own match, in order; a batch refused (a position taken twice) stores nothing and the next
/// one is stored; after a reopen the matches resume in one batch, a batch longer than one
/// INSERT included.
async fn a_group_commit_stores_each_entry_under_its_own_match(b: Backend) {
    let (m1, m2, m3) = (MatchId([1; 32]), MatchId([2; 32]), MatchId([3; 32]));
    let e = |id: MatchId, seq: u64| EntryRow { match_id: id, seq, bytes: vec![id.0[0], seq as u8] };
    let want = |id: MatchId, n: u64| (0..n).map(|seq| e(id, seq).bytes).collect::<Vec<_>>();
    {
        let s = b.open().await;
        s.create_match(&live(m1, 1), &[e(m1, 0)]).await.unwrap();
        s.create_match(&live(m2, 2), &[e(m2, 0)]).await.unwrap();
        s.write_batch(&[
            Write::Entries(vec![e(m1, 1), e(m2, 1), e(m1, 2)]),
            Write::Match(live(m3, 3), vec![e(m3, 0)]),
            Write::Entries(vec![e(m2, 2)]),
        ])
        .await
        .unwrap();
        // Refused whole: m1's position 3 is not stored either.
        let refused = Write::Entries(vec![e(m1, 3), e(m2, 2)]);
        assert!(s.write_batch(&[refused]).await.is_err());
        assert_eq!(s.entries(&m1).await.unwrap(), want(m1, 3));
        s.write_batch(&[Write::Entries(vec![e(m2, 3), e(m1, 3), e(m3, 1)])]).await.unwrap();
        assert_eq!(s.entries(&m1).await.unwrap(), want(m1, 4));
        assert_eq!(s.entries(&m2).await.unwrap(), want(m2, 4));
        assert_eq!(s.entries(&m3).await.unwrap(), want(m3, 2));
    }
    let s = b.open().await;
    let mut rows = Vec::new();
    for seq in 4..200 {
        rows.extend([e(m1, seq), e(m2, seq)]);
    }
    rows.push(e(m3, 2));
    s.write_batch(&[Write::Entries(rows)]).await.unwrap();
    assert_eq!(s.entries(&m1).await.unwrap(), want(m1, 200));
    assert_eq!(s.entries(&m2).await.unwrap(), want(m2, 200));
    assert_eq!(s.entries(&m3).await.unwrap(), want(m3, 3));
}

async fn accounts_and_challenges_round_trip(b: Backend) {
    let s = b.open().await;
    let k = key_of(3);
    assert_eq!(s.account(&k).await.unwrap(), None);
    s.put_account(&Account { key: k, name: "ann".into(), created_ms: 10 }).await.unwrap();
    // A rename keeps the first sign-in's time.
    s.put_account(&Account { key: k, name: "Ann ü".into(), created_ms: 99 }).await.unwrap();
    assert_eq!(
        s.account(&k).await.unwrap(),
        Some(Account { key: k, name: "Ann ü".into(), created_ms: 10 })
    );
    let c = |id: &str, status: &str, at| ChallengeRow {
        id: id.into(),
        challenger: k,
        status: status.into(),
        body: format!("{{\"id\":\"{id}\"}}"),
        created_ms: at,
    };
    s.put_challenge(&c("b", "open", 2)).await.unwrap();
    s.put_challenge(&c("a", "open", 2)).await.unwrap();
    s.put_challenge(&c("Z", "open", 1)).await.unwrap();
    s.put_challenge(&c("d", "open", 3)).await.unwrap();
    s.put_challenge(&c("d", "accepted", 3)).await.unwrap();
    let open: Vec<String> = s.open_challenges().await.unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(open, ["Z", "a", "b"]);
    assert_eq!(s.open_challenges().await.unwrap()[1], c("a", "open", 2));
}

async fn finished_matches_and_ledger_marks_page_in_order(b: Backend) {
    let s = b.open().await;
    for i in 1..=5u8 {
        let id = MatchId([i; 32]);
        s.create_match(&live(id, u64::from(i)), &[]).await.unwrap();
        if i != 3 {
            s.finish_match(&id, &finish(100 - u64::from(i))).await.unwrap();
        }
    }
    let ids = |rows: Vec<MatchRow>| rows.into_iter().map(|r| r.id.0[0]).collect::<Vec<_>>();
    // Newest first, at most `limit`.
    assert_eq!(ids(s.finished_matches(3).await.unwrap()), [1, 2, 4]);
    assert_eq!(ids(s.live_matches().await.unwrap()), [3]);
    // Oldest first.
    assert_eq!(ids(s.unledgered(10).await.unwrap()), [5, 4, 2, 1]);
    s.mark_ledgered(&[
        (MatchId([5; 32]), LedgerMark::Appended),
        (MatchId([2; 32]), LedgerMark::Refused("too big".into())),
        (MatchId([4; 32]), LedgerMark::Appended),
        (MatchId([1; 32]), LedgerMark::Appended),
    ])
    .await
    .unwrap();
    assert!(s.unledgered(10).await.unwrap().is_empty());
    let after = |v: Vec<MatchId>| v.into_iter().map(|m| m.0[0]).collect::<Vec<_>>();
    assert_eq!(after(s.appended_after(None, 2).await.unwrap()), [1, 4]);
    assert_eq!(after(s.appended_after(Some(&MatchId([4; 32])), 2).await.unwrap()), [5]);
    s.unmark_ledgered(&[MatchId([4; 32]), MatchId([2; 32])]).await.unwrap();
    assert_eq!(ids(s.unledgered(10).await.unwrap()), [4, 2]);
    assert_eq!(after(s.appended_after(None, 10).await.unwrap()), [1, 5]);
}

async fn tournament_rows_round_trip_in_order(b: Backend) {
    let s = b.open().await;
    let t = [9; 32];
    for (m, round) in [(3u8, 1u32), (1, 1), (2, 2)] {
        let row = TournamentGameRow { match_id: MatchId([m; 32]), tournament: t, round };
        s.put_tournament_game(&row).await.unwrap();
        // Idempotent.
        s.put_tournament_game(&row).await.unwrap();
    }
    let round1: Vec<u8> =
        s.tournament_games(&t, 1).await.unwrap().into_iter().map(|r| r.match_id.0[0]).collect();
    assert_eq!(round1, [1, 3]);
    assert_eq!(
        s.tournament_game(&MatchId([2; 32])).await.unwrap(),
        Some(TournamentGameRow { match_id: MatchId([2; 32]), tournament: t, round: 2 })
    );
    assert_eq!(s.tournament_game(&MatchId([4; 32])).await.unwrap(), None);
    let keys: Vec<PublicKey> = (10..16).map(key_of).collect();
    for (i, k) in keys.iter().enumerate() {
        // Two joins at each instant: the key's text breaks the tie, bytewise.
        s.join_tournament(&t, k, (i / 2) as u64).await.unwrap();
        s.join_tournament(&t, k, 1_000).await.unwrap();
    }
    let mut expected = keys.clone();
    expected.sort_by(|a, b| {
        let i = keys.iter().position(|k| k == a).unwrap() / 2;
        let j = keys.iter().position(|k| k == b).unwrap() / 2;
        (i, a.to_string()).cmp(&(j, b.to_string()))
    });
    assert_eq!(s.tournament_joins(&t).await.unwrap(), expected);
    assert!(s.tournament_joins(&[8; 32]).await.unwrap().is_empty());
}

async fn a_tournament_withdrawal_survives_a_reopen_until_the_player_joins_again(b: Backend) {
    let (t, other) = ([7; 32], [6; 32]);
    let (a, c) = (key_of(20), key_of(21));
    {
        let s = b.open().await;
        s.join_tournament(&t, &a, 1).await.unwrap();
        s.join_tournament(&t, &c, 2).await.unwrap();
        s.join_tournament(&other, &a, 3).await.unwrap();
        s.withdraw_tournament(&t, &a).await.unwrap();
        // Idempotent, and one who never joined withdraws from nothing.
        s.withdraw_tournament(&t, &a).await.unwrap();
        s.withdraw_tournament(&t, &key_of(22)).await.unwrap();
        assert_eq!(s.tournament_joins(&t).await.unwrap(), [c]);
    }
    // A restart keeps it; the other tournament is untouched.
    let s = b.open().await;
    assert_eq!(s.tournament_joins(&t).await.unwrap(), [c]);
    assert_eq!(s.tournament_joins(&other).await.unwrap(), [a]);
    s.join_tournament(&t, &a, 4).await.unwrap();
    assert_eq!(s.tournament_joins(&t).await.unwrap(), [c, a]);
}

fn invitation(id: &str, t: [u8; 32], round: u32, white: u8, black: u8) -> InvitationRow {
    InvitationRow {
        id: id.into(),
        tournament: t,
        round,
        white: key_of(white),
        black: key_of(black),
        deadline_ms: 10_000,
        challenge: format!("{{\"id\":\"{id}\"}}"),
        white_seat: None,
        black_seat: None,
        handed: false,
    }
}

async fn tournament_invitations_keep_their_seats_and_are_handed_and_ended_once(b: Backend) {
    let (t, other) = ([5; 32], [4; 32]);
    let (w, bl) = (key_of(30), key_of(31));
    {
        let s = b.open().await;
        let g = invitation("g1", t, 1, 30, 31);
        assert!(s.put_invitation(&g).await.unwrap());
        // One invitation per pairing, whoever invites (a new leader's runner too).
        assert!(!s.put_invitation(&invitation("g1-again", t, 1, 30, 31)).await.unwrap());
        assert!(!s.put_invitation(&g).await.unwrap());
        assert!(s.put_invitation(&invitation("g0", t, 1, 32, 33)).await.unwrap());
        assert!(s.put_invitation(&invitation("g2", t, 2, 30, 31)).await.unwrap());
        assert!(s.put_invitation(&invitation("h1", other, 1, 31, 30)).await.unwrap());
        assert_eq!(s.invitation("g1").await.unwrap(), Some(g.clone()));
        assert_eq!(s.invitation("g1-again").await.unwrap(), None);
        let ids = |rows: Vec<InvitationRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(s.invitations(&t).await.unwrap()), ["g0", "g1", "g2"]);
        // By tournament (the id's text: 0404… before 0505…), round and id.
        assert_eq!(ids(s.invitations_for(&bl).await.unwrap()), ["h1", "g1", "g2"]);

        // A seat: only a player's, only before the deadline; a seat brought again replaces it.
        assert_eq!(s.seat_invitation("g1", &key_of(32), "{}", 1).await.unwrap(), None);
        assert_eq!(s.seat_invitation("g1", &w, "{\"w\":1}", 10_000).await.unwrap(), None);
        assert_eq!(s.seat_invitation("nope", &w, "{}", 1).await.unwrap(), None);
        let after = s.seat_invitation("g1", &w, "{\"w\":1}", 1).await.unwrap().expect("seated");
        assert_eq!(
            (after.white_seat.as_deref(), after.black_seat.as_deref()),
            (Some("{\"w\":1}"), None)
        );
        assert!(!s.hand_invitation("g1").await.unwrap(), "one seat: not handed");
        let after = s.seat_invitation("g1", &w, "{\"w\":2}", 2).await.unwrap().expect("seated");
        assert_eq!(after.seat_of(&w), Some("{\"w\":2}"));
        let after = s.seat_invitation("g1", &bl, "{\"b\":1}", 3).await.unwrap().expect("seated");
        assert_eq!((after.seat_of(&w), after.seat_of(&bl)), (Some("{\"w\":2}"), Some("{\"b\":1}")));
        assert!(!after.handed);
        // Handed once; then no seat changes it and the deadline's end leaves it.
        assert!(s.hand_invitation("g1").await.unwrap());
        assert!(!s.hand_invitation("g1").await.unwrap());
        assert_eq!(s.seat_invitation("g1", &bl, "{\"b\":2}", 4).await.unwrap(), None);
        assert_eq!(s.end_invitation("g1").await.unwrap(), None, "handed: not ended");

        // The other game: White showed, Black did not; ended at the deadline with the seats
        // as they were, once; a seat after it finds nothing.
        s.seat_invitation("g2", &w, "{\"w\":3}", 5).await.unwrap().expect("seated");
        s.request_tournament_start(&t).await.unwrap();
        s.request_tournament_start(&t).await.unwrap();
    }
    // A restart (or another node) finds all of it.
    let s = b.open().await;
    assert!(s.tournament_start_requested(&t).await.unwrap());
    assert!(!s.tournament_start_requested(&other).await.unwrap());
    let g1 = s.invitation("g1").await.unwrap().expect("kept");
    assert!(g1.handed && g1.seat_of(&bl) == Some("{\"b\":1}"), "{g1:?}");
    let ended = s.end_invitation("g2").await.unwrap().expect("ended");
    assert_eq!((ended.seat_of(&w), ended.seat_of(&bl)), (Some("{\"w\":3}"), None));
    assert_eq!(s.end_invitation("g2").await.unwrap(), None, "once");
    assert_eq!(s.seat_invitation("g2", &bl, "{}", 6).await.unwrap(), None);
    let removed = s.remove_invitation("g1").await.unwrap().expect("removed");
    assert!(removed.handed);
    assert_eq!(s.remove_invitation("g1").await.unwrap(), None);
    // The pairing may be invited again once its invitation is gone.
    assert!(s.put_invitation(&invitation("g1-next", t, 1, 30, 31)).await.unwrap());
    assert_eq!(s.invitations(&t).await.unwrap().len(), 2);
}

/// PostgreSQL only: a tournament game's terms are handed once, with its invitation, and have
/// no deadline of their own (no sweep cancels them); the runner withdraws them at the
/// invitation's deadline unless the last signature claimed them first, never both.
#[tokio::test]
async fn postgres_cluster_tournament_terms_are_handed_once_and_withdrawn_unless_claimed() {
    let Some(url) = postgres_url("tterms").await else { return };
    let a = PostgresStore::open_node(&url, "http://a", 60_000).await.unwrap();
    let b = PostgresStore::open_node(&url, "http://b", 60_000).await.unwrap();
    let t = [3; 32];
    for id in ["x", "y"] {
        let row = invitation(id, t, 1, if id == "x" { 40 } else { 42 }, 41);
        assert!(a.put_invitation(&row).await.unwrap());
        assert!(!a.hand_tournament_terms(id, "{}").await.unwrap(), "no seat yet");
        a.seat_invitation(id, &row.white, "{}", 1).await.unwrap().expect("seated");
        b.seat_invitation(id, &row.black, "{}", 1).await.unwrap().expect("seated");
        // Two nodes handing at once: one does.
        assert!(a.hand_tournament_terms(id, "{\"n\":1}").await.unwrap());
        assert!(!b.hand_tournament_terms(id, "{\"n\":2}").await.unwrap());
        assert!(b.invitation(id).await.unwrap().expect("kept").handed);
        assert_eq!(b.pending(id).await.unwrap().expect("stored").body, "{\"n\":1}");
    }
    // (Any time this side of the year 30,000.)
    let late = 1_000_000_000_000_000;
    assert!(b.expire_pending(late, late).await.unwrap().is_empty(), "no deadline");
    // "x": withdrawn at the deadline (its signatures as they were), then not claimable.
    let v = a.pending("x").await.unwrap().expect("stored").version;
    assert_eq!(b.withdraw_pending("x").await.unwrap().expect("withdrawn").body, "{\"n\":1}");
    assert!(!a.claim_signed("x", v, "{}", 9_000).await.unwrap());
    assert!(b.withdraw_pending("x").await.unwrap().is_none());
    // "y": claimed by the last signature first, then not withdrawn.
    let v = a.pending("y").await.unwrap().expect("stored").version;
    assert!(a.claim_signed("y", v, "{\"all\":1}", 9_000).await.unwrap());
    assert!(b.withdraw_pending("y").await.unwrap().is_none());
    assert!(b.pending("y").await.unwrap().expect("kept").signed);
}

/// A fresh database on the tests' PostgreSQL server (none, SKIPPED printed, without one).
pub(crate) async fn postgres_url(name: &str) -> Option<String> {
    match &Backend::postgres(name).await? {
        Backend::Postgres(url) => Some(url.clone()),
        Backend::Sqlite(_) => None,
    }
}

/// PostgreSQL only: one server owns a database; one whose lock was lost and whose database
/// another server took stores nothing more (so it can send no receipt the new owner lacks).
#[tokio::test]
async fn postgres_one_owner_and_a_deposed_owner_is_fenced() {
    let Some(url) = postgres_url("owner").await else { return };
    // Its keeper does not wake during the test: B takes the lock A's connection lost.
    let a = PostgresStore::open_with(&url, 600_000).await.expect("the first opens");
    let id = MatchId([1; 32]);
    a.create_match(&live(id, 1), &[EntryRow { match_id: id, seq: 0, bytes: vec![0] }])
        .await
        .unwrap();
    let refused = PostgresStore::open(&url).await.expect_err("a second is refused");
    assert!(refused.to_string().contains("in use by another fogproof server"), "{refused}");
    assert!(refused.to_string().contains(&format!("pid {}", std::process::id())), "{refused}");
    // Cut A's lock connection, as a partition or a dead machine would; B takes the database.
    let mut admin = PgConnection::connect(&url).await.unwrap();
    let ended: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(a.lock_backend_pid())
        .fetch_one(&mut admin)
        .await
        .unwrap();
    assert!(ended);
    let b = PostgresStore::open(&url).await.expect("the second takes over");
    assert_eq!(b.epoch(), a.epoch() + 1);
    // A, which does not know yet, can commit nothing: its receipts cannot leave.
    let e = a.append_entries(&[EntryRow { match_id: id, seq: 1, bytes: vec![1] }]).await;
    let e = e.expect_err("the deposed owner is fenced");
    assert!(e.to_string().contains("no longer owns the database"), "{e}");
    assert!(a.deposed());
    assert!(
        a.put_challenge(&ChallengeRow {
            id: "x".into(),
            challenger: key_of(1),
            status: "open".into(),
            body: "{}".into(),
            created_ms: 1,
        })
        .await
        .is_err()
    );
    // B carries on from what was committed.
    b.append_entries(&[EntryRow { match_id: id, seq: 1, bytes: vec![11] }]).await.unwrap();
    assert_eq!(b.entries(&id).await.unwrap(), vec![vec![0], vec![11]]);
    assert!(b.open_challenges().await.unwrap().is_empty());
}

/// PostgreSQL only: a lost lock connection with no other server about is taken again, so a
/// second server is still refused and the owner still writes.
#[tokio::test]
async fn postgres_a_lost_lock_connection_is_taken_again() {
    let Some(url) = postgres_url("relock").await else { return };
    let a = PostgresStore::open(&url).await.expect("opens");
    let first = a.lock_backend_pid();
    let mut admin = PgConnection::connect(&url).await.unwrap();
    sqlx::query("SELECT pg_terminate_backend($1)").bind(first).execute(&mut admin).await.unwrap();
    let mut waited = 0;
    while a.lock_backend_pid() == first {
        waited += 1;
        assert!(waited < 200, "the lock was not taken again within 20 s");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let refused = PostgresStore::open(&url).await.expect_err("still owned");
    assert!(refused.to_string().contains("in use"), "{refused}");
    let id = MatchId([2; 32]);
    a.create_match(&live(id, 1), &[]).await.expect("the owner still writes");
    assert!(!a.deposed());
}

use sqlx::Connection as _;
use sqlx::postgres::PgConnection;

pub(crate) fn entry(id: MatchId, seq: u64, byte: u8) -> EntryRow {
    EntryRow { match_id: id, seq, bytes: vec![byte] }
}

/// Makes `id`'s lease expired on the database's clock.
pub(crate) async fn expire(admin: &mut PgConnection, id: &MatchId) {
    sqlx::query(
        "UPDATE match_leases SET expires_at = now() - interval '1 second' WHERE match_id = $1",
    )
    .bind(super::sqlite::id_text(id))
    .execute(&mut *admin)
    .await
    .unwrap();
}

/// PostgreSQL only: a node's own monotonic deadline stops its commits for a match before the
/// lease expires on the database even when no renewal gets through; a renewal moves it. A
/// live match with no lease (stored before the cluster) is taken by a node, at epoch 1.
#[tokio::test]
async fn postgres_cluster_a_node_stops_at_its_own_deadline_and_takes_unleased_matches() {
    let Some(url) = postgres_url("deadline").await else { return };
    let a = PostgresStore::open_node(&url, "http://a", 500).await.unwrap();
    let la = a.leases().unwrap();
    let m = MatchId([3; 32]);
    a.create_match(&live(m, 1), &[entry(m, 0, 0)]).await.unwrap();
    a.append_entries(&[entry(m, 1, 1)]).await.expect("within the lease");
    tokio::time::sleep(std::time::Duration::from_millis(450)).await;
    // 450 ms of a 500 ms lease: past the local deadline (400 ms), while the row lives on.
    let e = a.append_entries(&[entry(m, 2, 2)]).await.expect_err("past the local deadline");
    assert!(e.to_string().contains("local deadline"), "{e}");
    assert!(la.renew(a.pool(), &|_| true).await.unwrap().is_empty());
    a.append_entries(&[entry(m, 2, 2)]).await.expect("renewed");

    let mut admin = PgConnection::connect(&url).await.unwrap();
    sqlx::query("DELETE FROM match_leases").execute(&mut admin).await.unwrap();
    let b = PostgresStore::open_node(&url, "http://b", 500).await.unwrap();
    assert_eq!(b.leases().unwrap().take_expired(b.pool(), 10).await.unwrap(), [m]);
    b.append_entries(&[entry(m, 3, 3)]).await.expect("B holds it");
    assert_eq!(b.entries(&m).await.unwrap().len(), 4);
}

#[tokio::test]
async fn postgres_cluster_one_ledger_leader_and_the_next_takes_over_after_expiry() {
    let Some(url) = postgres_url("leader").await else { return };
    let a = PostgresStore::open_node(&url, "http://a", 500).await.unwrap();
    let b = PostgresStore::open_node(&url, "http://b", 500).await.unwrap();
    let (la, lb) = (a.leases().unwrap(), b.leases().unwrap());
    let (epoch, _) = la.lead(a.pool(), "ledger").await.unwrap().expect("the first leads");
    assert_eq!(epoch, 1);
    assert!(lb.lead(b.pool(), "ledger").await.unwrap().is_none(), "one leader while it renews");
    assert_eq!(la.lead(a.pool(), "ledger").await.unwrap().map(|l| l.0), Some(1), "renewed");
    assert!(lb.lead(b.pool(), "another role").await.unwrap().is_some(), "roles apart");
    // A stops renewing: B takes the lead once the lease expired on the database's clock.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let (epoch, _) = lb.lead(b.pool(), "ledger").await.unwrap().expect("taken after expiry");
    assert_eq!(epoch, 2, "the epoch is raised");
    assert!(la.lead(a.pool(), "ledger").await.unwrap().is_none(), "A finds it taken");
}

#[tokio::test]
async fn postgres_cluster_signed_terms_stay_until_dropped_and_a_sweep_claims_them_again() {
    let Some(url) = postgres_url("claim").await else { return };
    let a = PostgresStore::open_node(&url, "http://a", 60_000).await.unwrap();
    let b = PostgresStore::open_node(&url, "http://b", 60_000).await.unwrap();
    a.put_pending("signed", "{}", 1_000).await.unwrap();
    a.put_pending("unsigned", "{}", 1_000).await.unwrap();
    let v = a.pending("signed").await.unwrap().expect("stored").version;
    // Of two nodes claiming at one version, one wins; the row stays, marked.
    assert!(a.claim_signed("signed", v, "{\"all\":1}", 1_500).await.unwrap());
    assert!(!b.claim_signed("signed", v, "{\"all\":2}", 1_500).await.unwrap());
    let row = b.pending("signed").await.unwrap().expect("kept until the match is stored");
    assert!(row.signed && row.body == "{\"all\":1}", "{row:?}");
    assert!(!b.update_pending("signed", row.version, "{}").await.unwrap(), "signed: no writes");
    assert!(!b.claim_signed("signed", row.version, "{}", 1_500).await.unwrap(), "claimed once");
    // Before the claim's grace: only the unsigned terms expire (deleted, to cancel).
    let swept = b.expire_pending(1_200, 9_000).await.unwrap();
    assert_eq!(swept.len(), 1);
    assert!(!swept[0].signed);
    assert!(b.pending("unsigned").await.unwrap().is_none());
    // Past it: the signed terms are claimed again (kept, to start), by one sweep only.
    let swept = b.expire_pending(1_600, 9_000).await.unwrap();
    assert_eq!(swept.len(), 1);
    assert!(swept[0].signed && swept[0].body == "{\"all\":1}");
    assert!(a.expire_pending(1_700, 9_000).await.unwrap().is_empty(), "held until 9,000");
    assert!(b.pending("signed").await.unwrap().is_some());
    b.drop_pending("signed").await.unwrap();
    assert!(a.pending("signed").await.unwrap().is_none());
}

/// The entries' rows of `dir`'s SQLite file before its schema version 1, written as the
/// binary before it wrote them (keyed by the match id's text): `entries` and the other tables.
async fn write_text_keyed_sqlite(dir: &std::path::Path, rows: &[(MatchRow, Vec<EntryRow>)]) {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode};
    std::fs::create_dir_all(dir).unwrap();
    let options = SqliteConnectOptions::new()
        .filename(dir.join("fogproof.sqlite"))
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal);
    let mut c = SqliteConnection::connect_with(&options).await.unwrap();
    for statement in super::sqlite::SCHEMA.iter().chain([&super::sqlite::ENTRIES_BY_TEXT_ID]) {
        sqlx::query(*statement).execute(&mut c).await.unwrap();
    }
    for (row, _) in rows {
        super::sqlite::insert_match_row(&mut c, row).await.unwrap();
    }
    // The matches' entries interleaved, as group commits stored them.
    let longest = rows.iter().map(|(_, e)| e.len()).max().unwrap_or(0);
    for i in 0..longest {
        for e in rows.iter().filter_map(|(_, e)| e.get(i)) {
            sqlx::query("INSERT INTO entries (match_id, seq, entry) VALUES (?, ?, ?)")
                .bind(super::sqlite::id_text(&e.match_id))
                .bind(e.seq as i64)
                .bind(e.bytes.clone())
                .execute(&mut c)
                .await
                .unwrap();
        }
    }
    c.close().await.unwrap();
}

/// SQLite only: a data directory written before schema version 1 (its entries keyed by the
/// match id's text, as the binary before it wrote them) opens with every match and every
/// entry, resumes where it stopped (a position stored before is still taken), and is migrated
/// once: the old table is gone and the file is marked version 1. A file of a later version is
/// refused.
#[tokio::test]
async fn sqlite_a_text_keyed_file_is_migrated_at_open_and_resumes() {
    use sqlx::sqlite::SqliteConnection;
    let b = Backend::sqlite("migrate_text_keyed");
    let Backend::Sqlite(dir) = &b else { unreachable!("a SQLite backend") };
    let (m1, m2, m3) = (MatchId([1; 32]), MatchId([0xfe; 32]), MatchId([7; 32]));
    let mut finished = live(m3, 4);
    finished.status = MatchStatus::Finished;
    let old = vec![
        (live(m1, 5), (0..40).map(|i| entry(m1, i, i as u8)).collect::<Vec<_>>()),
        (live(m2, 6), (0..3).map(|i| entry(m2, i, 100 + i as u8)).collect()),
        (finished, vec![entry(m3, 0, 200), entry(m3, 1, 201)]),
    ];
    write_text_keyed_sqlite(dir, &old).await;
    let bytes = |rows: &[EntryRow]| rows.iter().map(|e| e.bytes.clone()).collect::<Vec<_>>();
    {
        let s = b.open().await;
        assert_eq!(s.live_matches().await.unwrap(), vec![old[0].0.clone(), old[1].0.clone()]);
        for (row, entries) in &old {
            assert_eq!(s.get_match(&row.id).await.unwrap().as_ref(), Some(row));
            assert_eq!(s.entries(&row.id).await.unwrap(), bytes(entries));
        }
        // It resumes: the next positions are stored, a position stored before is taken.
        s.append_entries(&[entry(m1, 40, 40), entry(m2, 3, 103)]).await.unwrap();
        assert!(s.append_entries(&[entry(m2, 4, 104), entry(m1, 39, 9)]).await.is_err());
        // A new match after the migration gets a number of its own.
        let m4 = MatchId([4; 32]);
        s.create_match(&live(m4, 9), &[entry(m4, 0, 1)]).await.unwrap();
        assert_eq!(s.entries(&m4).await.unwrap(), vec![vec![1]]);
    }
    // Opened again: nothing migrated twice, nothing lost.
    let s = b.open().await;
    assert_eq!(s.entries(&m1).await.unwrap().len(), 41);
    assert_eq!(s.entries(&m2).await.unwrap(), vec![vec![100], vec![101], vec![102], vec![103]]);
    assert_eq!(s.entries(&m3).await.unwrap(), bytes(&old[2].1));
    drop(s);
    let url = format!("sqlite://{}", dir.join("fogproof.sqlite").display());
    let mut c = SqliteConnection::connect(&url).await.unwrap();
    let version: i64 = sqlx::query_scalar("PRAGMA user_version").fetch_one(&mut c).await.unwrap();
    assert_eq!(version, 1);
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%entries'",
    )
    .fetch_all(&mut c)
    .await
    .unwrap();
    assert_eq!(tables, vec!["match_entries".to_string()]);
    // A later version (a newer fogproof's file) is refused, not misread.
    sqlx::query("PRAGMA user_version = 2").execute(&mut c).await.unwrap();
    c.close().await.unwrap();
    let e = SqliteStore::open(dir).await.expect_err("a newer schema");
    assert!(e.to_string().contains("schema version 2"), "{e}");
}

/// SQLite only: a match keeps its number: appended to again after a reopen (its number no
/// longer in memory), and after its number was forgotten when it finished, its entries are all
/// under the number it was given first, and no match is numbered twice.
#[tokio::test]
async fn sqlite_a_resumed_match_appends_under_its_old_number() {
    use sqlx::sqlite::SqliteConnection;
    let b = Backend::sqlite("resumed_number");
    let Backend::Sqlite(dir) = &b else { unreachable!("a SQLite backend") };
    let (m1, m2) = (MatchId([1; 32]), MatchId([2; 32]));
    {
        let s = b.open().await;
        s.create_match(&live(m1, 1), &[entry(m1, 0, 0)]).await.unwrap();
        s.append_entries(&[entry(m1, 1, 1)]).await.unwrap();
    }
    {
        let s = b.open().await;
        s.create_match(&live(m2, 2), &[entry(m2, 0, 10)]).await.unwrap();
        s.append_entries(&[entry(m2, 1, 11), entry(m1, 2, 2)]).await.unwrap();
        s.finish_match(&m1, &finish(3)).await.unwrap();
        s.append_entries(&[entry(m1, 3, 3), entry(m2, 2, 12)]).await.unwrap();
        assert_eq!(s.entries(&m1).await.unwrap(), vec![vec![0], vec![1], vec![2], vec![3]]);
        assert_eq!(s.entries(&m2).await.unwrap(), vec![vec![10], vec![11], vec![12]]);
    }
    let url = format!("sqlite://{}", dir.join("fogproof.sqlite").display());
    let mut c = SqliteConnection::connect(&url).await.unwrap();
    let numbered: Vec<(String, i64)> =
        sqlx::query_as("SELECT id, no FROM match_numbers ORDER BY no")
            .fetch_all(&mut c)
            .await
            .unwrap();
    assert_eq!(numbered.len(), 2, "{numbered:?}");
    assert_eq!(numbered[0].0, super::sqlite::id_text(&m1));
    assert_eq!(numbered[1].0, super::sqlite::id_text(&m2));
    let under: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT match_no, count(*) FROM match_entries GROUP BY match_no ORDER BY match_no",
    )
    .fetch_all(&mut c)
    .await
    .unwrap();
    assert_eq!(under, vec![(numbered[0].1, 4), (numbered[1].1, 3)]);
    c.close().await.unwrap();
}
