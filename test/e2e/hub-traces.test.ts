/**
 * `funes index org/repo`: a Hub agent-traces dataset read through its parquet conversion
 * (`refs/convert/parquet`) on the loopback Hub stand-in, via the real @huggingface/hub client.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin } from "../helpers/hub-standin.js";
import { writeTraceParquet } from "../helpers/parquet.js";

const CONVERT = "c0ffee0000000000000000000000000000000001";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function env(name: string): CliEnv {
  return standinUser(t.dir, name, hub.url, { HF_TOKEN: "hf_standintokenfortraces" });
}

function shard(name: string, rows: Parameters<typeof writeTraceParquet>[1]): Buffer {
  const p = join(t.dir, name);
  writeTraceParquet(p, rows);
  return readFileSync(p);
}

beforeAll(async () => {
  t = tempDir();
  const msg = (role: string, content: string) => JSON.stringify({ role, content });
  hub = await startHubStandin(
    new Map([
      [
        "acme/traces",
        {
          type: "dataset",
          commit: "a".repeat(40),
          files: new Map([["raw/session.jsonl", Buffer.from("{}\n")]]),
          convert: {
            commit: CONVERT,
            files: new Map([
              [
                "default/train/0000.parquet",
                shard("0000.parquet", [
                  {
                    session_id: "hub-1",
                    messages: [
                      msg("user", "why does the gazebo lighting flicker on resize"),
                      msg("assistant", "the gazebo lighting recomputes shadows on every resize event"),
                    ],
                    harness: "pi",
                    metadata: JSON.stringify({ cwd: "/home/dev/gazebo" }),
                  },
                ]),
              ],
              [
                "default/train/0001.parquet",
                shard("0001.parquet", [
                  { session_id: "hub-2", messages: [msg("user", "second shard mentions quokka migrations")] },
                ]),
              ],
            ]),
          },
        },
      ],
      [
        "acme/unconverted",
        { type: "dataset", commit: "b".repeat(40), files: new Map([["x.jsonl", Buffer.from("")]]) },
      ],
      ["acme/a-model", { type: "model", commit: "c".repeat(40), files: new Map() }],
    ]),
  );
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes index org/repo", () => {
  it("indexes every shard of the parquet conversion, then reads nothing while it is unchanged", async () => {
    const e = env("a");
    const r = await runFunes(["index", "acme/traces", "--json"], e);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.unitsRead).toBe(2);
    expect(s.sessions).toBe(2);
    expect(s.chunksAdded).toBe(3);
    const store = await LocalStore.open(join(e.funesHome, "memory"));
    const rows =
      (await store?.table.query().select(["session_id", "source_path", "workdir", "harness"]).toArray()) ??
      [];
    store?.close();
    expect(new Set(rows.map((x) => String(x.source_path)))).toEqual(
      new Set([
        "hf://datasets/acme/traces/default/train/0000.parquet",
        "hf://datasets/acme/traces/default/train/0001.parquet",
      ]),
    );
    expect(rows.find((x) => x.session_id === "hub-1")?.workdir).toBe("-home-dev-gazebo");
    expect(rows.find((x) => x.session_id === "hub-2")?.workdir).toBe("0001");
    // Shards land in the standard cache under the conversion's commit.
    const snap = join(t.dir, "a-hf", "datasets--acme--traces", "snapshots", CONVERT, "default", "train");
    expect(readFileSync(join(snap, "0000.parquet")).length).toBeGreaterThan(0);

    const recall = await runFunes(["recall", "gazebo lighting", "--rerank-budget", "0"], e);
    expect(recall.stdout).toContain("gazebo lighting");

    const before = hub.requests.length;
    const again = JSON.parse((await runFunes(["index", "acme/traces", "--json"], e)).stdout);
    expect(again.unitsUnchanged).toBe(2);
    expect(again.unitsRead).toBe(0);
    expect(hub.requests.slice(before).filter((q) => q.path.includes("/resolve/"))).toEqual([]);
    const human = await runFunes(["index", "hf://datasets/acme/traces"], e);
    expect(human.stderr + human.stdout).toContain(
      `2 parquet shard(s) @ refs/convert/parquet:${CONVERT.slice(0, 8)}`,
    );
  });

  it("says what is wrong with a repo it cannot index", async () => {
    const e = env("b");
    const cases: [string, RegExp][] = [
      ["acme/unconverted", /acme\/unconverted has no parquet conversion \(refs\/convert\/parquet\) yet/],
      ["acme/a-model", /acme\/a-model is a model repo, not a dataset/],
      ["acme/nothing-here", /acme\/nothing-here doesn't exist on the Hub/],
    ];
    for (const [repo, message] of cases) {
      const r = await runFunes(["index", repo], e);
      expect(r.code, repo).toBe(1);
      expect(r.stderr).toMatch(message);
    }
    hub.offline = true;
    try {
      const r = await runFunes(["index", "acme/traces"], e);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("the Hub is unreachable");
    } finally {
      hub.offline = false;
    }
  });
});
