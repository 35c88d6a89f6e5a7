import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { leakyRow } from "../../test/helpers/leaky.js";
import { PLANTED } from "../../test/helpers/secrets.js";
import { type Chunk, splitText } from "../chunk/index.js";
import { scrubMemory } from "../commands/index.js";
import { LocalStore, rowPlaces } from "../local/index.js";
import { dirtyBlocks, holdBack } from "./secret-blocks.js";

const secret = (kind: string): string => {
  const p = PLANTED.find(([k]) => k === kind);
  if (p === undefined) throw new Error(`no planted ${kind}`);
  return p[2](p[1]);
};

/**
 * 700 blocks (more than two scanner calls of 256), written in three appends so blocks cross fragments:
 * clean ones, whole secrets, and blocks of several chunks with a key cut in two.
 */
function memoryRows(): { rows: Chunk[]; dirty: Set<number> } {
  const rows: Chunk[] = [];
  const dirty = new Set<number>();
  for (let b = 0; b < 700; b++) {
    const id = (s: number) => `b${b}-s${s}`;
    if (b % 97 === 5) {
      dirty.add(b);
      rows.push(leakyRow(id(0), `deploy notes for block ${b}: ${secret("github classic token")}`, b));
    } else if (b % 131 === 7) {
      dirty.add(b);
      rows.push(leakyRow(id(0), `keys ${secret("aws access key id")} for block ${b}`, b));
    } else if (b === 300 || b === 555) {
      // A private key cut in two by chunking: the block is whole again only when stitched.
      const text = `${"x ".repeat(450)}${secret("private key (PEM)")}${" y".repeat(600)}`;
      dirty.add(b);
      splitText(text).forEach((piece, s) => {
        rows.push(leakyRow(id(s), piece, b, s));
      });
    } else rows.push(leakyRow(id(0), `plain words of block ${b}`, b));
  }
  return { rows, dirty };
}

describe("the secret gate by groups of blocks", () => {
  it("holds back exactly the same chunks, counted by rule, whatever the group size", async () => {
    const t = tempDir();
    try {
      const { rows, dirty } = memoryRows();
      const store = await LocalStore.openOrCreate(`${t.dir}/m`);
      try {
        // Block 300's pieces land in different appends (fragments) than most of their neighbours.
        await store.append(rows.slice(0, 250));
        await store.append(rows.slice(250, 520));
        await store.append(rows.slice(520));
        // Candidates: everything but block 5 (dirty, never counted) and one piece of block 300.
        const candidates = rows
          .filter((r) => r.blockIdx !== 5 && r.id !== "b300-s1")
          .map((r) => ({ id: r.id, sessionId: r.sessionId, turnUuid: r.turnUuid, blockIdx: r.blockIdx }));
        const whole = await holdBack(store, candidates);
        const places = await rowPlaces(store);
        const grouped = await holdBack(store, candidates, { places, groupRows: 1 });
        const midSized = await holdBack(store, candidates, { groupRows: 300 });
        // Every chunk of every dirty block but 5 is held, even the piece of 300 that is no candidate.
        const want = rows.filter((r) => dirty.has(r.blockIdx) && r.blockIdx !== 5).map((r) => r.id);
        expect([...whole.held.keys()].sort()).toEqual(want.sort());
        expect(whole.held.has("b300-s1")).toBe(true);
        const counted = Object.values(whole.byRule).reduce((a, b) => a + b, 0);
        expect(counted).toBe(want.length - 1);
        for (const other of [grouped, midSized]) {
          expect(other.byRule).toEqual(whole.byRule);
          expect([...other.held.entries()].sort()).toEqual([...whole.held.entries()].sort());
        }
        // Scrub's view: the same dirty blocks, whole, in the same order.
        const all = await dirtyBlocks(store);
        const allGrouped = await dirtyBlocks(store, undefined, { groupRows: 1 });
        expect(all.map((d) => d.chunks[0]?.blockIdx)).toEqual([...dirty]);
        expect(allGrouped.map((d) => [d.text, d.chunks.map((c) => c.id)])).toEqual(
          all.map((d) => [d.text, d.chunks.map((c) => c.id)]),
        );
        expect(all.find((d) => d.chunks[0]?.blockIdx === 300)?.chunks.length).toBeGreaterThan(1);
      } finally {
        store.close();
      }
    } finally {
      t.cleanup();
    }
  });
});

