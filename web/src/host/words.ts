// A replay's actions and what each side was told, in words, for every game (the replay JSON
// holds the rules' own serde forms: see verifier::views). Pure functions; anything of a shape
// not known here falls back to a short plain rendering, never to raw JSON text.

import { moveUci } from "../common/notation";
import { VARIANTS } from "../types/variants";
import type {
  Announcement,
  AnyObservation,
  EspionageObservation,
  GameResult,
  IntrigueObservation,
  Played,
  SicObservation,
  SicView,
  SixEvent,
  SixObservation,
} from "../types";

/** The first `{kind: body}` pair of an externally tagged serde value, or `["", undefined]`. */
function tagged(v: unknown): [string, unknown] {
  if (v === null || typeof v !== "object") return ["", undefined];
  return Object.entries(v as Record<string, unknown>)[0] ?? ["", undefined];
}

const ROLES: Record<string, string> = {
  p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king", m: "marshall", a: "archbishop",
  c: "centaur", h: "dragon horse", d: "dragon king", s: "spy", y: "decoy", o: "cannon",
};

/** A role as the rules spell it (`dragon-king`, `Knight`, `n`) in words. */
export function roleWords(r: unknown): string {
  const t = String(r ?? "");
  if (t.length === 1) return ROLES[t.toLowerCase()] ?? t;
  return t.replace(/[-_]/g, " ").toLowerCase();
}

/** A list of squares however the rules wrote it (a list, or a space-separated string). */
function squares(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string") return v.split(/[\s,]+/).filter(Boolean);
  return [];
}

function parse(action: string): unknown {
  if (!action.startsWith("{") && !action.startsWith('"') && !action.startsWith("[")) return action;
  try {
    return JSON.parse(action);
  } catch {
    return action;
  }
}

/** Games whose every action both sides see (mode "open" in the generated variant list). */
const OPEN = new Set<string>(VARIANTS.filter((v) => v.mode === "open").map((v) => v.id));

/** Whether every view sees an action: every action of an open game (chess, Espionage), and
 * Intrigue's moves (all public there; only its setups are secret). */
export function actionIsPublic(variant: string, action: string): boolean {
  if (OPEN.has(variant)) return true;
  if (variant !== "intrigue") return false;
  const v = parse(action);
  return !(v !== null && typeof v === "object" && "setup" in (v as Record<string, unknown>));
}

/** An action (the replay's `action` text: UCI, or the rules' JSON for the others) in words. */
export function actionWords(variant: string, action: string): string {
  const v = parse(action);
  if (typeof v === "string") {
    if (v === "end-turn") return "ends the turn";
    if (/^[a-p]\d{1,2}[a-p]\d{1,2}\+$/.test(v) && variant === "secretchess6") return `${v.slice(0, -1)} (knight powered up)`;
    return v;
  }
  if (!v || typeof v !== "object") return String(v);
  const [kind, raw] = tagged(v);
  // The rules' action JSON (rules' serde forms of each game's action), read field by field.
  const body = (raw !== null && typeof raw === "object" ? raw : null) as Record<string, unknown> | null;
  switch (kind) {
    case "setup":
      if (variant === "intrigue") {
        const b = body ?? {};
        return `secret setup (king's hiding square and informer sealed${b.queen_on_king_square ? "; queen on the king's square" : ""})`;
      }
      if (variant === "secretchess6" && body) {
        const f = squares(body.false_squares);
        return `setup: formation ${body.formation ?? "?"} (files a to f), false squares ${f.join(" ") || "none"}`;
      }
      return "setup";
    case "move":
      return body ? String(body.mv ?? body.move ?? JSON.stringify(body)) : String(raw);
    case "life-freeze":
      return `Life Freeze on ${body?.piece ?? "?"}`;
    case "tie-break":
      return `tie-break guess: formation ${body?.formation ?? "?"}, turns ${(Array.isArray(body?.moves) ? (body.moves as unknown[]) : []).join(" ") || "none"}`;
    default:
      return plain(v);
  }
}

/** A value as plain words: `key value` pairs, no braces or quotes. */
export function plain(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "object") return String(v).replace(/-/g, " ");
  if (Array.isArray(v)) return v.map(plain).join(", ");
  return Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== null && x !== undefined && x !== false)
    .map(([k, x]) => (x === true ? k.replace(/[-_]/g, " ") : `${k.replace(/[-_]/g, " ")} ${plain(x)}`))
    .join("; ");
}

function resultText(r: GameResult | null | undefined): string {
  if (!r) return "";
  const winner = r.winner ? `${r.winner === "white" ? "White" : "Black"} wins` : "draw";
  return `game over: ${winner}${r.reason ? ` by ${String(r.reason).replace(/-/g, " ")}` : ""}`;
}

/** What SIC tells a side after a move (or at the start: its view). */
function sicWords(o: SicObservation | SicView | null | undefined): string {
  if (!o || typeof o !== "object") return plain(o);
  if ("you-moved" in o && o["you-moved"]) {
    const r = o["you-moved"];
    const parts = ["your move was made"];
    if (r.captured) parts.push(`you captured a ${roleWords(r.captured)}`);
    if (r.check) parts.push("check (on the king or the decoy)");
    if (r.end) parts.push(resultText(r.end));
    return parts.join("; ");
  }
  if ("opponent-moved" in o && o["opponent-moved"]) {
    const r = o["opponent-moved"];
    const parts = [`the enemy man from ${r.id} moved ${r.from} to ${r.to}`];
    if (r.lost) parts.push(`your ${roleWords(r.lost.role)} on ${r.lost.square} was captured`);
    if (r.check === "king") parts.push("check: your king is attacked");
    else if (r.check === "decoy") parts.push("check on your decoy");
    if (Array.isArray(r.legal)) parts.push(`${r.legal.length} legal moves`);
    if (r.end) parts.push(resultText(r.end));
    return parts.join("; ");
  }
  if ("own" in o && Array.isArray(o.own)) return `the start: your army of ${o.own.length} men on its squares${Array.isArray(o.legal) ? `, ${o.legal.length} legal moves` : ""}`;
  return plain(o);
}

