/**
 * `funes doctor` and how agents are registered: each check with its fix, a broken agent wiring caught,
 * HF_HUB_OFFLINE honoured; agents run the `funes` on PATH when it is this install.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

/** A user with pi sessions, a stand-in `pi`, and `funes` on PATH as a link to the built CLI. */
function user(name: string, extra: Record<string, string> = {}): CliEnv & { bin: string } {
  const home = join(t.dir, name);
  const bin = join(home, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "pi"), '#!/usr/bin/env bash\n[ "$1" = "--version" ] && echo "pi 0.0.0"\nexit 0\n');
  chmodSync(join(bin, "pi"), 0o755);
  symlinkSync(CLI, join(bin, "funes"));
  const sessions = join(home, ".pi", "agent", "sessions", "--home-dev-app--");
  mkdirSync(sessions, { recursive: true });
  copyFileSync(join(TRACES, "pi", "pi_session.jsonl"), join(sessions, "s.jsonl"));
  return {
    home,
    bin,
    funesHome: join(home, ".funes"),
    extra: {
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HF_HUB_CACHE: TEST_HUB_CACHE,
      HF_ENDPOINT: hub.url,
      COLUMNS: "100",
      ...extra,
    },
  };
}

describe("funes doctor", () => {
  it("checks everything with a fix for each problem, and catches an agent whose funes is gone", async () => {
    const u = user("doc", { HF_TOKEN: "hf_standintokenfordoctor" });
    expect((await runFunes(["index"], u)).code).toBe(0);
    expect((await runFunes(["add", "pi"], u)).code).toBe(0);
    // Registered with the `funes` on PATH (this install), not this checkout's absolute script path.
    const ext = join(u.home, ".funes", "integrations", "pi", "index.js");
    expect(readFileSync(ext, "utf8")).toContain(`const FUNES = ${JSON.stringify([join(u.bin, "funes")])};`);

    const ok = await runFunes(["doctor"], u);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok {2}node +Node \d+\.\d+\.\d+\n/);
    expect(ok.stdout).toMatch(/\nok {2}embedder +BAAI\/bge-small-en-v1\.5 loads/);
    expect(ok.stdout).toMatch(/\nok {2}hub +http:\/\/127\.0\.0\.1:\d+ reachable; token of standin-user\n/);
    expect(ok.stdout).toMatch(/\nok {2}agent pi +wired/);
    // The agents funes is not set up in: one entry (wrapped to the terminal's width), not two per agent.
    expect(ok.stdout).toMatch(
      /\n-- {2}agents +not set up in [a-z, ]*codex[a-z, ]*\s+\(`funes\s+add\s+<agent>`\s+sets\s+one\s+up\)\n/,
    );
    expect(ok.stdout).not.toMatch(/agent codex|fix: funes add codex/);
    expect(ok.stdout).toMatch(/\n(ok|!!) {2}memory +\d+ chunks from 1 sessions at /);
    expect(ok.stdout).toMatch(/\nok {2}lock +no index or push is running\n/);

    // status names the agents funes is set up in.
    expect((await runFunes(["status"], u)).stdout).toMatch(/\nagents: pi\n$/);

    // The funes the extension runs disappears (uninstalled, or a checkout moved away).
    writeFileSync(ext, readFileSync(ext, "utf8").replace(join(u.bin, "funes"), join(u.bin, "gone", "funes")));
    expect((await runFunes(["status", "--json"], u)).stdout).toContain(
      '"agents": [\n    {\n      "agent": "pi",\n      "ok": false',
    );
    const broken = await runFunes(["doctor"], u);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /\nXX {2}agent pi +the pi extension runs ".*gone\/funes", which no\s+longer\s+exists\n +fix: funes add pi\n/,
    );
    expect(broken.stderr).toBe(
      "funes: doctor found 1 problem: agent pi — fix what each says above, then run `funes doctor` again\n",
    );
  });

  it("fails on an unreachable Hub only for someone who uses a Hub memory", async () => {
    const refused = "http://127.0.0.1:9";
    const local = user("local-only", { HF_ENDPOINT: refused });
    expect((await runFunes(["index"], local)).code).toBe(0);
    const alone = await runFunes(["doctor", "--json"], local);
    expect(alone.code, alone.stderr).toBe(0);
    const hubOf = (out: string) => (JSON.parse(out) as { name: string }[]).find((c) => c.name === "hub");
    expect(hubOf(alone.stdout)).toMatchObject({ status: "warn" });
    expect(JSON.stringify(hubOf(alone.stdout))).toContain("needed only to read or publish a Hub memory");
    // Someone who published from here set out to use the Hub: the same finding fails.
    const pub = user("publisher", { HF_TOKEN: "hf_standintokenfordoctor" });
    expect((await runFunes(["index", "--yes"], pub)).code).toBe(0);
    const push = await runFunes(["push", "acme/doctor-pub", "--create"], pub);
    expect(push.code, push.stderr).toBe(0);
    const away = await runFunes(["doctor"], { ...pub, extra: { ...pub.extra, HF_ENDPOINT: refused } });
    expect(away.code).toBe(1);
    expect(away.stderr).toMatch(/^funes: doctor found 1 problem: hub — /);
  });

  it("says how to log in without a token, and asks nothing of the Hub with HF_HUB_OFFLINE=1", async () => {
    const anon = await runFunes(["doctor", "--json"], user("anon"));
    const hubCheck = (JSON.parse(anon.stdout) as { name: string }[]).find((c) => c.name === "hub");
    expect(hubCheck).toMatchObject({ status: "warn", fix: "hf auth login (or set HF_TOKEN)" });
    const before = hub.requests.length;
    const off = await runFunes(["doctor"], user("off", { HF_HUB_OFFLINE: "1", HF_TOKEN: "hf_x" }));
    expect(off.stdout).toMatch(/\n-- {2}hub +HF_HUB_OFFLINE is set: http:\/\/127\.0\.0\.1:\d+ not asked\n/);
    expect(hub.requests.length).toBe(before);
  });

  it("add says what recall does without models; remove --all takes funes out of every agent", async () => {
    const u = user("all", { HF_HUB_CACHE: join(t.dir, "empty-hf") });
    const add = await runFunes(["add", "pi"], u);
    expect(add.code, add.stderr).toBe(0);
    // A set-up that completed: what is left (the models) is a warning on stderr.
    expect(add.stderr).toContain(
      "warning: the models are not here (BAAI/bge-small-en-v1.5 and Xenova/ms-marco-MiniLM-L-6-v2): until `funes models pull`, recall finds passages by keyword only",
    );
    const all = await runFunes(["remove", "--all"], u);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("pi");
    expect(existsSync(join(u.home, ".funes", "integrations", "pi"))).toBe(false);
    const none = await runFunes(["remove", "--all"], u);
    expect(none.stdout).toBe("funes is not set up in any agent — nothing to remove\n");
    const both = await runFunes(["remove", "pi", "--all"], u);
    expect(both.code).toBe(2);
  });

  it("catches a disabled Claude hooks plugin", async () => {
    const u = user("claude-off");
    // What `funes add claude` and Claude's own commands leave, with the plugin then disabled by the user.
    const scripts = join(u.home, ".funes", "integrations", "claude-plugin", "funes", "scripts");
    mkdirSync(scripts, { recursive: true });
    writeFileSync(join(scripts, "funes-index.sh"), `FUNES=('${join(u.bin, "funes")}')\n`);
    writeFileSync(
      join(u.home, ".claude.json"),
      JSON.stringify({ mcpServers: { funes: { command: join(u.bin, "funes"), args: ["mcp"] } } }),
    );
    mkdirSync(join(u.home, ".claude"), { recursive: true });
    writeFileSync(
      join(u.home, ".claude", "settings.json"),
      JSON.stringify({ enabledPlugins: { "funes@huggingface": false } }),
    );
    const r = await runFunes(["doctor", "--json"], u);
    const claude = (JSON.parse(r.stdout) as { name: string }[]).find((c) => c.name === "agent claude");
    expect(claude).toMatchObject({
      status: "fail",
      detail: "the funes hooks plugin is disabled in Claude Code (`claude plugin enable funes@huggingface`)",
    });
  });
});
