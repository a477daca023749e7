// The host site (`fogproof serve`) in a real browser: Debian's chromium driven by
// playwright-core. The test spawns the real binary (FOGPROOF_BIN, or ../target/debug/fogproof)
// on a temporary data directory and an OS-chosen port, gets Kriegspiel games played on it by
// `fogproof loadtest` (real player agents over real sockets, the server's umpire service), and
// then checks what each page shows against the server's JSON and, independently, against the
// rules and the command-line verifier. Screenshots go to web/test-artifacts/. Any console error
// or page error fails the test.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { get as httpGet } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.FOGPROOF_BIN ?? resolve(here, '../../target/debug/fogproof');
const ARTIFACTS = resolve(here, '../test-artifacts');
const FIXTURE = join(here, 'fixtures/kriegspiel-lying-umpire.rec');
const run = promisify(execFile);

let data; // the server's temporary data directory
let server; // the `fogproof serve` child
let base; // http://127.0.0.1:PORT
let browser;
let finished = []; // /api/games rows once the load test has ended
const liveSeen = []; // live games seen on the lobby page while the load test ran

/** Runs `fogproof ARGS`; resolves with stdout even on a non-zero exit (the verifier exits 1). */
async function fogproof(...args) {
  try {
    return (await run(BIN, args, { maxBuffer: 64 << 20 })).stdout;
  } catch (e) {
    if (typeof e.stdout === 'string' && e.code !== 'ENOENT') return e.stdout;
    throw e;
  }
}

async function json(path) {
  const r = await fetch(base + path);
  assert.equal(r.status, 200, `${path}: ${r.status}`);
  return r.json();
}

/** The host's compact replay (verifier::views::CompactReplay) as full frames, rebuilt here
 * independently of the page's own code (src/host/replay.ts), so the two are checked against
 * each other: the page must show what these frames hold. */
function applyDelta(old, d) {
  if (Array.isArray(d)) {
    if (d.length === 1) return d[0];
    if (d[0] === 's') return old.slice(0, d[1]) + d[3] + old.slice(d[1] + d[2]);
    if (d[0] === 'a') return old.slice(0, d[1]).concat(d[2]);
    throw new Error(`delta ${JSON.stringify(d)}`);
  }
  const out = { ...old };
  for (const [k, v] of Object.entries(d)) {
    if (Array.isArray(v) && v.length === 0) delete out[k];
    else out[k] = k in out ? applyDelta(out[k], v) : v[0];
  }
  return out;
}

/** A GET with exactly these headers (fetch adds its own Accept-Encoding and decodes): the
 * status, headers and the body's bytes as sent. */
function rawGet(path, headers) {
  return new Promise((res, rej) => {
    httpGet(base + path, { headers }, (r) => {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => res({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
      r.on('error', rej);
    }).on('error', rej);
  });
}

async function replayOf(id) {
  const r = await fetch(`${base}/api/match/${id}/replay`);
  assert.equal(r.status, 200);
  const text = await r.text();
  const c = JSON.parse(text);
  assert.equal(c.format, 'fogproof-replay-delta/1');
  let step = c.start;
  const frames = c.deltas.map((d) => (step = applyDelta(step, d)));
  return { bytes: text.length, replay: { variant: c.variant, start: c.start.views, start_full: c.start.full, frames, result: c.result } };
}

/** A page that fails the test on any console error or page error. */
async function openPage(path, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 }, colorScheme: opts.colorScheme ?? 'light' });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.goto(base + path);
  return {
    page,
    errors,
    /** Closes the page; `expected404` names API paths whose 404 the page asked for knowingly
     * (a ledger endpoint this server lacks): Chrome logs each failed fetch as a console error. */
    async close(expected404 = []) {
      await context.close();
      const unexpected = errors.filter((e) => !(expected404.length && /Failed to load resource: .* 404/.test(e)));
      assert.deepEqual(unexpected, [], `no console or page errors on ${path}`);
    },
  };
}

async function shot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `host-${name}.png`), fullPage: true });
}

