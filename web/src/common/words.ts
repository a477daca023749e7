// Texts the pages show players, as pure functions (tested without a browser).

import type { Side } from './board';

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
export function setupWords(variant: string, setup: any): string {
  if (!setup || typeof setup !== 'object') return '';
  if (variant === 'intrigue') {
    return `king hidden on ${setup.king}, informer pawn ${setup.informer}${setup.queen_on_king_square ? ', queen on the king\'s square' : ''}`;
  }
  if (variant === 'secretchess6') {
    const fs: string[] = Array.isArray(setup.false_squares) ? setup.false_squares : [];
    return `formation ${setup.formation} (files a to f), false squares ${fs.join(' ') || 'none'}`;
  }
  return '';
}
