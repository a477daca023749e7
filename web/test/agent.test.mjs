// The agent's pages in a real browser (Debian's chromium): the lobby loads with the player's
// key and no console errors; for every variant a person plays a game against the house bot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { network, browser, ARTIFACTS } from '../testlib/harness.mjs';

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

test('the lobby loads with the player key and no console errors', async () => {
  const { page, errors } = b;
  await page.goto(net.agent + '/');
  const account = await (await fetch(net.agent + '/api/account')).json();
  await page.getByText(account.id).waitFor();
  await page.screenshot({ path: join(ARTIFACTS, 'agent-lobby.png'), fullPage: true });
  assert.deepEqual(errors, []);
});
