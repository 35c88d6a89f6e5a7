/**
 * Reading Hub memories: recall, get and status with `--memory org/repo` against a loopback Hub stand-in,
 * through the real @huggingface/hub client and the Hugging Face cache layout.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_TIERS, chunkTurns } from "../../src/chunk/index.js";
import { chunksToArrow } from "../../src/local/index.js";
import { cachedModelDir, EMBEDDER_SPEC } from "../../src/models/index.js";
import { parseCodexRollout } from "../../src/traces/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { copyFixture, readTree, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let writer: CliEnv;
let reader: CliEnv;

/** The files of a memory folder as repo files under `prefix`. */
function asRepoFiles(memoryDir: string, prefix: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [p, b] of readTree(join(memoryDir, "chunks.lance"))) out.set(`${prefix}chunks.lance/${p}`, b);
  return out;
}

beforeAll(async () => {
  t = tempDir();
  writer = {
    home: join(t.dir, "home"),
    funesHome: join(t.dir, "writer"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE },
  };
  mkdirSync(join(writer.home, ".codex"), { recursive: true });
  copyFixture("codex", join(writer.home, ".codex", "sessions"));
  const idx = await runFunes(["index", "--yes"], writer);
  expect(idx.code, idx.stderr).toBe(0);
  const mem = join(writer.funesHome, "memory");

  // The same memory written by lance 7.0.0 (the reference's Lance), keyword-only rows.
  const old = createRequire(import.meta.url)("lancedb030");
  const path = join(TRACES, "codex", "codex_session.jsonl");
  const session = parseCodexRollout(readFileSync(path, "utf8"), { path }).sessions[0];
  const chunks = chunkTurns(session?.turns ?? [], { tiers: ALL_TIERS, thinking: true, repo: "" });
  const legacyDir = join(t.dir, "legacy");
  const db = await old.connect(legacyDir);
  await db.createTable("chunks", chunksToArrow(chunks));

  hub = await startHubStandin(
    new Map([
      ["acme/kb", { type: "dataset", commit: "a".repeat(40), files: asRepoFiles(mem, "") }],
      ["acme/team", { type: "dataset", commit: "b".repeat(40), files: asRepoFiles(mem, "shared/mem/") }],
      [
        "acme/secret",
        { type: "dataset", commit: "c".repeat(40), files: asRepoFiles(mem, ""), private: true },
      ],
      [
        "acme/blank",
        { type: "dataset", commit: "d".repeat(40), files: new Map([["README.md", Buffer.from("# hi\n")]]) },
      ],
      ["ref/funes-memory", { type: "dataset", commit: "e".repeat(40), files: asRepoFiles(legacyDir, "") }],
      ["acme/a-model", { type: "model", commit: "f".repeat(40), files: new Map() }],
    ]),
    { pageSize: 5 },
  );
  reader = {
    home: join(t.dir, "home2"),
    funesHome: join(t.dir, "reader"),
    extra: {
      HF_HUB_CACHE: join(t.dir, "hf-cache"),
      HF_ENDPOINT: hub.url,
      FUNES_EMBED_MODEL_DIR: cachedModelDir(TEST_HUB_CACHE, EMBEDDER_SPEC) as string,
    },
  };
  mkdirSync(reader.home);
});

afterAll(async () => {
  await hub.close();
  t.cleanup();
});

const recallArgs = ["recall", "portfolio website", "-k", "2", "--rerank-budget", "0", "--half-life", "0"];

