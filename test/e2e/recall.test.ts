/**
 * Recall, get and the MCP server end to end, with the generated test models: a planted corpus among real
 * distractor sessions, the agent format pinned byte for byte, filters, recency, fusion, bad input, and a
 * real MCP client over stdio.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localMemoryFor, ModelSession, type RecallOptions, recall } from "../../src/commands/index.js";
import { RECENCY_SPAN } from "../../src/search/index.js";
import { CLI, type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";

/**
 * Planted facts: [question, the answer turn's text]. Each answer sits in its own turn of a planted session.
 * The test models are bag-of-words stand-ins, so each answer shares its question's words: relating a
 * question to other words is the held-out corpora's reworded kind (recall-heldout.test.ts).
 */
const FACTS: [string, string][] = [
  [
    "why did we pin lancedb to 0.31",
    "We pinned lancedb to 0.31.0 because newer releases cannot be locked for npm ci here.",
  ],
  [
    "what makes the fts index build hang",
    "The fts index build hangs on two cores unless LANCE_CPU_THREADS is set to 2 or more.",
  ],
  [
    "which parquet reader do we use",
    "We read parquet with hyparquet; parquetjs-lite fails on the messages list column.",
  ],
  [
    "how are chunk ids computed",
    "Chunk ids are the first 16 hex digits of sha1 over session, turn, block and split.",
  ],
  [
    "what is the default reranker and why",
    "The default reranker is MiniLM L6 in int8 because thirty pairs fit in half a second.",
  ],
  [
    "where do model files live",
    "Model files live in the hugging face cache under models--org--name snapshots.",
  ],
  [
    "why are manifests copied instead of symlinked",
    "Lance manifests must be real files: a symlinked manifest reports file size too small.",
  ],
  [
    "what happens on http 412 during publish",
    "A 412 means someone else published; refresh the head, recompute and retry with jitter.",
  ],
  ["how big is each chunk", "Each chunk holds at most 1200 code points with 150 of overlap between pieces."],
  [
    "which secretlint version works on node 20",
    "Secretlint 13 needs node 22, so we use secretlint 12 on node 20.",
  ],
  [
    "what does the recency half-life do",
    "Recency halves a passage's score every thirty days unless the half-life is zero.",
  ],
  [
    "why is optimize never run when publishing",
    "Optimize rewrites every data file, so publishing would re-upload the whole dataset.",
  ],
  [
    "how does the writer lock work",
    "The writer lock is an advisory flock on store.lock shared with the rust binary.",
  ],
  [
    "what did we decide about hermes compaction rows",
    "Hermes rows archived by compaction stay indexed; active and compacted flags are ignored.",
  ],
  [
    "how are codex turn ids formed",
    "Codex turn ids are the session id, a dash, and the sequence number of the turn.",
  ],
  [
    "which token variables are read",
    "The token variables read are HF_TOKEN, then HUGGING_FACE_HUB_TOKEN, then HUGGINGFACE_TOKEN, then the token file.",
  ],
  [
    "why does the mcp server silence console debug",
    "The hub client prints a debug line on stdout, which would corrupt the mcp protocol stream.",
  ],
  [
    "how are base64 images handled",
    "Inline base64 data uri payloads are replaced by the word elided before chunking.",
  ],
  [
    "what is the budget for vector backfill",
    "Vector backfill runs for about sixty seconds per index run unless yes is passed.",
  ],
  [
    "why keep the reranker bounded",
    "An unbounded cross-encoder made recall take five to nine seconds, so rerank has a time budget.",
  ],
  [
    "which embedding model do memories use",
    "Memories use bge-small-en-v1.5 vectors so the rust and typescript tools interoperate.",
  ],
  [
    "what does the wrong memory guard do",
    "The wrong memory guard asks before a first push that shares no chunk with the remote.",
  ],
];

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
let ids: string[];
const session = new ModelSession({
  hubCache: TEST_HUB_CACHE,
  reranker: "ms-marco-MiniLM-L-6-v2",
  threads: 1,
  hubUrl: "http://127.0.0.1:9",
});
const NOW = Date.parse("2026-11-29T12:00:00Z");

