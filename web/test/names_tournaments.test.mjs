// Display names and tournaments on the agent's page, in a real browser (Debian's chromium,
// headless): the player sets a name on the page (a name that could impersonate is refused
// with the reason), the agent signs it, the host's lobby shows it with its signature and the
// page shows "name (ed25519:…)"; an organiser publishes a tournament naming the player, which
// the page lists with Join; the player joins and withdraws from the page and the server counts
// it in and out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { network, browser, ARTIFACTS, BIN } from '../testlib/harness.mjs';

let net;
let b;
before(async () => {
  net = await network();
  b = await browser();
});
after(async () => {
  await b?.close();
  await net?.stop();
});

const get = async (url) => {
  const r = await fetch(url);
  assert.equal(r.status, 200, `GET ${url}`);
  return r.json();
};

async function until(f, what, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await f();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a name set on the page is signed by the key and shown by the host beside the key', async () => {
  const { page, errors } = b;
  await page.goto(net.agent + '/');
  await page.locator('#display-name').waitFor();
  // A bidi override could make a name read as another: refused, nothing sent.
  await page.fill('#display-name', 'Eve\u202Egro');
  await page.click('#set-name');
  await page.locator('#name-msg').filter({ hasText: "Letters, digits, spaces and - _ . ' only." }).waitFor();
  assert.equal((await get(`${net.agent}/api/account`)).name, null);

  await page.fill('#display-name', 'Zoë Tester');
  await page.click('#set-name');
  await page.locator('#name-msg').filter({ hasText: 'You are Zoë Tester.' }).waitFor();
  const account = await get(`${net.agent}/api/account`);
  assert.equal(account.name, 'Zoë Tester');
  assert.equal(account.signedName.key, account.id, 'signed by the key');
  assert.match(account.signedName.signature, /^[0-9a-f]{128}$/);

  // A seek, which the server's house bot takes: the host's lobby shows the live game with the
  // name and its statement, and the page shows "name (key)".
  const r = await fetch(`${net.agent}/api/challenge/open`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ variant: 'chess', clock_limit: 300, clock_increment: 0 }),
  });
  assert.equal(r.status, 200);
  const lobby = await until(async () => {
    const l = await get(`${net.server}/api/lobby`);
    return l.live.some((g) => g.players.includes(account.id)) ? l : null;
  }, 'the game to start');
  assert.deepEqual(lobby.names[account.id], account.signedName, 'the statement itself');
  const short = `ed25519:${account.id.slice(8, 16)}…`;
  await page.locator('#live').filter({ hasText: `Zoë Tester (${short})` }).waitFor({ timeout: 15000 });
  await page.screenshot({ path: join(ARTIFACTS, 'agent-name.png'), fullPage: true });
  const game = lobby.live.find((g) => g.players.includes(account.id));
  await fetch(`${net.agent}/api/bot/game/${game.id}/resign`, { method: 'POST' });
  assert.deepEqual(errors, [], 'no console or page errors');
});

test('the page lists a tournament naming the player, joins it and withdraws', async () => {
  const { page, errors } = b;
  const account = await get(`${net.agent}/api/account`);
  const info = await get(`${net.server}/api/info`);
  // An organiser defines and publishes a round-robin of this player and the house bot.
  const def = join(net.tmp, 'cup.json');
  writeFileSync(def, JSON.stringify({
    name: 'Page Cup', variant: 'chess', system: { 'round-robin': 'single' },
    players: [{ key: account.id, name: 'Me' }, { key: info.bot, name: 'House' }],
    tie_breaks: ['SonnebornBerger'], time_control: '10+0',
  }));
  const orgKey = join(net.tmp, 'org.key');
  const out = join(net.tmp, 'cup.def');
  execFileSync(BIN, ['tournament', 'define', def, '--organiser-key', orgKey, '--name', 'org.example', '--out', out]);
  const published = execFileSync(BIN, ['tournament', 'publish', out, '--server', net.server, '--organiser-key', orgKey]).toString();
  const id = /tournament ([0-9a-f]{64})/.exec(published)[1];

  await page.goto(net.agent + '/');
  const row = page.locator(`#tournaments tr[data-tournament="${id}"]`);
  await row.filter({ hasText: 'Page Cup' }).waitFor({ timeout: 15000 });
  await row.locator('button[data-tour="join"]').click();
  await page.locator('#tournament-msg').filter({ hasText: 'Joined' }).waitFor();
  await row.locator('button[data-tour="withdraw"]').waitFor({ timeout: 15000 });
  const joined = await until(async () => {
    const t = await get(`${net.server}/api/tournament/${id}`);
    return t.entrants.find((e) => e.key === account.id)?.joined ? t : null;
  }, 'the server to count the player in');
  assert.equal(joined.status, 'joining', 'round 1 waits for the house bot');
  await page.screenshot({ path: join(ARTIFACTS, 'agent-tournament.png'), fullPage: true });

  await row.locator('button[data-tour="withdraw"]').click();
  await page.locator('#tournament-msg').filter({ hasText: 'Withdrawn.' }).waitFor();
  await row.locator('button[data-tour="join"]').waitFor({ timeout: 15000 });
  const t = await get(`${net.server}/api/tournament/${id}`);
  assert.equal(t.entrants.find((e) => e.key === account.id).joined, false, 'withdrawn');
  assert.deepEqual(errors, [], 'no console or page errors');
});
