/**
 * What `funes add` does on a first run, with the real `codex` CLI and the loopback Hub stand-in: on a
 * terminal it asks before indexing and before creating a repo; off a terminal it never asks, and what
 * would need an answer fails naming the flag; with consent the memory is created private and pushed once.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { ROOT, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";

const BIN = join(ROOT, "node_modules", ".bin");
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function user(name: string): CliEnv {
  const home = join(t.dir, name);
  const sessions = join(home, ".codex", "sessions", "2026", "06", "23");
  mkdirSync(sessions, { recursive: true });
  copyFileSync(join(TRACES, "codex", "codex_session.jsonl"), join(sessions, "rollout-a.jsonl"));
  return {
    home,
    funesHome: join(home, ".funes"),
    extra: {
      PATH: `${BIN}:${process.env.PATH ?? ""}`,
      HF_HUB_CACHE: TEST_HUB_CACHE,
      HF_ENDPOINT: hub.url,
      HF_TOKEN: "hf_standintokenforaddtests",
    },
  };
}

async function rows(funesHome: string): Promise<number> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  try {
    return (await store?.table.countRows()) ?? 0;
  } finally {
    store?.close();
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

describe("funes add, first run", () => {
  it("on a terminal asks before indexing and before creating the memory, then publishes it", async () => {
    const u = user("tty");
    const r = await runFunesInTerminal(["add", "codex", "acme/team-memory"], u, ["y", ""]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(
      "hf://datasets/acme/team-memory doesn't exist on the Hub. Create it as a private dataset? [y/N] ",
    );
    expect(r.stdout).toContain("funes will index your recent codex sessions so recall works right away");
    expect(r.stdout).toContain("[Y/n] ");
    expect(hub.repos.get("acme/team-memory")?.private).toBe(true);
    expect(await rows(u.funesHome)).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/published \d+ chunks to hf:\/\/datasets\/acme\/team-memory/);
  });

  it("checks for the agent's CLI before it asks or indexes, and says what it did when it stops half way", async () => {
    const u = user("no-cli");
    const noCli = await runFunesInTerminal(["add", "claude"], {
      ...u,
      extra: { ...u.extra, PATH: "/usr/bin:/bin" },
    });
    expect(noCli.code).toBe(1);
    expect(noCli.stdout.replaceAll("\r", "")).toBe(
      "funes: `claude` isn't on PATH, so funes can't be set up in it — install claude, then run `funes add claude` again (nothing was changed)\n",
    );
    expect(await rows(u.funesHome)).toBe(0);

    // Set up, then the model download fails (no connection): the set-up completed, so it exits 0, and
    // what is left (the models) is the last line, a warning.
    const half = user("half");
    const away = {
      ...half,
      extra: { ...half.extra, HF_HUB_CACHE: join(t.dir, "no-models"), HF_ENDPOINT: "http://127.0.0.1:9" },
    };
    const r = await runFunesInTerminal(["add", "codex"], away, ["y", "y"]);
    const out = r.stdout.replaceAll("\r", "").replaceAll("\x1b[2K", "");
    expect(r.code, out).toBe(0);
    expect(out).toMatch(/indexed 1 session \(\d+ chunks\) — recall works now\n/);
    expect(out).toContain("download them now? [Y/n] ");
    const flat = out.replace(/\n +/g, " ");
    expect(flat).toMatch(
      /\nwarning: funes is set up in codex, but the models were not downloaded \(could not download BAAI\/bge-small-en-v1\.5 from http:\/\/127\.0\.0\.1:9: [^\n]*\) — until `funes models pull` succeeds, recall finds passages by keyword only/,
    );
    expect(out).not.toContain("funes: ");
    // The lines above it name what was installed.
    expect(out.slice(0, out.lastIndexOf("warning: funes is set up"))).toMatch(/codex/);
  });

  it("off a terminal never asks: it names the flag, and with the flags does everything", async () => {
    const u = user("script");
    const missing = await runFunes(["add", "codex", "acme/scripted", "--yes"], u);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("doesn't exist on the Hub — pass --create to create it (private)");
    const noYes = await runFunes(["add", "codex"], u);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain("can't ask with --quiet or off a terminal — pass --yes");
    expect(await rows(u.funesHome)).toBe(0);
    const ok = await runFunes(["add", "codex", "acme/scripted", "--yes", "--create", "--json"], u);
    expect(ok.code, ok.stderr).toBe(0);
    const s = JSON.parse(ok.stdout);
    expect(s).toMatchObject({ agent: "codex", memory: "acme/scripted", created: true });
    expect(s.indexed.sessions).toBe(1);
    expect(s.pushed.published).toBeGreaterThan(0);
    expect(hub.repos.get("acme/scripted")?.private).toBe(true);
    const bad = await runFunes(["add", "vim"], u);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'funes add takes an agent: claude, codex, hermes, pi, gemini, qwen, opencode, copilot, not "vim" — see funes add --help',
    );
  });
});
