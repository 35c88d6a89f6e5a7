import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkId } from "../../src/chunk/index.js";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, hubUser, runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { leakyRow, writeLeakyMemory } from "../helpers/leaky.js";
import { PLANTED } from "../helpers/secrets.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function env(name: string): CliEnv {
  return hubUser({ dir: t.dir, name, hubUrl: hub.url, token: "hf_standintokenforscrubtests" });
}

async function rows(funesHome: string) {
  const store = await LocalStore.open(join(funesHome, "memory"));
  if (store === null) throw new Error("no memory");
  try {
    const out = await store.table
      .query()
      .select(["id", "text", "block_idx", "split_idx", "vector"])
      .toArray();
    return out.map((r) => ({
      id: String(r.id),
      text: String(r.text),
      blockIdx: Number(r.block_idx),
      splitIdx: Number(r.split_idx),
      vector: r.vector === null ? null : Array.from(r.vector as Iterable<number>),
    }));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes scrub", () => {
  it("redacts what it locates, rescans it clean, and the next push publishes the rest", async () => {
    const e = env("a");
    const id = (block: number, split = 0) => chunkId("leaky", `t-${block}`, block, split);
    const planted = PLANTED.map(([kind, secret, wrap], i) => leakyRow(id(i), `${kind}: ${wrap(secret)}`, i));
    const clean = leakyRow(id(200), "nothing secret in this block at all", 200);
    // Split in two; the secret only in the second piece. Redacted, it fits in one piece.
    const split = [
      leakyRow(id(201, 0), "first half of a split block ", 201, 0),
      leakyRow(id(201, 1), `second half ghp_${"a1B2".repeat(9)}`, 201, 1),
    ];
    // A credential URL inside another: once the inner one is redacted, the rescan finds nothing (a redaction
    // marker is never taken for a password), so the block is kept, redacted, rather than dropped.
    const nested = leakyRow(
      id(202),
      "http://admin:http://admin:hunter2hunter2@localhost:8080/@localhost:8080/",
      202,
    );
    await writeLeakyMemory(e.funesHome, [...planted, clean, ...split, nested]);
    const before = await rows(e.funesHome);

    const r = await runFunes(["scrub", "--json"], e);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.total).toBe(planted.length + 4);
    expect(s.droppedBlocks).toBe(0);
    expect(s.redactedBlocks + s.droppedBlocks).toBe(planted.length + 2);
    expect(s.waitingForVectors).toBe(0);

    const after = await rows(e.funesHome);
    const all = after.map((x) => x.text).join("\n");
    for (const [kind, secret] of PLANTED) expect(all, kind).not.toContain(secret);
    expect(all).not.toContain("a1B2a1B2");
    expect(after.find((x) => x.blockIdx === 202)?.text).toBe(
      "http://admin:http://admin:[REDACTED:url-credentials]@localhost:8080/@localhost:8080/",
    );
    // Untouched rows keep their row and vector; rewritten ones keep their ids (same piece count) and get
    // a fresh vector; the split block became one piece.
    const cleanAfter = after.find((x) => x.id === clean.id);
    expect(cleanAfter).toEqual(before.find((x) => x.id === clean.id));
    const first = after.find((x) => x.id === id(0));
    expect(first?.text).toMatch(/^github classic token: export GITHUB_TOKEN=\[REDACTED:[\w-]+\]$/);
    expect(first?.vector).not.toBeNull();
    expect(first?.vector).not.toEqual(before.find((x) => x.id === id(0))?.vector);
    const splitAfter = after.filter((x) => x.blockIdx === 201);
    expect(splitAfter.map((x) => x.id)).toEqual([id(201, 0)]);
    expect(splitAfter[0]?.text).toMatch(/^first half of a split block second half \[REDACTED:[\w-]+\]$/);
    expect(after.length).toBe(s.rows);

    const again = await runFunes(["scrub"], e);
    expect(again.stdout).toBe(`memory is already clean (${s.rows} chunks)\n`);

    const push = await runFunes(["push", "acme/scrubbed", "--create", "--json"], e);
    expect(push.code, push.stderr).toBe(0);
    const p = JSON.parse(push.stdout);
    expect(p.heldBack).toEqual({});
    expect(p.published).toBe(s.rows);
    const uploaded = [...(hub.repos.get("acme/scrubbed")?.files.values() ?? [])].map((b) =>
      b.toString("latin1"),
    );
    for (const [kind, secret] of PLANTED)
      expect(
        uploaded.some((b) => b.includes(secret)),
        kind,
      ).toBe(false);
  });

  it("says so when there is nothing to scrub, and human output names what changed", async () => {
    const e = env("b");
    const none = await runFunes(["scrub"], e);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("no local memory to scrub\n");
    await writeLeakyMemory(e.funesHome, [leakyRow("x", `token ghp_${"Zz9y".repeat(9)}`, 0)]);
    const r = await runFunes(["scrub"], e);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^scrubbed 1 rows: redacted 1 secret\(s\) in 1 block\(s\) \(/);
    expect(r.stdout).toContain("what was already published stays on the Hub");
  });
});
