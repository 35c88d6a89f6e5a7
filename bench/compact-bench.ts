/**
 * `node --import tsx bench/compact-bench.ts [pushes] [rows-per-push] [compact-at-files]` (also `npm run bench
 * -- --compact`): a team's year on one Hub memory, at a reduced scale that runs in minutes, against the
 * loopback Hub stand-in with the real @huggingface/hub client. Five homes take turns pushing a turn's rows
 * each (publish, then the compaction a push runs when the head lists more than the threshold), as hooks do;
 * then a newcomer reads the memory. The threshold is scaled down with the run (a quarter of the default
 * `COMPACT_AT_FILES`) so that compactions happen on schedule within it. Prints the files in the repo, what
 * the newcomer downloads against the memory's size, the Hub requests per turn push, and what those come to
 * at ≈ 50,000 turns. Not a pass/fail test.
 */
import "./native-env.js";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { materializeView } from "../src/cache/index.js";
import type { Chunk } from "../src/chunk/index.js";
import { embeddedRows, LocalStore, selectRows, writeVectors } from "../src/local/index.js";
import { viewsRoot } from "../src/memory/index.js";
import { hubClient, parseHubUri } from "../src/remote/index.js";
import { COMPACT_AT_FILES, compactAfterPush, publishRows } from "../src/sync/index.js";
import { startHubStandin } from "../test/helpers/hub-standin.js";
import { unitVectors } from "../test/helpers/vectors.js";

const HOMES = 5;
/** A year of a 5-person team at 40 turns a day each, 250 working days. */
const YEAR_TURNS = 50_000;
const WORDS =
  "lance index fragment manifest commit push review test build deploy schema vector query token cache hook agent session turn error retry budget rerank recall memory publish compaction folder repo branch merge".split(
    " ",
  );

/** A turn's rows: text of 20–80 words, as an agent's blocks are. */
function turnRows(turn: number, rows: number): Chunk[] {
  let x = turn * 7919 + 1;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  return Array.from({ length: rows }, (_, k) => {
    const n = 20 + Math.floor(rand() * 60);
    const text = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
    return {
      id: `t${turn}-b${k}`,
      text: `${text} turn ${turn}`,
      sessionId: `session-${Math.floor(turn / 40)}`,
      workdir: "/work/app",
      turnUuid: `turn-${turn}`,
      parentUuid: null,
      seq: turn,
      ts: new Date(Date.UTC(2026, 0, 1) + turn * 60_000).toISOString(),
      role: k === 0 ? "user" : "assistant",
      blockType: "text",
      toolName: null,
      sourcePath: `/home/u/.claude/projects/app/session-${Math.floor(turn / 40)}.jsonl`,
      blockIdx: k,
      splitIdx: 0,
      harness: "claude_code",
      repo: "acme/app",
    };
  });
}

