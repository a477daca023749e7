// Generates the piece images under src/common/pieces/ (run by hand: `node pieces.mjs`; the
// output is committed). The orthodox pieces are Colin M.L. Burnett's set ("cburnett", GPL-2.0+
// / BSD / GFDL, as shipped in chessgroundx's npm package); the fairy pieces are composed from
// them (a base piece with the badge of the movement it adds) or drawn here (Spy, Cannon, the
// unknown man '?' and fog).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';

const css = readFileSync('node_modules/chessgroundx/assets/chessground.cburnett.css', 'utf8');
const base = {};
for (const m of css.matchAll(/piece\.(\w+)\.(white|black)\s*\{\s*background-image:\s*url\('data:image\/svg\+xml;base64,([^']+)'\)/g)) {
  base[`${m[2][0]}${m[1]}`] = Buffer.from(m[3], 'base64').toString('utf8');
}
const inner = (svg) => svg.replace(/^[\s\S]*?<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
const wrap = (body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="45" height="45" viewBox="0 0 45 45">${body}</svg>\n`;
const at = (svg, x, y, s) => `<svg x="${x}" y="${y}" width="${45 * s}" height="${45 * s}" viewBox="0 0 45 45">${inner(svg)}</svg>`;
// A base piece with a smaller badge piece in the lower right corner.
const combo = (c, main, badge) => wrap(at(base[c + main], 0, 0, 1) + at(base[c + badge], 23, 23, 0.5));
const fill = (c) => (c === 'w' ? '#fff' : '#000');
const line = (c) => (c === 'w' ? '#000' : '#fff');
const out = {};
for (const c of ['w', 'b']) {
  for (const r of ['pawn', 'knight', 'bishop', 'rook', 'queen', 'king']) out[`${c}${r[0] === 'k' && r === 'knight' ? 'n' : r[0]}`] = base[c + r];
  out[`${c}m`] = combo(c, 'rook', 'knight'); // Marshall: rook + knight
  out[`${c}a`] = combo(c, 'bishop', 'knight'); // Archbishop: bishop + knight
  out[`${c}c`] = combo(c, 'knight', 'king'); // Centaur: knight + (non-royal) king
  out[`${c}h`] = combo(c, 'bishop', 'rook'); // Dragon Horse: bishop + one orthogonal step
  out[`${c}d`] = combo(c, 'rook', 'bishop'); // Dragon King: rook + one diagonal step
  // Decoy: a king drawn faint, with a question mark.
  out[`${c}y`] = wrap(`<g opacity="0.55">${inner(base[c + 'king'])}</g>` +
    `<text x="22.5" y="31" font-family="sans-serif" font-weight="bold" font-size="20" text-anchor="middle" fill="${fill(c)}" stroke="${line(c)}" stroke-width="1">?</text>`);
  // Spy: a hooded figure with a mask.
  out[`${c}s`] = wrap(
    `<path d="M11 39.5h23c0-8-4-13-7-14.5 3-1.5 5-4.5 5-8.5 0-5.5-4.5-9.5-9.5-9.5S13 11 13 16.5c0 4 2 7 5 8.5-3 1.5-7 6.5-7 14.5z" fill="${fill(c)}" stroke="${line(c) === '#fff' ? '#000' : '#000'}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<path d="M15 16h15v3.5H15z" fill="${c === 'w' ? '#000' : '#fff'}"/>` +
    `<circle cx="19" cy="17.7" r="1.2" fill="${fill(c)}"/><circle cx="26" cy="17.7" r="1.2" fill="${fill(c)}"/>`);
  // Cannon: a barrel on a wheel.
  out[`${c}o`] = wrap(
    `<g stroke="#000" stroke-width="1.5" stroke-linejoin="round" fill="${fill(c)}">` +
    `<path d="M9 25l22-11 4 7-22 11z"/><circle cx="17" cy="31" r="7"/><circle cx="17" cy="31" r="2" fill="${c === 'w' ? '#000' : '#fff'}"/>` +
    `<path d="M8 39h22"/></g>`);
  // A man whose kind is not known.
  out[`${c}u`] = wrap(
    `<circle cx="22.5" cy="24" r="14" fill="${fill(c)}" stroke="#000" stroke-width="1.5"/>` +
    `<text x="22.5" y="31" font-family="sans-serif" font-weight="bold" font-size="20" text-anchor="middle" fill="${c === 'w' ? '#000' : '#fff'}">?</text>`);
}
// Fog: nothing is known of the square.
out.fog = wrap(
  `<rect width="45" height="45" fill="#8a8f99" opacity="0.75"/>` +
  `<path d="M8 26c0-4 3-6 6-5 1-4 5-6 9-4 2-3 8-3 9 2 4 0 6 3 5 6 2 1 2 5-1 5H10c-3 0-4-3-2-4z" fill="#c9ccd2" opacity="0.8"/>`);
mkdirSync('src/common/pieces', { recursive: true });
for (const [name, svg] of Object.entries(out)) {
  if (!svg) throw new Error(`no image for ${name}`);
  writeFileSync(`src/common/pieces/${name}.svg`, svg.endsWith('\n') ? svg : svg + '\n');
}
console.log(Object.keys(out).sort().join(' '));
