/**
 * `npm run bench -- --peer <checkout>`: funes beside its closest TypeScript peer, obra/episodic-memory
 * (SQLite + sqlite-vec, bge-small int8 through transformers.js), on one corpus of Claude Code sessions both
 * index (issue 17). Nothing is installed here: the checkout must already have its `node_modules` (`npm
 * install` in it); the bench only places the bench-shaped bge-small (random weights, real shape: speed
 * depends on shape, not weights) where the peer's transformers.js looks for local models
 * (`node_modules/@huggingface/transformers/models/Xenova/bge-small-en-v1.5`), so use a scratch checkout.
 *
 * Measured, alternating the two tools run by run (the machine's cores are shared, so each figure is a median
 * with its spread):
 * - index to fully vector-searchable, end to end: funes `index --yes` (fp32, and int8 with
 *   FUNES_EMBED_PRECISION=int8, the peer's precision) against the peer's own full
 *   index (`dist/index-cli.js index-all --no-summaries`: its LLM summaries need an API and funes writes none);
 *   sessions/s, rows/s and the embedder's real tokens/s against the ≈ 4k tokens/s fp32 limit of 2 cores;
 * - warm recall through each tool's MCP server over stdio with the SDK's real client: funes keyword-only,
 *   hybrid without rerank and default, the peer's `text`, `vector` and default `both` searches, at 5 and 10
 *   results (BENCH_PEER_KS; the peer's default is 10), with funes ÷ peer for each pairing; each
 *   round asks every question anew (its words changed, so nothing kept from before answers it; the peer's
 *   substring search then finds nothing), a three-word phrase of the stored exchanges never asked before
 *   (which it finds), and a question as asked before (a repeated question); and how long each server takes
 *   to connect and list its tools;
 * - from a shell: the first query of the day (funes with no model server running; the peer loads its model
 *   in every process), a query with funes's model server warm, and keyword-only queries.
 */
import "./native-env.js";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import { writeTestModels } from "../scripts/make-models.js";
import { LocalStore } from "../src/local/index.js";
import { cachedModelDir, EMBEDDER_INT8_SPEC, EMBEDDER_SPEC, loadEmbedder } from "../src/models/index.js";
import { CLI } from "../test/helpers/cli.js";
import { ROOT, TRACES } from "../test/helpers/fixtures.js";
import { BENCH_HUB, ensureBenchModels, type Row } from "./models-bench.js";
import { diskRows } from "./peer-disk.js";
import { peakKiB } from "./rss.js";

/** The one line printed when `--peer` names no usable checkout. */
export const PEER_SETUP =
  "peer comparison: git clone https://github.com/obra/episodic-memory /tmp/peer && (cd /tmp/peer && npm install) && npm run bench -- --peer /tmp/peer";

/** Questions about what the Claude fixtures discuss; some are substrings of stored text, some are not. */
const QUERIES = [
  "register as summarizer",
  "fix the instructions",
  "why are you so tentative",
  "list files",
  "proactiveness section",
  "agent chat skill commands",
  "schema catalog of session records",
  "standing by",
];

const PEER_MODEL = ["Xenova", "bge-small-en-v1.5"];

/** Why `peer` cannot be benchmarked, or null when it can. */
export function peerProblem(peer: string): string | null {
  for (const rel of [
    "dist/index-cli.js",
    "dist/mcp-server.js",
    "node_modules/@huggingface/transformers/package.json",
    "node_modules/better-sqlite3/build/Release/better_sqlite3.node",
    "node_modules/sqlite-vec/package.json",
  ])
    if (!existsSync(join(peer, rel))) return `"${join(peer, rel)}" is missing`;
  return null;
}

/**
 * Puts the bench-shaped bge-small where the peer's transformers.js loads local models first: its int8 graph
 * as `model_quantized.onnx` (the file the peer's `dtype: "q8"` asks for). Returns the folder.
 */
function placePeerModel(peer: string): string {
  const src = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC);
  if (src === null) throw new Error(`bench models missing under "${BENCH_HUB}"`);
  const dest = join(peer, "node_modules", "@huggingface", "transformers", "models", ...PEER_MODEL);
  mkdirSync(join(dest, "onnx"), { recursive: true });
  for (const f of ["config.json", "tokenizer.json", "tokenizer_config.json"])
    cpSync(join(src, f), join(dest, f), { dereference: true });
  cpSync(join(src, "onnx", "model_quantized.onnx"), join(dest, "onnx", "model_quantized.onnx"), {
    dereference: true,
  });
  return dest;
}

