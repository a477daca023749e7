// The ledger's pages: ratings per variant (/ratings/{variant}), tournaments (/tournaments,
// /tournament/{id}: pairings, crosstable, standings, bundle) and the log itself (/log: the
// latest checkpoint, its witnesses, its size, and the inclusion proof of any match). They read
// the server's ledger API; a server without it answers 404, and the page says so.

import { h, keySpan, link, replace, variantName, VARIANTS, when } from "./dom";
import { ApiError, getJson, getText } from "./http";
import type { Page } from "./page";

/** The box shown when the server has no such endpoint. */
function unavailable(what: string, e: ApiError): HTMLElement {
  return h(
    "div",
    { class: "unavailable", "data-unavailable": "" },
    h("p", {}, h("strong", {}, `${what}: not available on this server.`)),
    h("p", { class: "muted small" }, `${e.path}: ${e.message}`),
  );
}

/** Runs `f`; a 404 becomes the "not available" box, other errors are thrown on. */
async function orUnavailable(el: HTMLElement, what: string, f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch (e) {
    if (e instanceof ApiError && e.notFound) {
      replace(el, unavailable(what, e));
      return;
    }
    throw e;
  }
}

/** The first array in a JSON answer: the answer itself, or its first array-valued field (the
 * pages accept `[…]` and `{"players": […]}` alike). */
export function firstArray(v: any, ...names: string[]): any[] {
  if (Array.isArray(v)) return v;
  if (v && typeof v === "object") {
    for (const n of names) if (Array.isArray(v[n])) return v[n];
    for (const x of Object.values(v)) if (Array.isArray(x)) return x;
  }
  return [];
}

function num(v: unknown, digits = 0): string {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
  return Number.isFinite(n) ? n.toFixed(digits) : "—";
}

function keyOf(p: any): string | undefined {
  if (typeof p === "string") return p;
  return p?.key ?? p?.player ?? p?.id;
}

function tableOf(head: string[], rows: Node[][], cls: string): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: cls },
      h("thead", {}, h("tr", {}, head.map((t) => h("th", {}, t)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))),
    ),
  );
}

const text = (s: unknown) => document.createTextNode(s === null || s === undefined ? "—" : String(s));

export const ratingsPage: Page = async (root, params, ctx) => {
  const variant = params[0] && VARIANTS[params[0]] ? params[0] : "kriegspiel";
  const tabs = h(
    "nav",
    { class: "tabs" },
    Object.keys(VARIANTS).map((v) => link(`/ratings/${v}`, h("span", { "aria-selected": String(v === variant) }, variantName(v)))),
  );
  const body = h("div");
  replace(root, h("h1", {}, `Ratings: ${variantName(variant)}`), tabs, body);
  await orUnavailable(body, "Ratings", async () => {
    const v = await getJson(`/api/ratings/${variant}`);
    const players = firstArray(v, "players", "ratings")
      .slice()
      .sort((a, b) => Number(b.rating ?? 0) - Number(a.rating ?? 0));
    if (!players.length) {
      replace(body, h("p", { class: "muted" }, "No rated game of this variant is in the ledger yet."));
      return;
    }
    replace(
      body,
      h(
        "p",
        { class: "muted small" },
        "Glicko-2 from the public ledger, recomputed by anyone (docs/LEDGER.md); a rating is provisional while its deviation is above 110.",
      ),
      tableOf(
        ["#", "Player", "Rating", "Deviation", "Games", ""],
        players.map((p, i) => [
          text(i + 1),
          keySpan(keyOf(p), ctx.known),
          text(num(p.rating)),
          text(num(p.deviation ?? p.rd)),
          text(p.games ?? "—"),
          text(p.provisional ? "provisional" : ""),
        ]),
        "ratings",
      ),
    );
  });
};

