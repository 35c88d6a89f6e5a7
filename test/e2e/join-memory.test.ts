/**
 * Joining a team's memory from a machine with no history (issue 42), with the real `claude` CLI (2.1.197)
 * and the loopback Hub stand-in: `funes add claude <memory> --yes` has nothing to push, so it records the
 * consent to publish there, and the hook push after the first session publishes into the memory that
 * shares nothing with this one without --yes. A hook push that refuses (no consent) is not left in its
 * log alone: `status` and `doctor` show it with the command that fixes it, the next command on a terminal
 * warns of it once, and a push that publishes clears it.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUser, type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

const TOKEN = "hf_standintokenforjointests";
const EMBEDDER = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

/** A user with their own HOME, FUNES_HOME and HF cache, the test embedder, and the stand-in's address. */
function user(name: string): CliEnv {
  return agentUser(t.dir, name, {
    HF_HUB_CACHE: join(t.dir, `${name}-hf`),
    HF_ENDPOINT: hub.url,
    HF_TOKEN: TOKEN,
    FUNES_EMBED_MODEL_DIR: EMBEDDER,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  // A teammate's memory, already holding their sessions.
  const owner = user("owner");
  writeSyntheticHistory(owner.home, 1, 40);
  expect((await runFunes(["index", "--yes"], owner)).code).toBe(0);
  const created = await runFunes(["push", "acme/team", "--create", "--yes"], owner);
  expect(created.code, created.stderr).toBe(0);
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

const hookPush = (u: CliEnv) => runFunes(["push", "acme/team", "--hook", "--harness", "claude", "--json"], u);

describe("joining a team memory", () => {
  it("add on a machine with no history is consent: the first session's hook push publishes without --yes", async () => {
    const u = user("newcomer");
    const add = await runFunes(["add", "claude", "acme/team", "--yes"], u);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(
      "nothing indexed yet, so nothing to publish to acme/team yet — your sessions are published there as they end",
    );
    expect(readdirSync(join(u.funesHome, "consent"))).toEqual(["acme--team.json"]);

    writeSyntheticHistory(u.home, 1, 41);
    const before = hub.repos.get("acme/team")?.commit;
    const push = await hookPush(u);
    expect([0, 75], push.stderr).toContain(push.code);
    const r = JSON.parse(push.stdout);
    expect(r.kind).toBe("pushed");
    expect(r.summary.published).toBeGreaterThan(0);
    expect(hub.repos.get("acme/team")?.commit).not.toBe(before);
    expect(existsSync(join(u.funesHome, "hook-refusals", "acme--team.json"))).toBe(false);

    // Taking funes out of the last agent bound to the memory drops the consent.
    const rm = await runFunes(["remove", "claude"], u);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(
      "dropped the consent to publish into hf://datasets/acme/team (no agent is bound to it now)",
    );
    expect(readdirSync(join(u.funesHome, "consent"))).toEqual([]);
  });

  it("on a terminal, add asks before joining a memory from a machine with no history; no installs nothing", async () => {
    const u = user("asked");
    const r = await runFunesInTerminal(["add", "claude", "acme/team"], u, ["n"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      "no claude sessions are indexed here yet: joining hf://datasets/acme/team publishes your claude sessions there as they end, beside what it holds. Join it? [Y/n] ",
    );
    expect(r.stdout).toContain("skipped — nothing installed");
    expect(existsSync(join(u.funesHome, "consent"))).toBe(false);
    expect(existsSync(join(u.home, ".claude", "settings.json"))).toBe(false);
  });

  it("a refused hook push shows in status and doctor with its fix, warns once on a terminal, and clears", async () => {
    const u = user("unconsented");
    writeSyntheticHistory(u.home, 1, 42);
    const push = await hookPush(u);
    expect(push.code).toBe(2);
    expect(push.stderr).toContain("shares none with your memory");

    const status = await runFunes(["status", "--json"], u);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).hookRefusals).toEqual([
      expect.objectContaining({
        memory: "acme/team",
        code: "declined",
        fix: "funes push acme/team --yes",
        message: expect.stringContaining("shares none with your memory"),
      }),
    ]);
    const doctor = await runFunes(["doctor", "--json"], u);
    expect(doctor.code).toBe(1);
    expect(JSON.parse(doctor.stdout)).toContainEqual(
      expect.objectContaining({ name: "hook push", status: "fail", fix: "funes push acme/team --yes" }),
    );

    const warning =
      "warning: a hook push to acme/team refused to publish — fix: funes push acme/team --yes (`funes status` says why)";
    const first = await runFunesInTerminal(["status"], u);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(warning);
    expect(first.stdout).toContain("hook push refused (acme/team, just now): hf://datasets/acme/team holds");
    const second = await runFunesInTerminal(["status"], u);
    expect(second.stdout).not.toContain(warning);
    // The same refusal at the next boundary is not warned of again.
    expect((await hookPush(u)).code).toBe(2);
    expect((await runFunesInTerminal(["models"], u)).stdout).not.toContain(warning);

    const fixed = await runFunes(["push", "acme/team", "--yes"], u);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse((await runFunes(["status", "--json"], u)).stdout).hookRefusals).toEqual([]);
  });
});
