// The board players use, in a real browser (Debian's chromium) against a real `fogproof serve`
// and `fogproof play`: the bugs players saw (each fails without its fix) and the everyday
// basics of the game page, the end screen, the host's replays in words, and a phone-sized run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { network, browser, ARTIFACTS, sleep, gameState, untilState, pageShows } from '../testlib/harness.mjs';

const state = (id) => gameState(net.agent, id);
const until = (id, f, what, ms) => untilState(net.agent, id, f, what, ms);

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


/** Starts a game against the house bot from the lobby; returns its id. */
async function newGame(page, variant, color = 'white') {
  await page.goto(net.agent + '/');
  await page.selectOption('#variant', variant);
  await page.fill('#minutes', '10');
  await page.selectOption('#color', color);
  await page.getByRole('button', { name: 'Play the house bot' }).click();
  await page.waitForURL(/\/game\/[0-9a-f]{64}$/, { timeout: 60000 });
  await page.locator('#board cg-board').waitFor();
  return page.url().split('/').pop();
}

/** Waits for the seat to be asked; types `text` in the Move box. */
async function type(page, id, text) {
  const s = await until(id, (t) => t.stage !== 'started' || (t.ask && (t.ask.kind === 'move' || t.ask.kind === 'attempt')), 'a move to be asked');
  if (s.stage !== 'started') return null;
  await pageShows(page, s.ask);
  await page.getByLabel('Move', { exact: true }).fill(text);
  await page.getByLabel('Move', { exact: true }).press('Enter');
  await until(id, (t) => t.stage !== 'started' || !t.ask || t.ask.id !== s.ask.id, `${text} to be taken`);
  return s;
}

/** The men on the page's board, `square:class` sorted (from chessground's own DOM). */
async function menOnBoard(page) {
  await sleep(400); // the board's moves animate for 150 ms
  return page.$$eval('#board piece:not(.ghost):not(.fading)', (els) =>
    els.map((e) => `${e.cgKey}:${[...e.classList].filter((c) => /^(white|black|.-piece)$/.test(c)).sort().join(' ')}`).sort());
}

test('an unknown game address says "no such game" and stops asking', async () => {
  const { page, errors } = b;
  let streams = 0;
  const count = (r) => { if (r.url().includes('/api/bot/game/stream/')) streams++; };
  page.on('request', count);
  await page.goto(`${net.agent}/game/${'ab'.repeat(32)}`);
  await page.locator('#title').filter({ hasText: 'No such game' }).waitFor();
  await sleep(4000);
  page.off('request', count);
  // The stream retries every 1.5 s while it can help; a 404 is final.
  assert.equal(streams, 1, `the page asked ${streams} times for a game that does not exist`);
  // Chrome logs the 404 itself as a console error: the only one let through.
  assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  errors.length = 0;
});

test('a bad time control is refused in the lobby in words, before anything is sent', async () => {
  const { page, errors } = b;
  await page.goto(net.agent + '/');
  let sent = 0;
  const count = (r) => { if (r.url().includes('/api/challenge/')) sent++; };
  page.on('request', count);
  await page.fill('#minutes', '0.1');
  await page.getByRole('button', { name: 'Play the house bot' }).click();
  const msg = await page.locator('#lobby-msg').filter({ hasText: 'Minutes' }).innerText();
  page.off('request', count);
  assert.match(msg, /from 1 to 180/);
  assert.doesNotMatch(msg, /6\+0|http/);
  assert.equal(sent, 0);
  // What the server refuses anyway reads as the server's words, without the agent's call URL.
  const r = await fetch(`${net.agent}/api/challenge/bot`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: 'chess', clock_limit: 6, clock_increment: 0 }) });
  assert.ok(r.status >= 400);
  const why = (await r.json()).error;
  assert.match(why, /6 s \+ 0 s/, why);
  await page.evaluate(() => { document.querySelector('#minutes').value = '10'; });
  // The lobby has a short guide to each game.
  await page.locator('#lobby-help summary').click();
  assert.match(await page.locator('#lobby-help').innerText(), /Kriegspiel[\s\S]*umpire/);
  assert.deepEqual(errors, []);
});

