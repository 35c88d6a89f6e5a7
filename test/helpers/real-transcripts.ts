/**
 * Every real transcript under test/fixtures/traces (the funes fixtures and the public `corpus/`, Claude Code,
 * Codex, pi, Hermes, Gemini CLI, Qwen Code and Copilot CLI session files), parsed as funes parses them: the
 * clean text on which a secret finding is a false positive. Shared by the false-positive test (test/e2e/secret-forms.test.ts) and the bench.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Harness,
  parseClaudeTranscript,
  parseCodexRollout,
  parseCopilotEvents,
  parseGeminiSession,
  parseHermesSessionFile,
  parsePiSession,
  parseQwenSession,
  type Session,
  sniffFile,
  type UnitRead,
} from "../../src/traces/index.js";
import { TRACES } from "./fixtures.js";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .filter((p) => p.endsWith(".jsonl") || p.endsWith(".json"))
    .sort();
}

/** The harnesses whose sessions are files (OpenCode's are rows of a database). */
export type FileHarness = Exclude<Harness, "opencode">;

/** Each file-based agent's parser, as `funes index` picks it. */
export const PARSERS: Record<FileHarness, (text: string, ctx: { path: string }) => UnitRead> = {
  claude_code: parseClaudeTranscript,
  codex: parseCodexRollout,
  pi: parsePiSession,
  hermes: parseHermesSessionFile,
  gemini: parseGeminiSession,
  qwen: parseQwenSession,
  copilot: parseCopilotEvents,
};

/** The sessions of every transcript file under `root` that sniffs as an agent's. */
export function realSessions(root = TRACES): Session[] {
  const out: Session[] = [];
  for (const path of filesUnder(root)) {
    const sniffed = sniffFile(path);
    if (sniffed.kind !== "transcript" || sniffed.harness === "opencode") continue;
    const text = readFileSync(path, "utf8");
    out.push(...PARSERS[sniffed.harness](text, { path }).sessions);
  }
  return out;
}

/** The block texts of each session, in order (one scanner call per session, as `funes index` makes). */
export function realBlockTexts(root = TRACES): string[][] {
  return realSessions(root).map((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text)));
}