/**
 * `copies` replicas of every Claude fixture session, each under its own file (so its own session id). With
 * `distinct`, each replica's prose differs (" the " becomes " the<n> " inside its JSON strings), so that no
 * tool embeds a text it has seen before: an index's time is then that of as many different texts.
 */
export function writeClaudeCorpus(
  home: string,
  copies: number,
  distinct = false,
): { files: number; bytes: number } {
  const dir = join(home, ".claude", "projects", "-home-user-synthetic");
  mkdirSync(dir, { recursive: true });
  const sources = readdirSync(join(TRACES, "claude"))
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => readFileSync(join(TRACES, "claude", f), "utf8"));
  let files = 0;
  let bytes = 0;
  for (let i = 0; i < copies; i++)
    sources.forEach((text, k) => {
      const body = distinct ? text.replaceAll(" the ", ` the${i} `) : text;
      writeFileSync(join(dir, `synth-${k}-${String(i).padStart(6, "0")}.jsonl`), body);
      files++;
      bytes += Buffer.byteLength(body);
    });
  return { files, bytes };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

/**
 * Runs `node args` with only `env` (plus PATH); resolves with wall milliseconds and stdout. With `rssFile`,
 * the process (and every node process it starts) appends its peak RSS there (bench/rss-probe.cjs).
 */
function timed(
  args: string[],
  env: Record<string, string>,
  rssFile?: string,
): Promise<{ ms: number; stdout: string }> {
  const probe = rssFile === undefined ? [] : ["--require", join(ROOT, "bench", "rss-probe.cjs")];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...probe, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      ...env,
      ...(rssFile === undefined ? {} : { BENCH_RSS_FILE: rssFile }),
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((resolve, reject) =>
    child.on("close", (code) =>
      code === 0
        ? resolve({ ms: performance.now() - t0, stdout })
        : reject(new Error(`${args.slice(0, 2).join(" ")} exited ${code}`)),
    ),
  );
}

/** Rows in the peer's database: exchanges, vectors, and the exact texts it embedded (its own recipe). */
function peerRows(configDir: string): { exchanges: number; vectors: number; texts: string[] } {
  const db = new Database(join(configDir, "conversation-index", "db.sqlite"), { readonly: true });
  try {
    const tools = new Map<string, string[]>();
    for (const r of db.prepare("SELECT exchange_id, tool_name FROM tool_calls ORDER BY rowid").all() as {
      exchange_id: string;
      tool_name: string;
    }[])
      tools.set(r.exchange_id, [...(tools.get(r.exchange_id) ?? []), r.tool_name]);
    const rows = db.prepare("SELECT id, user_message, assistant_message FROM exchanges").all() as {
      id: string;
      user_message: string;
      assistant_message: string;
    }[];
    // The peer's generateExchangeEmbedding: user, assistant, tool names; then its 2,000-character cut.
    const texts = rows.map((r) => {
      const t = tools.get(r.id);
      const s = `User: ${r.user_message}\n\nAssistant: ${r.assistant_message}${t ? `\n\nTools: ${t.join(", ")}` : ""}`;
      return s.substring(0, 2000);
    });
    const vectors = (db.prepare("SELECT count(*) AS n FROM vec_exchanges_rowids").get() as { n: number }).n;
    return { exchanges: rows.length, vectors, texts };
  } finally {
    db.close();
  }
}

async function funesTexts(funesHome: string): Promise<{ texts: string[]; vectors: number }> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) throw new Error("no funes memory written");
  try {
    const t = await store.table.query().select(["text"]).toArrow();
    const texts = [...(t.getChild("text") ?? [])].map((v) => String(v));
    const vectors = await store.table.countRows("vector IS NOT NULL");
    return { texts, vectors };
  } finally {
    store.close();
  }
}

/** Tokens each text costs the embedder: the bench tokenizer (bge-small's vocabulary size), cut at 512. */
async function countTokens(texts: string[]): Promise<number> {
  const dir = cachedModelDir(BENCH_HUB, EMBEDDER_SPEC);
  if (dir === null) throw new Error("bench models missing");
  const t = await import("@huggingface/transformers");
  const tokenizer = await t.AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  let n = 0;
  for (const s of texts) n += Math.min(512, tokenizer.encode(s).length);
  return n;
}