const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const pushes = Number(process.argv[2] ?? 500);
  const perPush = Number(process.argv[3] ?? 8);
  const atFiles = Number(process.argv[4] ?? COMPACT_AT_FILES / 4);
  const dir = mkdtempSync(join(tmpdir(), "funes-compact-bench-"));
  const hub = await startHubStandin(new Map());
  try {
    // Every turn's rows, with vectors, written once in a scratch memory and published by turn.
    const scratch = await LocalStore.openOrCreate(join(dir, "scratch"));
    const chunks = Array.from({ length: pushes }, (_, turn) => turnRows(turn, perPush)).flat();
    for (let i = 0; i < chunks.length; i += 20_000) await scratch.append(chunks.slice(i, i + 20_000));
    const vectors = unitVectors(chunks.length, 11);
    await writeVectors(
      scratch.table,
      new Map(chunks.map((c, i) => [c.id, vectors.get(`id-${i}`) as Float32Array])),
    );
    const all = await embeddedRows(scratch);
    scratch.close();

    hub.repos.set("team/memory", { type: "dataset", commit: "0".repeat(40), files: new Map() });
    const loc = parseHubUri("hf://datasets/team/memory");
    const client = hubClient({ hubUrl: hub.url, token: "hf_benchtokenfortheloopbackhub" });
    const homes = Array.from({ length: HOMES }, (_, h) => ({
      funesHome: join(dir, `home-${h}`),
      hubCache: join(dir, `hf-${h}`),
    }));
    const lanceFiles = () =>
      [...(hub.repos.get("team/memory")?.files ?? new Map<string, Buffer>())].filter(([p]) =>
        p.startsWith("chunks.lance/"),
      );
    let pushRequests = 0;
    const kinds = new Map<string, number>();
    let compactRequests = 0;
    let compactions = 0;
    let maxFiles = 0;
    let pushBytes = 0;
    const compactBytes = hub.uploadedBytes;
    let compactUploaded = 0;
    let afterCompaction = 0;
    const t0 = performance.now();
    for (let turn = 0; turn < pushes; turn++) {
      const home = homes[turn % HOMES] as (typeof homes)[number];
      const ids = new Set(Array.from({ length: perPush }, (_, k) => `t${turn}-b${k}`));
      const before = hub.requests.length;
      const uploaded = hub.uploadedBytes;
      const r = await publishRows({ loc, client, ...home, now: Date.now, rows: selectRows(all, ids) });
      pushRequests += hub.requests.length - before;
      for (const q of hub.requests.slice(before)) {
        const kind = q.path.includes("/revision/")
          ? "head"
          : q.path.includes("/tree/")
            ? "listing"
            : q.path.includes("/resolve/") && q.path.includes("/chunks.lance/")
              ? "memory files"
              : q.path.includes("/resolve/")
                ? "card and forgotten list"
                : "commit (preupload, LFS batch, uploads, commit)";
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      pushBytes += hub.uploadedBytes - uploaded;
      maxFiles = Math.max(maxFiles, lanceFiles().length);
      const mid = hub.requests.length;
      const up = hub.uploadedBytes;
      const note = await compactAfterPush({
        loc,
        client,
        ...home,
        now: Date.now,
        sha: r.commit as string,
        headFiles: r.headFiles,
        atFiles,
      });
      compactRequests += hub.requests.length - mid;
      if (note?.kind === "compacted") {
        compactions++;
        compactUploaded += hub.uploadedBytes - up;
        afterCompaction = note.filesAfter;
      } else if (note?.kind === "not-compacted") process.stderr.write(`compaction: ${note.reason}\n`);
    }
    const seconds = (performance.now() - t0) / 1000;
    void compactBytes;

    // A newcomer reads the memory: a fresh home downloads the head.
    const newcomer = { funesHome: join(dir, "newcomer"), hubCache: join(dir, "hf-newcomer") };
    const sha = hub.repos.get("team/memory")?.commit as string;
    const from = hub.requests.length;
    const view = await materializeView({
      client,
      loc,
      sha,
      ...newcomer,
      viewsRoot: viewsRoot(newcomer.funesHome),
    });
    const fetched = hub.requests.slice(from).filter((q) => q.path.includes("/resolve/")).length;
    const files = lanceFiles();
    const headBytes = files.reduce((n, [, b]) => n + b.length, 0);
    let viewBytes = 0;
    const store = await LocalStore.open(view?.dir ?? "");
    const rows = (await store?.table.countRows()) ?? 0;
    store?.close();
    const { readdirSync } = await import("node:fs");
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
      );
    const viewFiles = walk(join(view?.dir ?? "", "chunks.lance"));
    for (const f of viewFiles) viewBytes += statSync(f).size;
    const dataBytes = viewFiles.filter((f) => f.includes("/data/")).reduce((n, f) => n + statSync(f).size, 0);
    const indexBytes = viewFiles
      .filter((f) => f.includes("/_indices/"))
      .reduce((n, f) => n + statSync(f).size, 0);
    // Every file any commit ever added (what a reader of an uncompacted repo would list and fetch).
    const everyFile = new Set(hub.committedPaths.filter((p) => p.startsWith("chunks.lance/")));

    const line = (s: string) => process.stdout.write(`${s}\n`);
    line(
      `simulated: ${HOMES} homes taking turns, ${pushes} turn pushes of ${perPush} chunks (${rows} chunks), compaction past ${atFiles} files; ${seconds.toFixed(0)} s (${((seconds / pushes) * 1000).toFixed(0)} ms a push)`,
    );
    line(
      `files in the repo (memory folder): ${files.length} at the end, at most ${maxFiles} (goal ≤ 2,000; without compaction: ${everyFile.size})`,
    );
    line(
      `compactions: ${compactions}, ${mib(compactUploaded / Math.max(1, compactions))} uploaded by each (the folded fragments and the whole text index, ${mib(indexBytes)} here)`,
    );
    line(
      `newcomer's download: ${mib(viewBytes)} in ${fetched} files, ${(viewBytes / dataBytes).toFixed(2)}x the memory's data (${mib(dataBytes)}); the head lists ${mib(headBytes)} (goal ≤ 2x)`,
    );
    line(
      `Hub requests per turn push: ${(pushRequests / pushes).toFixed(1)} (+ ${(compactRequests / pushes).toFixed(2)} for compaction checks and commits), ${(pushBytes / pushes / 1024).toFixed(1)} KiB uploaded per push`,
    );
    line(
      `  of which: ${[...kinds].map(([k, n]) => `${k} ${(n / pushes).toFixed(1)}`).join(", ")} (memory files: the newest manifest and the other homes' new data files)`,
    );
    // At a year's scale: compaction keeps the repo between its compacted size and the threshold, so the
    // files depend on the threshold, not the year; what grows is the memory itself (full fragments).
    const perPushFiles = everyFile.size / pushes;
    const every = (COMPACT_AT_FILES - afterCompaction) / perPushFiles;
    const fullFragments = Math.ceil((YEAR_TURNS * perPush) / 16_384);
    const yearData = (dataBytes / Math.max(1, rows)) * YEAR_TURNS * perPush;
    line(
      `at ≈ ${YEAR_TURNS.toLocaleString("en")} turns with the default threshold (${COMPACT_AT_FILES} files): ${perPushFiles.toFixed(1)} files a push, so a compaction every ≈ ${Math.round(every)} pushes (≈ ${Math.round(YEAR_TURNS / every)} a year) and at most ≈ ${COMPACT_AT_FILES + 3} files in the repo, whatever the year's length; the memory (${(YEAR_TURNS * perPush).toLocaleString("en")} chunks, ≈ ${mib(yearData)} of data at this chunk size) folds into ≈ ${fullFragments} full fragments and a dozen small ones, which with its indexes is what a newcomer fetches (≈ ${(viewBytes / dataBytes).toFixed(2)}x the data, as here); requests per push stay flat (one listing page per 1,000 files, the files of the pushes since this home's last)`,
    );
    const yearIndex = (indexBytes / Math.max(1, rows)) * YEAR_TURNS * perPush;
    line(
      `  each compaction rebuilds the text index, ≈ ${mib(yearIndex)} by the year's end: ≈ ${(((yearIndex / 2) * (YEAR_TURNS / every)) / 1024 ** 3).toFixed(1)} GiB uploaded by a year of compactions (the index growing from nothing), the price of an index never more than one compaction behind`,
    );
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