export const tournamentsPage: Page = async (root) => {
  const body = h("div");
  replace(root, h("h1", {}, "Tournaments"), body);
  await orUnavailable(body, "Tournaments", async () => {
    const list = firstArray(await getJson("/api/tournaments"), "tournaments");
    if (!list.length) {
      replace(body, h("p", { class: "muted" }, "No tournament is in the ledger yet."));
      return;
    }
    replace(
      body,
      tableOf(
        ["Name", "Game", "System", "Rounds", "Players"],
        list.map((t) => [
          link(`/tournament/${t.id}`, t.name ?? t.id),
          text(variantName(t.variant)),
          text(typeof t.system === "object" ? JSON.stringify(t.system).replace(/[{}"]/g, "") : t.system),
          text(t.rounds_played ?? (Array.isArray(t.rounds) ? t.rounds.length : t.rounds)),
          text(Array.isArray(t.players) ? t.players.length : t.players),
        ]),
        "tournaments",
      ),
    );
  });
};

/** A result as points for the crosstable, from White's or Black's side. */
function points(result: unknown, white: boolean): string {
  const r = String(result ?? "");
  if (r === "1-0") return white ? "1" : "0";
  if (r === "0-1") return white ? "0" : "1";
  if (r === "1/2-1/2" || r === "½-½") return "½";
  if (r === "+--" || r === "1F-0F") return white ? "+" : "−";
  if (r === "--+" || r === "0F-1F") return white ? "−" : "+";
  if (r === "--" || r === "0F-0F") return "−";
  return "·";
}

export const tournamentPage: Page = async (root, params, ctx) => {
  const id = params[0] ?? "";
  const body = h("div");
  replace(root, h("h1", {}, "Tournament"), body);
  await orUnavailable(body, "This tournament", async () => {
    const t = await getJson(`/api/tournament/${encodeURIComponent(id)}`);
    const def = t.definition ?? t;
    const players: any[] = firstArray(def, "players");
    const name = (i: number) => {
      const p = players[i];
      return p ? (p.name ?? keySpan(keyOf(p), ctx.known).textContent ?? `#${i + 1}`) : `#${i + 1}`;
    };
    const rounds: any[] = firstArray(t, "rounds");
    const out: Node[] = [
      h("h1", {}, def.name ?? "Tournament"),
      h("p", {}, `${variantName(def.variant)} · ${players.length} players · ${rounds.length} round${rounds.length === 1 ? "" : "s"} played`),
    ];
    const bundle = t.bundle ?? t.bundle_url;
    if (bundle) out.push(h("p", {}, h("a", { href: String(bundle), download: "" }, "Download the bundle"), " (check it with ", h("code", {}, "fogproof tournament verify"), ")"));
    const standings: any[] = firstArray(t, "standings");
    if (standings.length) {
      out.push(
        h("h2", {}, "Standings"),
        tableOf(
          ["#", "Player", "Points", "Tie-breaks"],
          standings.map((s) => [
            text(s.rank),
            text(typeof s.player === "number" ? name(s.player) : (s.name ?? keyOf(s))),
            text(s.points ?? (typeof s.half_points === "number" ? s.half_points / 2 : "—")),
            text(Array.isArray(s.tie_breaks) ? s.tie_breaks.map((x: number) => x / 4).join(", ") : "—"),
          ]),
          "standings",
        ),
      );
    }
    // The crosstable: one row per player, one cell per round (opponent, colour, points).
    if (players.length && rounds.length) {
      const cells: string[][] = players.map(() => rounds.map(() => ""));
      rounds.forEach((r, ri) => {
        for (const p of firstArray(r, "pairings", "games")) {
          const w = Number(p.white),
            b = Number(p.black);
          if (Number.isInteger(w) && cells[w]) cells[w][ri] = `${b + 1}w ${points(p.result, true)}`;
          if (Number.isInteger(b) && cells[b]) cells[b][ri] = `${w + 1}b ${points(p.result, false)}`;
        }
        for (const bye of firstArray(r, "byes")) if (cells[Number(bye)]) cells[Number(bye)][ri] = "bye";
        for (const a of firstArray(r, "absent")) if (cells[Number(a)]) cells[Number(a)][ri] = "absent";
      });
      out.push(
        h("h2", {}, "Crosstable"),
        tableOf(
          ["#", "Player", ...rounds.map((_, i) => `R${i + 1}`)],
          players.map((_, i) => [text(i + 1), text(name(i)), ...cells[i].map(text)]),
          "crosstable",
        ),
      );
      out.push(h("h2", {}, "Pairings"));
      rounds.forEach((r, ri) => {
        const pairs = firstArray(r, "pairings", "games");
        out.push(
          h("h3", {}, `Round ${r.round ?? ri + 1}`),
          tableOf(
            ["Board", "White", "Black", "Result", "Game"],
            pairs.map((p, i) => [
              text(i + 1),
              text(name(Number(p.white))),
              text(name(Number(p.black))),
              text(p.result ?? "*"),
              p.match ? link(`/game/${p.match}`, "replay") : text(""),
            ]),
            "pairings",
          ),
        );
      });
    }
    replace(body, ...out);
  });
};

export const ledgerPage: Page = async (root) => {
  const body = h("div");
  const proofOut = h("div", { class: "proof-out", "aria-live": "polite" });
  const input = h("input", { type: "text", id: "proof-id", placeholder: "match id (64 hex digits)", pattern: "[0-9a-fA-F]{64}", spellcheck: "false" });
  const form = h(
    "form",
    { class: "proof-form" },
    h("label", { for: "proof-id" }, "Inclusion proof of a match: "),
    input,
    h("button", { type: "submit" }, "Prove"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const id = input.value.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(id)) {
      replace(proofOut, h("p", { class: "error" }, "A match id is 64 hex digits."));
      return;
    }
    replace(proofOut, h("p", { class: "muted" }, "Asking for the proof…"));
    getText(`/api/ledger/proof/${id}`)
      .then((proof) => {
        let shown = proof;
        try {
          const v = JSON.parse(proof);
          shown = typeof v.proof === "string" ? v.proof : JSON.stringify(v, null, 2);
        } catch {
          // a tlog-proof is plain text
        }
        replace(
          proofOut,
          h("pre", { class: "proof" }, shown),
          h("p", { class: "muted small" }, "Check it offline: save it as game.tlog-proof and run ", h("code", {}, "fogproof ledger check-proof game.tlog-proof --log-key VKEY --witness WVKEY --record game.rec"), "."),
        );
      })
      .catch((e) => replace(proofOut, h("p", { class: "error" }, e instanceof ApiError && e.notFound ? `No proof: ${e.message}` : String(e instanceof Error ? e.message : e))));
  });
  replace(root, h("h1", {}, "The ledger"), body);
  await orUnavailable(body, "The ledger", async () => {
    const l = await getJson("/api/ledger");
    const cp = l.checkpoint ?? l;
    const witnesses: any[] = firstArray(l, "witnesses", "cosignatures");
    const facts = h("dl", { class: "facts" });
    const fact = (k: string, v: unknown) => {
      if (v === undefined || v === null || v === "") return;
      facts.append(h("dt", {}, k), h("dd", {}, typeof v === "object" ? JSON.stringify(v) : String(v)));
    };
    fact("Origin", l.origin ?? cp.origin);
    fact("Size", l.size ?? cp.size);
    fact("Root hash", l.root ?? cp.root);
    fact("Log key", l.log_key ?? l.vkey ?? l.key);
    fact("Updated", l.updated_ms ? when(l.updated_ms) : undefined);
    const note = typeof cp === "string" ? cp : (l.text ?? l.note ?? cp.text ?? cp.note);
    replace(
      body,
      facts,
      note ? h("details", { open: true }, h("summary", {}, "Latest signed checkpoint"), h("pre", { class: "checkpoint" }, String(note))) : "",
      h("h2", {}, `Witnesses (${witnesses.length})`),
      witnesses.length
        ? h("ul", {}, witnesses.map((w) => h("li", {}, typeof w === "string" ? w : (w.name ?? w.key ?? JSON.stringify(w)))))
        : h("p", { class: "muted" }, "No witness has cosigned the latest checkpoint."),
      h("h2", {}, "Proofs"),
      form,
      proofOut,
      h("p", { class: "muted small" }, "The log's files are served as they are at ", h("a", { href: "/ledger/checkpoint" }, "/ledger/"), "; ", h("code", {}, "fogproof ledger audit"), " checks every tile, root and record."),
    );
  });
};
