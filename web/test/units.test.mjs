// The pages' pure functions, without a browser: the Move box's reading of SAN and any-case
// UCI, the lobby's time-control check, the server's words without the agent's call address,
// results in words. The modules are bundled by esbuild (as the build does) into a temporary
// file and imported.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

let m;
before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fogproof-units-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, `export * from '${process.cwd()}/src/common/input';\nexport * from '${process.cwd()}/src/common/words';\nexport * from '${process.cwd()}/src/host/words';\n`);
  const out = join(dir, 'units.mjs');
  await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'esm', platform: 'node', logLevel: 'warning' });
  m = await import(pathToFileURL(out).href);
});

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w';
const OPENING = ['a2a3', 'a2a4', 'b2b3', 'b2b4', 'c2c3', 'c2c4', 'd2d3', 'd2d4', 'e2e3', 'e2e4', 'f2f3', 'f2f4', 'g2g3', 'g2g4', 'h2h3', 'h2h4', 'b1a3', 'b1c3', 'g1f3', 'g1h3'];

test('the Move box reads SAN and UCI in any case where they read one way only', () => {
  const read = (t, offered = OPENING, board = START, side = 'white') => m.readMove(t, offered, board, 8, side);
  assert.deepEqual(read('e2e4'), { text: 'e2e4' });
  assert.deepEqual(read('E2E4'), { text: 'e2e4' });
  assert.deepEqual(read('e4'), { text: 'e2e4' });
  assert.deepEqual(read('E4'), { text: 'e2e4' });
  assert.deepEqual(read('Nf3'), { text: 'g1f3' });
  assert.deepEqual(read('nf3'), { text: 'g1f3' });
  assert.deepEqual(read('NF3'), { text: 'g1f3' });
  assert.deepEqual(read('Nf3+'), { text: 'g1f3' });
  assert.ok('error' in read('e5'), 'not a move now');
  assert.ok('error' in read('Ke2'), 'the king cannot go there');
  // A capture, and `bc4` read both ways: a b-pawn capture and a bishop move.
  const board = 'rnbqkbnr/ppp2ppp/8/3pp3/2P1P3/8/PP1P1PPP/RNBQKBNR w';
  const offered = ['c4d5', 'e4d5', 'f1c4', 'f1b5', 'b2b3', 'b2b4', 'd1a4'];
  assert.deepEqual(read('exd5', offered, board), { text: 'e4d5' });
  assert.deepEqual(read('cxd5', offered, board), { text: 'c4d5' });
  assert.ok('error' in read('xd5', offered, board) || 'error' in read('d5', offered, board), 'two pawns take on d5');
  assert.deepEqual(read('Bb5', offered, board), { text: 'f1b5' });
  assert.deepEqual(read('Qa4', offered, board), { text: 'd1a4' });
  const bishopOrPawn = ['f1c4', 'b3c4'];
  const b2 = 'rnbqkbnr/pppppppp/8/8/2p5/1P6/P1PPPPPP/RNBQKBNR w';
  assert.deepEqual(read('Bc4', bishopOrPawn, b2), { text: 'f1c4' });
  assert.ok('error' in read('bc4', bishopOrPawn, b2), 'lower case bc4 is a bishop or a pawn: ambiguous');
  assert.ok('error' in read('bxc4', bishopOrPawn, b2), 'so is bxc4 in one case');
  assert.deepEqual(read('bxc4', ['b3c4', 'f1e2'], b2), { text: 'b3c4' });
  // Castling and promotion; Black's men.
  const castle = 'r3k2r/8/8/8/8/8/8/R3K2R w';
  assert.deepEqual(read('O-O', ['e1g1', 'e1c1', 'e1f1'], castle), { text: 'e1g1' });
  assert.deepEqual(read('0-0-0', ['e1g1', 'e1c1', 'e1f1'], castle), { text: 'e1c1' });
  const promo = '8/4P3/8/8/8/8/8/k6K w';
  const promos = ['e7e8q', 'e7e8r', 'e7e8b', 'e7e8n'];
  assert.deepEqual(read('e8=Q', promos, promo), { text: 'e7e8q' });
  assert.deepEqual(read('e8n', promos, promo), { text: 'e7e8n' });
  assert.ok('error' in read('e8', promos, promo), 'which piece?');
  assert.deepEqual(read('Nf6', ['g8f6', 'b8c6', 'e7e5'], START, 'black'), { text: 'g8f6' });
  // 6x6 texts are exact: end-turn, freeze-c2.
  assert.deepEqual(m.readMove('END-TURN', ['end-turn', 'freeze-c2'], null, 6, 'white'), { text: 'end-turn' });
});

test('the lobby refuses a time control the server would refuse, in words', () => {
  assert.equal(m.timeControlProblem('10', '5'), null);
  assert.equal(m.timeControlProblem('1.5', '0'), null);
  assert.match(m.timeControlProblem('0.1', '0'), /Minutes: a number from 1 to 180/);
  assert.match(m.timeControlProblem('', '0'), /Minutes/);
  assert.match(m.timeControlProblem('500', '0'), /Minutes/);
  assert.match(m.timeControlProblem('5', '-1'), /Increment/);
  assert.match(m.timeControlProblem('5', '2.5'), /Increment/);
});

test("a refusal shows the server's words, not the address the agent called", () => {
  assert.equal(
    m.serverText('http://127.0.0.1:8080/api/challenge: 400: time control 6 s + 0 s: the initial clock is 10 s to 10800 s'),
    'time control 6 s + 0 s: the initial clock is 10 s to 10800 s',
  );
  assert.equal(m.serverText('https://fog.example/api/x: connection refused'), 'connection refused');
  assert.equal(m.serverText('no such game'), 'no such game');
});

test('results in words from the seat', () => {
  assert.equal(m.resultWords('1-0', 'checkmate', 'white'), 'You won by checkmate.');
  assert.equal(m.resultWords('1-0', 'resignation', 'black'), 'You lost by resignation.');
  assert.equal(m.resultWords('1/2-1/2', 'stalemate', 'black'), 'Draw by stalemate.');
  assert.equal(m.resultWords('0-1', 'timeout', null), 'Black won by timeout.');
});
