// The host site's small DOM and formatting helpers. Every text from the server goes in through
// textContent (never innerHTML): names, keys and evidence are peer input.
import { signedNames } from "./http";
import { VARIANTS as ALL_VARIANTS } from "../types/variants";

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** An element with attributes (`on…` keys add listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      e.addEventListener(k.slice(2), v as EventListener);
    } else if (v === true) {
      e.setAttribute(k, "");
    } else {
      e.setAttribute(k, String(v));
    }
  }
  append(e, children);
  return e;
}

/** Appends children (strings become text nodes; null, undefined and false are skipped). */
export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A link inside the site (the router takes the click, no page load). */
export function link(href: string, ...children: (Child | Child[])[]): HTMLAnchorElement {
  return h("a", { href, "data-route": "" }, ...children);
}

/** `ed25519:<64 hex>` shortened for tables: `ed25519:` and the first 8 hex digits (a prefix
 * of the key and of the CLI's fingerprint, `ed25519:<32 hex>`), the whole key in the title. */
export function shortKey(key: string | null | undefined): string {
  if (!key) return "—";
  const hex = key.startsWith("ed25519:") ? key.slice(8) : key;
  return `ed25519:${hex.slice(0, 8)}…`;
}

/** A key as a span: short text, full key on hover; known parties (the house bot, the umpire
 * service, the relay) are named. */
export function keySpan(key: string | null | undefined, known: Record<string, string> = {}): HTMLElement {
  if (!key) return h("span", { class: "key muted" }, "—");
  const name = known[key] ?? signedNames[key];
  return h("span", { class: "key", title: key }, name ? `${name} (${shortKey(key)})` : shortKey(key));
}

/** Milliseconds as a chess clock: `h:mm:ss`, `m:ss`, or `s.t` under ten seconds. */
export function clock(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  const total = Math.max(0, Math.floor(ms / 1000));
  if (ms < 10_000) return `0:0${(Math.max(0, ms) / 1000).toFixed(1)}`;
  const hh = Math.floor(total / 3600);
  const mm = Math.floor((total % 3600) / 60);
  const ss = String(total % 60).padStart(2, "0");
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** A server time (ms since the epoch) as a short UTC date and time. */
export function when(ms: number | null | undefined): string {
  if (!ms) return "—";
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "—";
  return d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

/** The games' names by id (web/src/types/variants.ts, generated from rules::Variant). */
export const VARIANTS: Record<string, string> = Object.fromEntries(ALL_VARIANTS.map((v) => [v.id, v.name]));

/** A variant's name. */
export function variantName(id: string | null | undefined): string {
  if (!id) return "—";
  return VARIANTS[id] ?? id;
}

/** Games whose moves both players see (the rest hide the opponent's moves). */
export const OPEN_GAMES = new Set<string>(ALL_VARIANTS.filter((v) => v.mode === "open").map((v) => v.id));

/** Games with an umpire, who sees the whole board (the replay's third view is the umpire's). */
export const UMPIRED_GAMES = new Set<string>(ALL_VARIANTS.filter((v) => v.mode === "umpire").map((v) => v.id));

/** A kebab-case name in plain words: `false-announcement` -> `false announcement`. */
export function words(kebab: string | null | undefined): string {
  return (kebab ?? "").replace(/-/g, " ");
}

/** A message for the page's error box from anything thrown. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
