/**
 * `funes index`, `status` and `recall` end to end: the built CLI with a temporary HOME holding real
 * transcripts in each agent's own layout.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalStore } from "../../src/local/index.js";
import { acquireWriterLock } from "../../src/memory/index.js";
import { type CliEnv, runFunes, startFunes } from "../helpers/cli.js";
import { TRACES, tempDir } from "../helpers/fixtures.js";
import { writeHermesDb } from "../helpers/hermes-db.js";
import { writeTraceParquet } from "../helpers/parquet.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

/** Chunk ids the reference computes for its three fixtures (sha1 of session:turn:block:split, by hand). */
const GOLDEN: Record<string, string[]> = {
  claude: ["859b80fcc6352877", "0d7f141cd680ac71", "1b34cc250c0e3274"],
  codex: [
    "abb941d91ba3cead",
    "33dda1ca9ee6e2c9",
    "9753ae5ad66f3416",
    "92be6289f165ef67",
    "85513cba7ecf5b26",
    "019881a6b16efb12",
    "79e06ac73b21e897",
  ],
  pi: ["5a964ba71f259b71", "96bb7d408ac04f3a", "56928c316a75b058", "28a87fcda5698e9c"],
};

let t: { dir: string; cleanup: () => void };
let env: CliEnv;

/** Lays out the fixtures where each agent keeps its sessions. */
function installHistory(home: string): void {
  const claude = join(home, ".claude", "projects", "D--physics-earth");
  mkdirSync(claude, { recursive: true });
  for (const f of ["claude_session.jsonl", "episodic-memory-tiny.jsonl", "episodic-memory-medium.jsonl"])
    cpSync(join(TRACES, "claude", f), join(claude, f));
  const codex = join(home, ".codex", "sessions", "2026", "06", "23");
  mkdirSync(codex, { recursive: true });
  cpSync(join(TRACES, "codex", "codex_session.jsonl"), join(codex, "codex_session.jsonl"));
  const pi = join(home, ".pi", "agent", "sessions", "--Users-gibbon-Desktop-pi-share-hf--");
  mkdirSync(pi, { recursive: true });
  cpSync(join(TRACES, "pi", "pi_session.jsonl"), join(pi, "pi_session.jsonl"));
  cpSync(join(TRACES, "pi", "pi-mono-large-session.jsonl"), join(pi, "pi-mono-large-session.jsonl"));
  mkdirSync(join(home, ".hermes"));
  writeHermesDb(
    join(home, ".hermes", "state.db"),
    "v20",
    [{ id: "h1", cwd: "/srv/bot" }],
    [
      {
        session_id: "h1",
        role: "user",
        content: "why is the hermes reranker slow?",
        timestamp: 1_780_000_000,
      },
      {
        session_id: "h1",
        role: "assistant",
        content: "Because the cross-encoder runs unbounded.",
        timestamp: 1_780_000_005,
      },
    ],
  );
}

async function storedIds(funesHome: string): Promise<Set<string>> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) throw new Error("no memory");
  try {
    return await store.ids();
  } finally {
    store.close();
  }
}

