/**
 * The Hub misbehaving, on the loopback stand-in with the real @huggingface/hub client: the connection cut
 * in the middle of a push, a storm of 412s, downloads cut short (on the wire and in the cache), and files
 * in `chunks.lance/` that no manifest names. Each gives a clear message, the remote stays readable, the
 * local memory is untouched, and the next run completes the job.
 */
import { readdirSync, realpathSync, rmSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, hubUser, runFunes } from "../helpers/cli.js";
import { commitIds } from "../helpers/commit-table.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

const TOKEN = "hf_standintokenforfaulttests";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let writer: CliEnv;

function env(name: string, hfCache = TEST_HUB_CACHE): CliEnv {
  return hubUser({ dir: t.dir, name, hubUrl: hub.url, token: TOKEN, hfCache });
}

/** A reader with its own HF cache (so its downloads are real) and the test embedder. */
function reader(name: string): CliEnv {
  const e = env(name, join(t.dir, `${name}-hf`));
  return {
    ...e,
    extra: {
      ...e.extra,
      FUNES_EMBED_MODEL_DIR: join(
        TEST_HUB_CACHE,
        "models--BAAI--bge-small-en-v1.5",
        "snapshots",
        "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
      ),
    },
  };
}

async function localRows(funesHome: string): Promise<number> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  try {
    return (await store?.table.countRows()) ?? 0;
  } finally {
    store?.close();
  }
}

/** Ids at the remote's head. */
async function remoteIds(repo: string): Promise<string[]> {
  return commitIds(hub.repos.get(repo)?.files ?? new Map(), t.dir);
}

const recallArgs = ["recall", "theme file watcher", "--rerank-budget", "0", "--half-life", "0", "-k", "3"];

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  writer = env("w");
  writeSyntheticHistory(writer.home, 1, 0);
  expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
  const first = await runFunes(["push", "acme/faults", "--create"], writer);
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("a push the network cuts off", () => {
  it("commits nothing, says so, leaves the local memory alone, and the next push completes", async () => {
    writeSyntheticHistory(writer.home, 1, 1);
    expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
    const rows = await localRows(writer.funesHome);
    const head = hub.repos.get("acme/faults")?.commit;
    const before = (await remoteIds("acme/faults")).length;
    for (const target of ["/__lfs/", "/commit/"]) {
      hub.fault = (method, path) => (method !== "GET" && path.includes(target) ? "drop" : null);
      const r = await runFunes(["push", "acme/faults"], writer);
      expect(r.code, target).toBe(1);
      expect(r.stderr).toContain("became unreachable while pushing");
      expect(r.stderr).toContain("nothing was committed and the remote is unchanged");
      expect(hub.repos.get("acme/faults")?.commit).toBe(head);
      expect(await localRows(writer.funesHome)).toBe(rows);
      expect(readdirSync(join(writer.funesHome, "staging"))).toEqual([]);
    }
    hub.fault = null;
    const ok = await runFunes(["push", "acme/faults", "--json"], writer);
    expect(ok.code, ok.stderr).toBe(0);
    const ids = await remoteIds("acme/faults");
    expect(ids.length).toBe(before + JSON.parse(ok.stdout).published);
    expect(ids.length).toBe(rows);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("a 412 storm", () => {
  it("gives up after bounded retries with exit 75, and a later push lands once", async () => {
    writeSyntheticHistory(writer.home, 1, 2);
    expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
    hub.conflicts = 1000;
    const r = await runFunes(["push", "acme/faults"], writer);
    expect(r.code).toBe(75);
    expect(r.stderr).toMatch(/kept moving: \d+ attempts each found a newer commit .* run the push again/);
    hub.conflicts = 0;
    const ok = await runFunes(["push", "acme/faults"], writer);
    expect(ok.code, ok.stderr).toBe(0);
    const ids = await remoteIds("acme/faults");
    expect(ids.length).toBe(await localRows(writer.funesHome));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("downloads cut short", () => {
  it("a download cut on the wire counts as the Hub unreachable (no copy, no local memory here: says so); the next read fetches it whole", async () => {
    const r = reader("cut");
    hub.fault = (method, path) =>
      method === "GET" && path.includes("/resolve/") && path.includes("/data/") ? "truncate" : null;
    try {
      const first = await runFunes([...recallArgs, "--memory", "acme/faults"], r);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain("can't read hf://datasets/acme/faults (");
    } finally {
      hub.fault = null;
    }
    const second = await runFunes([...recallArgs, "--memory", "acme/faults"], r);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("--memory hf://datasets/acme/faults");
  });

  it("a blob cut short in the cache is fetched again before Lance opens it", async () => {
    const r = reader("damaged");
    const good = await runFunes([...recallArgs, "--memory", "acme/faults"], r);
    expect(good.code, good.stderr).toBe(0);
    // Damage one data blob and drop the views, so the next read must rebuild them from the cache.
    const snaps = join(t.dir, "damaged-hf", "datasets--acme--faults", "snapshots");
    const sha = readdirSync(snaps)[0] as string;
    const dataDir = join(snaps, sha, "chunks.lance", "data");
    const file = join(dataDir, readdirSync(dataDir)[0] as string);
    const blob = realpathSync(file);
    const size = statSync(blob).size;
    truncateSync(blob, Math.floor(size / 3));
    rmSync(join(r.funesHome, "views"), { recursive: true, force: true });
    const again = await runFunes([...recallArgs, "--memory", "acme/faults"], r);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(good.stdout);
    expect(statSync(realpathSync(file)).size).toBe(size);
  });
});

describe("files in chunks.lance/ that no manifest names", () => {
  it("are ignored by reads and left alone by pushes", async () => {
    const repo = hub.repos.get("acme/faults");
    if (repo === undefined) throw new Error("no repo");
    const files = new Map(repo.files);
    files.set("chunks.lance/NOTES.txt", Buffer.from("someone put notes here\n"));
    files.set("chunks.lance/data/stray.lance", Buffer.from("not a lance file at all"));
    repo.files = files;
    repo.commit = "f".repeat(40);
    const r = await runFunes([...recallArgs, "--memory", "acme/faults"], reader("foreign"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("--memory hf://datasets/acme/faults");
    writeSyntheticHistory(writer.home, 1, 3);
    expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
    const push = await runFunes(["push", "acme/faults"], writer);
    expect(push.code, push.stderr).toBe(0);
    const after = hub.repos.get("acme/faults")?.files;
    expect(after?.get("chunks.lance/NOTES.txt")?.toString()).toBe("someone put notes here\n");
    expect(after?.has("chunks.lance/data/stray.lance")).toBe(true);
    const ids = await remoteIds("acme/faults");
    expect(ids.length).toBe(await localRows(writer.funesHome));
  });
});
