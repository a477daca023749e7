// Light and dark themes: the reader's choice (kept in localStorage), else the system's.

const KEY = "fogproof-theme";

function stored(): "light" | "dark" | null {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : null;
  } catch {
    return null;
  }
}

/** The theme in force. */
export function currentTheme(): "light" | "dark" {
  return stored() ?? (window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light");
}

/** Sets `data-theme` on the root element. */
export function applyTheme(theme: "light" | "dark" = currentTheme()): void {
  document.documentElement.dataset.theme = theme;
}

/** Switches theme and remembers the choice. */
export function toggleTheme(): void {
  const next = currentTheme() === "dark" ? "light" : "dark";
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyTheme(next);
}