/** What 6x6 tells a side: a list of events, or one. */
function sixWords(o: SixObservation | SixEvent[] | SixEvent | null | undefined): string {
  const events: (SixEvent | null | undefined)[] = Array.isArray(o) ? o : o && typeof o === "object" && "events" in o && Array.isArray(o.events) ? o.events : [o as SixEvent | null | undefined];
  if (!events.length) return "nothing new";
  return events
    .map((e) => {
      if (typeof e === "string") {
        if (e === "setup-accepted") return "your setup was accepted";
        if (e === "opponent-ready") return "the opponent has committed";
        return (e as string).replace(/-/g, " ");
      }
      const [kind] = tagged(e);
      switch (kind) {
        case "board": {
          const x = (e as Extract<SixEvent, { board: unknown }>).board;
          return `turn ${x?.turn}${x?.your_turn ? ", your move" : ""}: ${(x?.pieces ?? []).length} men; threatened squares ${squares(x?.red).join(" ") || "none"}`;
        }
        case "moved":
          return `your move ${(e as Extract<SixEvent, { moved: unknown }>).moved?.mv} was made`;
        case "passed":
          return `your turn passed (${plain((e as Extract<SixEvent, { passed: unknown }>).passed?.reason)})`;
        case "frozen":
          return `Life Freeze on ${(e as Extract<SixEvent, { frozen: unknown }>).frozen?.piece}`;
        case "scores": {
          const x = (e as Extract<SixEvent, { scores: unknown }>).scores;
          return `scores after turn ${x?.turn}: White ${x?.scores?.white ?? "?"}, Black ${x?.scores?.black ?? "?"}`;
        }
        case "tie-break-needed": {
          const x = (e as Extract<SixEvent, { "tie-break-needed": unknown }>)["tie-break-needed"];
          return `scores level (${x?.scores?.white ?? "?"}–${x?.scores?.black ?? "?"}): tie-break, ${x?.opponent_turns} opponent turns to guess`;
        }
        case "end": {
          const x = (e as Extract<SixEvent, { end: unknown }>).end;
          const tb = x?.tie_break ? `; tie-break: formation errors White ${x.tie_break.formation_errors?.white}, Black ${x.tie_break.formation_errors?.black}` : "";
          return `${resultText(x?.result)}; scores White ${x?.scores?.white ?? "?"}, Black ${x?.scores?.black ?? "?"}${tb}`;
        }
        default:
          return plain(e);
      }
    })
    .join("; ");
}

/** What Intrigue tells both sides. */
function intrigueWords(o: IntrigueObservation | null | undefined): string {
  const [kind] = tagged(o);
  if (kind === "setup") {
    const x = (o as Extract<IntrigueObservation, { setup: unknown }>).setup ?? {};
    return `${x.side === "white" ? "White" : "Black"} has set up${x.queen_on_king_square ? " (queen on the king's square)" : ""}${x.play_starts ? "; play begins" : ""}`;
  }
  if (kind === "move") {
    const x = (o as Extract<IntrigueObservation, { move: unknown }>).move;
    const parts = [`${x.side === "white" ? "White" : "Black"} played ${moveUci(x.mv)}`];
    if (x.capture) parts.push(`captured on ${x.capture.square ?? plain(x.capture)}`);
    const i = x.inspection;
    if (i) {
      parts.push(`${i.owner === "white" ? "White" : "Black"}'s captured pawn was ${i.informer ? "the informer" : "not the informer"}`);
      if (i.appeared) parts.push(`its king appeared on ${i.appeared.square}`);
    }
    if ((x.check ?? []).length) parts.push(`check to ${x.check.join(" and ")}`);
    if (x.result) parts.push(resultText(x.result));
    return parts.join("; ");
  }
  return plain(o);
}

/** The last thing a seat was told (`SeatView.last`: `{game: observation}`), in words. */
export function toldWords(last: AnyObservation | Record<string, unknown> | null, kriegspiel: (a: Announcement) => string): string {
  if (!last) return "nothing yet";
  const [game, v] = tagged(last);
  switch (game) {
    case "kriegspiel":
      if (v === "illegal" || (v && typeof v === "object" && "illegal" in v)) return "illegal attempt";
      if (v && typeof v === "object" && "legal" in v) return kriegspiel((v as { legal: Announcement }).legal);
      return plain(v);
    case "sic":
    case "sic-start":
    case "sic_start":
      return sicWords(v as SicObservation | SicView | null);
    case "secretchess6":
      return sixWords(v as SixObservation | null);
    case "intrigue":
      return intrigueWords(v as IntrigueObservation | null);
    case "chess": {
      const p = v as Played | null | undefined;
      const m = p?.mv;
      return `${m ? `${moveUci(m)} was played` : "a move was played"}${p?.end ? `; ${resultText(p.end)}` : ""}`;
    }
    case "espionage": {
      const x = v as EspionageObservation | null | undefined;
      const parts = [`${x?.mover === "black" ? "Black" : "White"} played ${x?.move ?? "?"}`];
      if (x?.capture) parts.push(`taking a ${roleWords(x.capture)}`);
      if (x?.check) parts.push("check");
      if (x?.end) parts.push(resultText(x.end));
      return parts.join("; ");
    }
    default:
      return plain(v);
  }
}
