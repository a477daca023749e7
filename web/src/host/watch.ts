// Watching a live open game (chess, Espionage), /watch/{id}: the board as it is played, from
// the server's NDJSON stream of the game's public moves (`GET /api/match/{id}/watch`,
// server/src/spectate.rs). A game that hides information cannot be watched: the server says
// so, and so does this page. Nothing here reads anything but public moves.

import { Board } from "../common/board";
import { followNdjson, ApiError } from "../common/api";
import { OPEN_GAMES, h, keySpan, link, replace, variantName } from "./dom";
import type { Page } from "./page";
import type { WatchLine } from "../types/host";
import type { GameResult } from "../types";

/** A line that shows a board: the first, or a move. */
type BoardLine = Exclude<WatchLine, { type: "closed" }>;

/** The moves in pairs: `1. e2e4 e7e5`. */
function moveList(moves: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < moves.length; i += 2) out.push(`${i / 2 + 1}. ${moves[i]}${moves[i + 1] ? " " + moves[i + 1] : ""}`);
  return out.join("  ");
}

function resultText(r: GameResult | null | undefined): string {
  if (!r) return "";
  const why = r.reason ? ` by ${String(r.reason).replace(/-/g, " ")}` : "";
  return r.winner ? `${r.winner === "white" ? "White" : "Black"} wins${why}.` : `Draw${why}.`;
}

export const watchPage: Page = async (root, params, ctx) => {
  const id = params[0] ?? "";
  const title = h("h1", {}, "Watching a live game");
  const status = h("p", { id: "watch-status", role: "status", "aria-live": "polite" }, "Connecting…");
  const players = h("p", { id: "watch-players" });
  const boardEl = h("div", { id: "watch-board" });
  const moves = h("p", { id: "watch-moves", class: "mono" });
  const ply = h("p", { id: "watch-ply", class: "muted" });
  replace(
    root,
    title,
    status,
    players,
    h("div", { class: "board-box watch-board-box" }, boardEl),
    ply,
    h("h2", {}, "Moves"),
    moves,
    h("p", { class: "muted" }, `Only games whose every move is public (${[...OPEN_GAMES].map(variantName).join(", ")}) can be watched live; the others publish their replay when the record is final. `, link(`/game/${id}`, "The game's page")),
  );
  let board: Board | null = null;
  let list: string[] = [];
  let last: BoardLine | null = null;
  const draw = (v: BoardLine) => {
    last = v;
    if (!board) {
      board = new Board(boardEl, { variant: (v.type === "start" ? v.variant : null) ?? "chess", side: "white" });
    }
    const uci = v.type === "move" ? v.uci : null;
    if (v.board) board.set(v.board, new Map(), { lastMove: uci ? [uci.slice(0, 2), uci.slice(2, 4)] as [string, string] : undefined });
    moves.textContent = list.length ? moveList(list) : "No move yet.";
    ply.textContent = `${list.length} move${list.length === 1 ? "" : "s"} played`;
    const r = resultText(v.result);
    status.textContent = r ? `Game over: ${r}` : "Live: the board follows the game.";
  };
  const stream = followNdjson<WatchLine>(
    `/api/match/${encodeURIComponent(id)}/watch`,
    (v) => {
      if (v.type === "start") {
        title.textContent = `${variantName(v.variant)}: watching live`;
        document.title = `Watching ${variantName(v.variant)} — fogproof`;
        replace(players, "White ", keySpan(v.white, ctx.known), " · Black ", keySpan(v.black, ctx.known));
        list = [...(v.moves ?? [])];
        draw(v);
      } else if (v.type === "move") {
        list.push(v.uci);
        draw(v);
      } else if (v.type === "closed") {
        const r = resultText(last?.result);
        status.textContent = `${r ? `Game over: ${r}` : "The live stream ended (the game is over, or this watch fell behind)."} Its record, replay and verdict follow on the game's page.`;
        return false;
      }
    },
    {
      onError: (e) => {
        if (e instanceof ApiError && (e.status === 403 || e.status === 404)) {
          status.textContent = e.status === 403 ? "This game hides information: it cannot be watched live. Its replay is published when its record is final." : "No live game with this id on this server.";
          status.classList.add("warn");
          return false;
        }
        status.textContent = "The server cannot be reached; trying again…";
      },
    },
  );
  ctx.onLeave(() => stream.stop());
};

/** Whether the lobby offers to watch a live game of `variant`. */
export function watchable(variant: string): boolean {
  return OPEN_GAMES.has(variant);
}