interface FillFigures {
  label: string;
  ms: number[];
  sessions: number;
  rows: number;
  rowName: string;
  tokens: number;
}

function fillRow(f: FillFigures): Row {
  const s = median(f.ms) / 1000;
  const spread = `${(Math.min(...f.ms) / 1000).toFixed(1)}–${(Math.max(...f.ms) / 1000).toFixed(1)} s`;
  return [
    f.label,
    `${s.toFixed(1)} s (runs ${spread}, n=${f.ms.length}): ${f.sessions} sessions, ${(f.sessions / s).toFixed(1)} sessions/s; ${f.rows} ${f.rowName}, ${(f.rows / s).toFixed(1)}/s; ${f.tokens} tokens, ${Math.round(f.tokens / s)} tokens/s (${Math.round((f.tokens / s / 4000) * 100)}% of ≈ 4k fp32)`,
    "",
  ];
}

/** Both tools index the same corpus from nothing to fully vector-searchable, alternately. */
async function benchFill(dir: string, peer: string, copies: number, rounds: number): Promise<Row[]> {
  const home = join(dir, "fill-home");
  const corpus = writeClaudeCorpus(home, copies, true);
  const funesHome = join(dir, "fill-funes");
  const peerCfg = join(dir, "fill-peer");
  const funesMs: number[] = [];
  const funesInt8Ms: number[] = [];
  const peerMs: number[] = [];
  // Peak RSS per run, MiB (the run's processes: the main one and its largest worker).
  const rss = { fp32: [] as number[], int8: [] as number[], peer: [] as number[] };
  const rssFile = join(dir, "fill-rss.txt");
  const peakMiB = () => peakKiB(rssFile) / 1024;
  let peerSessions = 0;
  let funesSummary = { sessions: 0, chunksAdded: 0 };
  let int8Vectors = 0;
  const runFunesAt = async (precision: "fp32" | "int8") => {
    rmSync(funesHome, { recursive: true, force: true });
    const r = await timed(
      [CLI, "index", "--yes", "--json"],
      {
        HOME: home,
        FUNES_HOME: funesHome,
        HF_HUB_CACHE: BENCH_HUB,
        FUNES_SERVER: "0",
        LANCE_CPU_THREADS: "2",
        FUNES_EMBED_PRECISION: precision,
      },
      rssFile,
    );
    (precision === "int8" ? funesInt8Ms : funesMs).push(r.ms);
    rss[precision].push(peakMiB());
    funesSummary = JSON.parse(r.stdout) as typeof funesSummary;
  };
  // The int8 file is derived from the fp32 one on first use; not part of any timed run.
  await loadEmbedder(cachedModelDir(BENCH_HUB, EMBEDDER_SPEC) as string, EMBEDDER_INT8_SPEC, {
    threads: 2,
  }).then((e) => e.close());
  const runFunes = async () => {
    await runFunesAt("int8");
    const int8 = await funesTexts(funesHome);
    int8Vectors = int8.vectors;
    await runFunesAt("fp32");
  };
  const runPeer = async () => {
    rmSync(peerCfg, { recursive: true, force: true });
    const r = await timed(
      [join(peer, "dist", "index-cli.js"), "index-all", "--no-summaries"],
      {
        HOME: home,
        EPISODIC_MEMORY_CONFIG_DIR: peerCfg,
      },
      rssFile,
    );
    peerMs.push(r.ms);
    rss.peer.push(peakMiB());
    // Its closing line: "Indexing complete! Conversations: N, Exchanges: M" (sessions with an exchange).
    peerSessions = Number(/Conversations: (\d+)/.exec(r.stdout)?.[1] ?? Number.NaN);
  };
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      await runFunes();
      await runPeer();
    } else {
      await runPeer();
      await runFunes();
    }
    process.stderr.write(
      `peer bench: index round ${i + 1}/${rounds}: funes ${((funesMs.at(-1) ?? 0) / 1000).toFixed(1)} s, int8 ${((funesInt8Ms.at(-1) ?? 0) / 1000).toFixed(1)} s, peer ${((peerMs.at(-1) ?? 0) / 1000).toFixed(1)} s\n`,
    );
  }
  const f = await funesTexts(funesHome);
  const p = peerRows(peerCfg);
  const funesTokens = await countTokens(f.texts);
  return [
    [
      "corpus (Claude Code fixture sessions, replicated, each replica's prose made distinct)",
      `${corpus.files} files, ${(corpus.bytes / 1048576).toFixed(1)} MiB`,
      "",
    ],
    fillRow({
      label: "funes `index --yes`, fp32 (text pass + backfill)",
      ms: funesMs,
      sessions: funesSummary.sessions,
      rows: f.vectors,
      rowName: "chunks with vectors",
      tokens: funesTokens,
    }),
    fillRow({
      label: "funes `index --yes`, FUNES_EMBED_PRECISION=int8",
      ms: funesInt8Ms,
      sessions: funesSummary.sessions,
      rows: int8Vectors,
      rowName: "chunks with vectors",
      tokens: funesTokens,
    }),
    fillRow({
      label: "episodic-memory `index-all --no-summaries`, int8",
      ms: peerMs,
      sessions: peerSessions,
      rows: p.vectors,
      rowName: `exchanges with vectors (of ${p.exchanges})`,
      tokens: await countTokens(p.texts),
    }),
    [
      "index to fully searchable, funes ÷ peer (medians)",
      `fp32 ${(median(funesMs) / median(peerMs)).toFixed(2)}x, int8 ${(median(funesInt8Ms) / median(peerMs)).toFixed(2)}x; peak RSS fp32 ${(median(rss.fp32) / median(rss.peer)).toFixed(2)}x, int8 ${(median(rss.int8) / median(rss.peer)).toFixed(2)}x`,
      "",
    ],
    [
      "peak RSS while indexing, MiB (median, runs)",
      `funes fp32 ${median(rss.fp32).toFixed(0)} (${rss.fp32.map((x) => x.toFixed(0)).join(", ")}), int8 ${median(rss.int8).toFixed(0)} (${rss.int8.map((x) => x.toFixed(0)).join(", ")}); episodic-memory ${median(rss.peer).toFixed(0)} (${rss.peer.map((x) => x.toFixed(0)).join(", ")})`,
      "",
    ],
    ...(await diskRows(funesHome, peerCfg, funesSummary.sessions)),
  ];
}

