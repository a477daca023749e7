// A chessgroundx board for every game: 8x8, 7x7 (Espionage) and 6x6, fog squares ('*'), enemy
// men of unknown kind ('?') and the fairy pieces. It draws a seat's board string exactly as the
// seat knows it and nothing else (the page is never given anything else).

import { Chessground } from 'chessgroundx';
import type { Api } from 'chessgroundx/api';
import type { DrawShape } from 'chessgroundx/draw';
import type * as cg from 'chessgroundx/types';
import { VARIANTS } from '../types/variants';

export type Side = 'white' | 'black';

/** The board size of each game. */
export function boardSize(variant: string): number {
  return VARIANTS.find((v) => v.id === variant)?.size ?? 8;
}

/** Intrigue before both setups: the seat has no position yet (its board string is `-`), but
 * all of it is public except each king's hiding square, its informer and where its queen starts
 * (RULES.md R-I1): both armies without kings, each queen on its own square. */
export const INTRIGUE_BEFORE_SETUP = 'rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w';

/** The board string to draw for a seat's board string: `-` (no position yet) is Intrigue's
 * armies before the setups, so the informer pawn can be clicked, and nothing in other games. */
export function boardShown(variant: string, board: string): string {
  if (board !== '-') return board;
  return variant === 'intrigue' ? INTRIGUE_BEFORE_SETUP : '';
}

/**
 * The piece image letter (src/common/pieces/{w,b}{letter}.svg) of a board-string letter, per
 * game (RULES.md R-C3: `C` is a Centaur in SIC but a Cannon in Espionage).
 */
export function imageLetter(variant: string, letter: string): string {
  const l = letter.toLowerCase();
  if (variant === 'espionage' && l === 'c') return 'o';
  return l;
}

/** A piece's name, for titles and the move list. */
export function roleName(variant: string, letter: string): string {
  const names: Record<string, string> = {
    p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king', m: 'marshall',
    a: 'archbishop', c: 'centaur', h: 'dragon horse', d: 'dragon king', s: 'spy', y: 'decoy',
    o: 'cannon', u: 'unknown man',
  };
  return names[imageLetter(variant, letter)] ?? letter;
}

/** The squares of a board of `size`, a1 first. */
export function squares(size: number): string[] {
  const out: string[] = [];
  for (let r = 1; r <= size; r++) for (let f = 0; f < size; f++) out.push(String.fromCharCode(97 + f) + r);
  return out;
}

/** What a board string puts on each square: a piece, `fog`, or nothing (empty). */
export type Cell = { kind: 'piece'; color: Side; letter: string } | { kind: 'fog' } | { kind: 'unknown'; color: Side };

/** Reads the first field of a board string (R-C4, with `*` fog and `?` unknown enemy men). */
export function parseBoard(board: string, size: number, side: Side): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  const rows = board.split(' ')[0].split('/');
  const enemy: Side = side === 'white' ? 'black' : 'white';
  rows.forEach((row, i) => {
    const rank = size - i;
    let file = 0;
    for (let j = 0; j < row.length; j++) {
      const c = row[j];
      if (c >= '0' && c <= '9') {
        let n = c.charCodeAt(0) - 48;
        // Two-digit runs never occur on boards up to 8 files, but read them right anyway.
        while (j + 1 < row.length && row[j + 1] >= '0' && row[j + 1] <= '9') n = n * 10 + row.charCodeAt(++j) - 48;
        file += n;
        continue;
      }
      const key = String.fromCharCode(97 + file) + rank;
      if (c === '*') cells.set(key, { kind: 'fog' });
      else if (c === '?') cells.set(key, { kind: 'unknown', color: enemy });
      else cells.set(key, { kind: 'piece', color: c === c.toUpperCase() ? 'white' : 'black', letter: c });
      file++;
    }
  });
  return cells;
}