function claudeLine(
  uuid: string,
  role: "user" | "assistant",
  text: string,
  ts: string,
  extra: object = {},
): string {
  const content = role === "user" ? text : [{ type: "text", text }];
  return JSON.stringify({
    type: role,
    uuid,
    timestamp: ts,
    cwd: "/home/dev/funes",
    message: { role, content },
    ...extra,
  });
}

beforeAll(async () => {
  t = tempDir();
  env = {
    home: join(t.dir, "home"),
    funesHome: join(t.dir, "funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE },
  };
  const proj = join(env.home, ".claude", "projects", "-home-dev-funes");
  mkdirSync(proj, { recursive: true });
  // Distractors: real sessions of every kind.
  copyFixture("claude/agent-sessions-schema-catalog.jsonl", join(proj, "catalog.jsonl"));
  copyFixture("claude/episodic-memory-tiny.jsonl", join(proj, "tiny.jsonl"));
  mkdirSync(join(env.home, ".codex"), { recursive: true });
  copyFixture("codex", join(env.home, ".codex", "sessions"));
  mkdirSync(join(env.home, ".pi", "agent"), { recursive: true });
  copyFixture("pi", join(env.home, ".pi", "agent", "sessions"));
  // The planted session: each fact is the assistant's answer to a bare "next" from the user.
  ids = [];
  const lines: string[] = [];
  FACTS.forEach(([, a], i) => {
    const day = String(1 + (i % 27)).padStart(2, "0");
    lines.push(claudeLine(`q-${i}`, "user", "next", `2026-11-${day}T10:00:00.000Z`));
    lines.push(claudeLine(`a-${i}`, "assistant", a, `2026-11-${day}T10:00:05.000Z`));
    ids.push(`a-${i}`);
  });
  writeFileSync(join(proj, "planted.jsonl"), `${lines.join("\n")}\n`);
  // Recency pair: the same words a year apart.
  writeFileSync(
    join(proj, "old.jsonl"),
    `${claudeLine("old-1", "assistant", "the flamingo migration plan was approved", "2025-11-20T10:00:00.000Z")}\n`,
  );
  writeFileSync(
    join(proj, "new.jsonl"),
    `${claudeLine("new-1", "assistant", "the flamingo migration plan was approved", "2026-11-20T10:00:00.000Z")}\n`,
  );
  // Only the vector leg can find this one for a misspelt query: BM25 sees a different word.
  writeFileSync(
    join(proj, "spelling.jsonl"),
    `${claudeLine("color-1", "assistant", "the quxbarinator", "2026-11-25T10:00:00.000Z")}\n`,
  );
  const r = await runFunes(["index", "--yes", "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).vectors.remaining).toBe(0);
});

afterAll(async () => {
  await session.close();
  t.cleanup();
});

function opts(query: string, more: Partial<RecallOptions> = {}): RecallOptions {
  return {
    query,
    k: 5,
    candidates: 30,
    halfLifeDays: 30,
    neighbors: 1,
    rerankBudgetMs: 500,
    now: NOW,
    ...more,
  };
}

describe("retrieval on a planted corpus", () => {
  it(`puts the answer's turn in the top 5 for each of ${FACTS.length} questions`, async () => {
    expect(FACTS.length).toBeGreaterThanOrEqual(20);
    const memory = { memory: localMemoryFor(undefined, env), notes: [] };
    const misses: string[] = [];
    for (const [i, [q]] of FACTS.entries()) {
      const r = await recall(memory, opts(q), session);
      if (!r.hits.slice(0, 5).some((h) => h.turnUuid === ids[i]))
        misses.push(`${q} → ${r.hits.map((h) => h.turnUuid).join(", ")}`);
    }
    expect(misses).toEqual([]);
  });

  it("recency ranks the newer of two equal passages first, and half-life 0 ties them", async () => {
    const memory = { memory: localMemoryFor(undefined, env), notes: [] };
    const withRecency = await recall(memory, opts("flamingo migration plan approved", { k: 30 }), session);
    const score = (r: typeof withRecency, id: string) => r.hits.find((h) => h.turnUuid === id)?.score ?? 0;
    expect(withRecency.hits[0]?.turnUuid).toBe("new-1");
    // A year older than its equal: just below it, and never further than the recency span.
    expect(score(withRecency, "old-1")).toBeLessThan(score(withRecency, "new-1"));
    expect(score(withRecency, "old-1")).toBeGreaterThanOrEqual(
      score(withRecency, "new-1") * (1 - RECENCY_SPAN),
    );
    const flat = await recall(memory, opts("flamingo migration plan approved", { halfLifeDays: 0 }), session);
    expect(new Set(flat.hits.slice(0, 2).map((h) => h.turnUuid))).toEqual(new Set(["new-1", "old-1"]));
    expect(score(flat, "old-1")).toBeCloseTo(score(flat, "new-1"), 6);
  });

  it("fusion adds what only the vector leg finds", async () => {
    const memory = { memory: localMemoryFor(undefined, env), notes: [] };
    // "quxbarinater" and "quxbarinator" share no term for BM25; the embedder sees their shared pieces.
    const q = opts("quxbarinater", { rerankBudgetMs: 0, halfLifeDays: 0 });
    const keywordOnly = new ModelSession({
      hubCache: join(t.dir, "no-models"),
      reranker: "ms-marco-MiniLM-L-6-v2",
      threads: 1,
      hubUrl: "",
    });
    const kw = await recall(memory, q, keywordOnly);
    expect(kw.notes[0]).toMatch(/^note: keyword-only recall — BAAI\/bge-small-en-v1.5/);
    const hybrid = await recall(memory, q, session);
    expect(hybrid.notes).toEqual([]);
    const rank = (r: typeof kw) => r.hits.findIndex((h) => h.turnUuid === "color-1");
    expect(rank(hybrid)).toBeGreaterThanOrEqual(0);
    expect(rank(kw) === -1 || rank(kw) > rank(hybrid)).toBe(true);
  });

  it("filters by type, agent and time before ranking", async () => {
    const memory = { memory: localMemoryFor(undefined, env), notes: [] };
    const uses = await recall(memory, opts("command file", { k: 8, blockType: "tool_use" }), session);
    expect(uses.hits.length).toBeGreaterThan(0);
    expect(uses.hits.every((h) => h.blockType === "tool_use")).toBe(true);
    const codex = await recall(memory, opts("website", { harness: "codex" }), session);
    expect(codex.hits.length).toBeGreaterThan(0);
    expect(codex.hits.every((h) => h.harness === "codex")).toBe(true);
    const recent = await recall(memory, opts("flamingo migration", { since: "30d" }), session);
    expect(recent.hits.map((h) => h.turnUuid)).toContain("new-1");
    expect(recent.hits.map((h) => h.turnUuid)).not.toContain("old-1");
    const older = await recall(memory, opts("flamingo migration", { until: "2026-01-01" }), session);
    expect(older.hits[0]?.turnUuid).toBe("old-1");
    expect(older.hits.map((h) => h.turnUuid)).not.toContain("new-1");
    expect(older.hits.every((h) => h.ts < "2026-01-01")).toBe(true);
  });
});

describe("agent format and bad input (CLI)", () => {
  it("pins the format: header, → get line, text, neighbours, ---", async () => {
    const r = await runFunes(
      [
        "recall",
        "fts index build hang",
        "-k",
        "1",
        "--rerank-budget",
        "0",
        "--half-life",
        "0",
        "--harness",
        "claude",
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const mem = join(env.funesHome, "memory");
    expect(r.stdout).toBe(
      "[2026-11-02T10:00:05.000Z] claude_code -home-dev-funes/planted text  score=1.000\n" +
        `  → get planted a-1 --memory ${mem}\n` +
        "The fts index build hangs on two cores unless LANCE_CPU_THREADS is set to 2 or more.\n" +
        "  ~ [user text seq2] next\n" +
        "  ~ [user text seq4] next\n" +
        "---\n",
    );
    // Vector search always has nearest rows; a filter that matches nothing leaves none.
    const none = await runFunes(["recall", "fts index", "--harness", "hermes"], env);
    expect(none.stdout).toBe("no results\n");
    // On a terminal, the view for people: a numbered header, the passage, the get command.
    const term = await runFunesInTerminal(
      ["recall", "fts index build hang", "-k", "1", "--rerank-budget", "0", "--harness", "claude"],
      { ...env, extra: { ...env.extra, COLUMNS: "80" } },
      [],
    );
    expect(term.code).toBe(0);
    expect(term.stdout.replaceAll("\r", "")).toMatch(
      /^1\. 2026-11-02 10:00 · claude · -home-dev-funes\/planted · text {2}score \d\.\d\d\nThe fts index build hangs on two cores unless LANCE_CPU_THREADS is set to 2 or\nmore\.\n {2}→ funes get planted a-1 {2}\(2 around it\)\n$/,
    );
    // --full adds the turns around it, through the pager when taller than the terminal (LINES here).
    const full = ["recall", "fts index build hang", "--limit", "1", "--rerank-budget", "0", "--full"];
    const paged = await runFunesInTerminal(full, {
      ...env,
      extra: { ...env.extra, COLUMNS: "80", LINES: "3", FUNES_PAGER: "sed 's/^/paged: /'" },
    });
    expect(paged.code, paged.stdout).toBe(0);
    expect(paged.stdout.replaceAll("\r", "")).toContain(
      "paged:   ~ user text: next\npaged:   ~ user text: next\n",
    );
    const tall = await runFunesInTerminal(full, {
      ...env,
      extra: { ...env.extra, COLUMNS: "80", LINES: "50", FUNES_PAGER: "sed 's/^/paged: /'" },
    });
    expect(tall.stdout.replaceAll("\r", "")).toContain("\n  ~ user text: next\n");
    expect(tall.stdout).not.toContain("paged:");
    // Eight hits on a 24-row terminal: the default view fits it.
    const screen = await runFunesInTerminal(["recall", "lance index", "--rerank-budget", "0"], {
      ...env,
      extra: { ...env.extra, COLUMNS: "80", LINES: "24" },
    });
    expect(screen.code, screen.stdout).toBe(0);
    const shown = screen.stdout.replaceAll("\r", "").trimEnd().split("\n");
    // The top hits with their text (a passage line after each header), then a line for the rest.
    const heads = shown.flatMap((l, i) => (/^\d+\. /.test(l) ? [i] : []));
    expect(heads.length, JSON.stringify(shown, null, 1)).toBeGreaterThanOrEqual(3);
    for (const i of heads) expect(shown[i + 1]).not.toMatch(/^ {2}→ funes get/);
    expect(shown.length, JSON.stringify(shown, null, 1)).toBeLessThanOrEqual(23);
    const get = await runFunes(["get", "planted", "a-1", "--window", "1"], env);
    expect(get.stdout).toBe(
      "[2026-11-02T10:00:00.000Z] user seq2 turn=q-1\nnext\n---\n" +
        "[2026-11-02T10:00:05.000Z] assistant seq3 turn=a-1\nThe fts index build hangs on two cores unless LANCE_CPU_THREADS is set to 2 or more.\n---\n" +
        "[2026-11-03T10:00:00.000Z] user seq4 turn=q-2\nnext\n---\n",
    );
    // A turn the memory does not hold is an error (the MCP tool keeps the reference's line, below).
    const missing = await runFunes(["get", "planted", "nope"], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toBe(
      'funes: turn "nope" is not in session "planted" of this memory — copy both ids from a recall hit\'s → get line (and its --memory)\n',
    );
    // A session id nothing begins with: that part is named, not the turn.
    const noSession = await runFunes(["get", "tr", "a-1"], env);
    expect(noSession.code).toBe(1);
    expect(noSession.stderr).toMatch(/^funes: no session of this memory is "tr" or begins with it — /);
    const json = JSON.parse(
      (await runFunes(["get", "planted", "a-1", "--window", "0", "--json"], env)).stdout,
    );
    expect(json.turns).toEqual([
      expect.objectContaining({ turnUuid: "a-1", seq: 3, role: "assistant", center: true }),
    ]);
    expect(json.turns[0].blocks[0].text).toContain("LANCE_CPU_THREADS");
  });

  it("gives clear answers to bad queries and flags, never an FTS syntax error", async () => {
    const cases: [string[], number, RegExp][] = [
      [["recall"], 2, /recall needs a query/],
      [["recall", "   "], 2, /recall needs a query/],
      [
        ["recall", "x", "--type", "image"],
        2,
        /--type "image" is not a block type \(expected text, thinking, tool_use, tool_result\)/,
      ],
      [["recall", "x", "--since", "yesterday"], 2, /--since "yesterday" is not a date/],
      [["recall", "x", "--harness", "cursor"], 2, /--harness "cursor" is not a harness/],
    ];
    for (const [args, code, msg] of cases) {
      const r = await runFunes(args, env);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr).toMatch(msg);
    }
    for (const q of [
      '"',
      "AND",
      "*",
      "-",
      '" AND * - ( ) :',
      "x".repeat(10_000),
      `${"why lance ".repeat(1000)}`,
    ]) {
      const r = await runFunes(["recall", "--rerank-budget", "0", "--", q], env);
      expect(r.code, q.slice(0, 20)).toBe(0);
      expect(r.stderr).toBe("");
    }
  });
});

describe("funes mcp", () => {
  it("serves recall, get, sessions, scan and status over stdio with the CLI's text", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: env.home,
        FUNES_HOME: env.funesHome,
        FUNES_SERVER: "0",
        HF_HUB_CACHE: TEST_HUB_CACHE,
        FUNES_THREADS: "1",
        // A Hub that refuses connections: a Hub memory degrades to the local one.
        HF_ENDPOINT: "http://127.0.0.1:9",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "funes-test", version: "0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(["get", "recall", "scan", "sessions", "status"]);
      expect(tools.find((x) => x.name === "recall")?.description).toMatch(/before asserting the history/);
      // Every tool only reads, and says so: agents that never ask for approval may still call them.
      for (const tool of tools)
        expect(tool.annotations, tool.name).toMatchObject({
          title: expect.any(String),
          readOnlyHint: true,
          destructiveHint: false,
        });
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[] };
        return r.content[0]?.text ?? "";
      };
      // A bad argument is a failed call naming the tool's own argument, not the CLI's flag.
      const failed = async (args: Record<string, unknown>) => {
        const r = (await client.callTool({ name: "recall", arguments: args })) as {
          content: { text: string }[];
          isError?: boolean;
        };
        return { isError: r.isError, text: r.content[0]?.text ?? "" };
      };
      expect(await failed({ query: "x", since: "yesterday" })).toEqual({
        isError: true,
        text: 'recall error: since "yesterday" is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)',
      });
      expect(await failed({ query: "x", harness: "cursor" })).toEqual({
        isError: true,
        text: 'recall error: harness "cursor" is not a harness (expected claude, codex, hermes, pi, gemini, qwen, opencode or copilot)',
      });
      expect((await failed({ query: " " })).text).toMatch(/^recall error: query " " is empty/);
      const viaMcp = await call("recall", { query: "writer lock flock", k: 3 });
      const viaCli = await runFunes(["recall", "writer lock flock", "-k", "3"], env);
      expect(viaMcp).toContain("  → get planted a-12 --memory");
      expect(viaMcp).toBe(viaCli.stdout);
      expect(await call("get", { session_id: "planted", turn_uuid: "a-12", window: 1 })).toBe(
        (await runFunes(["get", "planted", "a-12", "--window", "1"], env)).stdout,
      );
      expect(await call("get", { session_id: "planted", turn_uuid: "zz" })).toBe(
        "turn zz not found in session planted\n",
      );
      const status = await call("status", {});
      expect(status).toMatch(/^memory: .*\nchunks: \d+\nsessions: \d+\n/);
      expect(await call("sessions", { limit: 2 })).toBe(
        (await runFunes(["sessions", "--limit", "2", "--format", "agent"], env)).stdout,
      );
      expect(await call("recall", { query: "x", block_type: "image" })).toBe(
        'recall error: block_type "image" is not a block type (expected text, thinking, tool_use, tool_result)',
      );
      expect(await call("recall", { query: "writer lock flock", k: 1, memory: "acme/kb" })).toMatch(
        /^remote hf:\/\/datasets\/acme\/kb unreachable — recalling from your local memory\n\[.*\n {2}→ get planted a-12 --memory /,
      );
    } finally {
      await client.close();
    }
  });
});
