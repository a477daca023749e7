// Shared by the browser tests: spawns the real `fogproof` binary (FOGPROOF_BIN, or
// ../target/debug/fogproof) with temporary data directories and OS-chosen ports, drives
// Debian's chromium (/usr/bin/chromium, headless) with playwright-core, fails on any console
// error or page error, and kills everything it spawned.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const BIN = process.env.FOGPROOF_BIN ?? resolve(here, '../../target/debug/fogproof');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = resolve(here, '../test-artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

/** A process that prints a line matching `re` on stdout: resolves with the match. */
function spawnUntil(args, re, opts = {}) {
  const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FOGPROOF_LOG: 'warn' }, ...opts });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const found = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${args[0]}: no line ${re} in 60 s\nstdout: ${out}\nstderr: ${err}`)), 60000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = re.exec(out);
      if (m) { clearTimeout(timer); res(m); }
    });
    child.on('exit', (code) => { clearTimeout(timer); rej(new Error(`${args[0]} exited ${code}\nstdout: ${out}\nstderr: ${err}`)); });
  });
  return { child, found, output: () => ({ out, err }) };
}

/**
 * A server with its umpire and house bot, and a player's agent in browser mode
 * (`fogproof play --no-open`). `stop()` kills both and removes their directories.
 */
export async function network() {
  const tmp = mkdtempSync(join(tmpdir(), 'fogproof-web-'));
  const serve = spawnUntil(['serve', '--data', join(tmp, 'data'), '--listen', '127.0.0.1:0'], /listening on (http:\/\/\S+)/);
  const [, server] = await serve.found;
  const key = join(tmp, 'me.key');
  execFileSync(BIN, ['keys', 'new', '--out', key]);
  const play = spawnUntil(['play', '--server', server, '--key', key, '--no-open'], /Play in your browser: (http:\/\/\S+)/);
  const [, agent] = await play.found;
  return {
    tmp, server, agent: agent.replace(/\/$/, ''), key,
    async stop() {
      for (const p of [play.child, serve.child]) {
        if (p.exitCode === null) {
          p.kill('SIGTERM');
          await new Promise((r) => { const t = setTimeout(() => { p.kill('SIGKILL'); r(); }, 5000); p.once('exit', () => { clearTimeout(t); r(); }); });
        }
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** A headless chromium page that records console errors and page errors. */
export async function browser() {
  const b = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const context = await b.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  return { browser: b, page, errors, async close() { await b.close(); } };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The agent's `gameState` of game `id`: `stage` is fogproof's (`started`, `over`, `finished`,
 * `stopped`); `status` is lichess's name of the game's status (`started`, `mate`, ...). */
export async function gameState(agent, id) {
  const r = await fetch(`${agent}/api/bot/game/${id}`);
  if (r.status !== 200) throw new Error(`GET game ${id}: ${r.status}`);
  return r.json();
}

/** Polls the agent's `gameState` until `f` holds; fails naming `what` and the last state. */
export async function untilState(agent, id, f, what, ms = 60000) {
  const end = Date.now() + ms;
  let s;
  while (Date.now() < end) {
    s = await gameState(agent, id);
    if (f(s)) return s;
    await sleep(150);
  }
  throw new Error(`timed out waiting for ${what}; last state: ${JSON.stringify(s).slice(0, 600)}`);
}

/** Waits until the game page shows question `ask` (the agent's API may know it a moment
 * before the page does, and the page refuses a move for a question it has not shown). */
export async function pageShows(page, ask) {
  await page.locator(`#app[data-ask="${ask.id}"]`).waitFor({ state: 'attached' });
}
