/**
 * Compacting a Hub memory against the loopback stand-in through the real @huggingface/hub client: the fold
 * keeps every row and a current text index, a push racing a compaction lands whichever commits first, a
 * forgotten row stays out, a reader at an older commit still opens it, and a newcomer's view fetches the
 * newest version's files only.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitIds, writeOut } from "../../test/helpers/commit-table.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../../test/helpers/hub-standin.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { unitVectors } from "../../test/helpers/vectors.js";
import { materializeView } from "../cache/index.js";
import {
  type ArrowTable,
  embeddedRows,
  keywordSearch,
  LocalStore,
  selectRows,
  writeVectors,
} from "../local/index.js";
import { viewsRoot } from "../memory/index.js";
import { type HubClient, hubClient, parseHubUri } from "../remote/index.js";
import { compactRemote } from "./compact.js";
import { forgetRemoteRows } from "./forget-publish.js";
import { publishRows } from "./publish.js";

const TOKEN = "hf_standintokenforcompacttests";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let all: ArrowTable;

/** 120 rows `id-<i>` with text `row <i> word<i>`, vectors, in a scratch memory. */
beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const scratch = await LocalStore.openOrCreate(join(t.dir, "scratch"));
  await scratch.append(
    Array.from({ length: 120 }, (_, i) => leakyRow(`id-${i}`, `row ${i} word${i}`, i % 20, 0, `s-${i % 7}`)),
  );
  await writeVectors(scratch.table, unitVectors(120, 5));
  all = await embeddedRows(scratch);
  scratch.close();
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

const ids = (from: number, to: number) =>
  new Set(Array.from({ length: to - from }, (_, k) => `id-${from + k}`));

/** A machine: its own funes home and HF cache, and a client (its `fetch` optionally wrapped). */
function machine(name: string, repo: string, fetchWrap?: (f: typeof fetch) => typeof fetch) {
  const client: HubClient = { ...hubClient({ hubUrl: hub.url, token: TOKEN }) };
  if (fetchWrap !== undefined) client.fetch = fetchWrap(fetch);
  return {
    loc: parseHubUri(`hf://datasets/${repo}`),
    client,
    hubCache: join(t.dir, `${name}-hf`),
    funesHome: join(t.dir, `${name}-funes`),
    now: () => Date.now(),
    sleep: async () => {},
  };
}

function newRepo(repo: string): void {
  hub.repos.set(repo, { type: "dataset", commit: "a".repeat(40), files: new Map() });
}

const head = (repo: string) => hub.repos.get(repo)?.files ?? new Map<string, Buffer>();
const lanceFiles = (repo: string) => [...head(repo).keys()].filter((p) => p.startsWith("chunks.lance/"));

/** Pushes `rows` one batch per push (each push a fragment, a manifest and a transaction). */
async function pushBatches(m: ReturnType<typeof machine>, batches: [number, number][]): Promise<void> {
  for (const [from, to] of batches) {
    const r = await publishRows({ ...m, rows: selectRows(all, ids(from, to)) });
    expect(r.added).toBe(to - from);
  }
}

/** Keyword hits of `query` at the head of `repo`. */
async function searchHead(repo: string, query: string): Promise<string[]> {
  const store = await LocalStore.open(writeOut(head(repo), t.dir));
  if (store === null) return [];
  try {
    return (await keywordSearch(store.table, { query, limit: 5 })).map((h) => h.id);
  } finally {
    store.close();
  }
}

