/**
 * A large synthetic history made of the real fixture sessions replicated under new session ids, laid out
 * as each agent stores them. Used by the kill-and-resume test and the benchmark.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
