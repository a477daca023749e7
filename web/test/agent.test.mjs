// The agent's pages in a real browser (Debian's chromium, headless): the lobby loads with the
// player's key and no console errors; for every variant a person plays a game against the
// server's house bot through the page (clicks on the board for some moves, the "Move" box for
// others, the setup forms where the game has them), resigns after enough moves if the game has
// not ended, and the record the server publishes verifies valid with `fogproof verify`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { network, browser, ARTIFACTS, BIN, sleep, gameState, untilState, pageShows } from '../testlib/harness.mjs';

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


/** The centre of a square on the page's board, from its size and orientation. */
async function squareAt(page, sq, size, side) {
  const box = await page.locator('#board cg-board').boundingBox();
  const file = sq.charCodeAt(0) - 97;
  const rank = Number(sq.slice(1)) - 1;
  const col = side === 'white' ? file : size - 1 - file;
  const row = side === 'white' ? size - 1 - rank : rank;
  return { x: box.x + (col + 0.5) * (box.width / size), y: box.y + (row + 0.5) * (box.height / size) };
}

async function clickMove(page, text, size, side) {
  for (const sq of [text.slice(0, 2), text.slice(2, 4)]) {
    const p = await squareAt(page, sq, size, side);
    await page.mouse.click(p.x, p.y);
    await sleep(60);
  }
  // A promotion (or a 6x6 powering move) offers a choice: take the one wanted.
  const choice = page.locator(`#choices button[data-text="${text}"]`);
  if (await choice.count()) await choice.click();
}

/** Picks a move from those offered: square moves, preferring quiet ones for a longer game. */
function pick(moves, n) {
  const square = moves.filter((t) => /^[a-h][1-8][a-h][1-8]$/.test(t));
  const list = square.length ? square : moves;
  return list[(n * 7 + 3) % list.length];
}

const VARIANTS = [
  // Chess as Black: the board turned around, the house bot moving first.
  { variant: 'chess', size: 8, color: 'black' },
  { variant: 'kriegspiel', size: 8 },
  { variant: 'sic', size: 8 },
  { variant: 'intrigue', size: 8 },
  { variant: 'secretchess6', size: 6 },
  { variant: 'espionage', size: 7 },
];
const MOVES = Number(process.env.FOGPROOF_WEB_MOVES ?? 10);

