// A finished match step by step (the server's /api/match/{id}/replay, verifier::views): which
// board, announcements and clocks each view shows at each step. Pure functions of the replay
// JSON; the page (game.ts) draws them. A player's view is only ever drawn from that seat's own
// view (`views.white` / `views.black`, built by the verifier from what that side was told):
// nothing here reads the full position for a player's view.

import { words } from "./dom";
import { actionIsPublic, actionWords, toldWords } from "./words";
import type { Announcement, Color, SeatView } from "../types";
import type { Clocks, CompactReplay, Frame, Replay } from "../types/verifier";

// The replay's JSON, generated from the verifier's types (verifier::views: `Replay`, `Frame`,
// `Clocks`, and `CompactReplay` as the host sends it, step 0 whole as a `Step`, then deltas).
export type { Clocks, CompactReplay, Frame, Replay, SeatView };

export type Side = Color;
export type ViewName = Side | "full";

/** The compact replay's format (verifier::views::COMPACT_FORMAT). */
export const COMPACT_FORMAT = "fogproof-replay-delta/1";

/** `old` with a delta applied (verifier::views::apply, the same rules): an object changes the
 * keys it names; `[v]` replaces; `[]` removes the key; `["s", at, cut, text]` splices a string;
 * `["a", keep, items]` keeps an array's first `keep` items and appends `items`. Throws on a
 * delta that does not fit. */
export function applyDelta(old: unknown, d: unknown): unknown {
  const bad = () => new Error("a replay step that does not fit the one before");
  if (Array.isArray(d)) {
    if (d.length === 1) return d[0];
    if (d.length === 4 && d[0] === "s" && typeof old === "string" && typeof d[3] === "string") {
      const [, at, cut] = d as [string, number, number, string];
      if (!Number.isInteger(at) || !Number.isInteger(cut) || at < 0 || cut < 0 || at + cut > old.length) throw bad();
      return old.slice(0, at) + d[3] + old.slice(at + cut);
    }
    if (d.length === 3 && d[0] === "a" && Array.isArray(old) && Array.isArray(d[2])) {
      const keep = d[1];
      if (!Number.isInteger(keep) || keep < 0 || keep > old.length) throw bad();
      return old.slice(0, keep).concat(d[2]);
    }
    throw bad();
  }
  if (d === null || typeof d !== "object" || old === null || typeof old !== "object" || Array.isArray(old)) throw bad();
  const out: Record<string, unknown> = { ...(old as Record<string, unknown>) };
  for (const [k, cd] of Object.entries(d)) {
    if (Array.isArray(cd) && cd.length === 0) {
      if (!(k in out)) throw bad();
      delete out[k];
    } else if (k in out) {
      out[k] = applyDelta(out[k], cd);
    } else if (Array.isArray(cd) && cd.length === 1) {
      out[k] = cd[0];
    } else {
      throw bad();
    }
  }
  return out;
}

/** The full replay a compact one describes: every step rebuilt from the one before. */
export function expandReplay(c: CompactReplay): Replay {
  if (c.format !== COMPACT_FORMAT) throw new Error(`a replay in format ${String(c.format)}; this page reads ${COMPACT_FORMAT}`);
  const frames: Frame[] = [];
  let step: unknown = c.start;
  for (const d of c.deltas) {
    step = applyDelta(step, d);
    frames.push(step as Frame);
  }
  return { variant: c.variant, start: c.start.views, start_full: c.start.full, frames, result: c.result };
}

/** The number of steps: the start, then one per frame. */
export function steps(r: Replay): number {
  return r.frames.length + 1;
}

/** Clamps a step index to the replay. */
export function clampStep(r: Replay, step: number): number {
  return Math.max(0, Math.min(steps(r) - 1, Math.trunc(step)));
}

/** A seat's view at a step (0: before the first action). */
export function seatAt(r: Replay, step: number, side: Side): SeatView {
  return step <= 0 ? r.start[side] : r.frames[step - 1].views[side];
}

/** The board string a view shows at a step: a seat's own board for White and Black, the full
 * position for the umpire's view (null where the game has none). */
export function boardAt(r: Replay, step: number, view: ViewName): string | null {
  if (view === "full") return step <= 0 ? r.start_full : r.frames[step - 1].full;
  return seatAt(r, step, view).board;
}

/** The clocks at a step (the initial clocks are the first frame's before its action is not
 * known, so the start shows none). */
export function clocksAt(r: Replay, step: number): Clocks | null {
  return step <= 0 ? null : r.frames[step - 1].clocks;
}

/** What a view is told about the action of a frame: the whole action in the umpire's view, the
 * actor's own view, open games and Intrigue's public moves; otherwise only that the opponent
 * acted. */
export function actionText(r: Replay, frame: Frame, view: ViewName): string {
  const who = frame.actor === "white" ? "White" : "Black";
  if (view === "full" || view === frame.actor || actionIsPublic(r.variant, frame.action)) {
    return `${who}: ${actionWords(r.variant, frame.action)}${illegal(frame) ? " (illegal attempt)" : ""}`;
  }
  return `${who} acted (hidden from ${view === "white" ? "White" : "Black"})`;
}

/** Whether a frame is a Kriegspiel attempt the umpire called illegal (told to the mover only). */
export function illegal(frame: Frame): boolean {
  const last = frame.views[frame.actor]?.last;
  const k: unknown = last && "kriegspiel" in last ? last.kriegspiel : undefined;
  return k === "illegal" || (k !== null && typeof k === "object" && "illegal" in k);
}

/** The side to move, from a board string's second field. */
export function sideToMove(board: string | null): Side | null {
  const f = board?.split(" ")[1];
  return f === "w" ? "white" : f === "b" ? "black" : null;
}

/** A Kriegspiel announcement (rules::kriegspiel::Announcement) in the umpire's words. */
export function kriegspielAnnouncement(a: Announcement | null | undefined): string {
  if (!a || typeof a !== "object") return "";
  const parts: string[] = [];
  if (a.capture) {
    parts.push(`${a.capture.kind === "pawn" ? "pawn" : "piece"} captured on ${a.capture.square}${a.capture.en_passant ? " (en passant)" : ""}`);
  }
  for (const c of a.checks ?? []) parts.push(c === "knight" ? "check by a knight" : `check on the ${words(c)}`);
  if (a.pawn_tries) parts.push(`${a.pawn_tries} pawn tr${a.pawn_tries === 1 ? "y" : "ies"}`);
  if (a.end) parts.push(words(a.end));
  return parts.length ? parts.join("; ") : "move made; nothing to announce";
}

/** The last thing a seat was told, in words, for every game. */
export function toldText(seat: SeatView): string {
  return toldWords(seat.last, kriegspielAnnouncement);
}

/** A JSON value as short readable text (for observations of games without words here). */
export function compact(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "object") return String(v);
  const text = JSON.stringify(v)
    .replace(/"([a-z_]+)":/g, "$1: ")
    .replace(/"/g, "")
    .replace(/,/g, ", ");
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** Every announcement a Kriegspiel seat holds, in words, oldest first. */
export function announcements(seat: SeatView): string[] {
  const k = seat.knows && "kriegspiel" in seat.knows ? seat.knows.kriegspiel : undefined;
  if (!k || !Array.isArray(k.announcements)) return [];
  return k.announcements.map(kriegspielAnnouncement);
}
