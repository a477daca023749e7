// The game page, /game/{id}: a live match's public information (players, variant, clocks; no
// hidden board), or a finished match's replay of each view (White's, Black's, the umpire's full
// board) step by step with announcements and clocks, its verdict in plain words, and links to
// the record and the PGN of each view.

import { OPEN_GAMES, UMPIRED_GAMES, clock, h, keySpan, link, replace, variantName, when } from "./dom";
import { Board } from "../common/board";
import { ApiError, getJson } from "./http";
import {
  type CompactReplay,
  type Replay,
  type ViewName,
  actionText,
  announcements,
  boardAt,
  clampStep,
  clocksAt,
  expandReplay,
  illegal,
  seatAt,
  steps,
  toldText,
} from "./replay";
import { renderVerdict } from "./verdict";
import type { Page } from "./page";
import type { FinishedGame, MatchAnswer, Named } from "../types/host";
import type { VerdictJson } from "../types/verifier";

function viewLabel(view: ViewName, variant: string): string {
  if (view === "white") return "White's view";
  if (view === "black") return "Black's view";
  return UMPIRED_GAMES.has(variant) ? "Umpire's view (full board)" : "Full board";
}

export const gamePage: Page = async (root, params, ctx) => {
  const id = params[0] ?? "";
  let info: Named<MatchAnswer>;
  try {
    info = await getJson<Named<MatchAnswer>>(`/api/match/${encodeURIComponent(id)}`);
  } catch (e) {
    if (e instanceof ApiError && e.notFound) {
      document.title = "No such game — fogproof";
      replace(root, h("h1", {}, "No such game"), h("p", {}, `This server has no game ${id.slice(0, 16)}…. `, link("/games", "The finished games"), " and ", link("/", "the lobby"), " list those it has."));
      return;
    }
    throw e;
  }
  if (info.status === "live") {
    renderLive(root, info, ctx.known);
    ctx.every(2000, async () => renderLive(root, await getJson<Named<MatchAnswer>>(`/api/match/${encodeURIComponent(id)}`), ctx.known));
    return;
  }
  const [replay, verdict] = await Promise.all([
    getJson<CompactReplay>(`/api/match/${id}/replay`).then(expandReplay).catch((e) => e as Error),
    getJson<VerdictJson>(`/api/match/${id}/verdict`),
  ]);
  renderFinished(root, id, info, replay, verdict, ctx);
};

function renderLive(root: HTMLElement, answer: MatchAnswer, known: Record<string, string>): void {
  if (answer.status !== "live") {
    // It finished while we watched: load the replay.
    location.reload();
    return;
  }
  // A match live on another node of a cluster is shown from its stored row: no sides or
  // clocks yet.
  const m = answer;
  const live = "white_ms" in m ? m : undefined;
  replace(
    root,
    h("h1", {}, `${variantName(m.variant)} — live`),
    h(
      "p",
      { class: "muted" },
      "This game is being played. Its hidden board is private to the players until the end; the record, the replay and the verdict are published when it is over.",
    ),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "White"),
      h("dd", {}, live?.white ? keySpan(live.white, known) : "not drawn yet"),
      h("dt", {}, "Black"),
      h("dd", {}, live?.black ? keySpan(live.black, known) : "not drawn yet"),
      h("dt", {}, "Clocks"),
      h("dd", { class: "live-clocks" }, `White ${clock(live?.white_ms)} · Black ${clock(live?.black_ms)}${live?.running ? ` (${live.running} to play)` : ""}`),
      // Hidden games publish no entry count while live (it would tell the public a
      // Kriegspiel player's illegal attempts, R-K1); open games do.
      ...(typeof live?.entries === "number" ? [h("dt", {}, "Entries"), h("dd", {}, String(live.entries))] : []),
      h("dt", {}, "Started"),
      h("dd", {}, when(m.started_ms)),
    ),
    OPEN_GAMES.has(m.variant) ? h("p", {}, link(`/watch/${m.id}`, "Watch the board live")) : false,
  );
}

