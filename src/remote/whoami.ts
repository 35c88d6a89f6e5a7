/**
 * Is the Hub reachable, and does it accept the token? One request to `whoami-v2`, decided here like the
 * head probe: an answer without a token (401) still proves the endpoint is there.
 */
import { type HubClient, hubParams, isUnreachable } from "./access.js";
import { describeNetworkError } from "./network-error.js";
import { PROBE_TIMEOUT_MS } from "./repo-head.js";

/** What the Hub said about the token. */
export type HubIdentity =
  | { kind: "user"; name: string }
  | { kind: "anonymous" }
  | { kind: "rejected" }
  | { kind: "offline"; reason: string };

/** Asks the Hub who the token belongs to. */
export async function fetchIdentity(client: HubClient): Promise<HubIdentity> {
  const p = hubParams(client, PROBE_TIMEOUT_MS);
  try {
    const res = await p.fetch(`${client.hubUrl}/api/whoami-v2`, {
      headers: client.token === undefined ? {} : { Authorization: `Bearer ${client.token}` },
    });
    if (res.status === 401 || res.status === 403)
      return client.token === undefined ? { kind: "anonymous" } : { kind: "rejected" };
    if (!res.ok) return { kind: "offline", reason: `HTTP ${res.status}` };
    const body = (await res.json()) as { name?: unknown };
    return { kind: "user", name: typeof body.name === "string" ? body.name : "?" };
  } catch (err) {
    if (isUnreachable(err)) return { kind: "offline", reason: describeNetworkError(err, client.hubUrl) };
    throw err;
  }
}
