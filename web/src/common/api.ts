// Helpers for the documented JSON / NDJSON / WebSocket APIs of the agent and the server. The
// pages only ever read what these APIs give them: on the agent, the seat's own view.

/**
 * The server's own JSON, as the agent passes it on (the lobby, challenges, tournaments, the
 * verdict): the agent's own JSON is typed in web/src/types; this is not yet.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ServerJson = any;

/** An API error: the HTTP status and the `{"error": ...}` text the API names it with. */
export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const err = (body as { error?: string } | null)?.error ?? (text || res.statusText);
    throw new ApiError(res.status, err);
  }
  return body as T;
}

/** GET a JSON document. */
export async function getJson<T = unknown>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers: { Accept: 'application/json' } }));
}

/** POST a JSON body (or none) and read the JSON answer. */
export async function postJson<T = unknown>(path: string, body?: unknown): Promise<T> {
  return answer<T>(
    await fetch(path, {
      method: 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/**
 * Follows an NDJSON stream: calls `onValue` for each JSON line (empty keep-alive lines are
 * skipped), reconnecting after `retryMs` when the stream ends or fails, until `stop()` is
 * called, or `onValue` or `onError` returns `false`. `T` is what the stream's lines are
 * (web/src/types; the caller names it: nothing here checks it; the host's pages do not name
 * theirs yet, hence the default).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function followNdjson<T = any>(
  path: string,
  onValue: (v: T) => boolean | void,
  opts: { retryMs?: number; onError?: (e: unknown) => boolean | void } = {},
): { stop: () => void } {
  const retryMs = opts.retryMs ?? 1500;
  let stopped = false;
  let controller: AbortController | null = null;
  const run = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const res = await fetch(path, { signal: controller.signal });
        if (!res.ok || !res.body) throw new ApiError(res.status, `${path}: ${res.status}`);
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (!line) continue;
            if (onValue(JSON.parse(line) as T) === false) {
              stopped = true;
              controller.abort();
              return;
            }
          }
        }
      } catch (e) {
        if (stopped) return;
        // `false` from onError: the failure is final (a 404: there is no such thing to follow).
        if (opts.onError?.(e) === false) {
          stopped = true;
          return;
        }
      }
      if (!stopped) await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void run();
  return {
    stop: () => {
      stopped = true;
      controller?.abort();
    },
  };
}

/** Opens a WebSocket on the same host as the page (`ws:` or `wss:` as the page's scheme). */
export function openSocket(path: string): WebSocket {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return new WebSocket(`${scheme}//${location.host}${path}`);
}

/** Escapes text for HTML. */
export function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A clock reading, m:ss (tenths under ten seconds). */
export function clockText(ms: number): string {
  const t = Math.max(0, ms);
  const m = Math.floor(t / 60000);
  const s = Math.floor(t / 1000) % 60;
  const base = `${m}:${String(s).padStart(2, '0')}`;
  return t < 10000 ? `${base}.${Math.floor(t / 100) % 10}` : base;
}

/**
 * The short form of a key, for display: `ed25519:` and its first 8 hex digits, a prefix of the
 * key and of the CLI's fingerprint (`ed25519:<32 hex>`), so the two can be matched by eye.
 */
export function shortKey(k: string | null | undefined): string {
  if (!k) return '?';
  const [scheme, hex] = k.includes(':') ? k.split(':', 2) : ['ed25519', k];
  return hex.length > 8 ? `${scheme}:${hex.slice(0, 8)}…` : k;
}
