/**
 * Consent to publish into a Hub memory this machine's memory shares nothing with yet: what `funes add
 * <agent> <memory>` records when it joins a memory (a new teammate has nothing to push then, so the
 * push's own `--yes` never comes into play), so the agents' hook pushes publish there later without
 * `--yes`. One file per memory, `$FUNES_HOME/consent/<owner>--<name>[--prefix].json`, naming the agents
 * whose `add` gave it; `funes remove` of the last of them drops it.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { remoteFileName, writeFileAtomicSync } from "../memory/index.js";
import { type HubLocation, parseHubUri } from "../remote/index.js";

const dirOf = (funesHome: string) => join(funesHome, "consent");
const pathOf = (funesHome: string, loc: HubLocation) => join(dirOf(funesHome), `${remoteFileName(loc)}.json`);

/** A recorded consent: the memory (its URI), the agents whose `add` gave it, when (ISO 8601, UTC). */
export interface PublishConsent {
  uri: string;
  agents: string[];
  at: string;
}

function readAt(path: string): PublishConsent | null {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as Partial<PublishConsent>;
    if (typeof r.uri !== "string" || !Array.isArray(r.agents)) return null;
    return { uri: r.uri, agents: r.agents.map(String), at: String(r.at ?? "") };
  } catch {
    return null; // none recorded (an unreadable file gives no consent)
  }
}

/** The consent recorded for the memory at `uri` (a Hub URI), or null. */
export function readPublishConsent(funesHome: string, uri: string): PublishConsent | null {
  return readAt(pathOf(funesHome, parseHubUri(uri)));
}

/** Records that `agent`'s `add` consented to publishing into `loc` (kept with the agents before it). */
export function recordPublishConsent(funesHome: string, loc: HubLocation, agent: string, now: number): void {
  const had = readAt(pathOf(funesHome, loc));
  const agents = [...new Set([...(had?.agents ?? []), agent])];
  mkdirSync(dirOf(funesHome), { recursive: true });
  writeFileAtomicSync(
    pathOf(funesHome, loc),
    `${JSON.stringify({ uri: loc.uri, agents, at: new Date(now).toISOString() }, null, 2)}\n`,
  );
}

/**
 * Takes `agent` out of every consent it gave; a consent no agent holds any more is dropped. Returns the
 * URIs of the memories whose consent was dropped.
 */
export function withdrawPublishConsent(funesHome: string, agent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(funesHome)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const dropped: string[] = [];
  for (const name of names) {
    const path = join(dirOf(funesHome), name);
    const c = readAt(path);
    if (c === null || !c.agents.includes(agent)) continue;
    const agents = c.agents.filter((a) => a !== agent);
    if (agents.length === 0) {
      rmSync(path, { force: true });
      dropped.push(c.uri);
    } else writeFileAtomicSync(path, `${JSON.stringify({ ...c, agents }, null, 2)}\n`);
  }
  return dropped;
}
