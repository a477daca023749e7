// The audit page (/audit): drop (or choose) a record file; the page sends its bytes to
// POST /api/verify and shows the verdict with each fault's culprit and evidence. The
// command-line verifier is the trust anchor: this page runs the same code on the host's
// machine, which is convenient but asks you to trust the host.

import { h, replace } from "./dom";
import { ApiError, postBytes } from "./http";
import type { Page } from "./page";
import { type Verdict, renderVerdict } from "./verdict";

export const auditPage: Page = async (root) => {
  const out = h("div", { class: "audit-result", "aria-live": "polite" });
  const input = h("input", { type: "file", id: "record-file", accept: ".rec,.fpr,application/octet-stream" });
  const drop = h(
    "label",
    { class: "drop", for: "record-file", tabindex: "0" },
    h("strong", {}, "Drop a record file here"),
    h("span", {}, " or choose one: "),
    input,
  );
  const check = async (file: File) => {
    replace(out, h("p", { class: "muted" }, `Verifying ${file.name} (${file.size} bytes)…`));
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const v = await postBytes<Verdict>("/api/verify", bytes);
      replace(out, h("h2", {}, `Verdict for ${file.name}`), renderVerdict(v));
    } catch (e) {
      const why = e instanceof ApiError ? `${e.message}${e.status ? ` (HTTP ${e.status})` : ""}` : String(e);
      replace(out, h("p", { class: "error", role: "alert" }, `Could not verify ${file.name}: ${why}`));
    }
  };
  input.addEventListener("change", () => {
    const f = input.files?.[0];
    if (f) void check(f);
  });
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files?.[0];
    if (f) void check(f);
  });
  replace(
    root,
    h("h1", {}, "Audit a record"),
    h(
      "p",
      { class: "trust" },
      h("strong", {}, "The command-line verifier is the trust anchor. "),
      "This page sends the file to this host, which runs the same verifier and shows its verdict: convenient, but it asks you to trust the host. To be sure, run ",
      h("code", {}, "fogproof verify FILE"),
      " on your own machine: it needs no server and names the same culprits.",
    ),
    drop,
    out,
  );
};
