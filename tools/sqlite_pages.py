#!/usr/bin/env python3
"""WAL frames per group commit of the entries table in several schemas (docs/LOADTEST.md,
"SQLite's share"). Writes scratch databases under /tmp/sqlite-pages/; deterministic match choice (seed 1)."""
import sqlite3, os, random, time, sys
os.makedirs("/tmp/sqlite-pages", exist_ok=True)
def run(name, schema, key_of, page=4096, rows_per_commit=35, entry=250, commits=1500, wr=False):
    path=f"/tmp/sqlite-pages/sim-{name}.db"
    for s in ("","-wal","-shm"):
        try: os.remove(path+s)
        except FileNotFoundError: pass
    c=sqlite3.connect(path, isolation_level=None)
    c.execute(f"PRAGMA page_size={page}")
    c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA synchronous=FULL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    c.execute("CREATE TABLE matches (id TEXT PRIMARY KEY, n INTEGER)")
    c.execute(schema)
    rnd=random.Random(1)
    live={}; nextm=[0]
    def newm():
        nextm[0]+=1; mid=os.urandom(32); live[mid]=0
        c.execute("INSERT INTO matches VALUES (?,?)",(mid.hex(),nextm[0])); return mid
    for _ in range(100): newm()
    nums={}
    for mid in live: nums[mid]=c.execute("SELECT rowid FROM matches WHERE id=?",(mid.hex(),)).fetchone()[0]
    frames=0; t0=time.process_time()
    walsz=lambda: os.path.getsize(path+"-wal") if os.path.exists(path+"-wal") else 0
    for i in range(commits):
        ms=list(live)
        batch=[]
        for _ in range(rows_per_commit):
            m=rnd.choice(ms); batch.append((key_of(m,nums[m]), live[m], os.urandom(entry))); live[m]+=1
        before=walsz()
        c.execute("BEGIN")
        c.executemany("INSERT INTO entries VALUES (?,?,?)", batch)
        c.execute("COMMIT")
        frames+=(walsz()-before)//(page+24)
        for m in ms:
            if live[m]>=300:
                del live[m]; n=newm(); nums[n]=c.execute("SELECT rowid FROM matches WHERE id=?",(n.hex(),)).fetchone()[0]
        if i%200==199: c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    t=time.process_time()-t0
    print(f"{name:28s} page {page}: {frames/commits:5.1f} WAL frames/commit = {frames/commits*page/1024:6.1f} KiB; cpu {t/commits*1e6/rows_per_commit:5.1f} us/entry; db {os.path.getsize(path)//1024} KiB")
T="CREATE TABLE entries (match_id TEXT NOT NULL, seq BIGINT NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (match_id, seq))"
B="CREATE TABLE entries (match_id BLOB NOT NULL, seq BIGINT NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (match_id, seq))"
I="CREATE TABLE entries (match_no INTEGER NOT NULL, seq BIGINT NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (match_no, seq))"
hexk=lambda m,n: m.hex(); blobk=lambda m,n: m; intk=lambda m,n: n
for page in (4096,):
    run("text rowid(current)", T, hexk, page)
    run("text without rowid", T+" WITHOUT ROWID", hexk, page)
    run("blob rowid", B, blobk, page)
    run("blob without rowid", B+" WITHOUT ROWID", blobk, page)
    run("int rowid", I, intk, page)
    run("int without rowid", I+" WITHOUT ROWID", intk, page)
for page in (1024,2048,8192):
    run("text rowid(current)", T, hexk, page)
    run("text without rowid", T+" WITHOUT ROWID", hexk, page)
    run("int without rowid", I+" WITHOUT ROWID", intk, page)
# Entry sizes, page sizes of the numbered schema, commit sizes.
for e in (150,400):
  run("text rowid(current) e%d"%e, T, hexk, 4096, entry=e)
  run("int rowid e%d"%e, I, intk, 4096, entry=e)
for p in (1024,2048,8192):
  run("int rowid", I, intk, p)
for r in (10,80):
  run("text rowid(current) r%d"%r, T, hexk, 4096, rows_per_commit=r, commits=600)
  run("int rowid r%d"%r, I, intk, 4096, rows_per_commit=r, commits=600)
