/**
 * A large synthetic history made of the real fixture sessions replicated under new session ids, laid out
 * as each agent stores them. Used by the kill-and-resume test and the benchmark.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRACES } from "./fixtures.js";

const CODEX_ID = "019ef2fb-6574-7f83-bd99-9118713271f2";

/** What was written. */
export interface SynthHistory {
  files: number;
}

/**
 * Writes `copies` replicas of each fixture session under `home` (Claude, Codex and pi layouts). Every replica
 * gets its own session id, so its chunk ids are new; file mtimes follow write order.
 */
export function writeSyntheticHistory(home: string, copies: number, first = 0): SynthHistory {
  const claudeDir = join(home, ".claude", "projects", "-home-user-synthetic");
  const codexDir = join(home, ".codex", "sessions", "2026", "06", "23");
  const piDir = join(home, ".pi", "agent", "sessions", "--home-user-synthetic--");
  for (const d of [claudeDir, codexDir, piDir]) mkdirSync(d, { recursive: true });
  const claude = [
    "claude_session.jsonl",
    "episodic-memory-tiny.jsonl",
    "agent-sessions-schema-catalog.jsonl",
  ].map((f) => readFileSync(join(TRACES, "claude", f), "utf8"));
  const codex = readFileSync(join(TRACES, "codex", "codex_session.jsonl"), "utf8");
  const piLarge = readFileSync(join(TRACES, "pi", "pi-mono-large-session.jsonl"), "utf8");
  const piSmall = readFileSync(join(TRACES, "pi", "pi_session.jsonl"), "utf8");
  let files = 0;
  for (let i = first; i < first + copies; i++) {
    const n = String(i).padStart(6, "0");
    claude.forEach((text, k) => {
      writeFileSync(join(claudeDir, `synth-${k}-${n}.jsonl`), text);
      files++;
    });
    const codexId = `${CODEX_ID.slice(0, -6)}${n}`;
    writeFileSync(
      join(codexDir, `rollout-2026-06-23T05-37-02-${codexId}.jsonl`),
      codex.replaceAll(CODEX_ID, codexId),
    );
    writeFileSync(join(piDir, `2026-04-13T09-28-54-581Z_large-${n}.jsonl`), piLarge);
    writeFileSync(join(piDir, `2026-04-13T09-28-54-581Z_small-${n}.jsonl`), piSmall);
    files += 3;
  }
  return { files };
}

/** The real public transcripts of `test/fixtures/traces/corpus/<agent>/…` (sources in its README). */
const CORPUS = join(TRACES, "corpus");

function jsonlUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? jsonlUnder(join(dir, e.name)) : e.name.endsWith(".jsonl") ? [join(dir, e.name)] : [],
    )
    .sort();
}

/** A new version-4-shaped uuid from a counter (stable across runs). */
function counterUuid(n: number): string {
  const h = n.toString(16).padStart(12, "0");
  return `5eed0000-0000-4000-8000-${h}`;
}

/**
 * Writes replicas of the real corpus transcripts (Claude Code, Codex, pi) under `home`, each under a new
 * session id, until about `targetBytes` are written: long real sessions with large tool outputs, where the
 * fixture sessions are small. Returns the files and bytes written.
 */
export function writeRealHistory(home: string, targetBytes: number): SynthHistory & { bytes: number } {
  const claudeDir = join(home, ".claude", "projects", "-home-user-real");
  const codexDir = join(home, ".codex", "sessions", "2026", "05", "11");
  const piDir = join(home, ".pi", "agent", "sessions", "--home-user-real--");
  for (const d of [claudeDir, codexDir, piDir]) mkdirSync(d, { recursive: true });
  const read = (agent: string) =>
    jsonlUnder(join(CORPUS, agent)).map((p) => ({ p, text: readFileSync(p, "utf8") }));
  const claude = read("claude");
  const codex = read("codex");
  const pi = read("pi");
  let files = 0;
  let bytes = 0;
  let n = 0;
  const put = (path: string, text: string) => {
    writeFileSync(path, text);
    files++;
    bytes += Buffer.byteLength(text);
  };
  while (bytes < targetBytes && claude.length + codex.length + pi.length > 0) {
    for (const { p, text } of claude) {
      // Claude Code names a session by its file; sub-agents' files start with `agent-`.
      const id = counterUuid(++n);
      const stem =
        p
          .split("/")
          .pop()
          ?.replace(/\.jsonl$/, "") ?? "";
      const name = stem.startsWith("agent-") ? `agent-${id.slice(-12)}` : id;
      put(join(claudeDir, `${name}.jsonl`), text.replaceAll(stem, name));
    }
    for (const { text } of codex) {
      // A rollout's id is its first record's (session_meta's payload, or an older file's header).
      const old = codexSessionId(text);
      const id = counterUuid(++n);
      put(
        join(codexDir, `rollout-2026-05-11T11-26-55-${id}.jsonl`),
        old === undefined ? text : text.replaceAll(old, id),
      );
    }
    for (const { text } of pi) put(join(piDir, `2026-04-13T09-28-54-581Z_${counterUuid(++n)}.jsonl`), text);
  }
  return { files, bytes };
}

function codexSessionId(text: string): string | undefined {
  try {
    const first = JSON.parse(text.slice(0, text.indexOf("\n") >>> 0)) as {
      id?: unknown;
      payload?: { id?: unknown };
    };
    const id = first.payload?.id ?? first.id;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}
