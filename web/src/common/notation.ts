// Move lists in each game's own notation. The agent gives SAN for chess and UCI for Espionage
// (`moves`, computed from the seat's own knowledge); the hidden games show the player's own
// moves as sent (`sent`) and what the umpire or the rules told it.

import type { Announcement } from '../types';

/** Pairs a flat list of moves into numbered rows: [[1, 'e4', 'e5'], [2, 'Nf3', undefined]]. */
export function numbered(moves: string[], firstBlack = false): Array<[number, string | undefined, string | undefined]> {
  const list = firstBlack ? [undefined, ...moves] : moves;
  const rows: Array<[number, string | undefined, string | undefined]> = [];
  for (let i = 0; i < list.length; i += 2) rows.push([i / 2 + 1, list[i], list[i + 1]]);
  return rows;
}

/** A Kriegspiel announcement in words (R-K3: captures, checks, pawn tries, the end). */
export function announcement(a: Announcement): string {
  const parts: string[] = [];
  if (a.capture) parts.push(`${a.capture.kind === 'pawn' ? 'Pawn' : 'Piece'} captured on ${a.capture.square}${a.capture.en_passant ? ' (en passant)' : ''}`);
  for (const c of a.checks ?? []) parts.push(`Check: ${String(c).replace(/-/g, ' ')}`);
  if (a.pawn_tries) parts.push(`${a.pawn_tries} pawn tr${a.pawn_tries === 1 ? 'y' : 'ies'}`);
  if (a.end) parts.push(`End: ${typeof a.end === 'string' ? a.end : JSON.stringify(a.end)}`);
  return parts.length ? parts.join('; ') : 'Move made (nothing to announce)';
}

/** A role name as the API spells it (`dragon-king`) in words. */
export function role(r: unknown): string {
  return String(r ?? '').replace(/-/g, ' ');
}

/** The promotion letters of UCI for the roles a pawn of the orthodox games becomes. */
const PROMOTION_LETTER: Record<string, string> = { queen: 'q', rook: 'r', bishop: 'b', knight: 'n' };

/** A move as the API gives it (`{from, to, promotion}`, the role spelt out) in UCI: `h2g1b`,
 * not `h2g1bishop`; a role with no UCI letter is named in words after the squares. */
export function moveUci(m: { from?: string; to?: string; promotion?: string | null } | null | undefined): string {
  if (!m) return '';
  const p = m.promotion ?? '';
  const letter = p === '' ? '' : PROMOTION_LETTER[p] ?? ` (${role(p)})`;
  return `${m.from ?? ''}${m.to ?? ''}${letter}`;
}