describe("reading a Hub memory", () => {
  it("recalls from an empty FUNES_HOME what the publisher recalls locally, labelled with the repo", async () => {
    const local = await runFunes([...recallArgs, "--memory", join(writer.funesHome, "memory")], writer);
    const remote = await runFunes([...recallArgs, "--memory", "acme/kb"], reader);
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stdout).toContain(
      "  → get 019ef2fb-6574-7f83-bd99-9118713271f2 019ef2fb-6574-7f83-bd99-9118713271f2-0 --memory hf://datasets/acme/kb\n",
    );
    expect(remote.stdout).toBe(
      local.stdout.replaceAll(join(writer.funesHome, "memory"), "hf://datasets/acme/kb"),
    );
    const get = await runFunes(
      [
        "get",
        "019ef2fb-6574-7f83-bd99-9118713271f2",
        "019ef2fb-6574-7f83-bd99-9118713271f2-0",
        "--window",
        "0",
        "--memory",
        "acme/kb",
      ],
      reader,
    );
    expect(get.stdout).toBe(
      "[2026-06-23T05:37:06.565Z] user seq0 turn=019ef2fb-6574-7f83-bd99-9118713271f2-0\nmake me a portfolio website, im a graphic designer\n---\n",
    );
  });

  it("makes one small request and downloads nothing when the head has not moved", async () => {
    await runFunes([...recallArgs, "--memory", "acme/kb"], reader);
    const before = hub.requests.length;
    const again = await runFunes([...recallArgs, "--memory", "acme/kb"], reader);
    expect(again.code).toBe(0);
    const made = hub.requests.slice(before);
    expect(made).toHaveLength(1);
    expect(made[0]?.path).toMatch(/^\/api\/datasets\/acme\/kb\/revision\/main\?/);
  });

  it("reads a memory under a prefix, and a memory written by lance 7.0.0", async () => {
    const team = await runFunes([...recallArgs, "--memory", "hf://datasets/acme/team/shared/mem"], reader);
    expect(team.code, team.stderr).toBe(0);
    expect(team.stdout).toContain("--memory hf://datasets/acme/team/shared/mem\n");
    const legacy = await runFunes([...recallArgs, "--memory", "ref/funes-memory"], reader);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(legacy.stdout).toContain("make me a portfolio website, im a graphic designer\n");
  });

  it("reads the newest cached copy when the Hub is unreachable, and says so", async () => {
    await runFunes([...recallArgs, "--memory", "acme/kb"], reader);
    hub.offline = true;
    try {
      const r = await runFunes([...recallArgs, "--memory", "acme/kb"], reader);
      expect(r.code, r.stderr).toBe(0);
      // The note on stderr, the hits alone on stdout.
      expect(r.stderr).toMatch(
        /^note: remote hf:\/\/datasets\/acme\/kb unreachable — reading its cached copy at aaaaaaaa\n/,
      );
      expect(r.stdout).toContain("make me a portfolio website");
      // Never read before: an error naming the host and the cause, unless the fallback is asked for.
      const never = await runFunes([...recallArgs, "--memory", "acme/never-read"], reader);
      expect(never.code).toBe(1);
      expect(never.stdout).toBe("");
      expect(never.stderr).toMatch(
        /^funes: can't read hf:\/\/datasets\/acme\/never-read \(127\.0\.0\.1:\d+: HTTP 503\) and no copy of it is cached here — .* --fallback-local /,
      );
      const noLocal = await runFunes(
        [...recallArgs, "--memory", "acme/never-read", "--fallback-local"],
        reader,
      );
      expect(noLocal.code).toBe(1);
      expect(noLocal.stderr).toContain(
        "remote hf://datasets/acme/never-read unreachable and no local index yet",
      );
      // With a local memory and --fallback-local, recall falls back to it.
      const fallback = await runFunes([...recallArgs, "--memory", "acme/never-read", "--fallback-local"], {
        ...writer,
        extra: { ...reader.extra, HF_HUB_CACHE: TEST_HUB_CACHE },
      });
      expect(fallback.code, fallback.stderr).toBe(0);
      expect(fallback.stderr).toMatch(
        /^remote hf:\/\/datasets\/acme\/never-read unreachable — recalling from your local memory\n/,
      );
      expect(fallback.stdout).toContain(`--memory ${join(writer.funesHome, "memory")}\n`);
    } finally {
      hub.offline = false;
    }
  });

  it("says what is wrong with missing, private, empty and model repos", async () => {
    const missing = await runFunes([...recallArgs, "--memory", "acme/nope"], reader);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      "hf://datasets/acme/nope doesn't exist on the Hub, and funes won't create it",
    );
    const denied = await runFunes([...recallArgs, "--memory", "acme/secret"], reader);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      "not authorized to read hf://datasets/acme/secret — set a Hugging Face token",
    );
    const withToken = await runFunes([...recallArgs, "--memory", "acme/secret"], {
      ...reader,
      extra: { ...reader.extra, HF_TOKEN: "hf_testtokenthatthestandinaccepts" },
    });
    expect(withToken.code, withToken.stderr).toBe(0);
    const blank = await runFunes([...recallArgs, "--memory", "acme/blank"], reader);
    expect(blank.code).toBe(1);
    expect(blank.stderr).toContain("hf://datasets/acme/blank exists on the Hub but holds no index yet");
    // A model repo is the same bad input to read as to write.
    const model = await runFunes([...recallArgs, "--memory", "acme/a-model"], reader);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain("acme/a-model is a model repo, not a dataset");
    const pushModel = await runFunes(["push", "acme/a-model", "--create"], reader);
    expect(pushModel.code).toBe(2);
    expect(pushModel.stderr).toContain("acme/a-model is a model repo, not a dataset");
    const bad = await runFunes([...recallArgs, "--memory", "hf://models/x/y"], reader);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '"hf://models/x/y" is not a memory: memories are Hub datasets, not models — write hf://datasets/x/y',
    );
  });

  it("shows a Hub memory's status", async () => {
    // 19 chunks: the catalog's 7 Codex developer-instruction blocks are not indexed.
    const r = await runFunes(["status", "--memory", "acme/kb"], reader);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^memory: hf:\/\/datasets\/acme\/kb\nchunks: 19\nsessions: 2\n {2}codex: 2 sessions, 19 chunks\n/,
    );
  });
});
