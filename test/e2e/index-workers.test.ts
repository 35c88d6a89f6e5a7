/**
 * The backfill of a large memory in worker processes (cli/index-worker.ts): the memory it leaves is the one a
 * single process leaves, a worker never outlives `funes index`, and a killed run is finished by the next.
 * FUNES_INDEX_WORKER_ROWS=0 takes the worker path at any size.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IsolatedStep, indexSessions, runIsolatedStep } from "../../src/commands/index.js";
import { LocalStore } from "../../src/local/index.js";
import { CLI, type CliEnv, runFunes, startFunes } from "../helpers/cli.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

let t: { dir: string; cleanup: () => void };

beforeEach(() => {
  t = tempDir();
});
afterEach(() => t.cleanup());

function user(name: string, workerRows: string | null): CliEnv {
  const home = join(t.dir, name, "home");
  mkdirSync(join(home, ".codex"), { recursive: true });
  copyFixture("codex", join(home, ".codex", "sessions"));
  mkdirSync(join(home, ".pi", "agent"), { recursive: true });
  copyFixture("pi", join(home, ".pi", "agent", "sessions"));
  return {
    home,
    funesHome: join(t.dir, name, "funes"),
    extra: {
      HF_HUB_CACHE: TEST_HUB_CACHE,
      ...(workerRows === null ? {} : { FUNES_INDEX_WORKER_ROWS: workerRows }),
    },
  };
}

/** Every row's id and vector (null while it waits). */
async function vectorsById(funesHome: string): Promise<Map<string, number[] | null>> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) return new Map();
  try {
    const rows = await store.table.query().select(["id", "vector"]).toArray();
    return new Map(
      rows.map((r) => [String(r.id), r.vector === null ? null : Array.from(r.vector as Iterable<number>)]),
    );
  } finally {
    store.close();
  }
}