/** One server's times at one k. */
interface Stats {
  /** Questions asked anew (words changed each round), and repeated questions, ms. */
  fresh: number[];
  ms: number[];
  roundP50: number[];
  bytes: number[];
  /** Times of the calls that found something (the peer's text search is a substring match). */
  found: number[];
  freshFound: number[];
  /** New questions that are phrases of stored exchanges (the peer's substring search finds each), ms. */
  phrase: number[];
  phraseFound: number;
}

interface Server {
  label: string;
  client: Client;
  tool: string;
  /** The argument that says how many results: funes's `k`, the peer's `limit`. */
  countArg: string;
  args: Record<string, unknown>;
  /** Spawn to initialized, and then to the tool list, ms. */
  connectMs: number;
  listMs: number;
  at: Map<number, Stats>;
}

async function connect(
  label: string,
  command: string[],
  env: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: command,
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "funes-peer-bench", version: "0" });
  const t0 = performance.now();
  await client.connect(transport);
  const connectMs = performance.now() - t0;
  await client.listTools();
  const listMs = performance.now() - t0 - connectMs;
  return {
    label,
    client,
    tool,
    countArg: tool === "recall" ? "k" : "limit",
    args,
    connectMs,
    listMs,
    at: new Map(),
  };
}

function statsOf(s: Server, k: number): Stats {
  let st = s.at.get(k);
  if (st === undefined) {
    st = {
      fresh: [],
      ms: [],
      roundP50: [],
      bytes: [],
      found: [],
      freshFound: [],
      phrase: [],
      phraseFound: 0,
    };
    s.at.set(k, st);
  }
  return st;
}

/** Words added to a question to make it new each round (so no tool answers it from what it kept). */
const FRESH_WORDS = [
  "session",
  "file",
  "agent",
  "memory",
  "index",
  "error",
  "test",
  "build",
  "server",
  "query",
];

