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
  writeFileSync(entry, `export * from '${process.cwd()}/src/common/input';\nexport * from '${process.cwd()}/src/common/words';\nexport * from '${process.cwd()}/src/host/words';\nexport * from '${process.cwd()}/src/common/help';\nexport { moveUci } from '${process.cwd()}/src/common/notation';\nexport { checkOf } from '${process.cwd()}/src/common/check';\n`);
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

test('replay steps in words for every game: no JSON', () => {
  const noJson = (t) => assert.doesNotMatch(t, /[{}"]/, t);
  const k = (a) => `announcement ${JSON.stringify(a)}`;
  // 6x6: a setup action, a powering move, Life Freeze, events told.
  const setup = JSON.stringify({ setup: { formation: 'NBKQ1R', false_squares: ['b5', 'e6'] } });
  assert.equal(m.actionWords('secretchess6', setup), 'setup: formation NBKQ1R (files a to f), false squares b5 e6');
  assert.equal(m.actionWords('secretchess6', 'b1c4+'), 'b1c4 (knight powered up)');
  assert.equal(m.actionWords('secretchess6', JSON.stringify({ 'life-freeze': { piece: 'c2' } })), 'Life Freeze on c2');
  assert.equal(m.actionWords('secretchess6', JSON.stringify('end-turn')), 'ends the turn');
  const tie = JSON.stringify({ 'tie-break': { formation: 'RNBQ1K', moves: ['b6d4', '0000'] } });
  noJson(m.actionWords('secretchess6', tie));
  const six = { secretchess6: { events: [{ board: { turn: 3, your_turn: true, pieces: [{ square: 'a1', role: 'knight' }], red: ['c2', 'd3'] } }, { scores: { turn: 2, scores: { white: 1, black: 0 } } }, 'opponent-ready'] } };
  const told6 = m.toldWords(six, k);
  assert.match(told6, /turn 3, your move: 1 men; threatened squares c2 d3; scores after turn 2: White 1, Black 0; the opponent has committed/);
  noJson(told6);
  // SIC: both reports and the start view.
  const opp = { sic: { 'opponent-moved': { from: 'b8', to: 'c6', id: 'b8', lost: { square: 'c6', role: 'pawn' }, check: 'decoy', legal: ['a2a3'], end: null } } };
  assert.equal(m.toldWords(opp, k), 'the enemy man from b8 moved b8 to c6; your pawn on c6 was captured; check on your decoy; 1 legal moves');
  const mine = { sic: { 'you-moved': { check: true, captured: 'dragon-king', end: { winner: 'white', reason: 'checkmate' } } } };
  assert.equal(m.toldWords(mine, k), 'your move was made; you captured a dragon king; check (on the king or the decoy); game over: White wins by checkmate');
  noJson(m.toldWords({ 'sic-start': { side: 'white', own: [{ square: 'e1' }], legal: ['e2e4'] } }, k));
  // Intrigue: a setup report and a move that took the informer.
  const ir = { intrigue: { move: { side: 'white', mv: { from: 'b4', to: 'a5', promotion: null }, capture: { square: 'a5' }, inspection: { owner: 'black', informer: true, appeared: { square: 'g6', removed: null } }, check: [], result: null } } };
  assert.equal(m.toldWords(ir, k), "White played b4a5; captured on a5; Black's captured pawn was the informer; its king appeared on g6");
  // A promotion in UCI's letter, not the role's name.
  const promo = { intrigue: { move: { side: 'black', mv: { from: 'h2', to: 'g1', promotion: 'bishop' }, capture: null, inspection: null, check: [], result: null } } };
  assert.equal(m.toldWords(promo, k), 'Black played h2g1b');
  assert.equal(m.toldWords({ chess: { mv: { from: 'e7', to: 'e8', promotion: 'queen' }, end: null } }, k), 'e7e8q was played');
  assert.equal(m.moveUci({ from: 'a7', to: 'a8', promotion: 'knight' }), 'a7a8n');
  assert.equal(m.moveUci({ from: 'e2', to: 'e4', promotion: null }), 'e2e4');
  noJson(m.actionWords('intrigue', JSON.stringify({ setup: { king: 'e1', informer: 'd2', queen_on_king_square: true } })));
  assert.doesNotMatch(m.actionWords('intrigue', JSON.stringify({ setup: { king: 'e1', informer: 'd2', queen_on_king_square: false } })), /e1|d2/, 'the secret is not in the words');
  // Kriegspiel: illegal, and a legal answer through the announcement words.
  assert.equal(m.toldWords({ kriegspiel: 'illegal' }, k), 'illegal attempt');
  assert.equal(m.toldWords({ kriegspiel: { legal: { checks: [] } } }, () => 'nothing to announce'), 'nothing to announce');
  // Chess and Espionage.
  assert.equal(m.toldWords({ chess: { mv: { from: 'e2', to: 'e4', promotion: null }, end: null } }, k), 'e2e4 was played');
  assert.equal(m.toldWords({ espionage: { mover: 'black', move: 'c6c3', capture: 'cannon', check: true, end: null } }, k), 'Black played c6c3; taking a cannon; check');
  assert.equal(m.toldWords(null, k), 'nothing yet');
});

test("an opened secret setup in words (the end screen)", () => {
  assert.equal(m.setupWords('intrigue', { king: 'g6', informer: 'h7', queen_on_king_square: true }), "king hidden on g6, informer pawn h7, queen on the king's square");
  assert.equal(m.setupWords('intrigue', { king: 'e1', informer: 'd2', queen_on_king_square: false }), 'king hidden on e1, informer pawn d2');
  assert.equal(m.setupWords('secretchess6', { formation: 'NBKQ1R', false_squares: ['b2', 'e1'] }), 'formation NBKQ1R (files a to f), false squares b2 e1');
  assert.equal(m.setupWords('secretchess6', { formation: 'RNBQ1K', false_squares: [] }), 'formation RNBQ1K (files a to f), false squares none');
  assert.equal(m.setupWords('kriegspiel', null), '');
});

test('every game has rules and help in plain words, with no design ids', () => {
  const key = { chess: /checkmate/, kriegspiel: /umpire/, sic: /decoy/i, intrigue: /informer/, secretchess6: /formation/, espionage: /cannon/ };
  for (const [variant, word] of Object.entries(key)) {
    const html = m.helpHtml(variant);
    assert.ok(m.HELP[variant].rules.length >= 1 && m.HELP[variant].howTo.length >= 1, variant);
    assert.match(html, word, variant);
    assert.doesNotMatch(html, /\bR-[A-Z]+\d/, `${variant}: no design id`);
  }
  assert.equal(m.helpHtml('no-such-game'), '');
});

test("which actions every view sees: open games' and Intrigue's moves, never a secret setup", () => {
  assert.equal(m.actionIsPublic('chess', 'e2e4'), true);
  assert.equal(m.actionIsPublic('espionage', 'c6c3'), true);
  assert.equal(m.actionIsPublic('intrigue', 'd8c7'), true, "Intrigue's moves are public");
  assert.equal(m.actionIsPublic('intrigue', JSON.stringify({ setup: { king: 'e1', informer: 'd2', queen_on_king_square: false } })), false);
  for (const v of ['kriegspiel', 'sic', 'secretchess6']) assert.equal(m.actionIsPublic(v, 'e2e4'), false, v);
});

test('check as each seat was told it, Espionage included', () => {
  const none = { mine: false, theirs: false, decoy: false };
  // Chess: the last SAN says it; the side to move is the one in check.
  const chess = { side: 'black', san: ['e4', 'f5', 'Qh5+'], view: { board: 'x b', knows: {} } };
  assert.deepEqual(m.checkOf('chess', chess), { ...none, mine: true });
  assert.deepEqual(m.checkOf('chess', { ...chess, side: 'white' }), { ...none, theirs: true });
  // Espionage: the last move's public report (R-E5).
  const esp = (mover, check) => ({ side: 'white', san: [], view: { board: 'x w', knows: { espionage: { moves: [] } }, last: { espionage: { mover, move: 'f3f2s', capture: null, check, end: null } } } });
  assert.deepEqual(m.checkOf('espionage', esp('black', true)), { ...none, mine: true });
  assert.deepEqual(m.checkOf('espionage', esp('white', true)), { ...none, theirs: true });
  assert.deepEqual(m.checkOf('espionage', esp('black', false)), none);
  // SIC and Intrigue from their knowledge.
  assert.deepEqual(m.checkOf('sic', { side: 'white', view: { knows: { sic: { check: 'decoy', gave_check: false } } } }), { ...none, decoy: true });
  assert.deepEqual(m.checkOf('intrigue', { side: 'white', view: { knows: { intrigue: { check: ['black'] } } } }), { ...none, theirs: true });
});
