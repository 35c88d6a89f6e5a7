/**
 * A memory outlives the agents' own clean-up: Claude Code deletes transcripts after about 30 days by default
 * (`cleanupPeriodDays`), Gemini CLI after 30 (`general.sessionRetention`). Once indexed, a session stays in
 * funes's memory when its transcript is gone: recall, get and sessions still answer from it, a re-index
 * (the whole home, or that agent alone) drops nothing, and a push publishes it.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforcleanup";
const DECISION = "We keep the quarantine bucket for ninety days because the auditors asked for it.";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let env: CliEnv;
let transcript: string;

function line(uuid: string, role: "user" | "assistant", text: string, ts: string): string {
  return JSON.stringify({
    type: role,
    uuid,
    sessionId: "sess-cleanup",
    timestamp: ts,
    cwd: "/home/dev/app",
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  });
}

interface Recalled {
  hits: { sessionId: string; turnUuid: string; text: string }[];
}

async function recallDecision(): Promise<Recalled> {
  const r = await runFunes(["recall", "quarantine bucket auditors", "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Recalled;
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  const home = join(t.dir, "home");
  const proj = join(home, ".claude", "projects", "-home-dev-app");
  mkdirSync(proj, { recursive: true });
  transcript = join(proj, "sess-cleanup.jsonl");
  writeFileSync(
    transcript,
    `${[
      line("q-1", "user", "how long do we keep the quarantine bucket?", "2026-10-01T10:00:00.000Z"),
      line("a-1", "assistant", DECISION, "2026-10-01T10:00:05.000Z"),
    ].join("\n")}\n`,
  );
  env = {
    home,
    funesHome: join(t.dir, "funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN },
  };
  expect((await runFunes(["index", "--yes"], env)).code).toBe(0);
  expect((await recallDecision()).hits[0]?.turnUuid).toBe("a-1");
  // The agent's clean-up: the transcript, and its project folder, are gone.
  rmSync(join(home, ".claude", "projects"), { recursive: true, force: true });
});
afterAll(async () => {
  await hub?.close();
  t?.cleanup();
});

describe("a session whose transcript the agent deleted", () => {
  it("is still recalled, read and listed", async () => {
    const hit = (await recallDecision()).hits[0];
    expect(hit?.turnUuid).toBe("a-1");
    expect(hit?.text).toContain("ninety days");
    const got = await runFunes(["get", "sess-cleanup", "a-1"], env);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain("ninety days");
    const listed = await runFunes(["sessions", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain("sess-cleanup");
  });

  it("survives a re-index of the whole home and of that agent alone", async () => {
    for (const args of [
      ["index", "--yes"],
      ["index", "--yes", "--harness", "claude"],
      ["index", "--yes", "--force"],
    ]) {
      const r = await runFunes(args, env);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect((await recallDecision()).hits[0]?.turnUuid, args.join(" ")).toBe("a-1");
    }
  });

  it("is published by a push, and a reader of the Hub memory recalls it", async () => {
    const pushed = await runFunes(["push", "acme/kept", "--create"], env);
    expect(pushed.code, pushed.stderr).toBe(0);
    const r = await runFunes(
      ["recall", "quarantine bucket auditors", "--memory", "acme/kept", "--json"],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Recalled).hits[0]?.text).toContain("ninety days");
  });
});
