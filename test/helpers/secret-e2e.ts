/**
 * The generated secret corpus through the built CLI, as a user would meet it: a Claude transcript holding
 * every sample is indexed (is any of it left in the memory's text?); a memory written by a tool that did not
 * redact, holding every sample, is pushed to the Hub stand-in (is any of it in the bytes uploaded?) and then
 * scrubbed (is any of it left?). Shared by the e2e test and scripts/secret-coverage.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Chunk, chunkId, splitText } from "../../src/chunk/index.js";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, runFunes } from "./cli.js";
import { TEST_HUB_CACHE } from "./fixtures.js";
import type { HubStandin } from "./hub-standin.js";
import { leakyRow, writeLeakyMemory } from "./leaky.js";
import { type CorpusSample, secretGone } from "./secret-corpus.js";

/** Where each sample was caught. */
export interface CorpusVerdict {
  sample: CorpusSample;
  /** Nothing of it in the memory's text after `funes index`. */
  index: boolean;
  /** Nothing of it in any byte `funes push` uploaded. */
  push: boolean;
  /** Nothing of it in the memory after `funes scrub`. */
  scrub: boolean;
}

/** What the three runs said, and the verdicts. */
export interface CorpusRun {
  verdicts: CorpusVerdict[];
  /** `funes push --json` summary. */
  push: { published: number; heldBack: Record<string, number> };
  /** Clean rows planted beside the samples (all of them must publish). */
  cleanRows: number;
  /** Samples whose turn is not in the indexed memory at all (must be none). */
  missingTurns: number;
  /** `funes scrub --json` summary: blocks redacted in place, and blocks dropped whole. */
  scrub: { redactedBlocks: number; droppedBlocks: number };
}

/** A Claude Code transcript line per sample: text blocks, tool calls (input JSON-escaped again) and results. */
export function corpusTranscript(samples: CorpusSample[]): string {
  const lines = samples.map((s, i) => {
    const base = { uuid: `turn-${i}`, parentUuid: null, timestamp: "2026-11-01T00:00:00Z", cwd: "/w/corpus" };
    if (i % 3 === 0)
      return {
        ...base,
        type: "assistant",
        message: { role: "assistant", content: [{ type: "text", text: s.text }] },
      };
    if (i % 3 === 1)
      return {
        ...base,
        type: "assistant",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: s.text } }],
        },
      };
    return {
      ...base,
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${i - 1}`, content: s.text }],
      },
    };
  });
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/** Texts of a memory's rows grouped by `key`, pieces in order and joined. */
export async function textsBy(
  funesHome: string,
  key: "turn_uuid" | "block_idx",
): Promise<Map<string, string>> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) return new Map();
  try {
    const rows = await store.table.query().select(["text", key, "split_idx"]).toArray();
    rows.sort((a, b) => Number(a.split_idx) - Number(b.split_idx));
    const out = new Map<string, string>();
    for (const r of rows) out.set(String(r[key]), `${out.get(String(r[key])) ?? ""}${String(r.text)}\n`);
    return out;
  } finally {
    store.close();
  }
}

/** Leaky rows: each sample a block (cut into chunks as funes would), then `clean` ordinary blocks. */
function leakyRows(samples: CorpusSample[], clean: number): Chunk[] {
  const rows: Chunk[] = [];
  samples.forEach((s, i) => {
    splitText(s.text).forEach((piece, split) => {
      rows.push(leakyRow(chunkId("leaky", `t-${i}`, i, split), piece, i, split));
    });
  });
  for (let k = 0; k < clean; k++) {
    const i = samples.length + k;
    rows.push(
      leakyRow(chunkId("leaky", `t-${i}`, i, 0), `An ordinary note, number ${k}, with no secret.`, i),
    );
  }
  return rows;
}

/** Runs `index`, `push` and `scrub` over `samples` under `dir`, publishing to `repo` on `hub`. */
export async function runCorpus(
  samples: CorpusSample[],
  opts: { dir: string; hub: HubStandin; repo: string },
): Promise<CorpusRun> {
  const none = join(opts.dir, "no-models");
  const indexEnv: CliEnv = {
    home: join(opts.dir, "index-home"),
    funesHome: join(opts.dir, "index-funes"),
    extra: { HF_HUB_CACHE: none },
  };
  const projects = join(indexEnv.home, ".claude", "projects", "-w-corpus");
  mkdirSync(projects, { recursive: true });
  writeFileSync(join(projects, "corpus-session.jsonl"), corpusTranscript(samples));
  const indexed = await runFunes(["index", "--json"], indexEnv);
  if (indexed.code !== 0) throw new Error(`funes index failed: ${indexed.stderr}`);
  const byTurn = await textsBy(indexEnv.funesHome, "turn_uuid");

  const leakyEnv: CliEnv = {
    home: join(opts.dir, "leaky-home"),
    funesHome: join(opts.dir, "leaky-funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: opts.hub.url, HF_TOKEN: "hf_standintokenforcorpus" },
  };
  mkdirSync(leakyEnv.home, { recursive: true });
  const cleanRows = 3;
  await writeLeakyMemory(leakyEnv.funesHome, leakyRows(samples, cleanRows));
  const pushed = await runFunes(["push", opts.repo, "--create", "--json"], leakyEnv);
  if (pushed.code !== 0) throw new Error(`funes push failed: ${pushed.stderr}`);
  const uploaded = [...(opts.hub.repos.get(opts.repo)?.files.values() ?? [])]
    .map((b) => b.toString("latin1"))
    .join("\n");

  const scrubbed = await runFunes(["scrub", "--json"], { ...leakyEnv, extra: { HF_HUB_CACHE: none } });
  if (scrubbed.code !== 0) throw new Error(`funes scrub failed: ${scrubbed.stderr}`);
  const byBlock = await textsBy(leakyEnv.funesHome, "block_idx");

  return {
    verdicts: samples.map((sample, i) => ({
      sample,
      index: secretGone(sample, byTurn.get(`turn-${i}`) ?? ""),
      push: secretGone(sample, uploaded),
      scrub: secretGone(sample, byBlock.get(String(i)) ?? ""),
    })),
    push: JSON.parse(pushed.stdout),
    cleanRows,
    missingTurns: samples.filter((_, i) => !byTurn.has(`turn-${i}`)).length,
    scrub: JSON.parse(scrubbed.stdout),
  };
}

/** The samples (format and context) a stage let through. */
export function leaks(run: CorpusRun, stage: "index" | "push" | "scrub"): string[] {
  return run.verdicts.filter((v) => !v[stage]).map((v) => `${v.sample.format} ${v.sample.context}`);
}
