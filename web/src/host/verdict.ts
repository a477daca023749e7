// The verifier's verdict (verifier::json::verified) in plain words: the result of a valid
// record, or each fault with its culprit, that key's role, the entry, the explanation and the
// evidence, and the sanction. Shared by the game page and the audit page.

import { h, keySpan, variantName, words } from "./dom";
import type { Unreadable } from "../types/host";
import type { MatchRole, OutcomeJson, VerdictJson } from "../types/verifier";

/** What the host answers for a record (`/api/match/{id}/verdict`, `POST /api/verify`): the
 * verifier's verdict (verifier::json::VerdictJson, generated), or bytes that are no record. */
export type Verdict = VerdictJson | Unreadable;

/** A result in words: `1-0: White wins by checkmate`, `½-½: draw by stalemate`. */
export function outcomeText(o: OutcomeJson | null | undefined): string {
  if (!o) return "no result";
  const reason = words(o.reason);
  if (o.winner === "white" || o.winner === "black") {
    const side = o.winner === "white" ? "White" : "Black";
    return `${o.score ?? ""} ${side} wins by ${reason}`.trim();
  }
  return `${o.score ?? "½-½"} draw${reason ? ` (${reason})` : ""}`;
}

/** Who a role is, in words. */
export function roleText(role: MatchRole | null | undefined): string {
  switch (role) {
    case "white":
      return "White (a player)";
    case "black":
      return "Black (a player)";
    case "umpire":
      return "the umpire";
    case "relay":
      return "the relay (this host's server)";
    case "record":
      return "nobody: the record itself is damaged or incomplete";
    default:
      return role ?? "unknown";
  }
}

/** The parties a verdict names, by key, for labelling culprits. */
function parties(v: VerdictJson): Record<string, string> {
  const out: Record<string, string> = {};
  if (v.white?.key) out[v.white.key] = "White";
  if (v.black?.key) out[v.black.key] = "Black";
  if (v.umpire?.key) out[v.umpire.key] = "umpire";
  if (v.relay?.key) out[v.relay.key] = "relay";
  return out;
}

/** The culprits' keys, each once, in the order of the faults. */
export function culprits(v: VerdictJson): string[] {
  const seen: string[] = [];
  for (const f of v.faults) if (f.culprit && !seen.includes(f.culprit)) seen.push(f.culprit);
  return seen;
}

/** The verdict as a section of the page. */
export function renderVerdict(v: Verdict): HTMLElement {
  const box = h("section", { class: `verdict verdict-${v.status}`, "data-verdict": v.status });
  if (v.status === "unreadable") {
    box.append(
      h("h2", {}, "Unreadable"),
      h("p", { class: "verdict-summary" }, v.error ?? "this is not a fogproof match record"),
    );
    return box;
  }
  const known = parties(v);
  const faults = v.faults;
  if (v.status === "valid") {
    box.append(
      h("h2", {}, "Valid"),
      h(
        "p",
        { class: "verdict-summary" },
        "Every signature, receipt, commitment, announcement and move checks out. Result: ",
        h("strong", { class: "verdict-result" }, outcomeText(v.result)),
        ".",
      ),
    );
  } else {
    const who = culprits(v);
    const named = who.length
      ? [
          "At fault: ",
          ...who.flatMap((k, i) => [i ? ", " : "", h("strong", { class: "culprit-key" }, keySpan(k, known))]),
          ".",
        ]
      : ["No party's key signed what is wrong: the record was damaged after the fact."];
    const sanction = v.sanction === "void" || !v.sanction ? "the game is void" : outcomeText(v.sanction);
    box.append(
      h("h2", {}, `${faults.length} fault${faults.length === 1 ? "" : "s"}`),
      h("p", { class: "verdict-summary" }, ...named, " Sanction: ", h("strong", { class: "verdict-sanction" }, sanction), "."),
    );
    const list = h("ol", { class: "faults" });
    for (const f of faults) {
      list.append(
        h(
          "li",
          { class: "fault", "data-kind": f.kind, "data-culprit": f.culprit ?? "", "data-role": f.role ?? "" },
          h("p", {}, h("strong", {}, words(f.kind)), f.entry !== null && f.entry !== undefined ? ` at entry ${f.entry}` : ""),
          h(
            "p",
            { class: "fault-culprit" },
            "Culprit: ",
            roleText(f.role),
            f.culprit ? [", key ", h("code", { class: "culprit-full" }, f.culprit)] : "",
          ),
          h("p", { class: "fault-explanation" }, f.explanation),
          h("details", {}, h("summary", {}, "Evidence"), h("pre", { class: "evidence" }, f.evidence)),
        ),
      );
    }
    box.append(list);
  }
  const facts = h("dl", { class: "facts" });
  const fact = (k: string, d: Node | string | null | undefined) => {
    if (d === null || d === undefined || d === "") return;
    facts.append(h("dt", {}, k), h("dd", {}, d));
  };
  fact("Game", v.variant ? `${variantName(v.variant)}${v.ruleset ? ` (${v.ruleset})` : ""}` : null);
  fact("White", v.white ? keySpan(v.white.key) : null);
  fact("Black", v.black ? keySpan(v.black.key) : null);
  fact("Umpire", v.umpire ? keySpan(v.umpire.key) : null);
  fact("Relay", v.relay ? keySpan(v.relay.key) : null);
  fact("Match id", v.match_id ? h("code", {}, v.match_id) : null);
  fact("Record SHA-256", v.record_sha256 ? h("code", {}, v.record_sha256) : null);
  fact("Verifier", v.verifier_version ? `fogproof ${v.verifier_version}` : null);
  box.append(facts);
  return box;
}
