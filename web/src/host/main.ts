// The host site (`fogproof serve`): a single-page app routed by path. Every page reads the
// server's public JSON API only; nothing here ever holds a key or a hidden board.

import { auditPage } from "./audit";
import { h, link, replace, errorText } from "./dom";
import { gamePage } from "./game";
import { watchPage } from "./watch";
import { gamesPage, lobbyPage } from "./games";
import { getJson } from "./http";
import { ledgerPage, ratingsPage, tournamentPage, tournamentsPage } from "./ledger";
import type { Page, PageContext } from "./page";
import { applyTheme, toggleTheme } from "./theme";
import type { Info } from "../types/host";
import "./host.css";

const ROUTES: [RegExp, Page, string][] = [
  [/^\/$/, lobbyPage, "Lobby"],
  [/^\/games\/?$/, gamesPage, "Games"],
  [/^\/game\/([0-9a-fA-F]{64})\/?$/, gamePage, "Game"],
  [/^\/watch\/([0-9a-fA-F]{64})\/?$/, watchPage, "Watch"],
  [/^\/audit\/?$/, auditPage, "Audit"],
  [/^\/ratings\/?$/, ratingsPage, "Ratings"],
  [/^\/ratings\/([a-z0-9]+)\/?$/, ratingsPage, "Ratings"],
  [/^\/tournaments\/?$/, tournamentsPage, "Tournaments"],
  [/^\/tournament\/([0-9a-fA-F]{64})\/?$/, tournamentPage, "Tournament"],
  [/^\/log\/?$/, ledgerPage, "Ledger"],
];

const NAV: [string, string][] = [
  ["/", "Lobby"],
  ["/games", "Games"],
  ["/ratings", "Ratings"],
  ["/tournaments", "Tournaments"],
  ["/log", "Ledger"],
  ["/audit", "Audit"],
];

const known: Record<string, string> = {};
let leaving: (() => void)[] = [];
let generation = 0;

const main = h("main", { id: "page" });
const statusLine = h("p", { class: "status", role: "status" });
const nav = h("nav", { class: "site-nav" });

// The host pages' own stylesheet: esbuild writes the CSS imported above to host.css.
const sheet = document.createElement("link");
sheet.rel = "stylesheet";
sheet.href = "/assets/host.css";
document.head.append(sheet);

function layout(): void {
  for (const [href, label] of NAV) nav.append(link(href, label));
  const theme = h("button", { type: "button", class: "theme-toggle", title: "Light or dark theme", "aria-label": "Switch between light and dark theme", onclick: () => toggleTheme() }, "◐");
  const app = document.getElementById("app") ?? document.body;
  app.replaceChildren(
    h("header", { class: "top" }, h("a", { href: "/", "data-route": "", class: "brand" }, "fogproof"), nav, h("span", { class: "grow" }), theme),
    statusLine,
    main,
    h(
      "footer",
      { class: "site-footer muted small" },
      "Every game here is checkable offline: download its record and run ",
      h("code", {}, "fogproof verify"),
      ".",
    ),
  );
}

async function route(): Promise<void> {
  const mine = ++generation;
  for (const f of leaving) f();
  leaving = [];
  statusLine.textContent = "";
  const path = location.pathname;
  for (const a of nav.querySelectorAll("a")) {
    const href = a.getAttribute("href") ?? "";
    a.classList.toggle("active", href === "/" ? path === "/" : path.startsWith(href));
  }
  const found = ROUTES.map(([re, page, title]) => ({ m: re.exec(path), page, title })).find((r) => r.m);
  if (!found || !found.m) {
    document.title = "Not found — fogproof";
    replace(main, h("h1", {}, "Not found"), h("p", {}, "No page here. ", link("/", "Go to the lobby.")));
    return;
  }
  document.title = `${found.title} — fogproof`;
  const ctx: PageContext = {
    known,
    every(ms, f) {
      let busy = false;
      const t = window.setInterval(async () => {
        if (busy || mine !== generation) return;
        busy = true;
        try {
          await f();
          statusLine.textContent = "";
        } catch (e) {
          statusLine.textContent = `Could not refresh: ${errorText(e)}`;
        } finally {
          busy = false;
        }
      }, ms);
      leaving.push(() => window.clearInterval(t));
    },
    onLeave(f) {
      leaving.push(f);
    },
    status(text) {
      statusLine.textContent = text;
    },
  };
  replace(main, h("p", { class: "muted" }, "Loading…"));
  try {
    await found.page(main, found.m.slice(1), ctx);
  } catch (e) {
    if (mine !== generation) return;
    replace(main, h("h1", {}, "Something went wrong"), h("p", { class: "error", role: "alert" }, errorText(e)));
  }
}

function navigate(href: string): void {
  if (href === location.pathname + location.search) return;
  history.pushState(null, "", href);
  window.scrollTo(0, 0);
  void route();
}

document.addEventListener("click", (e) => {
  const a = (e.target as Element | null)?.closest?.("a[data-route]") as HTMLAnchorElement | null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href") ?? "/");
});
window.addEventListener("popstate", () => void route());

applyTheme();
layout();
getJson<Info>("/api/info")
  .then((info) => {
    if (info.bot) known[info.bot] = "house bot";
    if (info.umpire) known[info.umpire] = "umpire service";
    if (info.relay) known[info.relay] = "relay";
  })
  .catch(() => {
    // labels only: the pages work without them
  })
  .finally(() => void route());
