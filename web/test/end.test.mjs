// The end of a game and watching one, in a real browser (Debian's chromium) against a real
// `fogproof serve` and `fogproof play`: the end screen of a hidden game shows the whole board
// from the final record (Kriegspiel: both armies; 6x6: the opponent's formation and false
// squares); two people play chess to checkmate through their pages while a third watches the
// live board on the host; check shown on both pages while it stands; a premove; a hidden game
// cannot be watched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { network, browser, ARTIFACTS, BIN, sleep, gameState, untilState, pageShows } from '../testlib/harness.mjs';

const state = gameState;
const until = untilState;

let net;
let b;
before(async () => {
  net = await network();
  b = await browser();
  b.page.on('dialog', (d) => void d.accept());
});
after(async () => {
  await b?.close();
  await net?.stop();
});


// `stage` is fogproof's (`status` is lichess's name of the game's status).
const over = (t) => t.stage === 'finished' || t.stage === 'stopped';

/** Starts a game against the house bot from the lobby; returns its id. */
async function newGame(page, variant, color = 'white') {
  await page.goto(net.agent + '/');
  await page.selectOption('#variant', variant);
  await page.selectOption('#color', color);
  await page.getByRole('button', { name: 'Play the house bot' }).click();
  await page.waitForURL(/\/game\/[0-9a-f]{64}$/, { timeout: 60000 });
  await page.locator('#board cg-board').waitFor();
  return page.url().split('/').pop();
}

/** Types `text` in the Move box once the seat is asked. */
async function play(agent, page, id, text) {
  const s = await until(agent, id, (t) => t.stage !== 'started' || (t.ask && (t.ask.kind === 'move' || t.ask.kind === 'attempt')), 'a move to be asked');
  if (s.stage !== 'started') return null;
  // The page takes a move once it shows the question (the agent may know it a moment earlier).
  await pageShows(page, s.ask);
  await page.getByLabel('Move', { exact: true }).fill(text);
  await page.getByLabel('Move', { exact: true }).press('Enter');
  await until(agent, id, (t) => t.stage !== 'started' || !t.ask || t.ask.id !== s.ask.id, `${text} to be taken`);
  return s;
}

/** The men of a board string's first field, `square:color letter` sorted. */
function men(board) {
  const out = [];
  const rows = board.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    let f = 0;
    for (const c of row) {
      if (/\d/.test(c)) f += Number(c);
      else out.push(`${String.fromCharCode(97 + f++)}${rows.length - i}:${c === c.toUpperCase() ? 'white' : 'black'} ${c.toLowerCase()}`);
    }
  });
  return out.sort();
}

/** The men a page's board element shows, in the same form. */
async function menOn(page, sel) {
  await sleep(400); // moves animate for 150 ms
  return page.$$eval(`${sel} piece:not(.ghost):not(.fading)`, (els) =>
    els.map((e) => {
      const color = e.classList.contains('white') ? 'white' : 'black';
      const role = [...e.classList].find((c) => /^.-piece$/.test(c)) ?? '?';
      return `${e.cgKey}:${color} ${role[0]}`;
    }).sort());
}

