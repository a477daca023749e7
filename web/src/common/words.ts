// Texts the pages show players, as pure functions (tested without a browser).

import type { Side } from './board';
import type { SignedName } from '../types';

/**
 * Why a time control typed in the lobby cannot be sent (`null` when it can): minutes from 1
 * to 180 (halves allowed), increment a whole number of seconds from 0 to 180.
 */
export function timeControlProblem(minutes: string, increment: string): string | null {
  const m = Number(minutes);
  const i = Number(increment);
  if (minutes.trim() === '' || !Number.isFinite(m) || m < 1 || m > 180 || Math.round(m * 2) !== m * 2) {
    return `Minutes: a number from 1 to 180 (halves allowed), not "${minutes}".`;
  }
  if (increment.trim() === '' || !Number.isInteger(i) || i < 0 || i > 180) {
    return `Increment: whole seconds from 0 to 180, not "${increment}".`;
  }
  return null;
}

/**
 * The server's own words in an error the agent passed on: without the address of the call the
 * agent made for it (`http://host/api/…: 400: the text`), which means nothing to a player.
 */
export function serverText(message: string): string {
  const m = /^[a-z]+:\/\/\S+?: (?:\d{3}: )?(.*)$/s.exec(message);
  return m ? m[1] : message;
}

/** A result in words, from the player's seat: "You won by checkmate." */
export function resultWords(result: string | null, reason: string | null, side: Side | null): string {
  const why = reason ? ` by ${reason.replace(/[-_]/g, ' ')}` : '';
  if (!result || result === '*') return `The game is over${why}.`;
  if (result === '1/2-1/2' || result === '½-½') return `Draw${why}.`;
  const winner: Side | null = result === '1-0' ? 'white' : result === '0-1' ? 'black' : null;
  if (!winner) return `Result ${result}${why}.`;
  if (!side) return `${winner === 'white' ? 'White' : 'Black'} won${why}.`;
  return winner === side ? `You won${why}.` : `You lost${why}.`;
}

/** A side's opened secret setup in words (Intrigue, 6x6); '' for games without one. */
export function setupWords(variant: string, opened: unknown): string {
  if (!opened || typeof opened !== 'object') return '';
  // The setup action's JSON as the record opens it (Intrigue's `IntrigueSetup`, 6x6's setup).
  const setup = opened as Record<string, unknown>;
  if (variant === 'intrigue') {
    return `king hidden on ${setup.king}, informer pawn ${setup.informer}${setup.queen_on_king_square ? ', queen on the king\'s square' : ''}`;
  }
  if (variant === 'secretchess6') {
    const fs: string[] = Array.isArray(setup.false_squares) ? setup.false_squares : [];
    return `formation ${setup.formation} (files a to f), false squares ${fs.join(' ') || 'none'}`;
  }
  return '';
}

/**
 * A player as the pages show one: the display name its key signed (checked by the agent or the
 * host's answer carries the signature), then the key's short form in brackets — the key stays
 * the identity, the name is a label: "Alice (ed25519:162a0b3c…)". Without a name, the short key.
 */
export function playerText(key: string | null | undefined, name?: string | null): string {
  const k = shortKeyText(key);
  return name ? `${name} (${k})` : k;
}

/** `ed25519:` and the first 8 hex digits of a key (a prefix of the CLI's fingerprint). */
export function shortKeyText(key: string | null | undefined): string {
  if (!key) return '?';
  const hex = key.startsWith('ed25519:') ? key.slice(8) : key;
  return hex.length > 8 ? `ed25519:${hex.slice(0, 8)}…` : `ed25519:${hex}`;
}

/**
 * The display name of `key` from an answer's `names` map (key → signed name) or a player
 * object's `name` (where its `signedName` is that key's), or null.
 */
export function nameOf(
  key: string | null | undefined,
  names?: { [key in string]?: Partial<SignedName> | null } | null,
  player?: { id?: string; signedName?: Partial<SignedName> | null } | null,
): string | null {
  if (!key) return null;
  const signed = names?.[key];
  if (signed && signed.key === key && typeof signed.name === 'string') return signed.name;
  if (player && player.id === key && player.signedName?.key === key && typeof player.signedName?.name === 'string') return player.signedName.name;
  return null;
}

/** Why a display name typed on the page will be refused (`null` when it may be sent). */
export function nameProblem(name: string): string | null {
  const t = name.normalize('NFC').trim().replace(/ +/g, ' ');
  if (!t) return 'A name cannot be empty.';
  if ([...t].length > 32) return 'At most 32 characters.';
  if (!/^[\p{L}\p{N}\p{M} _.'-]+$/u.test(t)) return "Letters, digits, spaces and - _ . ' only.";
  if (/^ed25519/i.test(t)) return 'A name cannot start with "ed25519" (it would pose as a key).';
  return null;
}