function renderFinished(
  root: HTMLElement,
  id: string,
  info: FinishedGame,
  replay: Replay | Error,
  verdict: VerdictJson,
  ctx: Parameters<Page>[2],
): void {
  const known = ctx.known;
  const links = h(
    "p",
    { class: "links" },
    h("a", { href: `/api/match/${id}/record`, download: `${id.slice(0, 16)}.rec` }, "Record (.rec)"),
    " · PGN: ",
    h("a", { href: `/api/match/${id}/pgn?view=white` }, "White's"),
    ", ",
    h("a", { href: `/api/match/${id}/pgn?view=black` }, "Black's"),
    ", ",
    h("a", { href: `/api/match/${id}/pgn?view=full` }, "full"),
    " · ",
    h("a", { href: `/api/match/${id}/verdict` }, "verdict JSON"),
    " · ",
    link(`/log?match=${id}`, "proof in the ledger"),
  );
  const head = h(
    "header",
    { class: "game-head" },
    h("h1", {}, `${variantName(info.variant)}: ${info.result ?? "*"}`),
    h(
      "p",
      {},
      "White ",
      keySpan(verdict.white?.key, known),
      " vs Black ",
      keySpan(verdict.black?.key, known),
      ` · finished ${when(info.finished_ms)}`,
    ),
    links,
    h(
      "p",
      { class: "muted small" },
      "Check it yourself: download the record and run ",
      h("code", {}, "fogproof verify FILE"),
      " (the command-line verifier is the trust anchor; this page shows the server's run of the same code).",
    ),
  );
  const replaySection = h("section", { class: "replay" });
  replace(root, head, replaySection, renderVerdict(verdict));
  if (replay instanceof Error) {
    replace(replaySection, h("p", { class: "error" }, `No replay: ${replay.message}`));
    return;
  }
  mountReplay(replaySection, replay, ctx);
}

/** The squares of a UCI-like action (`e2e4`, `b1c4+`), for the last-move highlight. */
function squaresOf(action: string): [string, string] | undefined {
  const m = /^([a-h][1-8])([a-h][1-8])/.exec(action);
  return m ? [m[1], m[2]] : undefined;
}

/** The replay viewer: view tabs, board, clocks, step controls (buttons and arrow keys), what
 * the view was told, and the list of steps. */
