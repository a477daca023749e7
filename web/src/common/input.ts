// What a player types in the Move box, read against the moves offered: exact text (`e2e4`,
// `freeze-c2`, `end-turn`), the same in any case (`E2E4`), SAN (`e4`, `Nf3`, `exd5`, `O-O`,
// `e8=Q`, with or without `+`/`#`/`x`), and SAN all in one case where that reads one way only
// (`nf3`, `NF3`; `bc4` or `bxc4` with a bishop and a b-pawn both able to take on c4 is refused
// as ambiguous, mixed case such as `Bc4` is read as SAN spells it). Pure functions: the
// board string says which man stands on each square (the seat's own men are always known).

import { parseBoard, type Side } from './board';

/** How a typed text reads: the one offered move it means, or why not. */
export type Reading = { text: string } | { error: string };

const FILES = 'abcdefghijklmnop';

/** The offered move `typed` names, if exactly one. `board` is the seat's board string. */
export function readMove(typed: string, offered: string[], board: string | null, size: number, side: Side): Reading {
  const t = typed.trim();
  if (!t) return { error: 'type a move' };
  if (offered.includes(t)) return { text: t };
  const lower = t.toLowerCase();
  const byCase = offered.filter((o) => o.toLowerCase() === lower);
  if (byCase.length === 1) return { text: byCase[0] };
  const cells = board ? parseBoard(board, size, side) : new Map();
  const roleAt = (sq: string): string | null => {
    const c = cells.get(sq);
    return c?.kind === 'piece' && c.color === side ? c.letter.toLowerCase() : null;
  };
  const found = new Set<string>();
  for (const reading of sanReadings(t, size)) for (const m of matchSan(reading, offered, roleAt, size)) found.add(m);
  if (found.size === 1) return { text: [...found][0] };
  if (found.size > 1) return { error: `"${t}" could be ${[...found].join(' or ')}: type the squares (e.g. ${[...found][0]})` };
  return { error: `"${t}" is not a move you can make now` };
}

interface San {
  role: string; // 'p' for a pawn, else the lowercase piece letter
  fromFile?: string;
  fromRank?: string;
  to?: string;
  promotion?: string;
  castle?: 'short' | 'long';
}

/** The ways a SAN-like text can be read: as typed (piece letters upper case), and in lower
 * case both as a pawn move and as a piece move (`bc4`: b-pawn or bishop). */
function sanReadings(text: string, size: number): San[] {
  const t = text.replace(/[+#!?]+$/, '').replace(/^\d+\.+\s*/, '');
  if (/^(o-o|0-0)$/i.test(t)) return [{ role: 'k', castle: 'short' }];
  if (/^(o-o-o|0-0-0)$/i.test(t)) return [{ role: 'k', castle: 'long' }];
  const f = `[a-${FILES[size - 1]}]`;
  const pieces = 'KQRBNMACHDSOY';
  const re = (p: string) => new RegExp(`^([${p}])?(${f})?(\\d{1,2})?x?(${f}\\d{1,2})(?:=?([${pieces}${pieces.toLowerCase()}]))?$`);
  const out: San[] = [];
  const exact = re(pieces).exec(t);
  if (exact) out.push(toSan(exact));
  const l = t.toLowerCase();
  // Case carries meaning (`Bc4`, `bxc4`) only when the text mixes cases; one case reads both ways.
  if (!exact || t === l || t === t.toUpperCase()) {
    const pawn = new RegExp(`^(${f})?(\\d{1,2})?x?(${f}\\d{1,2})(?:=?([${pieces.toLowerCase()}]))?$`).exec(l);
    if (pawn) out.push(toSan([pawn[0], undefined, pawn[1], pawn[2], pawn[3], pawn[4]]));
    const piece = re(pieces.toLowerCase()).exec(l);
    if (piece && piece[1]) out.push(toSan(piece));
  }
  return out;
}

function toSan(m: ArrayLike<string | undefined>): San {
  return {
    role: m[1] ? m[1].toLowerCase() : 'p',
    fromFile: m[2],
    fromRank: m[3],
    to: m[4],
    promotion: m[5]?.toLowerCase(),
  };
}

function matchSan(s: San, offered: string[], roleAt: (sq: string) => string | null, size: number): string[] {
  const out: string[] = [];
  const sq = `([a-p](?:1[0-6]|[1-9]))`;
  const uci = new RegExp(`^${sq}${sq}([a-z])?$`);
  for (const o of offered) {
    const m = uci.exec(o);
    if (!m) continue;
    const [, from, to, promo] = m;
    const role = roleAt(from);
    if (s.castle) {
      if (role !== 'k') continue;
      const df = FILES.indexOf(to[0]) - FILES.indexOf(from[0]);
      if (Math.abs(df) < 2 || from.slice(1) !== to.slice(1)) continue;
      if ((s.castle === 'short') === df > 0) out.push(o);
      continue;
    }
    if (role !== s.role || to !== s.to) continue;
    if (s.fromFile && from[0] !== s.fromFile) continue;
    if (s.fromRank && from.slice(1) !== s.fromRank) continue;
    if ((promo ?? undefined) !== s.promotion) {
      // A pawn reaching the last rank without a named promotion: only if just one is offered.
      if (s.promotion !== undefined || promo === undefined) continue;
    }
    out.push(o);
  }
  void size;
  return out;
}