async function indexJson(args: string[] = []) {
  const r = await runFunes(["index", "--json", ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    sessions: number;
    unitsRead: number;
    unitsUnchanged: number;
    chunksAdded: number;
    chunksPresent: number;
    skipped: Record<string, number>;
    failed: { key: string; reason: string }[];
  };
}

beforeEach(() => {
  t = tempDir();
  env = { home: join(t.dir, "home"), funesHome: join(t.dir, "funes") };
  mkdirSync(env.home);
  installHistory(env.home);
});
afterEach(() => t.cleanup());

describe("funes index", () => {
  it("indexes every agent's sessions with the reference's chunk ids, then adds nothing on a rerun", async () => {
    const first = await indexJson();
    // Seven files; one holds no conversation, so six sessions, as `status` counts them.
    expect(first.sessions).toBe(6);
    expect(first.unitsRead).toBe(7);
    expect(first.failed).toEqual([]);
    expect(first.skipped['record type "file-history-snapshot"']).toBe(22);
    const ids = await storedIds(env.funesHome);
    for (const id of Object.values(GOLDEN).flat()) expect(ids.has(id), id).toBe(true);
    expect(ids.size).toBe(first.chunksAdded);

    const again = await indexJson();
    expect(again.chunksAdded).toBe(0);
    expect(again.sessions).toBe(0);
    expect(again.unitsUnchanged).toBe(7);
    expect((await storedIds(env.funesHome)).size).toBe(ids.size);
  });

  it("adds only the new turn's chunks when a session grows", async () => {
    const first = await indexJson();
    const file = join(env.home, ".claude", "projects", "D--physics-earth", "claude_session.jsonl");
    const turn = {
      type: "user",
      uuid: "new-turn-uuid",
      parentUuid: "6ca11204-04df-4649-b206-1b629b2a7706",
      timestamp: "2026-06-12T21:30:00.000Z",
      message: { role: "user", content: "Now add a night-side city lights layer." },
    };
    appendFileSync(file, `${JSON.stringify(turn)}\n`);
    const second = await indexJson();
    expect(second.sessions).toBe(1);
    expect(second.chunksAdded).toBe(1);
    expect(second.chunksPresent).toBe(3);
    const ids = await storedIds(env.funesHome);
    expect(ids.size).toBe(first.chunksAdded + 1);
    expect(ids.has("ec05213466c01496")).toBe(true);
  });

  it("reports status by agent and finds passages by keyword", async () => {
    await indexJson();
    const status = await runFunes(["status", "--json"], env);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s.kind).toBe("ready");
    expect(s.pendingSessions).toBe(0);
    expect(s.pendingVectors).toBe(s.chunks);
    expect(
      Object.fromEntries(
        s.byHarness.map((h: { harness: string; sessions: number }) => [h.harness, h.sessions]),
      ),
    ).toEqual({
      claude_code: 2,
      codex: 1,
      pi: 2,
      hermes: 1,
    });
    const text = await runFunes(["status"], env);
    expect(text.stdout).toMatch(/^memory: .*\nchunks: \d+\nsessions: 6\n/);
    expect(text.stdout).toMatch(/last indexed: \d{4}-\d\d-\d\d \d\d:\d\d UTC \(just now\)/);

    const recall = await runFunes(
      ["recall", "hermes", "reranker", "slow", "-k", "1", "--rerank-budget", "0", "--half-life", "0"],
      env,
    );
    expect(recall.code).toBe(0);
    expect(recall.stdout).toBe(
      "[2026-05-28T20:26:40+00:00] hermes -srv-bot/h1 text  score=1.000\n" +
        `  → get h1 1 --memory ${join(env.funesHome, "memory")}\n` +
        "why is the hermes reranker slow?\n" +
        "  ~ [assistant text seq1] Because the cross-encoder runs unbounded.\n" +
        "---\n",
    );
    const none = await runFunes(["recall", "zzzqqqxxy"], env);
    expect(none.stdout).toBe("no results\n");
  });

  it("counts malformed and truncated lines, and keeps going past an unreadable source", async () => {
    const dir = join(env.home, ".claude", "projects", "D--physics-earth");
    writeFileSync(
      join(dir, "torn.jsonl"),
      `${readFileSync(join(dir, "claude_session.jsonl"), "utf8").slice(0, -200)}`,
    );
    appendFileSync(join(dir, "episodic-memory-tiny.jsonl"), "this is not json\n");
    writeFileSync(join(env.home, ".hermes", "state.db"), "garbage, not sqlite ".repeat(200));
    const r = await runFunes(["index", "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.skipped["malformed JSON line"]).toBe(2);
    expect(r.stderr).toMatch(/scanning hermes sessions in .*could not be read, skipping/);
  });

  it("fails (exit 1) when nothing could be read, and exits 2 on a bad flag value", async () => {
    const bad = join(t.dir, "state.db");
    writeFileSync(bad, "garbage, not sqlite ".repeat(200));
    const r = await runFunes(["index", bad], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^funes: scanning hermes sessions in .*: file is not a database/);
    const usage = await runFunes(["index", "--limit", "0"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--limit takes a whole number/);
    const harness = await runFunes(["index", "--harness", "cursor"], env);
    expect(harness.code).toBe(2);
    expect(harness.stderr).toContain('unknown harness "cursor"');
  });

  it("refuses to run beside another writer", async () => {
    const lock = await acquireWriterLock(join(env.funesHome, "store.lock"));
    try {
      const r = await runFunes(["index"], env);
      expect(r.code).toBe(75);
      expect(r.stderr).toContain("another funes memory operation is in progress");
    } finally {
      await lock.release();
    }
    expect((await runFunes(["index"], env)).code).toBe(0);
  });

  it("rebuilds a corrupted state.json without duplicating rows", async () => {
    const first = await indexJson();
    writeFileSync(join(env.funesHome, "state.json"), "{ this is not json");
    const r = await runFunes(["index", "--json"], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("state.json was unreadable; rebuilding it");
    const s = JSON.parse(r.stdout);
    expect(s.chunksAdded).toBe(0);
    expect(s.chunksPresent).toBe(first.chunksAdded);
    expect(JSON.parse(readFileSync(join(env.funesHome, "state.json"), "utf8"))).toBeTypeOf("object");
  });

  it("indexes one path with --harness, and a parquet file", async () => {
    const r = await indexJson([join(env.home, ".codex", "sessions"), "--harness", "codex"]);
    expect(r.sessions).toBe(1);
    const ids = await storedIds(env.funesHome);
    expect([...ids].sort()).toEqual([...GOLDEN.codex!].sort());
    const pq = join(t.dir, "0000.parquet");
    writeTraceParquet(pq, [
      {
        session_id: "pq-1",
        messages: [JSON.stringify({ role: "user", content: "parquet traces index too" })],
        harness: "pi",
      },
    ]);
    const p = await indexJson([pq]);
    expect(p.chunksAdded).toBe(1);
    // Parquet files are always re-read (no signature); stored ids keep the rerun from adding anything.
    expect((await indexJson([pq])).chunksAdded).toBe(0);
  });

  it("survives kill -9 mid-run: the memory opens and a rerun ends with exactly a clean run's rows", async () => {
    writeSyntheticHistory(env.home, 40);
    const child = startFunes(["index"], env);
    const closed = new Promise((r) => child.on("close", r));
    // Kill right after the first batch is committed: the run writes several, so this is mid-run.
    let partialRows = 0;
    for (let i = 0; i < 300 && partialRows === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      partialRows = (await storedIds(env.funesHome).catch(() => new Set())).size;
    }
    child.kill("SIGKILL");
    await closed;
    expect(partialRows).toBeGreaterThan(0);
    const resumed = await runFunes(["index"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const clean: CliEnv = { home: env.home, funesHome: join(t.dir, "clean") };
    expect((await runFunes(["index"], clean)).code).toBe(0);
    const a = await LocalStore.open(join(env.funesHome, "memory"));
    const b = await LocalStore.open(join(clean.funesHome, "memory"));
    try {
      const [idsA, idsB] = [await a!.ids(), await b!.ids()];
      expect(partialRows).toBeLessThan(idsB.size);
      expect(idsA.size).toBe(idsB.size);
      expect([...idsA].every((id) => idsB.has(id))).toBe(true);
      // No duplicate rows either.
      expect(await a!.table.countRows()).toBe(idsA.size);
    } finally {
      a?.close();
      b?.close();
    }
  });
});