/** Question `j` of round `round`, changed so it was never asked before (`k` apart: each k asks its own). */
function freshQuestion(q: string, round: number, j: number, k: number): string {
  const w = (i: number) => FRESH_WORDS[i % FRESH_WORDS.length] as string;
  return `${q} ${w(round * 3 + j + k)} ${w(round * 7 + j * 3 + 1)} r${round}k${k}`;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * `want` phrases of the peer's stored exchanges (three words, then two if the corpus has too few), each
 * once (case aside), in a fixed order that mixes the exchanges: new questions that the peer's substring
 * search finds, where the changed questions above find nothing there.
 */
function storedPhrases(configDir: string, want: number): string[] {
  const db = new Database(join(configDir, "conversation-index", "db.sqlite"), { readonly: true });
  try {
    const texts = (
      db.prepare("SELECT user_message, assistant_message FROM exchanges").all() as {
        user_message: string;
        assistant_message: string;
      }[]
    ).map((r) => `${r.user_message}\n${r.assistant_message}`);
    const seen = new Set<string>();
    const out: string[] = [];
    // Starting at every word (a lookahead: windows overlap), so a small corpus still has enough.
    for (const window of [
      /(?<![A-Za-z])(?=([A-Za-z]{3,} [A-Za-z]{3,} [A-Za-z]{3,}))/g,
      /(?<![A-Za-z])(?=([A-Za-z]{3,} [A-Za-z]{3,}))/g,
    ]) {
      if (out.length >= want) break;
      for (const text of texts)
        for (const m of text.matchAll(window)) {
          const phrase = m[1] as string;
          const key = phrase.toLowerCase();
          if (seen.has(key) || QUERIES.some((q) => key.includes(q) || q.includes(key))) continue;
          seen.add(key);
          out.push(phrase);
        }
    }
    // A fixed shuffle (a stride prime to the length), so consecutive questions come from different places.
    let stride = 7919;
    while (out.length > 0 && gcd(stride, out.length) !== 1) stride++;
    return out.map((_, i) => out[(i * stride) % out.length] as string);
  } finally {
    db.close();
  }
}

/** Asks `query` for `k` results; the time, and whether the answer held a hit. */
async function ask(s: Server, query: string, k: number): Promise<{ ms: number; found: boolean }> {
  const t0 = performance.now();
  const r = (await s.client.callTool({
    name: s.tool,
    arguments: { ...s.args, [s.countArg]: k, query },
  })) as {
    content: { text?: string }[];
    isError?: boolean;
  };
  const ms = performance.now() - t0;
  if (r.isError === true) throw new Error(`${s.label}: ${r.content[0]?.text ?? "tool error"}`);
  const bytes = Buffer.byteLength(r.content[0]?.text ?? "");
  statsOf(s, k).bytes.push(bytes);
  // "No results found." and the like: anything with a hit is far longer.
  return { ms, found: bytes > 100 };
}

/** The result counts the MCP rounds ask for: the peer's default (10) and a shorter page. */
function mcpKs(): number[] {
  return (process.env.BENCH_PEER_KS ?? "5,10").split(",").map(Number);
}

/** Warm MCP latency on both tools' servers, all running at once and asked in turn, round by round. */
async function benchMcp(dir: string, peer: string, copies: number, rounds: number): Promise<Row[]> {
  const home = join(dir, "mcp-home");
  // Distinct replicas, as the index runs use: identical ones would let the cross-encoder's kept scores
  // answer most of a reranked pool (one score per passage text), which no real memory allows.
  writeClaudeCorpus(home, copies, true);
  // funes's rows get vectors from the tiny test embedder (same width; a flat scan costs the same whatever
  // the values); its queries are embedded by the bench-shaped bge-small, so the query's cost is real.
  const tinyHub = join(dir, "mcp-tiny");
  writeTestModels(tinyHub);
  const funesHome = join(dir, "mcp-funes");
  const base = { HOME: home, FUNES_HOME: funesHome, FUNES_SERVER: "0", LANCE_CPU_THREADS: "2" };
  const indexed = JSON.parse(
    execFileSync(process.execPath, [CLI, "index", "--yes", "--json"], {
      env: { PATH: process.env.PATH ?? "", ...base, HF_HUB_CACHE: tinyHub },
      stdio: ["ignore", "pipe", "ignore"],
    }).toString(),
  ) as { chunksAdded: number };
  const none = join(dir, "mcp-none");
  mkdirSync(none, { recursive: true });
  const embedderOnly = join(dir, "mcp-embedder");
  cpSync(
    join(BENCH_HUB, "models--BAAI--bge-small-en-v1.5"),
    join(embedderOnly, "models--BAAI--bge-small-en-v1.5"),
    {
      recursive: true,
      verbatimSymlinks: true,
    },
  );
  const peerCfg = join(dir, "mcp-peer");
  await timed([join(peer, "dist", "index-cli.js"), "index-all", "--no-summaries"], {
    HOME: home,
    EPISODIC_MEMORY_CONFIG_DIR: peerCfg,
  });
  const peerCounts = peerRows(peerCfg);
  // Twice as many as asked, for those a server fails on.
  const phrases = storedPhrases(peerCfg, 2 * mcpKs().length * rounds * QUERIES.length);
  let nextPhrase = 0;
  const phraseFailures: string[] = [];
  const peerEnv = { HOME: home, EPISODIC_MEMORY_CONFIG_DIR: peerCfg };
  const peerMcp = [join(peer, "dist", "mcp-server.js")];
  const servers = [
    await connect("funes recall, keyword-only", [CLI, "mcp"], { ...base, HF_HUB_CACHE: none }, "recall", {}),
    await connect(
      "funes recall, hybrid without rerank",
      [CLI, "mcp"],
      { ...base, HF_HUB_CACHE: embedderOnly },
      "recall",
      {},
    ),
    await connect(
      "funes recall, default (reranked)",
      [CLI, "mcp"],
      { ...base, HF_HUB_CACHE: BENCH_HUB },
      "recall",
      {},
    ),
    await connect("episodic-memory search, mode text", peerMcp, peerEnv, "search", { mode: "text" }),
    await connect("episodic-memory search, mode vector", peerMcp, peerEnv, "search", { mode: "vector" }),
    await connect("episodic-memory search, mode both (its default)", peerMcp, peerEnv, "search", {
      mode: "both",
    }),
  ];
  const ks = mcpKs();
  try {
    for (const s of servers) for (const q of QUERIES) for (const k of ks) await ask(s, q, k); // warm up
    for (const s of servers) s.at.clear();
    for (const k of ks) {
      for (let round = 0; round < rounds; round++) {
        // Rotate who goes first, so a neighbour's burst of load does not always land on the same server.
        const order = servers.map((_, i) => servers[(i + round) % servers.length] as Server);
        const perRound = new Map<Server, number[]>(servers.map((s) => [s, []]));
        for (const [j, q] of QUERIES.entries()) {
          for (const s of order) {
            const r = await ask(s, freshQuestion(q, round, j, k), k);
            statsOf(s, k).fresh.push(r.ms);
            if (r.found) statsOf(s, k).freshFound.push(r.ms);
          }
          for (const s of order) {
            const r = await ask(s, q, k);
            statsOf(s, k).ms.push(r.ms);
            if (r.found) statsOf(s, k).found.push(r.ms);
            perRound.get(s)?.push(r.ms);
          }
        }
        for (const [s, ms] of perRound) statsOf(s, k).roundP50.push(median(ms));
      }
      // Then as many phrases, each asked once (after the rounds: what they leave kept in a server must not
      // push out what a repeated question finds there).
      // A phrase some server fails on (the peer's text search throws "Invalid time value" on some
      // exchanges) is counted for none, and the next one is asked instead.
      for (let i = 0; i < rounds * QUERIES.length && nextPhrase < phrases.length; ) {
        const phrase = phrases[nextPhrase++] as string;
        const answers: [Server, { ms: number; found: boolean }][] = [];
        try {
          for (const s of servers.map((_, j) => servers[(i + j) % servers.length] as Server))
            answers.push([s, await ask(s, phrase, k)]);
        } catch (e) {
          phraseFailures.push(`${JSON.stringify(phrase)}: ${(e as Error).message}`);
          continue;
        }
        for (const [s, r] of answers) {
          statsOf(s, k).phrase.push(r.ms);
          if (r.found) statsOf(s, k).phraseFound++;
        }
        i++;
      }
    }
  } finally {
    for (const s of servers) await s.client.close();
  }
  const shell = await benchShell({
    funes: { ...base, HF_HUB_CACHE: BENCH_HUB },
    funesKeyword: { ...base, HF_HUB_CACHE: none },
    peer,
    peerEnv,
    rounds: Number(process.env.BENCH_PEER_SHELL_ROUNDS ?? 5),
  });
  const found = (st: Stats, xs: number[]) =>
    xs.length < st.ms.length ? `; ${xs.length} found something, their p50 ${pct(xs, 50).toFixed(1)} ms` : "";
  const perK = ks.flatMap((k): Row[] => [
    ...servers.map((s): Row => {
      const st = statsOf(s, k);
      return [
        `MCP k=${k} ${s.label}, a new question p50 / p95`,
        `${pct(st.fresh, 50).toFixed(1)} / ${pct(st.fresh, 95).toFixed(1)} ms (n=${st.fresh.length}${found(st, st.freshFound)})`,
        "",
      ];
    }),
    ...servers.map((s): Row => {
      const st = statsOf(s, k);
      return [
        `MCP k=${k} ${s.label}, a new question that is a stored phrase p50 / p95`,
        `${pct(st.phrase, 50).toFixed(1)} / ${pct(st.phrase, 95).toFixed(1)} ms (n=${st.phrase.length}; ${st.phraseFound} found something)`,
        "",
      ];
    }),
    ...servers.map((s): Row => {
      const st = statsOf(s, k);
      return [
        `MCP k=${k} ${s.label}, a repeated question p50 / p95`,
        `${pct(st.ms, 50).toFixed(1)} / ${pct(st.ms, 95).toFixed(1)} ms (round p50s ${Math.min(...st.roundP50).toFixed(1)}–${Math.max(...st.roundP50).toFixed(1)}, n=${st.ms.length}; ${Math.round(median(st.bytes))} B answers${found(st, st.found)})`,
        "",
      ];
    }),
  ]);
  return [
    [
      "memory sizes",
      `funes ${indexed.chunksAdded} chunks; episodic-memory ${peerCounts.exchanges} exchanges (${peerCounts.vectors} vectors); ${phrases.length} distinct stored phrases to ask, ${phraseFailures.length} left out because a server failed on them${phraseFailures.length > 0 ? ` (${phraseFailures.slice(0, 3).join("; ")})` : ""}`,
      "",
    ],
    ...servers.map(
      (s): Row => [
        `MCP ${s.label}: connect, tool list`,
        `${s.connectMs.toFixed(0)} ms, ${s.listMs.toFixed(0)} ms after`,
        "",
      ],
    ),
    ...perK,
    ...mcpRatios(servers, ks),
    ...shell,
  ];
}

/**
 * funes ÷ peer for each pairing an agent meets: keyword-only against the peer's text search (all questions,
 * and only those the peer's substring match finds), hybrid against its vector search, funes's default
 * against its default, new and repeated questions, at each k; and the servers' start.
 */
function mcpRatios(servers: Server[], ks: number[]): Row[] {
  const by = (label: string) => servers.find((s) => s.label.startsWith(label)) as Server;
  const pairs: [string, Server, Server][] = [
    ["keyword-only ÷ peer text", by("funes recall, keyword"), by("episodic-memory search, mode text")],
    ["hybrid ÷ peer vector", by("funes recall, hybrid"), by("episodic-memory search, mode vector")],
    [
      "default (reranked) ÷ peer default",
      by("funes recall, default"),
      by("episodic-memory search, mode both"),
    ],
  ];
  const r = (a: number[], b: number[]) => (b.length === 0 ? "—" : (pct(a, 50) / pct(b, 50)).toFixed(2));
  const rows: Row[] = pairs.flatMap(([name, f, p]) =>
    ks.map((k): Row => {
      const fs = statsOf(f, k);
      const ps = statsOf(p, k);
      const foundToo =
        ps.freshFound.length < ps.fresh.length
          ? `; on what the peer finds: new ${r(fs.fresh, ps.freshFound)}x, repeated ${r(fs.ms, ps.found)}x`
          : "";
      return [
        `MCP k=${k} funes ÷ peer, ${name}`,
        `new question ${r(fs.fresh, ps.fresh)}x, new stored phrase ${r(fs.phrase, ps.phrase)}x, repeated ${r(fs.ms, ps.ms)}x${foundToo}`,
        "",
      ];
    }),
  );
  const start = (tool: string) => median(servers.filter((s) => s.tool === tool).map((s) => s.connectMs));
  rows.push([
    "MCP start (spawn to connected, median of 3 servers each) funes ÷ peer",
    `${(start("recall") / start("search")).toFixed(2)}x (${start("recall").toFixed(0)} against ${start("search").toFixed(0)} ms)`,
    "",
  ]);
  return rows;
}

/** Funes's model server for `env`'s FUNES_HOME stopped, and gone. */
async function stopModelServer(env: Record<string, string>): Promise<void> {
  const run = (args: string[]) =>
    execFileSync(process.execPath, [CLI, "server", ...args], {
      env: { PATH: process.env.PATH ?? "", ...env, FUNES_SERVER: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    }).toString();
  run(["stop"]);
  for (let i = 0; i < 100 && (JSON.parse(run(["status", "--json"])) as { running: boolean }).running; i++)
    await new Promise((r) => setTimeout(r, 100));
}

/**
 * Queries from a shell, alternating the tools round by round: the first of the day (funes with no model
 * server running, so it loads its models itself and leaves the server starting; the peer loads its model in
 * every process), then one with funes's server warm, then keyword-only (funes without models, the peer's
 * `--text`). 10 results; funes at its defaults otherwise (rerank on).
 */
async function benchShell(o: {
  funes: Record<string, string>;
  funesKeyword: Record<string, string>;
  peer: string;
  peerEnv: Record<string, string>;
  rounds: number;
}): Promise<Row[]> {
  const f = { first: [] as number[], warm: [] as number[], keyword: [] as number[] };
  const p = { both: [] as number[], keyword: [] as number[] };
  const funesServed = { ...o.funes, FUNES_SERVER: "1" };
  const peerSearch = join(o.peer, "dist", "search-cli.js");
  const runFunes = async (round: number) => {
    await stopModelServer(funesServed);
    const q = (i: number) => QUERIES[(round + i) % QUERIES.length] as string;
    f.first.push((await timed([CLI, "recall", q(0), "-k", "10", "--format", "agent"], funesServed)).ms);
    // The server the first query left starting is up and loaded once a recall is served by it.
    await timed([CLI, "recall", "warm up", "-k", "10", "--format", "agent"], funesServed);
    await timed([CLI, "recall", "warm up again", "-k", "10", "--format", "agent"], funesServed);
    f.warm.push((await timed([CLI, "recall", q(1), "-k", "10", "--format", "agent"], funesServed)).ms);
    f.keyword.push((await timed([CLI, "recall", q(2), "-k", "10", "--format", "agent"], o.funesKeyword)).ms);
  };
  const runPeer = async (round: number) => {
    const q = (i: number) => QUERIES[(round + i) % QUERIES.length] as string;
    p.both.push((await timed([peerSearch, q(0)], o.peerEnv)).ms);
    p.keyword.push((await timed([peerSearch, "--text", q(2)], o.peerEnv)).ms);
  };
  for (let round = 0; round < o.rounds; round++) {
    if (round % 2 === 0) {
      await runFunes(round);
      await runPeer(round);
    } else {
      await runPeer(round);
      await runFunes(round);
    }
  }
  await stopModelServer(funesServed);
  const fmt = (xs: number[]) =>
    `${median(xs).toFixed(0)} ms (runs ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}, n=${xs.length})`;
  const ratio = (a: number[], b: number[]) => `; funes ÷ peer ${(median(a) / median(b)).toFixed(2)}`;
  return [
    [
      "shell: funes `recall`, the first of the day (no model server running)",
      fmt(f.first) + ratio(f.first, p.both),
      "",
    ],
    ["shell: funes `recall`, model server warm", fmt(f.warm) + ratio(f.warm, p.both), ""],
    ["shell: episodic-memory `search` (loads its model every time)", fmt(p.both), ""],
    ["shell: funes `recall`, keyword-only (no models)", fmt(f.keyword) + ratio(f.keyword, p.keyword), ""],
    ["shell: episodic-memory `search --text`", fmt(p.keyword), ""],
  ];
}

/** The side-by-side figures; `peer` is a checkout that passed `peerProblem`. */
export async function benchPeer(dir: string, peer: string): Promise<Row[]> {
  ensureBenchModels();
  placePeerModel(peer);
  const fillCopies = Number(process.env.BENCH_PEER_FILL_COPIES ?? 500);
  const mcpCopies = Number(process.env.BENCH_PEER_COPIES ?? 500);
  const rows: Row[] = [];
  if (process.env.BENCH_PEER_SKIP_INDEX !== "1")
    rows.push(...(await benchFill(dir, peer, fillCopies, Number(process.env.BENCH_PEER_INDEX_ROUNDS ?? 3))));
  if (process.env.BENCH_PEER_SKIP_MCP !== "1")
    rows.push(...(await benchMcp(dir, peer, mcpCopies, Number(process.env.BENCH_PEER_MCP_ROUNDS ?? 7))));
  return rows;
}
