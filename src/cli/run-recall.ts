/**
 * `funes recall <query…>`.
 */
import { FunesError, formatRecallAgent, recallKeyword } from "../commands/index.js";
import { parseHarness } from "../traces/index.js";
import type { CliConfig } from "./config.js";
import { resolveMemorySpec } from "./memory-spec.js";
import { nonNegativeInt, positiveInt } from "./parse-args.js";

/** Flags of `funes recall`. */
export interface RecallFlags {
  k?: unknown;
  type?: unknown;
  harness?: unknown;
  neighbors?: unknown;
  memory?: unknown;
  json?: boolean;
}

/** Recalls and prints in the agent format (or JSON). */
export async function runRecall(words: unknown[], flags: RecallFlags, cfg: CliConfig): Promise<void> {
  const query = words.map(String).join(" ").trim();
  if (query === "")
    throw new FunesError("bad_input", 'recall needs a query, e.g. funes recall "why did we pick lance"');
  const memory = resolveMemorySpec(flags.memory === undefined ? undefined : String(flags.memory), cfg);
  const hits = await recallKeyword(memory, {
    query,
    k: flags.k === undefined ? 8 : positiveInt(flags.k, "-k"),
    blockType: flags.type === undefined ? undefined : String(flags.type),
    harness: flags.harness === undefined ? undefined : parseHarness(String(flags.harness)),
    neighbors: flags.neighbors === undefined ? 1 : nonNegativeInt(flags.neighbors, "--neighbors"),
  });
  if (flags.json === true)
    process.stdout.write(`${JSON.stringify({ memory: memory.label, hits }, null, 2)}\n`);
  else process.stdout.write(formatRecallAgent(hits, memory.label));
}
