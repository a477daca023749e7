// The pages' display-name texts, without a browser: a player is "name (ed25519:<8 hex>…)", the
// name taken only from a statement of that key's, and the lobby's check of a typed name.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

let m;
before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fogproof-names-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, `export * from '${process.cwd()}/src/common/words';\n`);
  const out = join(dir, 'names.mjs');
  await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'esm', platform: 'node', logLevel: 'warning' });
  m = await import(pathToFileURL(out).href);
});

const KEY = 'ed25519:162a0b3c' + '0'.repeat(56);
const OTHER = 'ed25519:ffee' + '1'.repeat(60);

test('a player is shown as its signed name beside its short key', () => {
  assert.equal(m.playerText(KEY, 'Alice'), 'Alice (ed25519:162a0b3c…)');
  assert.equal(m.playerText(KEY, null), 'ed25519:162a0b3c…');
  assert.equal(m.playerText(null), '?');
});

test('a name is taken only from a statement of that very key', () => {
  const signed = { key: KEY, name: 'Alice', issued_ms: 1, signature: 'ab' };
  assert.equal(m.nameOf(KEY, { [KEY]: signed }), 'Alice');
  // Filed under another key, or a player object whose statement is another key's: no name.
  assert.equal(m.nameOf(OTHER, { [OTHER]: signed }), null);
  assert.equal(m.nameOf(OTHER, null, { id: OTHER, name: 'Alice', signedName: signed }), null);
  assert.equal(m.nameOf(KEY, null, { id: KEY, name: 'Alice', signedName: signed }), 'Alice');
  // A bare name with no statement is not shown.
  assert.equal(m.nameOf(KEY, null, { id: KEY, name: 'Magnus' }), null);
});

test('the lobby says why a typed name will be refused', () => {
  assert.equal(m.nameProblem('  Zoë  Tester '), null);
  assert.equal(m.nameProblem("O'Brien-Smith_2.0"), null);
  assert.match(m.nameProblem('Eve\u202Egro'), /Letters, digits/);
  assert.match(m.nameProblem('A\u200Blice'), /Letters, digits/);
  assert.match(m.nameProblem('x'.repeat(33)), /32/);
  assert.match(m.nameProblem('   '), /empty/);
  assert.match(m.nameProblem('ED25519 aa'), /pose as a key/);
});
