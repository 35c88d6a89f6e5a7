/**
 * Federated recall: `--memory` given several times (or as a comma list) searches a local memory and two Hub
 * memories on the loopback stand-in together — hits from each, labelled with the memory that holds them,
 * `get` with that label reading the right one, duplicates shown once, an unreadable memory named in one
 * warning, and memories from another embedding model refused by name.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrow } from "../../src/local/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforfederation";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let reader: CliEnv;

function line(uuid: string, role: "user" | "assistant", text: string, ts: string): string {
  return JSON.stringify({
    type: role,
    uuid,
    timestamp: ts,
    cwd: "/home/dev/app",
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  });
}

/** A user whose only session says `fact`, indexed (with vectors) under its own FUNES_HOME. */
async function userWith(name: string, session: string, facts: string[]): Promise<CliEnv> {
  const home = join(t.dir, `${name}-home`);
  const proj = join(home, ".claude", "projects", "-home-dev-app");
  mkdirSync(proj, { recursive: true });
  const lines = facts.flatMap((f, i) => [
    line(`${session}-q${i}`, "user", "what did we find?", `2026-11-2${i}T10:00:00.000Z`),
    line(`${session}-a${i}`, "assistant", f, `2026-11-2${i}T10:00:05.000Z`),
  ]);
  writeFileSync(join(proj, `${session}.jsonl`), `${lines.join("\n")}\n`);
  const e = {
    home,
    funesHome: join(t.dir, `${name}-funes`),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN },
  };
  expect((await runFunes(["index", "--yes"], e)).code).toBe(0);
  return e;
}

const SHARED = "the zebra crossing detector flags every striped sweater as a road";
const Q = ["recall", "zebra quokka narwhal", "-k", "10", "--rerank-budget", "0", "--half-life", "0"];

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const one = await userWith("one", "sess-one", ["the quokka cache keeps thumbnails for a week", SHARED]);
  expect((await runFunes(["push", "acme/one", "--create"], one)).code).toBe(0);
  const two = await userWith("two", "sess-two", ["the narwhal queue retries webhooks with jitter"]);
  expect((await runFunes(["push", "acme/two", "--create"], two)).code).toBe(0);
  // The reader's own memory holds the shared session too (same ids as acme/one's copy of it).
  reader = await userWith("reader", "sess-one", ["the quokka cache keeps thumbnails for a week", SHARED]);
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("federated recall", () => {
  it("answers from every memory, each hit labelled with the memory holding it, duplicates once", async () => {
    const local = join(reader.funesHome, "memory");
    const r = await runFunes([...Q, "--memory", "local", "--memory", "acme/one,acme/two", "--json"], reader);
    expect(r.code, r.stderr).toBe(0);
    const hits = JSON.parse(r.stdout).hits as { id: string; text: string; memory: string }[];
    const where = (word: string) => hits.filter((h) => h.text.includes(word)).map((h) => h.memory);
    expect(where("narwhal")).toEqual(["hf://datasets/acme/two"]);
    // The quokka and zebra chunks are in the local memory and acme/one under the same ids: shown once, as local.
    expect(where("quokka")).toEqual([local]);
    expect(where("zebra")).toEqual([local]);
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);

    const text = await runFunes([...Q, "--memory", "acme/two,acme/one"], reader);
    const m = /→ get (\S+) (\S+) --memory hf:\/\/datasets\/acme\/two/.exec(text.stdout);
    expect(m).not.toBeNull();
    const get = await runFunes(
      ["get", m?.[1] ?? "", m?.[2] ?? "", "--memory", "acme/two", "--format", "agent"],
      reader,
    );
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain("narwhal queue");
    // Order decides the label of a chunk two memories hold.
    const swapped = JSON.parse(
      (await runFunes([...Q, "--memory", "acme/one,local", "--json"], reader)).stdout,
    );
    expect(swapped.hits.find((h: { text: string }) => h.text.includes("quokka")).memory).toBe(
      "hf://datasets/acme/one",
    );
  });

  it("names a memory it cannot read in one warning line and answers from the rest", async () => {
    const r = await runFunes([...Q, "--memory", "acme/two,acme/nowhere"], reader);
    expect(r.code, r.stderr).toBe(0);
    // Warnings go to stderr, the hits alone to stdout.
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^warning: acme\/nowhere could not be read \(.*doesn't exist on the Hub.*\) — answering from the others$/,
      ),
    ]);
    expect(r.stdout).toContain("narwhal");
    const none = await runFunes([...Q, "--memory", "acme/nowhere,acme/gone"], reader);
    expect(none.code).toBe(1);
  });

  it("refuses memories built with another embedding model, naming it", async () => {
    const other = join(t.dir, "other-model");
    const lancedb = createRequire(import.meta.url)("@lancedb/lancedb");
    const db = await lancedb.connect(other);
    const vec = new arrow.FixedSizeList(384, new arrow.Field("item", new arrow.Float32(), true));
    const schema = new arrow.Schema(
      [new arrow.Field("id", new arrow.Utf8(), true), new arrow.Field("vector", vec, true)],
      new Map([["embedding_model", "intfloat/e5-small-v2"]]),
    );
    await db.createEmptyTable("chunks", schema);
    const r = await runFunes([...Q, "--memory", `local,${other}`], reader);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("can't recall across memories embedded with different models");
    expect(r.stderr).toContain(other);
    expect(r.stderr).toContain("intfloat/e5-small-v2");
  });
});
