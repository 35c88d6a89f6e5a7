/**
 * `funes push --dry-run` against the loopback Hub stand-in: what would be published and held back, with
 * nothing written anywhere and no request but the read probes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, hubUser, runFunes } from "../helpers/cli.js";
import { copyFixture, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { leakyRow, writeLeakyMemory } from "../helpers/leaky.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function userEnv(name: string): CliEnv {
  return hubUser({ dir: t.dir, name, hubUrl: hub.url, token: "hf_standintokenfordryrun" });
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes push --dry-run", () => {
  it("without the models, says `funes models pull` fills the vectors (an index run would embed nothing), as doctor does", async () => {
    const bare = hubUser({
      dir: t.dir,
      name: "bare",
      hubUrl: hub.url,
      token: "hf_standintokenfordryrun",
      hfCache: join(t.dir, "no-models"),
    });
    mkdirSync(join(bare.home, ".codex"), { recursive: true });
    copyFixture("codex", join(bare.home, ".codex", "sessions"));
    expect((await runFunes(["index"], bare)).code).toBe(0);
    const dry = await runFunes(["push", "acme/novec", "--create", "--dry-run"], bare);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/chunks wait for vectors and would not go yet \(`funes models pull`\)\n/);
    expect(dry.stdout).not.toContain("index --yes");
    const doctor = JSON.parse((await runFunes(["doctor", "--json"], bare)).stdout) as {
      name: string;
      fix: string | null;
    }[];
    expect(doctor.find((c) => c.name === "vectors")?.fix).toBe("funes models pull");
  });

  it("says what would go, creates and commits nothing, and reads only the head", async () => {
    const a = userEnv("a");
    mkdirSync(join(a.home, ".codex"), { recursive: true });
    copyFixture("codex", join(a.home, ".codex", "sessions"));
    expect((await runFunes(["index", "--yes"], a)).code).toBe(0);

    const before = hub.requests.length;
    const fresh = await runFunes(["push", "acme/dry", "--create", "--dry-run"], a);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(
      /^dry run: nothing was changed on hf:\/\/datasets\/acme\/dry \(it doesn't exist yet\)\n {2}would publish 19 chunks from \d+ session\(s\), about [\d.]+ KiB of rows\n {2}would create hf:\/\/datasets\/acme\/dry \(private\)\n$/,
    );
    expect(hub.repos.has("acme/dry")).toBe(false);
    expect(hub.requests.slice(before).every((r) => r.method === "GET")).toBe(true);

    expect((await runFunes(["push", "acme/dry", "--create"], a)).code).toBe(0);
    const commits = hub.committedPaths.length;
    const start = hub.requests.length;
    const same = await runFunes(["push", "acme/dry", "--dry-run", "--json"], a);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({
      published: 0,
      present: 19,
      commit: null,
      dryRun: { chunks: 0, sessions: 0, bytes: 0, comparedWith: "head", wouldCreate: false, wouldAsk: false },
    });
    expect(hub.requests.length - start).toBe(1);
    expect(hub.committedPaths.length).toBe(commits);

    // Offline, a dry run still says what would go, from the copy cached here; offline mode is named.
    const asked = hub.requests.length;
    const off = { ...a, extra: { ...a.extra, HF_HUB_OFFLINE: "1" } };
    const dry = await runFunes(["push", "acme/dry", "--dry-run"], off);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      "dry run: nothing was changed on hf://datasets/acme/dry (HF_HUB_OFFLINE is set, so the Hub was not asked; compared with the copy cached here (a real push may find more there))\n  would publish nothing\n  19 of your chunks are already there\n",
    );
    const real = await runFunes(["push", "acme/dry"], off);
    expect(real.code).toBe(1);
    expect(real.stderr).toBe(
      "funes: hf://datasets/acme/dry was not asked: HF_HUB_OFFLINE is set (offline mode) — unset HF_HUB_OFFLINE to push\n",
    );
    expect(hub.requests.length).toBe(asked);
    const unreached = { ...a, extra: { ...a.extra, HF_ENDPOINT: "http://127.0.0.1:9" } };
    const away = await runFunes(["push", "acme/dry", "--dry-run", "--json"], unreached);
    expect(away.code, away.stderr).toBe(0);
    expect(JSON.parse(away.stdout).dryRun.offline).toMatchObject({ offlineMode: false });
  });

  it("names what the secret gate would hold back, and a remote that shares nothing", async () => {
    const b = userEnv("b");
    const secret = `ghp_${"a1B2".repeat(9)}`;
    await writeLeakyMemory(b.funesHome, [
      leakyRow("row-1", `token: ${secret}`, 1),
      leakyRow("row-2", "nothing secret here", 2),
    ]);
    const r = await runFunes(["push", "acme/dry", "--dry-run"], b);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("would publish 1 chunks from 1 session(s)");
    expect(r.stdout).toMatch(/would hold back 1 chunks whose blocks contain secrets \(.+\)/);
    // Another machine's memory, never read here: no copy of the remote to compare with.
    expect(r.stdout).toContain("no copy of it is cached here");
  });
});