/** Live `funes __index-step` processes working on this FUNES_HOME. */
function workersOf(funesHome: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d)))
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (!cmd.includes("__index-step")) continue;
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (env.includes(`FUNES_HOME=${funesHome}`)) found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  return found;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("index workers", () => {
  it("leave the same memory as one process: every row, every vector", async () => {
    const inProcess = user("one", null);
    const workers = user("workers", "0");
    const a = await runFunes(["index", "--yes", "--json"], inProcess);
    const b = await runFunes(["index", "--yes", "--json"], workers);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const sa = JSON.parse(a.stdout);
    const sb = JSON.parse(b.stdout);
    expect(sb.vectors).toMatchObject({ model: sa.vectors.model, embedded: sa.chunksAdded, remaining: 0 });
    const va = await vectorsById(inProcess.funesHome);
    const vb = await vectorsById(workers.funesHome);
    expect([...vb.keys()].sort()).toEqual([...va.keys()].sort());
    for (const [id, v] of vb) {
      expect(v, id).not.toBeNull();
      const want = va.get(id) as number[];
      expect(Math.max(...(v as number[]).map((x, i) => Math.abs(x - (want[i] as number))))).toBeLessThan(
        1e-5,
      );
    }
    // A rerun on a memory past the threshold reads its transcripts in a worker too: nothing new, and the
    // same refusal, with the same words and exit code, when the text pass stops on bad input.
    const again = await runFunes(["index", "--yes", "--json"], workers);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      chunksAdded: 0,
      unitsUnchanged: sa.unitsRead + sa.unitsUnchanged,
    });
    for (const u of [inProcess, workers]) writeFileSync(join(u.funesHome, "forgotten.json"), "{ damaged");
    const refusedHere = await runFunes(["index"], inProcess);
    const refusedThere = await runFunes(["index"], workers);
    expect(refusedHere.code).toBe(2);
    expect(refusedHere.stderr).toContain("forgotten.json is damaged");
    expect([
      refusedThere.code,
      refusedThere.stderr.replaceAll(workers.funesHome, inProcess.funesHome),
    ]).toEqual([refusedHere.code, refusedHere.stderr]);
    for (const u of [inProcess, workers]) rmSync(join(u.funesHome, "forgotten.json"));
    // Recall reads what the workers wrote, the vector leg included.
    const r = await runFunes(["recall", "session", "--json"], workers);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits.length).toBeGreaterThan(0);
  });

  it("stop when `funes index` is killed, and the next run finishes the backfill", async () => {
    const env = user("killed", "0");
    writeSyntheticHistory(env.home, 12);
    const text = await runFunes(["index"], { ...env, extra: { HF_HUB_CACHE: join(t.dir, "none") } });
    expect(text.code).toBe(0);
    const child = startFunes(["index", "--yes"], env);
    const closed = new Promise((r) => child.on("close", r));
    let seen: number[] = [];
    for (let i = 0; i < 1200 && seen.length === 0; i++) {
      await pause(25);
      seen = workersOf(env.funesHome);
    }
    expect(seen.length).toBe(1);
    child.kill("SIGKILL");
    await closed;
    // The worker sees its channel close and exits instead of writing on alone.
    while (workersOf(env.funesHome).length > 0) await pause(25);
    const mid = await vectorsById(env.funesHome);
    const missing = [...mid.values()].filter((v) => v === null).length;
    expect(missing).toBeGreaterThan(0);
    const resumed = await runFunes(["index", "--yes", "--json"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).vectors).toMatchObject({ embedded: missing, remaining: 0 });
    const after = await vectorsById(env.funesHome);
    expect(after.size).toBe(mid.size);
    expect([...after.values()].every((v) => v !== null && v.length === 384)).toBe(true);
  });

  it("stop embedding where the vector index is due, run that step on its own, then carry on", async () => {
    const env = user("steps", null);
    writeSyntheticHistory(env.home, 3);
    // The product's rules at a small scale: trained past 1,000 rows with vectors, folded every 500.
    const indexRules = { minRows: 1000, foldMinRows: 500, retrainMaxRows: 1500 };
    const steps: string[] = [];
    const built: string[] = [];
    const s = await indexSessions({
      funesHome: env.funesHome,
      home: env.home,
      thinking: true,
      models: {
        hubCache: TEST_HUB_CACHE,
        reranker: "ms-marco-MiniLM-L-6-v2",
        threads: 1,
        hubUrl: "http://127.0.0.1:9",
      },
      vectorBudgetMs: null,
      onEvent: (e) => {
        if (e.kind === "vector-index") built.push(e.action);
      },
      // The steps run here, each on a store opened afresh, as a worker runs them.
      isolate: {
        fromRows: 0,
        run: (step: IsolatedStep, emit) => {
          if (step.kind === "text") {
            steps.push("text");
            return runIsolatedStep(step, emit);
          }
          steps.push(step.kind === "embed" ? "embed" : step.final ? "final" : "index");
          return runIsolatedStep({ ...step, indexRules }, emit);
        },
      },
    });
    expect(s.vectors).toMatchObject({ embedded: s.chunksAdded, remaining: 0 });
    expect(s.chunksAdded).toBeGreaterThan(3072);
    // An embed step ends where the training, then each fold, is due (1,024 vectors a write, so one of
    // each at least past the first write), the step runs apart, the next embed carries on; the closing
    // indexes last.
    expect(steps[0]).toBe("embed");
    expect(steps.at(-1)).toBe("final");
    expect(steps.slice(0, -1)).toEqual(steps.slice(0, -1).map((_, i) => (i % 2 === 0 ? "embed" : "index")));
    expect(built[0]).toBe("built");
    expect(built.slice(1).every((a) => a === "folded")).toBe(true);
    expect(built.length).toBeGreaterThanOrEqual(3);
    expect(steps.filter((x) => x === "index").length).toBe(built.length);
    const store = await LocalStore.open(join(env.funesHome, "memory"));
    try {
      expect(await store?.table.countRows("vector IS NULL")).toBe(0);
    } finally {
      store?.close();
    }
  });

  it("exit as soon as the channel to their parent closes", async () => {
    const worker = spawn(process.execPath, [CLI, "__index-step"], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: { PATH: process.env.PATH ?? "", HOME: t.dir, FUNES_HOME: join(t.dir, "funes") },
    });
    const exited = new Promise<number | null>((r) => worker.on("exit", (code) => r(code)));
    // It waits for its step; the parent going away instead is the end of it.
    worker.disconnect();
    expect(await exited).toBe(1);
  });
});
