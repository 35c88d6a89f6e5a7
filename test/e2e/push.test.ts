/**
 * Publishing to a Hub memory against the loopback Hub stand-in, through the real @huggingface/hub client:
 * round trip, idempotent re-push, concurrent publishers, and the secret gate.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliEnv,
  hubUser,
  runFunes,
  runFunesInTerminal,
  spawnFunes,
  startFunes,
} from "../helpers/cli.js";
import { commitIds } from "../helpers/commit-table.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { leakyRow, writeLeakyMemory } from "../helpers/leaky.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

const TOKEN = "hf_standintokenforpushtests";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function userEnv(name: string): CliEnv {
  return hubUser({ dir: t.dir, name, hubUrl: hub.url, token: TOKEN });
}

/** A reader whose HF cache is its own (so downloads are visible), with the test embedder. */
function readerEnv(name: string): CliEnv {
  const e = userEnv(name);
  return {
    ...e,
    extra: {
      ...e.extra,
      HF_HUB_CACHE: join(t.dir, `${name}-hf`),
      FUNES_EMBED_MODEL_DIR: join(
        TEST_HUB_CACHE,
        "models--BAAI--bge-small-en-v1.5",
        "snapshots",
        "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
      ),
    },
  };
}

async function remoteIds(repo: string): Promise<string[]> {
  return idsAt(hub.repos.get(repo)?.files ?? new Map());
}

/** Every stored id of a commit's files. */
async function idsAt(files: Map<string, Buffer>): Promise<string[]> {
  return commitIds(files, t.dir);
}

/**
 * The head reads of `repo` among the stand-in's requests since `from` (the info at `main`: the probe and
 * the head resolution in one request).
 */