test('chess: SAN and any-case input, flip, stepping back, material, check, help, end screen, rematch', async () => {
  const { page, errors } = b;
  const id = await newGame(page, 'chess', 'white');
  // Help for the game beside the board; sounds are off unless turned on.
  assert.match(await page.locator('#help-text').textContent(), /checkmate/i);
  assert.equal(await page.locator('#sound').isChecked(), false);
  // E2E4 in capitals, then SAN.
  await type(page, id, 'E2E4');
  let s = await until(id, (t) => t.view.knows.chess.moves.length >= 1, 'E2E4 played');
  assert.equal(s.view.knows.chess.moves[0].from, 'e2');
  await type(page, id, 'Nf3');
  s = await until(id, (t) => t.view.knows.chess.moves.length >= 3, 'the bot to answer');
  assert.equal(s.view.knows.chess.moves[2].from, 'g1');
  assert.equal(s.view.knows.chess.moves[2].to, 'f3');
  // A text that is no move now is refused on the page, in words.
  s = await until(id, (t) => t.ask?.kind === 'move', 'my move');
  await pageShows(page, s.ask);
  await page.getByLabel('Move', { exact: true }).fill('Ke5');
  await page.getByLabel('Move', { exact: true }).press('Enter');
  await page.locator('#error').filter({ hasText: 'not a move you can make now' }).waitFor();
  // Material in points.
  assert.match(await page.locator('#material').innerText(), /Material: White \d+ · Black \d+/);
  // Flip: Black at the bottom, then back.
  await page.getByRole('button', { name: 'Flip' }).click();
  assert.ok(await page.locator('#board.orientation-black, #board .orientation-black, .cg-wrap.orientation-black').count() > 0);
  assert.match(await page.locator('#bottom-player').innerText(), /black/);
  await page.getByRole('button', { name: 'Flip' }).click();
  // Stepping back shows an earlier position (fewer moves made: the e-pawn back on e2).
  const now = await menOnBoard(page);
  await page.getByRole('button', { name: 'First' }).click();
  await page.locator('#step-at').filter({ hasText: /move 0 of/ }).waitFor();
  const first = await menOnBoard(page);
  assert.notDeepEqual(first, now);
  assert.ok(first.includes('e2:p-piece white'), 'the start position: the e-pawn on e2');
  assert.ok(now.includes('e4:p-piece white') || !now.includes('e2:p-piece white'), 'now: the e-pawn has moved');
  await page.getByRole('button', { name: 'Forward' }).click();
  await page.locator('#step-at').filter({ hasText: /move 1 of/ }).waitFor();
  await page.getByRole('button', { name: 'Latest' }).click();
  await page.locator('#step-at').filter({ hasText: /now/ }).waitFor();
  assert.deepEqual(await menOnBoard(page), now);
  // The move list follows the game: scrolled to its end.
  const scrolled = await page.$eval('#moves', (el) => el.scrollHeight <= el.clientHeight || el.scrollTop + el.clientHeight >= el.scrollHeight - 2);
  assert.ok(scrolled, 'the move list shows the latest move');
  await page.screenshot({ path: join(ARTIFACTS, 'board-chess.png'), fullPage: true });
  // The end: in words, with the replay, the record and a rematch.
  await page.getByRole('button', { name: 'Resign' }).click();
  s = await until(id, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the final record', 90000);
  assert.equal(s.stage, 'finished');
  await page.locator('#end-words').filter({ hasText: 'You lost by resignation.' }).waitFor();
  await page.locator('#replay-link').waitFor();
  assert.equal(await page.locator('#replay-link').getAttribute('href'), `${net.server}/game/${id}`);
  assert.equal(await page.locator('#record-link').getAttribute('href'), `${net.server}/api/match/${id}/record`);
  await page.screenshot({ path: join(ARTIFACTS, 'board-chess-end.png'), fullPage: true });
  await page.getByRole('button', { name: 'Rematch' }).click();
  await page.waitForURL((u) => /\/game\/[0-9a-f]{64}$/.test(u.pathname) && !u.pathname.endsWith(id), { timeout: 60000 });
  const again = page.url().split('/').pop();
  const s2 = await until(again, (t) => t.side !== null, 'the rematch to start');
  assert.equal(s2.side, 'black', 'the rematch swaps colours');
  await page.getByRole('button', { name: 'Resign' }).click();
  await until(again, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the rematch to end', 90000);
  assert.deepEqual(errors, []);
});

test('Kriegspiel: the umpire line ends with the game; the host replay marks illegal attempts for the umpire', async () => {
  const { page, errors } = b;
  const id = await newGame(page, 'kriegspiel', 'white');
  // An illegal attempt first (a pawn capture onto an empty square: offered, since the seat
  // cannot see the square), then legal moves.
  const first = await until(id, (t) => t.ask?.kind === 'attempt', 'my first attempt');
  const wrong = first.ask.moves.find((m) => /^([a-h])2([a-h])3$/.test(m) && m[0] !== m[2]);
  assert.ok(wrong, `a pawn capture attempt among ${first.ask.moves}`);
  await type(page, id, wrong);
  let s = await until(id, (t) => t.sent.some((m) => m.text === wrong && m.refused), `${wrong} refused by the umpire`);
  await page.locator('#moves li.warn').filter({ hasText: `${wrong} (illegal)` }).waitFor();
  await type(page, id, 'e4');
  await until(id, (t) => t.stage !== 'started' || t.ask?.kind === 'attempt', 'my turn again');
  await page.locator('#umpire-turn').filter({ hasText: 'Your turn.' }).waitFor();
  await page.getByRole('button', { name: 'Resign' }).click();
  s = await until(id, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the end', 90000);
  assert.equal(s.stage, 'finished');
  await page.locator('#umpire-turn').filter({ hasText: 'The game is over.' }).waitFor();
  assert.equal(await page.getByText('Your turn.').count(), 0, '"Your turn." after the end');
  await page.locator('#end-words').filter({ hasText: 'You lost by resignation.' }).waitFor();
  // The host's replay: the umpire's view marks the illegal attempt, White's view too (its
  // own), Black's view knows nothing of it.
  await page.goto(`${net.server}/game/${id}`);
  await page.locator('.step-list').waitFor();
  await page.getByRole('tab', { name: /Umpire/ }).click();
  await page.locator('.step-list li.illegal').first().waitFor();
  assert.match(await page.locator('.step-list li.illegal').first().innerText(), new RegExp(`${wrong} \\(illegal attempt\\)`));
  await page.getByRole('tab', { name: "Black's view" }).click();
  assert.equal(await page.locator('.step-list li.illegal').count(), 0);
  const text = await page.locator('main').innerText();
  assert.doesNotMatch(text, /[{}"]/, 'no raw JSON in the replay');
  assert.deepEqual(errors, []);
});

for (const variant of ['sic', 'secretchess6', 'intrigue']) {
  test(`${variant}: the host replay is in words (no raw JSON) in every view`, async () => {
    const { page, errors } = b;
    const id = await newGame(page, variant, 'white');
    for (let n = 0; n < 6; n++) {
      const s = await until(id, (t) => t.stage !== 'started' || t.ask, 'a question', 60000);
      if (s.stage !== 'started') break;
      // The page answers once it shows the question (the agent may know it a moment earlier).
      await pageShows(page, s.ask);
      if (s.ask.kind === 'intrigue-setup' || s.ask.kind === 'secretchess6-setup') {
        await page.getByRole('button', { name: 'Commit setup' }).click();
      } else if (s.ask.kind === 'secretchess6-tiebreak') {
        await page.getByRole('button', { name: 'Send tie-break' }).click();
      } else {
        const m = s.ask.moves.find((t) => /^[a-h][1-8][a-h][1-8]$/.test(t)) ?? s.ask.moves[0];
        if (m.startsWith('end-turn') || m.startsWith('freeze-')) await page.locator(`#ask button[data-text="${m}"]`).click();
        else {
          await page.getByLabel('Move', { exact: true }).fill(m);
          await page.getByLabel('Move', { exact: true }).press('Enter');
        }
      }
      await until(id, (t) => t.stage !== 'started' || !t.ask || t.ask.id !== s.ask.id, 'taken');
    }
    if (variant === 'intrigue') {
      // The opponent's public moves are listed with one's own.
      const s = await state(id);
      const moves = s.view.knows.intrigue.moves.map((m) => m.from + m.to);
      assert.ok(moves.length >= 2, JSON.stringify(moves));
      // (The page may show the bot's last move a moment after the agent knows it.)
      for (const m of moves) await page.locator('#moves').filter({ hasText: m }).waitFor({ timeout: 10000 });
      assert.match(await page.locator('#moves-title').innerText(), /both sides/);
    }
    if ((await state(id)).stage === 'started') await page.getByRole('button', { name: 'Resign' }).click();
    await until(id, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the end', 90000);
    await page.goto(`${net.server}/game/${id}`);
    await page.locator('.step-list').waitFor();
    for (const tab of await page.getByRole('tab').all()) {
      await tab.click();
      for (const key of ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'End']) {
        await page.keyboard.press(key);
        const text = await page.locator('main').innerText();
        assert.doesNotMatch(text, /[{}]|":/, `${variant} ${await tab.innerText()}: raw JSON in the replay`);
      }
    }
    await page.screenshot({ path: join(ARTIFACTS, `board-replay-${variant}.png`), fullPage: true });
    assert.deepEqual(errors, []);
  });
}

test('the host: an unknown game says so; the lobby hint is a command that works', async () => {
  const { page, errors } = b;
  await page.goto(`${net.server}/game/${'cd'.repeat(32)}`);
  await page.locator('main h1').filter({ hasText: 'No such game' }).waitFor();
  errors.length = 0; // Chrome's own log line of the 404
  await page.goto(`${net.server}/`);
  const hint = await page.locator('code.play-hint').innerText();
  assert.match(hint, /play --server \S+ --key \S+/);
  if (/--vs/.test(hint)) assert.match(hint, /--variant/);
  assert.deepEqual(errors, []);
});

test('a phone-sized game: the board over the panels, nothing wider than the screen', async () => {
  const { page, errors } = b;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const id = await newGame(page, 'chess', 'white');
    await type(page, id, 'd4');
    await until(id, (t) => t.ask?.kind === 'move', 'my move');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone screen`);
    const board = await page.locator('#board cg-board').boundingBox();
    assert.ok(board.width > 300 && board.width <= 390, `board ${board.width}px wide`);
    // Tapping squares plays a move on a phone too.
    const sq = async (s) => {
      const box = await page.locator('#board cg-board').boundingBox();
      const f = s.charCodeAt(0) - 97;
      const r = Number(s[1]) - 1;
      return { x: box.x + (f + 0.5) * box.width / 8, y: box.y + (7 - r + 0.5) * box.height / 8 };
    };
    const before = await state(id);
    for (const s of ['g1', 'f3']) {
      const p = await sq(s);
      await page.mouse.click(p.x, p.y);
      await sleep(80);
    }
    await until(id, (t) => t.view.knows.chess.moves.length > before.view.knows.chess.moves.length, 'the tapped move');
    await page.screenshot({ path: join(ARTIFACTS, 'board-phone.png'), fullPage: true });
    await page.getByRole('button', { name: 'Resign' }).click();
    await until(id, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the end', 90000);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  assert.deepEqual(errors, []);
});
