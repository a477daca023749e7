// The host site's calls to the server's public JSON API (docs/SERVER.md). Errors carry the
// status and the server's own `{"error": …}` sentence.

import type { ErrorBody } from "../types/host";
import type { SignedName } from "../types";

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

/** Whether a JSON answer is the server's `{"error": …}` (server::error::ErrorBody). */
function isErrorBody(v: unknown): v is ErrorBody {
  return typeof v === "object" && v !== null && typeof (v as { error?: unknown }).error === "string";
}

async function failure(path: string, r: Response): Promise<ApiError> {
  let why = `${r.status} ${r.statusText}`.trim();
  try {
    const text = await r.text();
    try {
      const v: unknown = JSON.parse(text);
      if (isErrorBody(v)) why = v.error;
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

/** `GET path` as JSON: the type the server's route answers with (`web/src/types/host`,
 * generated from server::http::types), which the caller names. */
export async function getJson<T>(path: string): Promise<T> {
  const r = await call(path);
  const v: unknown = await r.json();
  const names = v && typeof v === "object" ? (v as { names?: unknown }).names : null;
  if (names && typeof names === "object") {
    for (const [k, n] of Object.entries(names as Record<string, Partial<SignedName> | null>)) {
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
export async function postBytes<T>(path: string, body: ArrayBuffer | Uint8Array): Promise<T> {
  const r = await call(path, {
    method: "POST",
    body: body as BodyInit,
    headers: { "content-type": "application/octet-stream" },
  });
  return (await r.json()) as T;
}

/** `GET path` as JSON, or `null` when the server has no such endpoint or thing (404). */
export async function getOptional<T>(path: string): Promise<T | null> {
  try {
    return await getJson<T>(path);
  } catch (e) {
    if (e instanceof ApiError && e.notFound) return null;
    throw e;
  }
}