test('the lobby loads with the player key and no console errors', async () => {
  const { page, errors } = b;
  await page.goto(net.agent + '/');
  const account = await (await fetch(net.agent + '/api/account')).json();
  await page.getByText('Play the house bot').waitFor();
  assert.match(await page.locator('header.top').innerText(), new RegExp(account.id.slice(8, 14)));
  await page.screenshot({ path: join(ARTIFACTS, 'agent-lobby.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

for (const { variant, size, color = 'white' } of VARIANTS) {
  test(`a person plays ${variant} against the house bot in the browser; the record verifies`, async () => {
    const { page, errors } = b;
    await page.goto(net.agent + '/');
    await page.selectOption('#variant', variant);
    await page.fill('#minutes', '10');
    await page.selectOption('#color', color);
    await page.getByRole('button', { name: 'Play the house bot' }).click();
    await page.waitForURL(/\/game\/[0-9a-f]{64}$/, { timeout: 60000 });
    const id = page.url().split('/').pop();
    await page.locator('#board cg-board').waitFor();
    let played = 0;
    let clicks = 0;
    let typed = 0;
    let lastAsk = 0;
    let shot = false;
    for (let n = 0; played < MOVES; n++) {
      const s = await until(id, (s) => s.stage !== 'started' || (s.ask && s.ask.id !== lastAsk), `a question in ${variant}`);
      if (s.stage !== 'started') break;
      lastAsk = s.ask.id;
      // The seat's own view only: the page shows the board string the agent gave it.
      assert.equal(s.side, color);
      if (variant === 'kriegspiel') assert.ok(!/[a-z]/.test(s.view.board.split(' ')[0]), 'no Black man in White\'s Kriegspiel view');
      if (variant === 'kriegspiel' || variant === 'sic') {
        // The page draws no Black man of a known kind: fog, or (SIC) a man of unknown kind.
        await page.locator('#board piece').first().waitFor();
        assert.equal(await page.locator('#board piece.black:not(._-piece):not(.u-piece):not(.ghost)').count(), 0, `${variant}: a Black man drawn on White's page`);
      }
      await page.locator('#status').filter({ hasText: /Your|Choose|tie-break/ }).waitFor();
      const kind = s.ask.kind;
      if (kind === 'intrigue-setup') {
        await page.fill('form[data-setup="intrigue"] input[name="king"]', 'e1');
        await page.fill('form[data-setup="intrigue"] input[name="informer"]', 'd2');
        await page.getByRole('button', { name: 'Commit setup' }).click();
        continue;
      }
      if (kind === 'secretchess6-setup') {
        // The formation row as the board shows it (White: a to f), filled by file.
        for (const [f, man] of [['a', 'N'], ['b', 'B'], ['c', 'K'], ['d', 'Q'], ['e', '1'], ['f', 'R']]) {
          await page.selectOption(`form[data-setup="six"] select[data-file="${f}"]`, man);
        }
        await page.fill('form[data-setup="six"] input[name="false_squares"]', s.ask.max_false_squares > 0 ? 'b5' : '');
        await page.getByRole('button', { name: 'Commit setup' }).click();
        continue;
      }
      if (kind === 'secretchess6-tiebreak') {
        await page.getByRole('button', { name: 'Send tie-break' }).click();
        continue;
      }
      // The page answers once it shows the question (the agent may know it a moment earlier).
      await pageShows(page, s.ask);
      if (variant === 'chess' && played === 5) {
        // A draw offer: the page says so (the house bot may accept it, which ends the game).
        await page.getByRole('button', { name: 'Offer draw' }).click();
        await page.locator('#draw-offer, #status').filter({ hasText: /You offer a draw|draw/ }).first().waitFor();
      }
      const moves = s.ask.moves;
      const text = pick(moves, n);
      if (!shot && played === 3) {
        await page.screenshot({ path: join(ARTIFACTS, `agent-game-${variant}.png`), fullPage: true });
        shot = true;
      }
      if (/^[a-h][1-8][a-h][1-8]$/.test(text) && n % 2 === 0) {
        await clickMove(page, text, size, s.side);
        clicks++;
      } else if (/^(end-turn|freeze-)/.test(text)) {
        await page.locator(`#ask button[data-text="${text}"]`).click();
      } else {
        await page.getByLabel('Move', { exact: true }).fill(text);
        await page.getByLabel('Move', { exact: true }).press('Enter');
        typed++;
      }
      // The answer was taken: the question is gone (or a new one came).
      await until(id, (t) => t.stage !== 'started' || !t.ask || t.ask.id !== s.ask.id, `${text} to be taken`);
      played++;
    }
    let s = await state(id);
    if (s.stage === 'started') {
      await page.getByRole('button', { name: 'Resign' }).click();
    }
    s = await until(id, (t) => t.stage === 'finished' || t.stage === 'stopped', 'the final record', 90000);
    assert.equal(s.stage, 'finished', `faults: ${s.faults}`);
    await page.locator('#verdict-panel').filter({ hasText: s.result }).waitFor();
    await page.locator('#verdict p.ok').filter({ hasText: 'valid' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, `agent-game-${variant}-end.png`), fullPage: true });
    if (!shot) await page.screenshot({ path: join(ARTIFACTS, `agent-game-${variant}.png`), fullPage: true });
    if (variant === 'kriegspiel') {
      // The phone layout: the board over the panels, nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(ARTIFACTS, 'agent-game-kriegspiel-phone.png'), fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone screen`);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.ok(played >= Math.min(MOVES, 4), `${variant}: ${played} moves played`);
    assert.ok(clicks > 0 && (typed > 0 || variant === 'secretchess6'), `${variant}: clicks ${clicks}, typed ${typed}`);
    // The record as the server publishes it verifies valid, offline, with the CLI.
    const rec = await fetch(`${net.server}/api/match/${id}/record`);
    assert.equal(rec.status, 200);
    const file = join(net.tmp, `${variant}.rec`);
    writeFileSync(file, Buffer.from(await rec.arrayBuffer()));
    const out = execFileSync(BIN, ['verify', file], { encoding: 'utf8' });
    assert.match(out, /valid/i, out);
    assert.doesNotMatch(out, /fault/i, out);
    assert.deepEqual(errors, [], 'no console or page errors');
  });
}
