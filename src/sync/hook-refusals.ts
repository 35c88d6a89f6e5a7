/**
 * Hook pushes that refused to publish, kept where people look: an agent's hook runs `funes push --hook`
 * with nobody watching, and its log is read by no one, so a refusal is also recorded here, one file per
 * Hub memory (`$FUNES_HOME/hook-refusals/<owner>--<name>[--prefix].json`), with the one command that fixes
 * it. `funes status` and `funes doctor` show it; the next command run on a terminal warns of it once; the
 * next hook push that publishes to that memory clears it.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { remoteFileName, writeFileAtomicSync } from "../memory/index.js";
import type { HubLocation } from "../remote/index.js";

/** A hook push's refusal to publish. */
export interface HookRefusal {
  /** The memory's URI. */
  uri: string;
  /** The memory as the hook names it (the spec given to `funes add`). */
  memory: string;
  /** When the last such refusal happened (ISO 8601, UTC). */
  at: string;
  /** The refusal's meaning (a `FunesError` code). */
  code: string;
  /** The refusal, one line, as the hook's log has it (without `funes: `). */
  message: string;
  /** The one command that fixes it. */
  fix: string;
  /** Whether a command on a terminal has warned of it already. */
  warned: boolean;
}

const dirOf = (funesHome: string) => join(funesHome, "hook-refusals");
const pathOf = (funesHome: string, loc: HubLocation) => join(dirOf(funesHome), `${remoteFileName(loc)}.json`);

function readAt(path: string): HookRefusal | null {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as Partial<HookRefusal>;
    if (typeof r.uri !== "string" || typeof r.message !== "string") return null;
    return {
      uri: r.uri,
      memory: String(r.memory ?? r.uri),
      at: String(r.at ?? ""),
      code: String(r.code ?? "unexpected"),
      message: r.message,
      fix: String(r.fix ?? ""),
      warned: r.warned === true,
    };
  } catch {
    return null;
  }
}

const write = (path: string, r: HookRefusal) => writeFileAtomicSync(path, `${JSON.stringify(r, null, 2)}\n`);

/**
 * Records a hook push's refusal to publish to `loc` at `now` (ms since the epoch). The same refusal again
 * keeps its `warned` (a hook refusing every turn warns once); a different one is warned of anew.
 */
export function recordHookRefusal(
  funesHome: string,
  loc: HubLocation,
  r: { memory: string; code: string; message: string; fix: string },
  now: number,
): void {
  const path = pathOf(funesHome, loc);
  const had = readAt(path);
  const same = had !== null && had.code === r.code && had.message === r.message;
  mkdirSync(dirOf(funesHome), { recursive: true });
  write(path, { uri: loc.uri, ...r, at: new Date(now).toISOString(), warned: same && had.warned });
}

/** Forgets the refusal recorded for `loc` (a hook push published there). */
export function clearHookRefusal(funesHome: string, loc: HubLocation): void {
  rmSync(pathOf(funesHome, loc), { force: true });
}

function listAt(funesHome: string): { path: string; r: HookRefusal }[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(funesHome)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const out: { path: string; r: HookRefusal }[] = [];
  for (const n of names) {
    const path = join(dirOf(funesHome), n);
    const r = readAt(path);
    if (r !== null) out.push({ path, r });
  }
  return out.sort((a, b) => b.r.at.localeCompare(a.r.at));
}

/** Every recorded refusal, newest first. */
export function readHookRefusals(funesHome: string): HookRefusal[] {
  return listAt(funesHome).map((x) => x.r);
}

/** The refusals not warned of yet, marked warned as they are returned (each is warned of once). */
export function takeUnwarnedRefusals(funesHome: string): HookRefusal[] {
  const out: HookRefusal[] = [];
  for (const { path, r } of listAt(funesHome)) {
    if (r.warned) continue;
    try {
      write(path, { ...r, warned: true });
    } catch {
      // A home it can't write to: the warning still shows (again next time).
    }
    out.push(r);
  }
  return out;
}