test('Kriegspiel to its end: the end screen shows the whole board from the final record', async () => {
  const { page, errors } = b;
  const id = await newGame(page, 'kriegspiel', 'white');
  await play(net.agent, page, id, 'e4');
  await until(net.agent, id, (t) => over(t) || t.ask?.kind === 'attempt', 'my turn again');
  // While played, the seat's board shows no Black man.
  assert.ok(!(await menOn(page, '#board')).some((m) => /:black [pnbrqk]$/.test(m)), 'no Black man in White\'s view');
  await page.getByRole('button', { name: 'Resign' }).click();
  const s = await until(net.agent, id, (t) => over(t) && t.final, 'the final record and its board', 90000);
  assert.equal(s.stage, 'finished');
  assert.match(s.final.board, /^[^ ]*[a-z]/, 'the final board holds Black men');
  await page.locator('#final:not([hidden])').waitFor();
  assert.match(await page.locator('#end-words').innerText(), /You lost by resignation\./);
  // The page draws exactly the record's final position: both armies.
  const shown = await menOn(page, '#final-board');
  assert.deepEqual(shown, men(s.final.board));
  assert.ok(shown.filter((m) => m.includes(':black')).length >= 15, shown.join(' '));
  assert.ok(shown.includes('e4:white p'), 'White\'s pawn on e4');
  // Links to the replay and the record, and a rematch.
  assert.equal(await page.locator('#replay-link').getAttribute('href'), `${net.server}/game/${id}`);
  assert.equal(await page.locator('#record-link').getAttribute('href'), `${net.server}/api/match/${id}/record`);
  assert.equal(await page.getByRole('button', { name: 'Rematch' }).count(), 1);
  await page.locator('#verdict-panel').screenshot({ path: join(ARTIFACTS, 'end-kriegspiel.png') });
  await page.screenshot({ path: join(ARTIFACTS, 'end-kriegspiel-page.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('6x6 to its end: the opponent\'s formation and false squares are shown, and its first rank', async () => {
  const { page, errors } = b;
  const id = await newGame(page, 'secretchess6', 'white');
  for (let n = 0; n < 4; n++) {
    const s = await until(net.agent, id, (t) => over(t) || t.ask, 'a question');
    if (over(s)) break;
    await pageShows(page, s.ask);
    if (s.ask.kind === 'secretchess6-setup') await page.getByRole('button', { name: 'Commit setup' }).click();
    else if (s.ask.kind === 'secretchess6-tiebreak') await page.getByRole('button', { name: 'Send tie-break' }).click();
    else {
      const m = s.ask.moves.find((t) => /^[a-f][1-6][a-f][1-6]$/.test(t));
      if (m) {
        await page.getByLabel('Move', { exact: true }).fill(m);
        await page.getByLabel('Move', { exact: true }).press('Enter');
      } else await page.locator(`#ask button[data-text="${s.ask.moves[0]}"]`).click();
    }
    await until(net.agent, id, (t) => over(t) || !t.ask || t.ask.id !== s.ask.id, 'taken');
  }
  if ((await state(net.agent, id)).stage === 'started') await page.getByRole('button', { name: 'Resign' }).click();
  const s = await until(net.agent, id, (t) => over(t) && t.final, 'the final record', 90000);
  const theirs = s.final.setups.black;
  assert.match(theirs?.formation ?? '', /^[KQRBN1]{6}$/, JSON.stringify(s.final));
  await page.locator('#final:not([hidden])').waitFor();
  const said = await page.locator('[data-setup-of="black"]').innerText();
  assert.ok(said.includes(`formation ${theirs.formation}`), said);
  for (const sq of theirs.false_squares) assert.ok(said.includes(sq), `${sq} in ${said}`);
  // Its false squares are marked on the board.
  const marked = await page.$$eval('#final-board svg .cg-shapes g, #final-board svg g', (els) => els.length);
  assert.ok(theirs.false_squares.length === 0 || marked > 0, 'the false squares are marked');
  // When play began: Black's first rank is its formation (files a to f).
  await page.getByRole('tab', { name: 'When play began' }).click();
  await page.locator('#final-title').filter({ hasText: 'when play began' }).waitFor();
  const start = await menOn(page, '#final-board');
  assert.deepEqual(start, men(s.final.start));
  const rank6 = [...'abcdef'].map((f, i) => {
    const l = theirs.formation[i];
    return l === '1' ? null : `${f}6:black ${l.toLowerCase()}`;
  }).filter(Boolean);
  for (const m of rank6) assert.ok(start.includes(m), `${m} in ${start.join(' ')}`);
  await page.locator('#verdict-panel').screenshot({ path: join(ARTIFACTS, 'end-secretchess6.png') });
  assert.deepEqual(errors, []);
});

/** A second player's agent (`fogproof play`), for two-person games. */
let seconds = 0;
async function secondAgent() {
  const n = ++seconds;
  const key = join(net.tmp, `second-${n}.key`);
  execFileSync(BIN, ['keys', 'new', '--out', key]);
  const child = spawn(BIN, ['play', '--server', net.server, '--key', key, '--no-open', '--dir', join(net.tmp, `second-${n}`)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FOGPROOF_LOG: 'warn' } });
  let out = '';
  const url = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no agent line: ${out}`)), 60000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Play in your browser: (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(t); res(m[1].replace(/\/$/, '')); }
    });
    child.on('exit', (c) => { clearTimeout(t); rej(new Error(`play exited ${c}: ${out}`)); });
  });
  const account = await (await fetch(`${url}/api/account`)).json();
  return { url, key: account.id, child };
}

/** The second player waits in its lobby; the first challenges its key to chess, as White, and
 * the second accepts: returns the game's id, once both pages show it. */
async function chessBetween(page, page2, second) {
  await page2.goto(second.url + '/');
  await page.goto(net.agent + '/');
  await page.selectOption('#variant', 'chess');
  await page.selectOption('#color', 'white');
  await page.fill('#opponent', second.key);
  await page.getByRole('button', { name: 'Challenge' }).click();
  await page2.getByRole('button', { name: 'Accept' }).click({ timeout: 60000 });
  await page.waitForURL(/\/game\/[0-9a-f]{64}$/, { timeout: 60000 });
  await page2.waitForURL(/\/game\/[0-9a-f]{64}$/, { timeout: 60000 });
  const id = page.url().split('/').pop();
  assert.equal(page2.url().split('/').pop(), id);
  return id;
}

test('two people play chess to checkmate through their pages while a third watches live', async () => {
  const { page, errors } = b;
  const second = await secondAgent();
  const ctx2 = await b.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page2 = await ctx2.newPage();
  const watcherCtx = await b.browser.newContext({ viewport: { width: 1000, height: 900 } });
  const watcher = await watcherCtx.newPage();
  const errors2 = [];
  for (const p of [page2, watcher]) {
    p.on('console', (m) => { if (m.type() === 'error') errors2.push(`console: ${m.text()}`); });
    p.on('pageerror', (e) => errors2.push(`page: ${e.message}`));
  }
  try {
    const id = await chessBetween(page, page2, second);
    // A third person watches on the host, from the lobby's live list.
    await watcher.goto(`${net.server}/`);
    await watcher.locator(`tr[data-match="${id}"] a`, { hasText: 'Watch' }).click({ timeout: 30000 });
    await watcher.waitForURL(new RegExp(`/watch/${id}$`));
    await watcher.locator('#watch-status').filter({ hasText: 'Live' }).waitFor();
    assert.deepEqual(await menOn(watcher, '#watch-board'), men('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR'));

    await play(net.agent, page, id, 'f3');
    await watcher.locator('#watch-moves').filter({ hasText: 'f2f3' }).waitFor();
    assert.ok((await menOn(watcher, '#watch-board')).includes('f3:white p'), 'the watcher sees f3');
    await play(second.url, page2, id, 'e5');
    await play(net.agent, page, id, 'g4');
    await until(second.url, id, (t) => t.ask?.kind === 'move', 'Black to move');
    await watcher.locator('#watch-moves').filter({ hasText: 'g2g4' }).waitFor();
    await play(second.url, page2, id, 'Qh4');
    const s = await until(net.agent, id, over, 'the end', 90000);
    assert.equal(s.result, '0-1');
    assert.equal(s.reason, 'checkmate');
    await page.locator('#end-words').filter({ hasText: 'You lost by checkmate.' }).waitFor();
    await page2.locator('#end-words').filter({ hasText: 'You won by checkmate.' }).waitFor();
    assert.match(await page.locator('#moves').innerText(), /Qh4#/);
    // The watcher saw the mating move and the end.
    await watcher.locator('#watch-moves').filter({ hasText: 'd8h4' }).waitFor();
    await watcher.locator('#watch-status').filter({ hasText: 'Game over: Black wins by checkmate.' }).waitFor();
    assert.ok((await menOn(watcher, '#watch-board')).includes('h4:black q'));
    await watcher.screenshot({ path: join(ARTIFACTS, 'watch-chess.png'), fullPage: true });
    await page2.screenshot({ path: join(ARTIFACTS, 'chess-checkmate.png'), fullPage: true });
  } finally {
    await ctx2.close();
    await watcherCtx.close();
    second.child.kill('SIGTERM');
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(errors2, []);
});

/** What a game page shows about check: what it says and how many squares it marks. */
async function checkShown(page) {
  return page.evaluate(() => ({
    said: document.querySelector('#check')?.textContent ?? '',
    marked: document.querySelectorAll('#board square.check').length,
  }));
}

// Two people, so that a check stands until the side in check moves (against the house bot it
// stood only for the moment the bot took to answer, and the test raced it).
test('chess: check is highlighted and said on both pages while it stands, and gone once answered', async () => {
  const { page, errors } = b;
  const second = await secondAgent();
  const ctx2 = await b.browser.newContext();
  const page2 = await ctx2.newPage();
  const errors2 = [];
  page2.on('console', (m) => { if (m.type() === 'error') errors2.push(`console: ${m.text()}`); });
  page2.on('pageerror', (e) => errors2.push(`page: ${e.message}`));
  try {
    const id = await chessBetween(page, page2, second);
    for (const [agent, p, mv] of [[net.agent, page, 'e4'], [second.url, page2, 'e5'], [net.agent, page, 'Bc4'], [second.url, page2, 'Nc6']]) {
      await play(agent, p, id, mv);
      assert.deepEqual(await checkShown(page), { said: '', marked: 0 }, `no check after ${mv}`);
    }
    await play(net.agent, page, id, 'Bxf7');
    // Black is in check until it moves: its page says so and marks its king; White's says it gives check.
    await until(second.url, id, (t) => t.ask?.kind === 'move', 'Black to move, in check');
    await page2.locator('#check').filter({ hasText: 'Check! Your king is attacked.' }).waitFor();
    await page2.waitForFunction(() => document.querySelectorAll('#board square.check').length === 1);
    await page.locator('#check').filter({ hasText: 'You give check.' }).waitFor();
    assert.match(await page.locator('#moves').innerText(), /Bxf7\+/);
    await page2.screenshot({ path: join(ARTIFACTS, 'board-chess-check.png'), fullPage: true });
    // Answered: the king takes, and neither page says check any more.
    await play(second.url, page2, id, 'Kxf7');
    await until(net.agent, id, (t) => t.ask?.kind === 'move', 'White to move');
    const noCheck = () => document.querySelector('#check')?.textContent === '' && document.querySelectorAll('#board square.check').length === 0;
    await page2.waitForFunction(noCheck);
    await page.waitForFunction(noCheck);
    await page.getByRole('button', { name: 'Resign' }).click();
    await until(net.agent, id, over, 'the end', 90000);
  } finally {
    await ctx2.close();
    second.child.kill('SIGTERM');
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(errors2, []);
});

test('chess: a premove set while the opponent is to move plays on one\'s turn', async () => {
  const { page, errors } = b;
  const second = await secondAgent();
  const ctx2 = await b.browser.newContext();
  const page2 = await ctx2.newPage();
  try {
    const id = await chessBetween(page, page2, second);
    await play(net.agent, page, id, 'e4');
    await until(second.url, id, (t) => t.ask?.kind === 'move', 'Black to move');
    // White drags g1 to f3 on its board while Black is to move: a premove.
    const sq = async (s) => {
      const box = await page.locator('#board cg-board').boundingBox();
      const f = s.charCodeAt(0) - 97;
      const r = Number(s[1]) - 1;
      return { x: box.x + (f + 0.5) * box.width / 8, y: box.y + (7 - r + 0.5) * box.height / 8 };
    };
    for (const s of ['g1', 'f3']) {
      const p = await sq(s);
      await page.mouse.click(p.x, p.y);
      await sleep(100);
    }
    await page.locator('#board square.current-premove').first().waitFor({ timeout: 5000 });
    const before = await state(net.agent, id);
    assert.equal(before.view.knows.chess.moves.length, 1, 'the premove is not sent before Black moves');
    await play(second.url, page2, id, 'e5');
    const s = await until(net.agent, id, (t) => t.view.knows.chess.moves.length >= 3, 'the premove to be played');
    assert.equal(`${s.view.knows.chess.moves[2].from}${s.view.knows.chess.moves[2].to}`, 'g1f3');
    await page.getByRole('button', { name: 'Resign' }).click();
    await until(net.agent, id, over, 'the end', 90000);
  } finally {
    await ctx2.close();
    second.child.kill('SIGTERM');
  }
  assert.deepEqual(errors, []);
});

test('a hidden game cannot be watched: the host says so', async () => {
  const { page, errors } = b;
  const id = await newGame(page, 'kriegspiel', 'white');
  const r = await fetch(`${net.server}/api/match/${id}/watch`);
  assert.equal(r.status, 403);
  assert.match((await r.json()).error, /hides information/);
  const ctx = await b.browser.newContext();
  const p = await ctx.newPage();
  try {
    await p.goto(`${net.server}/watch/${id}`);
    await p.locator('#watch-status').filter({ hasText: 'hides information' }).waitFor();
    assert.equal(await p.locator('#watch-board piece').count(), 0, 'no board of a hidden game');
  } finally {
    await ctx.close();
  }
  await page.getByRole('button', { name: 'Resign' }).click();
  await until(net.agent, id, over, 'the end', 90000);
  assert.deepEqual(errors, []);
});
