// The ledger's pages: ratings per variant (/ratings/{variant}), tournaments (/tournaments,
// /tournament/{id}: pairings, crosstable, standings, bundle) and the log itself (/log: the
// latest checkpoint, its witnesses, its size, and the inclusion proof of any match). They read
// the server's ledger API; a server without it answers 404, and the page says so.

import { h, keySpan, link, replace, variantName, VARIANTS } from "./dom";
import { ApiError, getJson, getText } from "./http";
import type { Page } from "./page";
import type { BundlePlayer, LedgerInfo, LedgerProof, Named, RatingList, Standing, TournamentView, Tournaments } from "../types/host";

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

function num(v: unknown, digits = 0): string {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
  return Number.isFinite(n) ? n.toFixed(digits) : "—";
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
    const v = await getJson<RatingList>(`/api/ratings/${variant}`);
    const players = v.ratings.slice().sort((a, b) => b.rating - a.rating);
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
          keySpan(p.key, ctx.known),
          text(num(p.rating)),
          text(num(p.deviation)),
          text(p.games),
          text(p.provisional ? "provisional" : ""),
        ]),
        "ratings",
      ),
    );
  });
};

/** A tournament system in words: `{"swiss": 5}`, `{"round-robin": "double"}`. */
export function systemText(system: unknown): string {
  if (system && typeof system === "object") {
    const [k, v] = Object.entries(system as Record<string, unknown>)[0] ?? [];
    if (k === "swiss") return `Swiss, ${v} rounds`;
    if (k === "round-robin") return `round-robin (${v})`;
    if (k) return `${k} ${v ?? ""}`.trim();
  }
  return system === undefined || system === null ? "—" : String(system);
}

