// The lobby (/): open seeks and live games, refreshed every few seconds (the event stream needs
// a signed-in key, so the public page polls /api/lobby), and the finished games list (/games).
// Only what is public: players, variant, clocks; nothing of a hidden board.

import { clock, h, keySpan, link, replace, variantName, when } from "./dom";
import { getJson } from "./http";
import { watchable } from "./watch";
import type { Page, PageContext } from "./page";
import type { ChallengeJson, FinishedGame, Games, LobbyView, MatchInfo, Named } from "../types/host";

function table(head: string[], rows: HTMLTableRowElement[], empty: string, cls: string): HTMLElement {
  if (!rows.length) return h("p", { class: `muted empty ${cls}` }, empty);
  return h(
    "div",
    { class: "table-wrap" },
    h("table", { class: cls }, h("thead", {}, h("tr", {}, head.map((t) => h("th", {}, t)))), h("tbody", {}, rows)),
  );
}

function liveRows(live: MatchInfo[], known: Record<string, string>): HTMLTableRowElement[] {
  return live
    .slice()
    .sort((a, b) => (b.started_ms ?? 0) - (a.started_ms ?? 0))
    .map((m) =>
      h(
        "tr",
        { "data-match": m.id },
        h("td", {}, link(`/game/${m.id}`, variantName(m.variant))),
        h("td", {}, m.white ? keySpan(m.white, known) : keySpan(m.players?.[0], known)),
        h("td", {}, m.black ? keySpan(m.black, known) : keySpan(m.players?.[1], known)),
        h("td", { class: "num" }, `${clock(m.white_ms)}${m.running === "white" ? " ⏱" : ""}`),
        h("td", { class: "num" }, `${clock(m.black_ms)}${m.running === "black" ? " ⏱" : ""}`),
        h("td", {}, m.rated ? "rated" : "casual"),
        h("td", {}, watchable(m.variant) ? link(`/watch/${m.id}`, "Watch") : h("span", { class: "muted", title: "A game that hides information publishes its replay at the end" }, "hidden")),
      ),
    );
}

function seekRows(seeks: ChallengeJson[], known: Record<string, string>): HTMLTableRowElement[] {
  return seeks.map((s) =>
    h(
      "tr",
      { "data-seek": s.id },
      h("td", {}, variantName(s.variant?.key)),
      h("td", {}, keySpan(s.challenger?.id, known)),
      h("td", {}, s.timeControl?.show ?? "—"),
      h("td", {}, s.color ?? "random"),
      h("td", {}, s.rated ? "rated" : "casual"),
      h("td", {}, s.umpire ? keySpan(s.umpire, known) : "—"),
    ),
  );
}

/** A finished game's result in words, from /api/games' row and its verdict summary. */
export function finishedResult(g: Pick<FinishedGame, "result" | "verdict">): string {
  const v = g.verdict && "faults" in g.verdict ? g.verdict : null;
  if (v?.status === "faults") {
    return `${g.result ?? "*"} (${v.faults} fault${v.faults === 1 ? "" : "s"}${v.reason ? `; ${String(v.reason).replace(/-/g, " ")}` : ""})`;
  }
  return `${g.result ?? "*"}${v?.reason ? ` ${String(v.reason).replace(/-/g, " ")}` : ""}`;
}

function finishedRows(games: FinishedGame[], known: Record<string, string>): HTMLTableRowElement[] {
  return games.map((g) => {
    const v = g.verdict && "faults" in g.verdict ? g.verdict : null;
    const white = v?.white ?? g.players?.[0];
    const black = v?.black ?? g.players?.[1];
    return h(
      "tr",
      { "data-match": g.id },
      h("td", {}, link(`/game/${g.id}`, variantName(g.variant))),
      h("td", {}, keySpan(white, known)),
      h("td", {}, keySpan(black, known)),
      h("td", { class: v?.status === "faults" ? "bad" : "" }, finishedResult(g)),
      h("td", {}, when(g.finished_ms)),
    );
  });
}

export const lobbyPage: Page = async (root, _params, ctx) => {
  const seeks = h("div", { id: "seeks" });
  const live = h("div", { id: "live" });
  const recent = h("div", { id: "recent" });
  replace(
    root,
    h("h1", {}, "Lobby"),
    h(
      "p",
      { class: "muted" },
      "Play through your own agent: ",
      h("code", { class: "play-hint" }, `fogproof play --server ${location.origin} --key me.key`),
      " opens your game in the browser with your keys on your machine. This site shows what is public.",
    ),
    h("h2", {}, "Open seeks"),
    seeks,
    h("h2", {}, "Live games"),
    live,
    h("h2", {}, "Recently finished"),
    recent,
    h("p", {}, link("/games", "All finished games →")),
  );
  const refresh = async () => {
    const [lobby, games] = await Promise.all([getJson<Named<LobbyView>>("/api/lobby"), getJson<Named<Games>>("/api/games?limit=10")]);
    replace(
      seeks,
      table(["Game", "Player", "Time", "Colour", "", "Umpire"], seekRows(lobby.seeks ?? [], ctx.known), "No open seeks.", "seeks"),
    );
    replace(
      live,
      table(["Game", "White", "Black", "White's clock", "Black's clock", "", "Board"], liveRows(lobby.live ?? [], ctx.known), "No game is being played.", "live-games"),
    );
    replace(
      recent,
      table(["Game", "White", "Black", "Result", "Finished"], finishedRows(games.games ?? [], ctx.known), "No game has finished yet.", "finished-games"),
    );
  };
  await refresh();
  ctx.every(2000, refresh);
};

export const gamesPage: Page = async (root, _params, ctx: PageContext) => {
  const list = h("div");
  replace(root, h("h1", {}, "Finished games"), list);
  const refresh = async () => {
    const games = await getJson<Named<Games>>("/api/games?limit=200");
    replace(
      list,
      table(["Game", "White", "Black", "Result", "Finished"], finishedRows(games.games ?? [], ctx.known), "No game has finished yet.", "finished-games"),
    );
  };
  await refresh();
  ctx.every(5000, refresh);
};