export function mountReplay(el: HTMLElement, r: Replay, ctx: Parameters<Page>[2]): void {
  const hasFull = r.start_full !== null || r.frames.some((f) => f.full !== null);
  const views: ViewName[] = hasFull ? ["white", "black", "full"] : ["white", "black"];
  let view: ViewName = "white";
  let step = steps(r) - 1;
  let board: Board | null = null;
  let boardView: ViewName | null = null;

  const tabs = h("div", { class: "tabs", role: "tablist" });
  const boardBox = h("div", { class: "board-box", "data-view": view });
  const clockTop = h("div", { class: "player" });
  const clockBottom = h("div", { class: "player" });
  const counter = h("span", { class: "step-counter", "aria-live": "polite" });
  const action = h("p", { class: "step-action" });
  const told = h("div", { class: "told" });
  const list = h("ol", { class: "step-list", start: "0" });
  const button = (label: string, title: string, go: () => number) =>
    h("button", { type: "button", title, "aria-label": title, "data-step": title.toLowerCase(), onclick: () => show(go()) }, label);
  const controls = h(
    "div",
    { class: "step-controls" },
    button("«", "First", () => 0),
    button("‹", "Previous", () => step - 1),
    counter,
    button("›", "Next", () => step + 1),
    button("»", "Last", () => steps(r) - 1),
  );
  for (const v of views) {
    tabs.append(
      h(
        "button",
        { type: "button", role: "tab", "data-view": v, onclick: () => ((view = v), show(step)) },
        viewLabel(v, r.variant),
      ),
    );
  }
  list.append(h("li", {}, h("button", { type: "button", class: "linkish", onclick: () => show(0) }, "start")));
  r.frames.forEach((_, i) => list.append(h("li", {}, h("button", { type: "button", class: "linkish", onclick: () => show(i + 1) }))));

  function clockLine(side: "white" | "black"): Node[] {
    const c = clocksAt(r, step);
    const ms = c ? (side === "white" ? c.white_ms : c.black_ms) : null;
    return [
      h("strong", {}, side === "white" ? "White" : "Black"),
      h("span", { class: `clock${c?.running === side ? " running" : ""}`, "data-clock": side }, clock(ms)),
    ];
  }

  function show(s: number): void {
    step = clampStep(r, s);
    const orientation = view === "black" ? "black" : "white";
    if (!board || boardView !== view) {
      // A board per view: its side decides the orientation and whose men the fog hides.
      board?.cg.destroy();
      const el = h("div");
      boardBox.replaceChildren(el);
      board = new Board(el, { variant: r.variant, side: orientation });
      boardView = view;
    }
    boardBox.dataset.view = view;
    boardBox.dataset.step = String(step);
    const frame = step > 0 ? r.frames[step - 1] : null;
    const shown = boardAt(r, step, view);
    boardBox.dataset.board = shown ?? "";
    const visible = frame && (view === "full" || view === frame.actor || OPEN_GAMES.has(r.variant));
    board.set(shown ?? "", new Map(), { lastMove: visible ? squaresOf(frame.action) : undefined });
    for (const t of tabs.querySelectorAll("button")) t.setAttribute("aria-selected", String(t.dataset.view === view));
    counter.textContent = `step ${step} / ${steps(r) - 1}`;
    const [top, bottom] = orientation === "white" ? (["black", "white"] as const) : (["white", "black"] as const);
    clockTop.replaceChildren(...clockLine(top));
    clockBottom.replaceChildren(...clockLine(bottom));
    action.textContent = frame ? `${step}. ${actionText(r, frame, view)}` : "The start position.";
    told.replaceChildren();
    const seats = view === "full" ? (["white", "black"] as const) : [view];
    for (const side of seats) {
      const seat = seatAt(r, step, side);
      const name = side === "white" ? "White" : "Black";
      told.append(h("p", { class: "told-last", "data-side": side }, h("strong", {}, `${name} was told: `), toldText(seat)));
      const ann = announcements(seat);
      if (ann.length && view !== "full") {
        const ol = h("ol", { class: "announcements" });
        ann.forEach((a) => ol.append(h("li", {}, a)));
        told.append(h("details", {}, h("summary", {}, `${name}'s announcements so far (${ann.length})`), ol));
      }
    }
    if (step === steps(r) - 1 && r.result) {
      told.append(h("p", { class: "result" }, `Result: ${r.result.winner ? `${r.result.winner === "white" ? "White" : "Black"} wins` : "draw"} by ${r.result.reason.replace(/-/g, " ")}`));
    }
    list.querySelectorAll("li").forEach((li, i) => {
      li.classList.toggle("current", i === step);
      const b = li.querySelector("button");
      if (b && i > 0) b.textContent = actionText(r, r.frames[i - 1], view);
      // Illegal attempts are marked where the view may know of them (the umpire's, the mover's).
      li.classList.toggle("illegal", i > 0 && illegal(r.frames[i - 1]) && (view === "full" || view === r.frames[i - 1].actor));
    });
    list.querySelector("li.current")?.scrollIntoView?.({ block: "nearest" });
  }

  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    const to: Record<string, () => number> = {
      ArrowLeft: () => step - 1,
      ArrowRight: () => step + 1,
      Home: () => 0,
      End: () => steps(r) - 1,
    };
    const go = to[e.key];
    if (go) {
      e.preventDefault();
      show(go());
    }
  };
  document.addEventListener("keydown", onKey);
  ctx.onLeave(() => {
    document.removeEventListener("keydown", onKey);
    board?.cg.destroy();
  });

  replace(
    el,
    tabs,
    h(
      "div",
      { class: "game" },
      h("div", {}, clockTop, boardBox, clockBottom, controls),
      h(
        "div",
        { class: "panel" },
        action,
        told,
        h("h3", {}, "Steps"),
        h("p", { class: "muted small" }, "Arrow keys step through the game; Home and End jump."),
        list,
      ),
    ),
  );
  show(step);
}
