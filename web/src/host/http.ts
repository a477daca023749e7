// The host site's calls to the server's public JSON API (docs/SERVER.md). Errors carry the
// status and the server's own `{"error": …}` sentence.

/** A failed API call: its status (0 when the server could not be reached) and why. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The endpoint (or the thing asked for) does not exist on this server. */
  get notFound(): boolean {
    return this.status === 404;
  }
}

async function failure(path: string, r: Response): Promise<ApiError> {
  let why = `${r.status} ${r.statusText}`.trim();
  try {
    const text = await r.text();
    try {
      const v = JSON.parse(text);
      if (v && typeof v.error === "string") why = v.error;
    } catch {
      if (text && text.length < 300 && !text.trimStart().startsWith("<")) why = text.trim();
    }
  } catch {
    // the body could not be read: the status says enough
  }
  return new ApiError(r.status, why, path);
}

async function call(path: string, init?: RequestInit): Promise<Response> {
  let r: Response;
  try {
    r = await fetch(path, { ...init, headers: { accept: "application/json", ...(init?.headers ?? {}) } });
  } catch (e) {
    throw new ApiError(0, `the server cannot be reached (${e instanceof Error ? e.message : e})`, path);
  }
  if (!r.ok) throw await failure(path, r);
  return r;
}

/**
 * The display names the server's answers carried (`names`: key → the name its key signed,
 * docs/PROTOCOL.md, display names), by key: `keySpan` shows them beside the key. These pages
 * are the host's own, so they show the host's word; a player's agent checks each signature.
 */
export const signedNames: Record<string, string> = {};

/** `GET path` as JSON. */
export async function getJson<T = any>(path: string): Promise<T> {
  const r = await call(path);
  const v = await r.json();
  const names = v && typeof v === "object" ? (v as any).names : null;
  if (names && typeof names === "object") {
    for (const [k, n] of Object.entries(names as Record<string, any>)) {
      if (n && n.key === k && typeof n.name === "string") signedNames[k] = n.name;
    }
  }
  return v as T;
}

/** `GET path` as text. */
export async function getText(path: string): Promise<string> {
  return (await call(path)).text();
}

/** `POST path` with raw bytes, the answer as JSON. */
export async function postBytes<T = any>(path: string, body: ArrayBuffer | Uint8Array): Promise<T> {
  const r = await call(path, {
    method: "POST",
    body: body as BodyInit,
    headers: { "content-type": "application/octet-stream" },
  });
  return (await r.json()) as T;
}

/** `GET path` as JSON, or `null` when the server has no such endpoint or thing (404). */
export async function getOptional<T = any>(path: string): Promise<T | null> {
  try {
    return await getJson<T>(path);
  } catch (e) {
    if (e instanceof ApiError && e.notFound) return null;
    throw e;
  }
}
