// What every page of the host site gets from the router: the path's parameters and a context
// whose timers and listeners end when the reader leaves the page.

export interface PageContext {
  /** Keys the server names (its house bot, umpire service and relay), for labels. */
  known: Record<string, string>;
  /** Runs `f` every `ms` while the page is shown (errors show in the page's status line). */
  every(ms: number, f: () => Promise<void> | void): void;
  /** Runs `f` when the reader leaves the page. */
  onLeave(f: () => void): void;
  /** Shows a line in the status bar (empty to clear). */
  status(text: string): void;
}

/** A page: draws itself into `root`. */
export type Page = (root: HTMLElement, params: string[], ctx: PageContext) => Promise<void>;