describe("the secret gate over every column that leaves the machine", () => {
  /** A clean text whose row carries `field` in one other column. */
  function rowsWithFields(): { rows: Chunk[]; leaky: Set<string> } {
    const aws = `[default]\naws_access_key_id = ${secret("aws access key id").split(" = ")[1]}\n`;
    const token = secret("github classic token").split("=")[1] ?? "";
    const rows: Chunk[] = [];
    const leaky = new Set<string>();
    const add = (id: string, over: Partial<Chunk>, dirty: boolean) => {
      rows.push({ ...leakyRow(id, `plain words of ${id}`, rows.length), ...over });
      if (dirty) leaky.add(id);
    };
    // A `.project_root` read through a link to ~/.aws/credentials, munged into the working folder as a cwd is.
    add("workdir", { workdir: aws.replace(/[^A-Za-z0-9]/g, "-"), sessionId: "s-workdir" }, true);
    add("repo", { repo: `acme/app ${token}`, sessionId: "s-repo" }, true);
    add("tool", { toolName: token, sessionId: "s-tool" }, true);
    add("session", { sessionId: `sess-${token}` }, true);
    add("turn", { turnUuid: token, sessionId: "s-turn" }, true);
    add("source", { sourcePath: `/home/u/${token}.jsonl`, sessionId: "s-source" }, true);
    for (let i = 0; i < 5; i++)
      add(
        `clean${i}`,
        { workdir: "-home-dev-app", repo: "acme/app", toolName: "Bash", sessionId: "s-clean" },
        false,
      );
    return { rows, leaky };
  }

  it("holds back a row whose working folder, repo, tool name, ids or path hold a secret, as one in its text", async () => {
    const t = tempDir();
    try {
      const { rows, leaky } = rowsWithFields();
      const store = await LocalStore.openOrCreate(`${t.dir}/m`);
      try {
        await store.append(rows);
        const candidates = rows.map((r) => ({
          id: r.id,
          sessionId: r.sessionId,
          turnUuid: r.turnUuid,
          blockIdx: r.blockIdx,
        }));
        const { held } = await holdBack(store, candidates);
        expect([...held.keys()].sort()).toEqual([...leaky].sort());
        expect(held.get("workdir")).toBe("aws-access-key-id");
        const dirty = await dirtyBlocks(store);
        expect(dirty.find((d) => d.chunks[0]?.id === "workdir")?.fields).toEqual([
          { column: "workdir", rule: "aws-access-key-id" },
        ]);
        expect(dirty.every((d) => d.findings.length === 0)).toBe(true);
      } finally {
        store.close();
      }
    } finally {
      t.cleanup();
    }
  });

  it("scrub drops a block whose other columns hold a secret (its text cannot carry it away), and the gate is clean after", async () => {
    const t = tempDir();
    try {
      const { rows, leaky } = rowsWithFields();
      const store = await LocalStore.openOrCreate(`${t.dir}/memory`);
      await store.append(rows);
      store.close();
      const summary = await scrubMemory({ funesHome: t.dir });
      expect(summary?.droppedRows).toBe(leaky.size);
      expect(summary?.redactedBlocks).toBe(0);
      const after = (await LocalStore.open(`${t.dir}/memory`)) as LocalStore;
      try {
        expect(await dirtyBlocks(after)).toEqual([]);
        expect((await rowPlaces(after)).map((p) => p.id).sort()).toEqual(
          rows
            .filter((r) => !leaky.has(r.id))
            .map((r) => r.id)
            .sort(),
        );
      } finally {
        after.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