export interface BoardOptions {
  variant: string;
  side: Side;
  /** Called with the origin and destination of a move made on the board. */
  onMove?: (orig: string, dest: string) => void;
  /** Called with a square clicked (setup forms pick squares this way). */
  onSelect?: (square: string) => void;
  /** Premoves while the opponent is to move (open games only). */
  premove?: boolean;
}

/** A board of one game, drawn from board strings. */
export class Board {
  readonly size: number;
  readonly cg: Api;
  private readonly variant: string;
  private side: Side;
  private readonly premove: boolean;

  constructor(el: HTMLElement, opts: BoardOptions) {
    this.variant = opts.variant;
    this.size = boardSize(opts.variant);
    this.side = opts.side;
    this.premove = !!opts.premove;
    el.classList.add('cg-wrap', `size-${this.size}`, `variant-${opts.variant}`);
    this.cg = Chessground(el, {
      // An empty board of the game's size (chessgroundx would start from the 8x8 opening).
      fen: Array(this.size).fill(String(this.size)).join('/'),
      orientation: opts.side,
      dimensions: { width: this.size, height: this.size },
      coordinates: true,
      autoCastle: false,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      movable: {
        free: false,
        color: undefined,
        showDests: true,
        events: { after: (orig, dest) => opts.onMove?.(orig, dest) },
      },
      premovable: { enabled: !!opts.premove, castle: true },
      events: { select: (sq) => opts.onSelect?.(sq) },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: false, visible: true },
    });
  }

  /**
   * Draws `board` (a seat's board string) with `dests` (origin square → destination squares)
   * movable when the seat is asked to move.
   */
  set(
    board: string,
    dests: Map<string, string[]>,
    opts: { lastMove?: [string, string]; marks?: DrawShape[]; check?: Side | null; live?: boolean } = {},
  ): void {
    const cells = parseBoard(board, this.size, this.side);
    const diff: cg.PiecesDiff = new Map();
    const enemy: Side = this.side === 'white' ? 'black' : 'white';
    for (const sq of squares(this.size)) {
      const c = cells.get(sq);
      let piece: cg.Piece | undefined;
      if (c?.kind === 'fog') piece = { role: '_-piece' as cg.Role, color: enemy };
      else if (c?.kind === 'unknown') piece = { role: 'u-piece' as cg.Role, color: c.color };
      else if (c?.kind === 'piece') piece = { role: `${imageLetter(this.variant, c.letter)}-piece` as cg.Role, color: c.color };
      diff.set(sq as cg.Key, piece);
    }
    this.cg.setPieces(diff);
    this.cg.set({
      lastMove: opts.lastMove as cg.Key[] | undefined,
      movable: {
        // A premove needs the seat's own color movable while the opponent is to move.
        color: dests.size > 0 || (this.premove && opts.live) ? this.side : undefined,
        dests: dests as unknown as cg.Dests,
      },
      turnColor: dests.size > 0 ? this.side : enemy,
      check: opts.check ?? false,
    });
    if (!opts.live) this.cg.cancelPremove();
    this.cg.setAutoShapes(opts.marks ?? []);
  }

  /** Turns the board around. */
  flip(): void {
    this.cg.toggleOrientation();
  }

  /** Plays a premove set while the opponent was to move, if it is legal now. */
  playPremove(): boolean {
    return this.premove ? this.cg.playPremove() : false;
  }

  /** Which way up the board is now. */
  orientation(): Side {
    return this.cg.state.orientation as Side;
  }
}

/** Move destinations from the texts offered (`e2e4`, `e7e8q`, `b1c4+`): origin → squares. */
export function destsOf(texts: string[], size: number): Map<string, string[]> {
  const dests = new Map<string, string[]>();
  const sq = new RegExp(`^([a-${String.fromCharCode(96 + size)}][1-${size}])([a-${String.fromCharCode(96 + size)}][1-${size}])`);
  for (const t of texts) {
    const m = sq.exec(t);
    if (!m) continue;
    const list = dests.get(m[1]) ?? [];
    if (!list.includes(m[2])) list.push(m[2]);
    dests.set(m[1], list);
  }
  return dests;
}