function headReads(repo: string, from: number): number {
  return hub.requests
    .slice(from)
    .filter((q) => q.method === "GET" && q.path.startsWith(`/api/datasets/${repo}/revision/`)).length;
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes push", () => {
  it("creates a private repo, publishes, and a second machine recalls the same passages", async () => {
    const a = userEnv("a");
    mkdirSync(join(a.home, ".codex"), { recursive: true });
    copyFixture("codex", join(a.home, ".codex", "sessions"));
    expect((await runFunes(["index", "--yes"], a)).code).toBe(0);
    const refused = await runFunes(["push", "acme/mem"], a);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "hf://datasets/acme/mem doesn't exist on the Hub — run `funes push acme/mem --create`",
    );
    const before = hub.requests.length;
    const push = await runFunes(["push", "acme/mem", "--create", "--json"], a);
    expect(push.code, push.stderr).toBe(0);
    // One probe finds no repo; once created, one read of its head, which the publish starts from.
    expect(headReads("acme/mem", before)).toBe(2);
    const s = JSON.parse(push.stdout);
    // The two Codex fixtures give 19 chunks (the catalog's 7 developer-instruction blocks are not indexed).
    expect(s).toMatchObject({
      created: true,
      published: 19,
      present: 0,
      waitingForVectors: 0,
      card: "created",
    });
    const card = hub.repos.get("acme/mem")?.files.get("README.md")?.toString("utf8") ?? "";
    expect(card).toContain("tags:\n  - funes\n");
    expect(card).toContain("| Chunks | 19 |");
    expect(card).toContain("| Sessions by agent | codex 2 |");
    expect(hub.repos.get("acme/mem")?.private).toBe(true);
    expect(hub.committedPaths.some((p) => p.endsWith("latest_version_hint.json"))).toBe(false);
    expect((await remoteIds("acme/mem")).length).toBe(19);
    // What we publish opens in lance 7.0.0, the reference's Lance.
    const dir = mkdtempSync(join(t.dir, "lance7-"));
    for (const [p, b] of hub.repos.get("acme/mem")?.files ?? []) {
      mkdirSync(join(dir, p, ".."), { recursive: true });
      writeFileSync(join(dir, p), b);
    }
    const old = createRequire(import.meta.url)("lancedb030");
    const db = await old.connect(dir);
    const table = await db.openTable("chunks");
    expect(await table.countRows()).toBe(19);
    expect(await table.countRows("vector IS NULL")).toBe(0);
    expect((await table.schema()).metadata.get("embedding_model")).toBe("BAAI/bge-small-en-v1.5");
    table.close();
    db.close();

    const status = await runFunes(["status", "--memory", "acme/mem"], a);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^memory: hf:\/\/datasets\/acme\/mem\nchunks: 19\n/);
    expect(status.stdout).toMatch(
      /\nlast push from here: \d{4}-\d\d-\d\d \d\d:\d\d UTC \(just now\), 19 chunks, commit [0-9a-f]{8}\n/,
    );
    const again = await runFunes(["push", "acme/mem"], a);
    expect(again.stdout).toBe("hf://datasets/acme/mem is up to date (19 chunks already there)\n");

    const b = readerEnv("b");
    const args = ["recall", "portfolio website", "-k", "2", "--rerank-budget", "0", "--half-life", "0"];
    const local = await runFunes(args, a);
    const remote = await runFunes([...args, "--memory", "acme/mem"], b);
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stdout).toBe(
      local.stdout.replaceAll(join(a.funesHome, "memory"), "hf://datasets/acme/mem"),
    );
    // The published memory carries a text index: a reader without models still finds it by keyword.
    expect(
      [...(hub.repos.get("acme/mem")?.files.keys() ?? [])].some((p) =>
        p.startsWith("chunks.lance/_indices/"),
      ),
    ).toBe(true);
    const bare = userEnv("bare");
    const kw = await runFunes([...args, "--memory", "acme/mem"], {
      ...bare,
      extra: { ...bare.extra, HF_HUB_CACHE: join(t.dir, "bare-hf") },
    });
    expect(kw.code, kw.stderr).toBe(0);
    // Notes go to stderr, piped or not: the reader of the pipe gets passages only.
    expect(kw.stderr).toMatch(/^note: keyword-only recall — /);
    expect(kw.stdout).not.toContain("note:");
    expect(kw.stdout).toContain("make me a portfolio website, im a graphic designer\n");
  });

  it("publishes only what is new, uploading about as much as the new rows", async () => {
    const a = userEnv("a");
    writeFileSync(
      join(a.home, ".codex", "sessions", "extra.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-24T00:00:00Z", payload: { id: "extra-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-24T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "one more question about the portfolio" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], a)).code).toBe(0);
    const before = hub.requests.length;
    const push = await runFunes(["push", "acme/mem", "--json"], a);
    const s = JSON.parse(push.stdout);
    expect(s).toMatchObject({ published: 1, present: 19, card: "refreshed" });
    // The head is read once: what the push compares with is what its publish commits on.
    expect(headReads("acme/mem", before)).toBe(1);
    expect(hub.repos.get("acme/mem")?.files.get("README.md")?.toString("utf8")).toContain("| Chunks | 20 |");
    expect(s.bytes).toBeLessThan(20_000);
    expect((await remoteIds("acme/mem")).length).toBe(20);
    // The reader from the first test has a cached copy of the old commit: it must still see the new row.
    const b = readerEnv("b");
    const r = await runFunes(
      [
        "recall",
        "one more question",
        "-k",
        "1",
        "--rerank-budget",
        "0",
        "--half-life",
        "0",
        "--memory",
        "acme/mem",
      ],
      b,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("one more question about the portfolio\n");
  });

  it("asks before a first push to a remote that shares nothing; off a terminal refuses unless --yes", async () => {
    const c = userEnv("c");
    writeSyntheticHistory(c.home, 1, 7);
    expect((await runFunes(["index", "--yes"], c)).code).toBe(0);
    const r = await runFunes(["push", "acme/mem"], c);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "shares none with your memory (a new machine, or the wrong memory?) — nothing was published; re-run with --yes",
    );
    // On a terminal it asks instead: "no" publishes nothing, "yes" publishes, with an upload bar.
    const mem = hub.repos.get("acme/mem");
    if (mem === undefined) throw new Error("acme/mem missing");
    hub.repos.set("acme/mem-copy", { ...mem, files: new Map(mem.files) });
    const head = mem.commit;
    const no = await runFunesInTerminal(["push", "acme/mem-copy"], c, ["n"]);
    expect(no.code).toBe(2);
    expect(no.stdout).toMatch(/publish \d+ chunks there anyway\? \[y\/N\] /);
    expect(hub.repos.get("acme/mem-copy")?.commit).toBe(head);
    const yes = await runFunesInTerminal(["push", "acme/mem-copy"], c, ["y"]);
    expect(yes.code, yes.stdout).toBe(0);
    expect(yes.stdout).toMatch(/uploading [\d.]+ MiB \/ [\d.]+ MiB/);
    expect(yes.stdout).toMatch(/pushed \d+ chunks to hf:\/\/datasets\/acme\/mem-copy/);
    expect(hub.repos.get("acme/mem-copy")?.commit).not.toBe(head);
  });

  it("a push of a large memory runs again with capped malloc arenas and ends as the child ended", async () => {
    // Every Node process of a run appends "pid parent-pid MALLOC_ARENA_MAX" here (preloaded).
    const probe = join(t.dir, "arena-probe.cjs");
    writeFileSync(
      probe,
      'require("node:fs").appendFileSync(process.env.ARENA_PROBE_FILE, `${process.pid} ${process.ppid} ${process.env.MALLOC_ARENA_MAX ?? "-"}\\n`);\n',
    );
    const base = userEnv("cap");
    writeSyntheticHistory(base.home, 1, 31);
    expect((await runFunes(["index", "--yes"], base)).code).toBe(0);
    let n = 0;
    /** The environment of one run (large: every memory counts as large), and its processes after it. */
    const probed = (large: boolean, e: CliEnv = base) => {
      const file = join(t.dir, `arena-${++n}.txt`);
      const env: CliEnv = {
        ...e,
        extra: {
          ...e.extra,
          NODE_OPTIONS: `--require ${probe}`,
          ARENA_PROBE_FILE: file,
          ...(large ? { FUNES_INDEX_WORKER_ROWS: "0" } : {}),
        },
      };
      const processes = () =>
        readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .map((l) => l.split(" "));
      return { env, processes };
    };
    const cappedChild = (ps: string[][]) => {
      expect(ps).toHaveLength(2);
      const [first, second] = ps as [string[], string[]];
      expect(second[1]).toBe(first[0]);
      expect([first[2], second[2]]).toEqual(["-", "2"]);
    };

    // A refusal keeps its words (once) and its exit code.
    const missing = probed(true);
    const refused = await spawnFunes(["push", "acme/cap"], missing.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split("doesn't exist on the Hub")).toHaveLength(2);
    cappedChild(missing.processes());

    // The child's output is the run's: the JSON summary parses, the rows are on the Hub.
    const created = probed(true);
    const push = await spawnFunes(["push", "acme/cap", "--create", "--json"], created.env);
    expect(push.code, push.stderr).toBe(0);
    const published = (JSON.parse(push.stdout) as { published: number }).published;
    expect(published).toBeGreaterThan(0);
    expect(await remoteIds("acme/cap")).toHaveLength(published);
    cappedChild(created.processes());

    // It shares the terminal: another machine's memory is asked about, and "no" publishes nothing.
    const other = userEnv("cap-other");
    writeSyntheticHistory(other.home, 1, 32);
    expect((await runFunes(["index", "--yes"], other)).code).toBe(0);
    const asked = probed(true, other);
    const head = hub.repos.get("acme/cap")?.commit;
    const no = await runFunesInTerminal(["push", "acme/cap"], asked.env, ["n"]);
    expect(no.code).toBe(2);
    expect(no.stdout).toMatch(/publish \d+ chunks there anyway\? \[y\/N\] /);
    expect(hub.repos.get("acme/cap")?.commit).toBe(head);
    cappedChild(asked.processes());

    // A memory below the size (the default of 200k rows) is pushed in one process.
    const small = probed(false);
    expect((await spawnFunes(["push", "acme/cap", "--json"], small.env)).code).toBe(0);
    expect(small.processes()).toHaveLength(1);
  });

  it("two publishers at once end with the union, no duplicates, every commit readable", async () => {
    const [p, q] = [userEnv("p"), userEnv("q")];
    writeSyntheticHistory(p.home, 1, 100);
    writeSyntheticHistory(q.home, 1, 200);
    for (const e of [p, q]) expect((await runFunes(["index", "--yes"], e)).code).toBe(0);
    // Start both from the same empty repo.
    expect(
      (
        await runFunes(["push", "acme/race", "--create", "--json"], {
          ...p,
          extra: { ...p.extra, HF_ENDPOINT: "http://127.0.0.1:9" },
        })
      ).code,
    ).toBe(1);
    hub.repos.set("acme/race", {
      type: "dataset",
      commit: "0".repeat(40),
      files: new Map([[".gitattributes", Buffer.from("")]]),
    });
    // --yes: whichever push reads the repo after the other published finds a remote that shares no chunk
    // with its memory, which is refused off a terminal without it (the race is the point here, not that).
    const runs = [
      startFunes(["push", "acme/race", "--json", "--yes"], p),
      startFunes(["push", "acme/race", "--json", "--yes"], q),
    ];
    const outs = await Promise.all(
      runs.map(
        (c) =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            let out = "";
            let err = "";
            c.stdout?.on("data", (d) => (out += d));
            c.stderr?.on("data", (d) => (err += d));
            c.on("close", (code) => resolve({ code, out, err }));
          }),
      ),
    );
    for (const o of outs) expect(o.code, o.err).toBe(0);
    const published = outs.map((o) => JSON.parse(o.out).published as number);
    const ids = await remoteIds("acme/race");
    expect(ids.length).toBe(published[0]! + published[1]!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(published.every((n) => n > 1000)).toBe(true);
    // Every commit on the way is a memory that opens, with no duplicate ids.
    for (const c of hub.history.get("acme/race") ?? []) {
      const at = await idsAt(c.files);
      expect(new Set(at).size).toBe(at.length);
    }
  });

  it("retries after a 412 and lands exactly once", async () => {
    const a = userEnv("a");
    writeFileSync(
      join(a.home, ".codex", "sessions", "more.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-25T00:00:00Z", payload: { id: "more-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-25T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "and another" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], a)).code).toBe(0);
    hub.conflicts = 2;
    const handWritten = Buffer.from("# Our memory\n\nWritten by hand; funes must not touch it.\n");
    hub.repos.get("acme/mem")?.files.set("README.md", handWritten);
    const before = hub.requests.length;
    const r = await runFunes(["push", "acme/mem", "--json"], a);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ published: 1, attempts: 3, card: "hand-written" });
    // One head read per try: the first, then one after each conflict.
    expect(headReads("acme/mem", before)).toBe(3);
    expect(hub.repos.get("acme/mem")?.files.get("README.md")).toEqual(handWritten);
    const ids = await remoteIds("acme/mem");
    expect(ids.length).toBe(21);
    expect(new Set(ids).size).toBe(21);
  });
});

describe("the push secret gate", () => {
  it("publishes none of 20+ planted credential kinds that reached the memory, and says what it held back", async () => {
    const { PLANTED } = await import("../helpers/secrets.js");
    const s = userEnv("s");
    const rows = PLANTED.map(([kind, secret, wrap], i) =>
      leakyRow(`row-${i}`, `${kind}: ${wrap(secret)}`, i),
    );
    // A clean block, and a block split in two whose secret sits only in its second piece.
    rows.push(leakyRow("row-100", "nothing secret in this block at all", 200));
    rows.push(
      leakyRow("row-101", "first half of a split block", 201, 0),
      leakyRow("row-102", `second half ghp_${"a1B2".repeat(9)}`, 201, 1),
    );
    await writeLeakyMemory(s.funesHome, rows);

    const r = await runFunes(["push", "acme/leaky", "--create", "--json"], s);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.published).toBe(1);
    const heldTotal = Object.values(summary.heldBack as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(heldTotal).toBe(PLANTED.length + 2);
    const published = await remoteIds("acme/leaky");
    expect(published).toEqual(["row-100"]);
    const text = await runFunes(["push", "acme/leaky"], s);
    expect(text.stdout).toContain(`held back ${PLANTED.length + 2} chunks whose blocks contain secrets`);
    // status of the remote says what is still to publish from here and that the gate would hold it back.
    const st = await runFunes(["status", "--memory", "acme/leaky"], s);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toContain(
      `local push: 1 of 1 session pending (${PLANTED.length + 2} chunks) — run \`funes push hf://datasets/acme/leaky\``,
    );
    expect(st.stdout).toMatch(
      new RegExp(`  ${PLANTED.length + 2} pending chunk\\(s\\) hold secrets \\(.*×.*\\) — .*funes scrub`),
    );
    const json = JSON.parse((await runFunes(["status", "--memory", "acme/leaky", "--json"], s)).stdout);
    expect(json.unindexed).toBe(0);
    expect(Object.values(json.localPush.held as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      PLANTED.length + 2,
    );
  });

  it("holds back a chunk whose working folder, tool name or session id holds a secret, though its text is clean", async () => {
    const s = userEnv("fields");
    const aws = "[default]\naws_access_key_id = AKIAQYLPMN5HHHFPZAM2\n";
    const token = `ghp_${"Qw3r".repeat(9)}`;
    await writeLeakyMemory(s.funesHome, [
      // A Gemini `.project_root` read through a link to ~/.aws/credentials, munged as a working folder is.
      {
        ...leakyRow("workdir-row", "plain words", 0, 0, "fields"),
        workdir: aws.replace(/[^A-Za-z0-9]/g, "-"),
      },
      { ...leakyRow("tool-row", "plain words", 1, 0, "fields"), toolName: token },
      leakyRow("session-row", "plain words", 0, 0, token),
      leakyRow("clean-row", "plain words", 2, 0, "fields"),
    ]);
    const r = await runFunes(["push", "acme/fields", "--create", "--json"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).published).toBe(1);
    expect(await remoteIds("acme/fields")).toEqual(["clean-row"]);
    const sent = [...(hub.repos.get("acme/fields")?.files.values() ?? [])]
      .map((b) => b.toString("latin1"))
      .join("");
    expect(sent).not.toContain("AKIAQYLPMN5HHHFPZAM2");
    expect(sent).not.toContain(token);
  });

  it("exits 2 when everything new was held back", async () => {
    const s = userEnv("s");
    await writeLeakyMemory(s.funesHome, [
      { ...leakyRow("only-secret", `token ghp_${"Zz9y".repeat(9)}`, 0, 0, "leaky2"), harness: "codex" },
    ]);
    const r = await runFunes(["push", "acme/leaky", "--yes"], s);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nothing was published: every new chunk was held back by the secret gate");
  });
});

describe("push downloads", () => {
  it("a second push downloads nothing it published itself", async () => {
    const d = userEnv("d");
    mkdirSync(join(d.home, ".codex"), { recursive: true });
    copyFixture("codex", join(d.home, ".codex", "sessions"));
    expect((await runFunes(["index", "--yes"], d)).code).toBe(0);
    expect((await runFunes(["push", "acme/dl", "--create"], d)).code).toBe(0);
    writeFileSync(
      join(d.home, ".codex", "sessions", "next.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-26T00:00:00Z", payload: { id: "next-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-26T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "next one" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], d)).code).toBe(0);
    const before = hub.requests.length;
    const r = await runFunes(["push", "acme/dl", "--json"], d);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).published).toBe(1);
    expect(headReads("acme/dl", before)).toBe(1);
    const fileGets = hub.requests
      .slice(before)
      .filter((q) => q.method === "GET" && q.path.includes("/resolve/") && q.path.includes("chunks.lance"));
    expect(fileGets).toEqual([]);
  });
});

describe("funes cache", () => {
  it("lists the Hub memories read here, prunes older commits, and the newest still reads offline", async () => {
    const b = readerEnv("b");
    const status = await runFunes(["cache", "--json"], b);
    expect(status.code, status.stderr).toBe(0);
    const mem = JSON.parse(status.stdout).memories.find((m: { key: string }) => m.key === "acme--mem/_root");
    expect(mem.views.length).toBeGreaterThanOrEqual(2);
    const pruned = await runFunes(["cache", "prune", "--json"], b);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).views).toBe(mem.views.length - 1);
    const after = JSON.parse((await runFunes(["cache", "--json"], b)).stdout).memories.find(
      (m: { key: string }) => m.key === "acme--mem/_root",
    );
    expect(after.views).toEqual([mem.views[0]]);
    hub.offline = true;
    try {
      const r = await runFunes(
        ["recall", "portfolio", "-k", "1", "--rerank-budget", "0", "--memory", "acme/mem"],
        b,
      );
      expect(r.code, r.stderr).toBe(0);
      // The note on stderr, the hits alone on stdout.
      expect(r.stderr).toMatch(
        /^note: remote hf:\/\/datasets\/acme\/mem unreachable — reading its cached copy at /,
      );
      expect(r.stdout).toContain(" --memory hf://datasets/acme/mem\n");
    } finally {
      hub.offline = false;
    }
  });
});