export const tournamentsPage: Page = async (root) => {
  const body = h("div");
  replace(root, h("h1", {}, "Tournaments"), body);
  await orUnavailable(body, "Tournaments", async () => {
    const list = (await getJson<Named<Tournaments>>("/api/tournaments")).tournaments;
    if (!list.length) {
      replace(body, h("p", { class: "muted" }, "No tournament is in the ledger yet."));
      return;
    }
    replace(
      body,
      tableOf(
        ["Name", "Game", "System", "Rounds", "Players", "Status"],
        list.map((t) => [
          link(`/tournament/${t.id}`, t.name),
          text(variantName(t.variant)),
          text(systemText(t.system)),
          text(`${t.rounds_started} of ${t.rounds}`),
          text(t.players),
          text(t.status),
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
  if (r === "+--" || r === "1F-0F" || r === "+:-") return white ? "+" : "−";
  if (r === "--+" || r === "0F-1F" || r === "-:+") return white ? "−" : "+";
  if (r === "--" || r === "0F-0F" || r === "-:-") return "−";
  return r === "*" || !r ? "·" : r;
}

/** A player's index in a pairings or standings row (`{index, name, key}`), or the index. */
function indexOf(p: BundlePlayer | number): number {
  return typeof p === "number" ? p : p.index;
}

/** A value offered as a file to save (JSON unless `type` says otherwise): the bundle's derived
 * files as the server has them, a proof. */
function download(name: string, value: unknown, type = "application/json"): HTMLElement {
  const a = h("a", { href: "#", download: name }, name);
  a.addEventListener("click", () => {
    const body = typeof value === "string" && type !== "application/json" ? value : JSON.stringify(value, null, 2) + "\n";
    const url = URL.createObjectURL(new Blob([body], { type }));
    a.href = url;
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  return a;
}

export const tournamentPage: Page = async (root, params, ctx) => {
  const id = params[0] ?? "";
  const body = h("div", {}, h("h1", {}, "Tournament"));
  replace(root, body);
  await orUnavailable(body, "This tournament", async () => {
    const t = await getJson<Named<TournamentView>>(`/api/tournament/${encodeURIComponent(id)}`);
    const entrants = t.entrants;
    const name = (p: BundlePlayer | number) => {
      const i = indexOf(p);
      const e: { name: string; key: string } | number = entrants[i] ?? p;
      if (typeof e === "number") return keySpan(undefined, ctx.known).textContent ?? `#${i + 1}`;
      return e.name ? String(e.name) : keySpan(e.key, ctx.known).textContent ?? `#${i + 1}`;
    };
    const rounds = t.pairings.rounds;
    const standings: Standing[] | null = Array.isArray(t.standings) ? t.standings : null;
    const out: Node[] = [
      h("h1", {}, t.name ?? "Tournament"),
      h(
        "p",
        {},
        `${variantName(t.variant)} · ${systemText(t.system)} · ${entrants.length || t.players} players · ${t.rounds_started ?? rounds.length} of ${t.rounds ?? "?"} rounds · ${t.status ?? ""}`,
      ),
    ];
    const files: (Node | string)[] = [];
    files.push(download("pairings.json", t.pairings), " · ");
    if (standings) files.push(download("standings.json", standings));
    out.push(
      h("p", {}, "Files: ", ...files),
      h(
        "p",
        { class: "muted small" },
        "The whole bundle (checkpoint, proofs, records, pairings, standings, ratings, TRF) is made from the public log by ",
        h("code", {}, `fogproof tournament bundle ${t.id ?? id} --log LOG --out DIR`),
        " and checked by ",
        h("code", {}, "fogproof tournament verify DIR --log-key VKEY"),
        ".",
      ),
    );
    if (entrants.length) {
      out.push(
        h("h2", {}, "Players"),
        tableOf(
          ["#", "Name", "Key", "Rating", "Joined"],
          entrants.map((e, i) => [text(i + 1), text(e.name), keySpan(e.key, ctx.known), text(e.rating ?? "—"), text(e.joined ? "yes" : "no")]),
          "entrants",
        ),
      );
    }
    if (standings && standings.length) {
      out.push(
        h("h2", {}, "Standings"),
        tableOf(
          ["#", "Player", "Points", "Tie-breaks"],
          standings.map((s) => [
            text(s.rank),
            text(name(s.player)),
            text(s.points),
            text(s.tie_breaks.map((b) => `${b.name} ${b.value}`).join(", ")),
          ]),
          "standings",
        ),
      );
    } else if (!Array.isArray(t.standings) && t.standings.error) {
      out.push(h("p", { class: "muted" }, `Standings: ${t.standings.error}`));
    }
    // The crosstable: one row per player, one cell per round (opponent, color, points).
    if (entrants.length && rounds.length) {
      const cells: string[][] = entrants.map(() => rounds.map(() => ""));
      rounds.forEach((r, ri) => {
        for (const g of r.games) {
          const w = indexOf(g.white);
          const b = indexOf(g.black);
          if (cells[w]) cells[w][ri] = `${b + 1}w ${points(g.result, true)}`;
          if (cells[b]) cells[b][ri] = `${w + 1}b ${points(g.result, false)}`;
        }
        const bye = r.pairing_allocated_bye;
        if (bye !== null && bye !== undefined && cells[indexOf(bye)]) cells[indexOf(bye)][ri] = "bye";
        for (const a of r.absent) {
          const i = indexOf(a.player);
          if (cells[i]) cells[i][ri] = a.bye ? `absent (${a.bye})` : "absent";
        }
      });
      out.push(
        h("h2", {}, "Crosstable"),
        tableOf(
          ["#", "Player", ...rounds.map((r) => `R${r.round}`)],
          entrants.map((_, i) => [text(i + 1), text(name(i)), ...cells[i].map(text)]),
          "crosstable",
        ),
        h("h2", {}, "Pairings"),
      );
      for (const r of rounds) {
        const games = r.games;
        out.push(
          h("h3", {}, `Round ${r.round}`),
          tableOf(
            ["Board", "White", "Black", "Result"],
            games.map((g) => [text(g.board), text(name(g.white)), text(name(g.black)), text(g.result)]),
            "pairings",
          ),
        );
      }
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
      .then((answer) => {
        let text = answer;
        let v: Partial<LedgerProof> | null = null;
        try {
          const parsed: unknown = JSON.parse(answer);
          v = parsed !== null && typeof parsed === "object" ? (parsed as Partial<LedgerProof>) : null;
          text = typeof v?.tlog_proof === "string" ? v.tlog_proof : JSON.stringify(parsed, null, 2);
        } catch {
          // a tlog-proof is plain text
        }
        const facts = h("dl", { class: "facts" });
        const fact = (k: string, x: Node | string | null | undefined) => {
          if (x !== null && x !== undefined && x !== "") facts.append(h("dt", {}, k), h("dd", {}, x));
        };
        const entry = v?.entry;
        fact("Leaf index", v?.index !== undefined ? `${v.index} of ${v.size}` : null);
        fact("Game", entry ? link(`/game/${entry.match_id}`, `${variantName(entry.variant)}: ${entry.result ?? "*"}`) : null);
        fact("Verdict in the log", entry ? (entry.valid ? "valid" : "faults") : null);
        fact("White", entry ? keySpan(entry.white) : null);
        fact("Black", entry ? keySpan(entry.black) : null);
        fact("Record", typeof v?.record === "string" ? h("a", { href: v.record }, v.record) : null);
        replace(
          proofOut,
          facts,
          h("p", {}, download(`${id.slice(0, 16)}.tlog-proof`, text, "text/plain")),
          h("pre", { class: "proof" }, text),
          h("p", { class: "muted small" }, "Check it offline: save it as game.tlog-proof and run ", h("code", {}, "fogproof ledger check-proof game.tlog-proof --log-key VKEY --witness WVKEY --record game.rec"), "."),
        );
      })
      .catch((e) => replace(proofOut, h("p", { class: "error" }, e instanceof ApiError && e.notFound ? `No proof: ${e.message}` : String(e instanceof Error ? e.message : e))));
  });
  replace(root, h("h1", {}, "The ledger"), body);
  // A checkpoint with no witness cosignature, or fewer than the server's quorum, could be one
  // of two different logs shown to different readers: say so where it cannot be missed.
  const witnessWarning = (l: LedgerInfo, cosigned: number): HTMLElement | "" => {
    const policy = l.witness_policy;
    const quorum = policy.quorum;
    const valid = policy.cosignatures;
    let text = "";
    if (policy.warning) text = policy.warning;
    else if (cosigned === 0) text = "No witness has cosigned the latest checkpoint.";
    else if (valid < quorum) text = `The latest checkpoint has ${valid} witness cosignature(s); the server's quorum is ${quorum}.`;
    if (!text) return "";
    return h(
      "p",
      { class: "warn witness-warning", role: "alert" },
      h("strong", {}, "Warning: "),
      text,
      " Without enough independent witnesses, this log could show you a different history than it shows others. Check with ",
      h("code", {}, "fogproof ledger audit --witness VKEY --quorum K"),
      ".",
    );
  };
  // `/log?match=ID` (the game page's link) asks for that match's proof at once.
  const asked = new URLSearchParams(location.search).get("match");
  await orUnavailable(body, "The ledger", async () => {
    const l = await getJson<LedgerInfo>("/api/ledger");
    const witnesses = l.witnesses;
    const facts = h("dl", { class: "facts" });
    const fact = (k: string, v: unknown) => {
      if (v === undefined || v === null || v === "") return;
      facts.append(h("dt", {}, k), h("dd", {}, typeof v === "object" ? JSON.stringify(v) : String(v)));
    };
    fact("Origin", l.origin);
    fact("Size", l.size);
    fact("Root hash", l.root);
    fact("Log key (vkey)", l.vkey);
    const note = l.checkpoint;
    replace(
      body,
      facts,
      note ? h("details", { open: true }, h("summary", {}, "Latest signed checkpoint"), h("pre", { class: "checkpoint" }, String(note))) : "",
      witnessWarning(l, witnesses.length),
      h("h2", {}, `Witnesses (${witnesses.length})`),
      witnesses.length
        ? h("ul", { class: "witnesses" }, witnesses.map((w) => h("li", {}, `${w.name}${w.key_id ? ` (key id ${w.key_id})` : ""}`)))
        : h("p", { class: "muted" }, "No witness has cosigned the latest checkpoint."),
      h("h2", {}, "Proofs"),
      form,
      proofOut,
      h("p", { class: "muted small" }, "The log's files are served as they are at ", h("a", { href: "/ledger/checkpoint" }, "/ledger/"), "; ", h("code", {}, "fogproof ledger audit"), " checks every tile, root and record."),
    );
    if (asked) {
      input.value = asked;
      form.requestSubmit();
    }
  });
};
