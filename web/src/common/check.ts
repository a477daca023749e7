// Who is in check, as far as a seat was told: for the game page's highlight and its words.
// Only the seat's own knowledge is read (nothing here can learn more than the seat was told).

import type { AnyObservation, Knows } from '../types';

/** The parts of the agent's game state (`gameState`) that say who is in check. */
export interface CheckState {
  side?: string | null;
  san?: string[];
  view?: { board?: string; knows?: Knows | null; last?: AnyObservation | null } | null;
}

/** Who is in check as far as the seat was told: `mine` (its king), `theirs` (its move gave
 * check), `decoy` (SIC: its decoy is attacked). */
export function checkOf(variant: string, s: CheckState): { mine: boolean; theirs: boolean; decoy: boolean } {
  const k: Partial<UnionToFields<Knows>> = s.view?.knows ?? {};
  const side = s.side ?? 'white';
  const toMove = s.view?.board?.split(' ')[1] === 'b' ? 'black' : 'white';
  const out = { mine: false, theirs: false, decoy: false };
  if (variant === 'chess') {
    const san = s.san ?? [];
    const last = san[san.length - 1] ?? '';
    if (/[+#]$/.test(last)) out[toMove === side ? 'mine' : 'theirs'] = true;
  } else if (variant === 'espionage') {
    // Everything is public (R-E5): the last move says whether the side now to move is in check.
    const last: Partial<UnionToFields<AnyObservation>> | null | undefined = s.view?.last;
    const e = last?.espionage;
    if (e?.check) out[e.mover === side ? 'theirs' : 'mine'] = true;
  } else if (variant === 'kriegspiel' && k.kriegspiel) {
    const anns = k.kriegspiel.announcements ?? [];
    const a = anns[anns.length - 1];
    if (a?.checks?.length) out[k.kriegspiel.to_move === side ? 'mine' : 'theirs'] = true;
  } else if (variant === 'sic' && k.sic) {
    out.mine = k.sic.check === 'king';
    out.decoy = k.sic.check === 'decoy';
    out.theirs = !!k.sic.gave_check;
  } else if (variant === 'intrigue' && k.intrigue) {
    const c: string[] = k.intrigue.check ?? [];
    out.mine = c.includes(side);
    out.theirs = c.some((x) => x !== side);
  }
  return out;
}

/** An externally tagged union (`{a: A} | {b: B}`) as one object of optional fields, for
 * reading whichever tag is there. */
type UnionToFields<U> = { [K in U extends unknown ? keyof U : never]: U extends Record<K, infer V> ? V : never };