/** The men a board string (rules::seat, R-C4 with `*` fog and `?` unknown) puts on squares:
 * square -> letter. Fog and unknown men are left out. */
function menOfBoard(board) {
  const rows = board.split(' ')[0].split('/');
  const men = new Map();
  rows.forEach((row, i) => {
    const rank = rows.length - i;
    let file = 0;
    for (const c of row) {
      if (c >= '0' && c <= '9') {
        file += Number(c);
        continue;
      }
      if (c !== '*' && c !== '?') men.set(String.fromCharCode(97 + file) + rank, c);
      file++;
    }
  });
  return men;
}

/** What the page's board shows, read from chessgroundx's piece elements once they settle:
 * [{ square, color, role }], fog and unknown men left out. */
async function shownMen(page) {
  await page.waitForFunction(() => !document.querySelector('.board-box piece.fading, .board-box piece.anim'));
  return page.$$eval('.board-box piece:not(.ghost)', (els) =>
    els
      .map((e) => ({ square: e.cgKey, color: e.classList.contains('white') ? 'white' : 'black', role: [...e.classList].find((c) => c.endsWith('-piece')) }))
      .filter((p) => p.role !== '_-piece' && p.role !== 'u-piece'),
  );
}

before(async () => {
  data = mkdtempSync(join(tmpdir(), 'fogproof-host-test-'));
  server = spawn(BIN, ['serve', '--data', data, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  base = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`fogproof serve did not start:\n${out}\n${stderr}`)), 30_000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    server.on('exit', (code) => fail(new Error(`fogproof serve exited ${code}:\n${stderr}`)));
  });
  // The umpire service and the house bot sign in over loopback: wait for the lobby.
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/api/lobby`)).ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });

  // Two rated Kriegspiel matches at a time for 3 s, then White resigns in each: finished games.
  // While they are played, the lobby page must list them (public information only).
  const load = run(BIN, [
    'loadtest', '--server', base, '--matches', '2', '--variant', 'kriegspiel', '--duration', '3',
    '--warmup', '0.5', '--move-interval-ms', '40', '--ramp', '10', '--drain', '60',
    '--bound-seconds', '0.1', '--seed', '7', '--local-addresses', '0', '--rated',
  ]);
  const lobby = await openPage('/');
  let live = [];
  for (let i = 0; i < 100 && live.length === 0; i++) {
    live = (await json('/api/lobby')).live;
    if (!live.length) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(live.length > 0, 'matches are being played');
  await lobby.page.waitForSelector('table.live-games tbody tr', { timeout: 10_000 });
  const rows = await lobby.page.$$eval('table.live-games tbody tr', (trs) => trs.map((tr) => ({ id: tr.dataset.match, cells: [...tr.cells].map((c) => c.textContent) })));
  liveSeen.push(...rows);
  // Nothing of a hidden board on the lobby: no board, no piece.
  assert.equal(await lobby.page.$$eval('.cg-wrap, piece', (e) => e.length), 0);
  await shot(lobby.page, 'lobby-live');
  await lobby.close();
  // A live game's page: players and clocks, no board (unless it ended meanwhile, when the page
  // shows the replay).
  const watch = await openPage(`/game/${live[0].id}`);
  await watch.page.waitForSelector('main h1');
  if ((await watch.page.textContent('main h1')).includes('live')) {
    assert.equal(await watch.page.$$eval('.cg-wrap, piece', (e) => e.length), 0, 'no board of a hidden game while it is played');
    assert.match(await watch.page.textContent('.live-clocks'), /White \d+:\d\d.*Black \d+:\d\d/);
    // No entry count of a hidden game while it is played: it would tell illegal attempts (R-K1).
    const facts = await watch.page.$$eval('dl.facts dt', (dts) => dts.map((d) => d.textContent));
    assert.ok(facts.includes('Clocks') && !facts.includes('Entries'), `live facts: ${facts}`);
    await shot(watch.page, 'game-live');
  }
  await watch.close();
  const report = (await load).stdout;
  assert.match(report, /errors: 0 /, report);
  for (let i = 0; i < 50; i++) {
    finished = (await json('/api/games?limit=50')).games;
    if (finished.length >= 2) break;
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (data) rmSync(data, { recursive: true, force: true });
});

test('the lobby lists the live games with their public information only', async () => {
  assert.ok(liveSeen.length > 0);
  for (const row of liveSeen) {
    assert.match(row.id, /^[0-9a-f]{64}$/);
    assert.equal(row.cells[0], 'Kriegspiel');
    // White's and Black's clocks are shown as clocks.
    assert.match(row.cells[3], /^\d+:\d\d/);
    assert.match(row.cells[4], /^\d+:\d\d/);
  }
});

test('the lobby\'s hint to play is a command that works when pasted', async () => {
  const { page, close } = await openPage('/');
  const hint = await page.textContent('code.play-hint');
  await close();
  const words = hint.trim().split(/\s+/);
  assert.equal(words[0], 'fogproof');
  assert.deepEqual(words.slice(1, 3), ['play', '--server']);
  assert.equal(words[3], base, 'the hint names this server');
  const home = mkdtempSync(join(tmpdir(), 'fogproof-hint-'));
  try {
    await run(BIN, ['keys', 'new', '--out', join(home, 'me.key')]);
    // As pasted (with `fogproof` being this binary), from the directory holding me.key.
    const child = spawn(BIN, [...words.slice(1), '--no-open'], { cwd: home, env: { ...process.env, FOGPROOF_LOG: 'warn' } });
    const said = await new Promise((resolveSaid, rejectSaid) => {
      let out = '';
      const timer = setTimeout(() => rejectSaid(new Error(`no browser address; saw: ${out}`)), 30_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (/Play in your browser: http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
          clearTimeout(timer);
          resolveSaid(out);
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        rejectSaid(new Error(`fogproof play exited ${code}: ${out}`));
      });
    });
    child.removeAllListeners('exit');
    child.kill();
    assert.match(said, /Play in your browser/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('the finished games list shows each game with its verdict', async () => {
  assert.ok(finished.length >= 2, 'the load test finished games');
  const { page, close } = await openPage('/games');
  await page.waitForSelector('table.finished-games tbody tr');
  const rows = await page.$$eval('table.finished-games tbody tr', (trs) => trs.map((tr) => ({ id: tr.dataset.match, cells: [...tr.cells].map((c) => c.textContent) })));
  assert.deepEqual(rows.map((r) => r.id), finished.map((g) => g.id));
  for (const [i, g] of finished.entries()) {
    assert.equal(g.verdict.status, 'valid');
    assert.ok(rows[i].cells[3].startsWith(g.result), rows[i].cells[3]);
    assert.ok(rows[i].cells[3].includes(g.verdict.reason.replace(/-/g, ' ')), rows[i].cells[3]);
  }
  await shot(page, 'games');
  await close();
});

test("the replay shows each view, and White's view never shows a man White could not know", async () => {
  const game = finished.find((g) => g.variant === 'kriegspiel');
  const { bytes, replay } = await replayOf(game.id);
  // Compact: the start's views whole, then at most 1.5 KB a step (full frames: over 10 KB).
  assert.ok(bytes <= 8000 + 1500 * replay.frames.length, `${bytes} bytes for ${replay.frames.length} steps`);
  // Sent gzipped to a client that accepts it (browsers do), plain to one that does not.
  const sent = await rawGet(`/api/match/${game.id}/replay`, { 'accept-encoding': 'gzip' });
  assert.equal(sent.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(sent.body).toString().length, bytes);
  assert.ok(sent.body.length * 3 < bytes, `${sent.body.length} bytes gzipped of ${bytes}`);
  const plainSent = await rawGet(`/api/match/${game.id}/replay`, {});
  assert.equal(plainSent.headers['content-encoding'], undefined);
  assert.equal(plainSent.body.toString().length, bytes);
  const verdict = await json(`/api/match/${game.id}/verdict`);
  assert.ok(replay.frames.length > 4, 'a game of several moves');
  const { page, close } = await openPage(`/game/${game.id}`);
  await page.waitForSelector('.board-box piece');
  // The verdict in words: valid, with the result the verifier gives.
  assert.equal(await page.getAttribute('section.verdict', 'data-verdict'), 'valid');
  const resultText = await page.textContent('.verdict-result');
  assert.ok(resultText.startsWith(verdict.result.score), resultText);
  assert.ok(resultText.includes(verdict.result.reason.replace(/-/g, ' ')), resultText);
  // Links to the record and the PGN of each view.
  for (const href of [`/api/match/${game.id}/record`, `/api/match/${game.id}/pgn?view=white`, `/api/match/${game.id}/pgn?view=black`, `/api/match/${game.id}/pgn?view=full`]) {
    assert.equal(await page.$$eval(`a[href="${href}"]`, (e) => e.length), 1, href);
    assert.equal((await fetch(base + href)).status, 200, href);
  }
  const last = replay.frames.length;
  assert.equal(await page.textContent('.step-counter'), `step ${last} / ${last}`);
  await shot(page, 'replay-white');

  // White's view, every step from the first on (the First button, then the Next button and the
  // right arrow key in turn).
  await page.click('button[data-step="first"]');
  for (let step = 0; step <= last; step++) {
    assert.equal(await page.textContent('.step-counter'), `step ${step} / ${last}`);
    const men = await shownMen(page);
    // Independently of the verifier: in Kriegspiel a player sees only its own men (R-K1).
    assert.deepEqual(men.filter((m) => m.color === 'black'), [], `step ${step}: no black man in White's view`);
    // And exactly the men the verifier's seat view for White holds.
    const board = step === 0 ? replay.start.white.board : replay.frames[step - 1].views.white.board;
    const want = [...menOfBoard(board)].map(([sq, c]) => `${sq}:${c.toLowerCase()}`).sort();
    assert.deepEqual(men.map((m) => `${m.square}:${m.role[0]}`).sort(), want, `step ${step}`);
    assert.equal(await page.getAttribute('.board-box', 'data-view'), 'white');
    // The clocks of the step, as the replay gives them.
    if (step > 0) {
      const c = replay.frames[step - 1].clocks;
      const shown = await page.$$eval('[data-clock]', (els) => Object.fromEntries(els.map((e) => [e.dataset.clock, e.textContent])));
      assert.ok(shown.white && shown.black, 'both clocks shown');
      assert.equal(shown.white.split(':')[0], String(Math.floor(Math.floor(c.white_ms / 1000) / 60)), `step ${step}: White's minutes`);
    }
    // What White was told at this step.
    const told = await page.textContent('.told-last[data-side="white"]');
    assert.ok(told.startsWith("White was told:"), told);
    if (step < last) {
      if (step % 2 === 0) await page.click('button[data-step="next"]');
      else await page.keyboard.press('ArrowRight');
    }
  }
  // A capture announced to White is shown in words.
  const captureStep = replay.frames.findIndex((f) => f.views.white.last?.kriegspiel?.legal?.capture);
  if (captureStep >= 0) {
    await page.keyboard.press('Home');
    for (let i = 0; i <= captureStep; i++) await page.keyboard.press('ArrowRight');
    const cap = replay.frames[captureStep].views.white.last.kriegspiel.legal.capture;
    assert.match(await page.textContent('.told-last[data-side="white"]'), new RegExp(`captured on ${cap.square}`));
  }

  // Black's view: no white man, and the men of Black's seat view, at a few steps.
  await page.click('button[data-view="black"]');
  for (const step of [0, 1, Math.floor(last / 2), last]) {
    await page.keyboard.press('Home');
    for (let i = 0; i < step; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      ([step, last]) =>
        document.querySelector('.board-box')?.dataset.view === 'black' &&
        document.querySelector('.step-counter')?.textContent === `step ${step} / ${last}`,
      [step, last],
    );
    const men = await shownMen(page);
    assert.deepEqual(men.filter((m) => m.color === 'white'), [], `step ${step}: no white man in Black's view`);
    const board = step === 0 ? replay.start.black.board : replay.frames[step - 1].views.black.board;
    assert.equal(men.length, menOfBoard(board).size, `step ${step}`);
  }
  await shot(page, 'replay-black');

  // The umpire's view: the full position, both armies.
  await page.click('button[data-view="full"]');
  await page.keyboard.press('End');
  // The board is redrawn after the click and the key: wait for the full view at the last step
  // with White's men drawn (Black's view had none) before reading them (reading at once was
  // flaky under load).
  await page.waitForFunction(
    (last) =>
      document.querySelector('.board-box')?.dataset.view === 'full' &&
      document.querySelector('.step-counter')?.textContent === `step ${last} / ${last}` &&
      document.querySelectorAll('.board-box piece.white:not(.ghost)').length > 0,
    last,
  );
  const men = await shownMen(page);
  const full = menOfBoard(replay.frames[last - 1].full);
  assert.deepEqual(men.map((m) => `${m.square}:${m.color === 'white' ? m.role[0].toUpperCase() : m.role[0]}`).sort(), [...full].map(([sq, c]) => `${sq}:${c}`).sort());
  assert.ok(men.some((m) => m.color === 'black') && men.some((m) => m.color === 'white'));
  await shot(page, 'replay-umpire');
  await close();

  // The same page on a phone, in the dark theme.
  const phone = await openPage(`/game/${game.id}`, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  await phone.page.waitForSelector('.board-box piece');
  const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no sideways scrolling on a phone (page is ${width}px wide)`);
  await shot(phone.page, 'replay-phone-dark');
  await phone.close();
});

test('the audit page names the culprit of a record with a lie in it', async () => {
  // Independently of the page: the command-line verifier's culprits, and the umpire the
  // record's own terms name.
  const cli = JSON.parse(await fogproof('verify', '--json', FIXTURE));
  const terms = JSON.parse(await fogproof('record', 'show', FIXTURE)).terms;
  assert.equal(cli.status, 'faults');
  const umpire = terms.umpire.key;

  const { page, close } = await openPage('/audit');
  assert.match(await page.textContent('.trust'), /command-line verifier is the trust anchor/);
  await page.setInputFiles('#record-file', FIXTURE);
  await page.waitForSelector('section.verdict');
  assert.equal(await page.getAttribute('section.verdict', 'data-verdict'), 'faults');
  const faults = await page.$$eval('li.fault', (els) => els.map((e) => ({ kind: e.dataset.kind, culprit: e.dataset.culprit, role: e.dataset.role, text: e.textContent })));
  assert.deepEqual(faults.map((f) => [f.kind, f.culprit, f.role]), cli.faults.map((f) => [f.kind, f.culprit, f.role]));
  assert.ok(faults.length > 0 && faults.every((f) => f.culprit === umpire && f.role === 'umpire'));
  assert.match(faults[0].text, new RegExp(`Culprit: the umpire, key ${umpire}`));
  assert.match(await page.textContent('.verdict-summary'), /At fault: .*Sanction: the game is void/);
  await shot(page, 'audit-culprit');

  // A valid record damaged by a third party (a bit of its last receipt's signature flipped):
  // nobody's key signed it, so no party is named.
  const game = finished[0];
  const bytes = new Uint8Array(await (await fetch(`${base}/api/match/${game.id}/record`)).arrayBuffer());
  bytes[bytes.length - 1] ^= 1;
  const damaged = join(data, 'damaged.rec');
  writeFileSync(damaged, bytes);
  const cliDamaged = JSON.parse(await fogproof('verify', '--json', damaged));
  assert.equal(cliDamaged.status, 'faults');
  await page.setInputFiles('#record-file', damaged);
  await page.waitForFunction(() => document.querySelector('.audit-result h2')?.textContent?.includes('damaged.rec'));
  const culprits = await page.$$eval('li.fault', (els) => els.map((e) => e.dataset.culprit));
  assert.deepEqual(culprits, cliDamaged.faults.map((f) => f.culprit ?? ''));
  assert.ok(culprits.every((c) => c === ''), 'a third party\'s damage names no party');
  assert.match(await page.textContent('.verdict-summary'), /No party's key signed what is wrong/);

  // Not a record at all.
  const text = join(data, 'notes.txt');
  writeFileSync(text, 'hello\n');
  await page.setInputFiles('#record-file', text);
  await page.waitForSelector('section.verdict[data-verdict="unreadable"]');
  assert.match(await page.textContent('section.verdict'), /not a fogproof match record/);
  await close();
});

test('the ledger pages show the ledger, or say the server has none', async () => {
  for (const [path, api, name] of [
    ['/ratings/kriegspiel', '/api/ratings/kriegspiel', 'ratings'],
    ['/tournaments', '/api/tournaments', 'tournaments'],
    ['/log', '/api/ledger', 'ledger'],
  ]) {
    const status = (await fetch(base + api)).status;
    const { page, close } = await openPage(path);
    await page.waitForFunction(() => !document.querySelector('main')?.textContent?.includes('Loading…'));
    const unavailable = await page.$$eval('[data-unavailable]', (e) => e.length);
    if (status === 404) {
      assert.equal(unavailable, 1, `${path}: says it is not available`);
      assert.match(await page.textContent('[data-unavailable]'), /not available on this server/);
    } else {
      assert.equal(status, 200, api);
      assert.equal(unavailable, 0, path);
    }
    if (status === 200 && name === 'ratings') {
      // The table is the API's list, in its order.
      const want = (await json(api)).ratings.map((r) => r.key);
      const keys = await page.$$eval('table.ratings tbody tr td:nth-child(2) .key', (els) => els.map((e) => e.title));
      assert.deepEqual(keys, want);
      assert.ok(keys.length > 0, 'the finished games are rated');
    }
    if (status === 200 && name === 'ledger') {
      // The inclusion proof of a finished match, checked by the command-line tool against the
      // log's key the page shows and the record the server serves.
      const game = finished[0];
      const info = await json('/api/ledger');
      assert.ok((await page.textContent('main')).includes(info.vkey), 'the page shows the log key');
      await page.fill('#proof-id', game.id);
      await page.click('.proof-form button');
      await page.waitForSelector('pre.proof');
      const proof = await page.textContent('pre.proof');
      assert.ok(proof.startsWith('c2sp.org/tlog-proof@v1'), proof);
      const proofFile = join(data, 'game.tlog-proof');
      const recordFile = join(data, 'game.rec');
      writeFileSync(proofFile, proof);
      writeFileSync(recordFile, new Uint8Array(await (await fetch(`${base}/api/match/${game.id}/record`)).arrayBuffer()));
      await run(BIN, ['ledger', 'check-proof', proofFile, '--log-key', info.vkey, '--record', recordFile]);
      // A damaged proof is refused by the same tool.
      writeFileSync(proofFile, proof.replace(/^index (\d+)$/m, (_, i) => `index ${Number(i) + 1}`));
      await assert.rejects(run(BIN, ['ledger', 'check-proof', proofFile, '--log-key', info.vkey, '--record', recordFile]));
      assert.match(await page.textContent('.proof-out'), /Kriegspiel/);
      // The game page's link asks for the same proof at once.
      const linked = await openPage(`/game/${game.id}`);
      await linked.page.click(`a[href="/log?match=${game.id}"]`);
      await linked.page.waitForSelector('pre.proof');
      assert.equal(await linked.page.textContent('pre.proof'), proof);
      await linked.close();
    }
    await shot(page, name);
    await close(status === 404 ? [api] : []);
  }
});

test('an unknown page says so, and the theme toggle switches to dark', async () => {
  const { page, close } = await openPage('/no/such/page');
  assert.equal(await page.textContent('main h1'), 'Not found');
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.click('.theme-toggle');
  const afterTheme = await page.evaluate(() => document.documentElement.dataset.theme);
  assert.notEqual(afterTheme, before);
  // The link in the header routes without a page load.
  await page.click('header a[href="/audit"]');
  await page.waitForSelector('#record-file');
  assert.equal(new URL(page.url()).pathname, '/audit');
  await shot(page, 'audit-dark');
  await close();
});