describe("compacting a Hub memory", () => {
  it("folds every push into one fragment, keeps each row, a current text index, and older commits readable", async () => {
    newRepo("acme/fold");
    const a = machine("fold-a", "acme/fold");
    await pushBatches(a, [
      [0, 10],
      [10, 15],
      [15, 20],
      [20, 25],
      [25, 30],
      [30, 35],
      [35, 40],
      [40, 45],
    ]);
    // Someone's notes beside Lance's folders: not the compaction's to remove.
    const repo = hub.repos.get("acme/fold");
    if (repo === undefined) throw new Error("no repo");
    repo.files = new Map(repo.files).set("chunks.lance/NOTES.txt", Buffer.from("ours\n"));
    const old = repo.commit;
    const before = lanceFiles("acme/fold");
    // A manifest a push at least (the first: the table created, its rows, its text index).
    expect(before.filter((p) => p.includes("/_versions/")).length).toBeGreaterThanOrEqual(8);

    const dry = await compactRemote({ ...a, dryRun: true });
    expect(dry?.commit).toBeNull();
    expect(hub.repos.get("acme/fold")?.commit).toBe(old);
    expect(dry).toMatchObject({
      filesBefore: before.length,
      fold: { fragmentsBefore: 8, fragmentsAfter: 1 },
    });

    const r = await compactRemote(a);
    expect(r?.commit).toBe(hub.repos.get("acme/fold")?.commit);
    expect(r).toMatchObject({
      filesBefore: before.length,
      filesAfter: lanceFiles("acme/fold").length,
      fold: { fragmentsBefore: 8, fragmentsAfter: 1, folded: 8, rows: 45, textIndex: "rebuilt" },
    });
    const after = lanceFiles("acme/fold");
    expect(after.length).toBeLessThan(before.length / 2);
    expect(after.filter((p) => p.includes("/_versions/"))).toHaveLength(1);
    expect(after.filter((p) => p.includes("/_transactions/")).length).toBeLessThanOrEqual(1);
    expect(after.filter((p) => p.includes("/data/"))).toHaveLength(1);
    expect(head("acme/fold").get("chunks.lance/NOTES.txt")?.toString()).toBe("ours\n");
    expect((await commitIds(head("acme/fold"), t.dir)).sort()).toEqual([...ids(0, 45)].sort());
    // The text index covers every row, the first push's and the last's.
    const store = await LocalStore.open(writeOut(head("acme/fold"), t.dir));
    expect((await store?.table.indexStats("text_idx"))?.numUnindexedRows).toBe(0);
    store?.close();
    expect(await searchHead("acme/fold", "word3")).toContain("id-3");
    expect(await searchHead("acme/fold", "word44")).toContain("id-44");
    // A second compaction has nothing to do.
    expect((await compactRemote(a))?.commit).toBeNull();

    // A reader at the commit before the compaction (a fresh machine) still opens it, every row there.
    const reader = machine("fold-old-reader", "acme/fold");
    const view = await materializeView({ ...reader, viewsRoot: viewsRoot(reader.funesHome), sha: old });
    const oldStore = await LocalStore.open(view?.dir ?? "");
    expect(await oldStore?.table.countRows()).toBe(45);
    oldStore?.close();

    // A push after it lands on the compacted memory; recall finds its row and the first push's.
    await pushBatches(a, [[45, 50]]);
    expect(await searchHead("acme/fold", "word47")).toContain("id-47");
    expect(await searchHead("acme/fold", "word2")).toContain("id-2");
  });

  it("a push from another machine that lands first: the compaction is done again on the new head", async () => {
    newRepo("acme/race1");
    const a = machine("race1-a", "acme/race1");
    await pushBatches(a, [
      [0, 10],
      [10, 20],
      [20, 30],
    ]);
    const b = machine("race1-b", "acme/race1");
    let pushed = false;
    // The compaction's first commit request waits for B's push to land, then goes (and meets a 412).
    const c = machine("race1-a", "acme/race1", (f) => async (input, init) => {
      if (!pushed && String(input).includes("/commit/main") && init?.method === "POST") {
        pushed = true;
        await pushBatches(b, [[30, 40]]);
      }
      return f(input, init);
    });
    const r = await compactRemote(c);
    expect(pushed).toBe(true);
    expect(r?.attempts).toBe(2);
    expect(r?.commit).toBe(hub.repos.get("acme/race1")?.commit);
    expect((await commitIds(head("acme/race1"), t.dir)).sort()).toEqual([...ids(0, 40)].sort());
    expect(lanceFiles("acme/race1").filter((p) => p.includes("/_versions/"))).toHaveLength(1);
    expect(r?.fold.fragmentsAfter).toBe(1);
  });

  it("a compaction that lands first: the push racing it lands on the compacted head", async () => {
    newRepo("acme/race2");
    const a = machine("race2-a", "acme/race2");
    await pushBatches(a, [
      [0, 10],
      [10, 20],
      [20, 30],
    ]);
    let compacted = false;
    // B's first commit request waits for A's compaction to land, then goes (and meets a 412).
    const b = machine("race2-b", "acme/race2", (f) => async (input, init) => {
      if (!compacted && String(input).includes("/commit/main") && init?.method === "POST") {
        compacted = true;
        expect((await compactRemote(a))?.commit).not.toBeNull();
      }
      return f(input, init);
    });
    const r = await publishRows({ ...b, rows: selectRows(all, ids(25, 40)) });
    expect(compacted).toBe(true);
    expect(r).toMatchObject({ added: 10, attempts: 2 });
    expect((await commitIds(head("acme/race2"), t.dir)).sort()).toEqual([...ids(0, 40)].sort());
    // The compacted memory and the push's own three files: one data file more, one manifest.
    const files = lanceFiles("acme/race2");
    expect(files.filter((p) => p.includes("/data/"))).toHaveLength(2);
    expect(files.filter((p) => p.includes("/_versions/"))).toHaveLength(2);
  });

  it("a forgotten row stays out: the compaction drops any row its forgotten list names, and pushes leave it out", async () => {
    newRepo("acme/forgotten");
    const a = machine("forgotten-a", "acme/forgotten");
    await pushBatches(a, [
      [0, 10],
      [10, 20],
    ]);
    const done = await forgetRemoteRows({
      ...a,
      select: (rows) => rows.filter((r) => r.id === "id-4"),
      purgeHistory: false,
      confirm: async () => true,
    });
    expect(done.commit).not.toBeNull();
    // A row the list names but the head still holds (written by a tool that ignored the list).
    const repo = hub.repos.get("acme/forgotten");
    if (repo === undefined) throw new Error("no repo");
    repo.files = new Map(repo.files);
    repo.files.set(
      ".funes-forgotten.json",
      Buffer.from(JSON.stringify({ version: 1, ids: ["id-4", "id-15"] })),
    );
    const r = await compactRemote(a);
    expect(r?.fold.forgottenRemoved).toBe(1);
    const left = await commitIds(head("acme/forgotten"), t.dir);
    expect(left).not.toContain("id-4");
    expect(left).not.toContain("id-15");
    expect(left.length).toBe(18);
    expect(head("acme/forgotten").has(".funes-forgotten.json")).toBe(true);
    expect(head("acme/forgotten").get("README.md")?.toString("utf8")).toContain("| Chunks | 18 |");
    // A machine that still holds both pushes them again: neither comes back.
    const b = machine("forgotten-b", "acme/forgotten");
    const again = await publishRows({ ...b, rows: selectRows(all, ids(0, 25)) });
    expect(again.added).toBe(5);
    const now = await commitIds(head("acme/forgotten"), t.dir);
    expect(now.includes("id-4") || now.includes("id-15")).toBe(false);
    expect(now.length).toBe(23);
  });

  it("a memory whose manifests it cannot make sense of is left as it is", async () => {
    newRepo("acme/odd");
    const a = machine("odd-a", "acme/odd");
    await pushBatches(a, [
      [0, 10],
      [10, 20],
    ]);
    // A manifest named the other way Lance names them, beside its own: which one Lance opens is a guess.
    const repo = hub.repos.get("acme/odd");
    if (repo === undefined) throw new Error("no repo");
    const some = [...repo.files].find(([p]) => p.endsWith(".manifest"))?.[1] as Buffer;
    repo.files = new Map(repo.files).set("chunks.lance/_versions/1.manifest", some);
    const head = repo.commit;
    const fresh = machine("odd-b", "acme/odd");
    await expect(compactRemote(fresh)).rejects.toThrow();
    expect(hub.repos.get("acme/odd")?.commit).toBe(head);
  });

  it("a newcomer's view fetches one manifest and no transaction, and a push staged from it only adds", async () => {
    newRepo("acme/slim");
    const a = machine("slim-a", "acme/slim");
    await pushBatches(a, [
      [0, 10],
      [10, 20],
      [20, 30],
      [30, 40],
    ]);
    const listed = lanceFiles("acme/slim");
    const from = hub.requests.length;
    const n = machine("slim-new", "acme/slim");
    const sha = hub.repos.get("acme/slim")?.commit as string;
    const view = await materializeView({ ...n, viewsRoot: viewsRoot(n.funesHome), sha });
    expect(view?.listed).toBe(listed.length);
    const fetched = hub.requests
      .slice(from)
      .filter((q) => q.path.includes("/resolve/"))
      .map((q) => q.path);
    expect(fetched.filter((p) => p.includes("/_transactions/"))).toEqual([]);
    expect(fetched.filter((p) => p.includes("/_versions/"))).toHaveLength(1);
    expect(fetched.filter((p) => p.includes("/data/"))).toHaveLength(4);
    const store = await LocalStore.open(view?.dir ?? "");
    expect(await store?.table.countRows()).toBe(40);
    expect(
      (await keywordSearch(store?.table as never, { query: "word33", limit: 3 })).map((h) => h.id),
    ).toContain("id-33");
    store?.close();
    // The newcomer pushes from that view: every earlier file stays, its own are added.
    const r = await publishRows({ ...n, rows: selectRows(all, ids(35, 50)) });
    expect(r.added).toBe(10);
    const now = lanceFiles("acme/slim");
    for (const p of listed) expect(now).toContain(p);
    expect(now.length).toBe(listed.length + 3);
    expect(r.headFiles).toBe(now.length);
    expect((await commitIds(head("acme/slim"), t.dir)).length).toBe(50);
    // After a teammate's push, the newcomer's next push fetches the teammate's data file, not its own.
    await pushBatches(a, [[50, 55]]);
    const next = hub.requests.length;
    expect((await publishRows({ ...n, rows: selectRows(all, ids(55, 60)) })).added).toBe(5);
    const data = hub.requests
      .slice(next)
      .filter((q) => q.path.includes("/resolve/") && q.path.includes("/data/"));
    expect(data).toHaveLength(1);
  });
});
