/**
 * `funes add` on a real 80×24 pseudo-terminal (test/helpers/pty.ts replays the output through a small
 * terminal emulator), with the real `codex` CLI on PATH and no models downloaded: `--yes` asks nothing and
 * takes the default answers (the models are downloaded; here the download fails, which leaves a complete
 * set-up and a warning, exit 0); without it the models question is asked, and an answer it does not
 * understand is asked again; `--quiet` asks nothing either, and what would need an answer names `--yes`.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { ROOT, TRACES, tempDir } from "../helpers/fixtures.js";
import { runFunesInPty } from "../helpers/pty.js";

const SIZE = { cols: 80, rows: 24 };
let t: { dir: string; cleanup: () => void };

/** A person with one Codex session, the real codex CLI, no models, and a Hub that refuses connections. */
function user(name: string): CliEnv {
  const home = join(t.dir, name);
  const sessions = join(home, ".codex", "sessions", "2026", "06", "23");
  mkdirSync(sessions, { recursive: true });
  copyFileSync(join(TRACES, "codex", "codex_session.jsonl"), join(sessions, "rollout-a.jsonl"));
  return {
    home,
    funesHome: join(home, ".funes"),
    extra: {
      PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      HF_HUB_CACHE: join(home, "hf"),
      HF_ENDPOINT: "http://127.0.0.1:9",
    },
  };
}

/** Every question funes asks ends with one of these. */
const QUESTION = /\[Y\/n\]|\[y\/N\]/;

beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

describe("funes add codex on an 80×24 terminal", () => {
  it("with --yes asks nothing, says it downloads the models, and exits 0 with the set-up done", async () => {
    const u = user("yes");
    // Were a question asked after all, Enter answers it (and the test says so) rather than the run waiting.
    const r = await runFunesInPty(["add", "codex", "--yes"], u, {
      ...SIZE,
      keys: [{ after: /\[(?:Y\/n|y\/N)\] $/, type: "\r" }],
    });
    const shown = r.screen.lines.map((l) => l.join("").trimEnd()).join("\n");
    const why = `${r.raw}\n---\n${shown}`;
    expect(r.code, why).toBe(0);
    expect(r.raw, why).not.toMatch(QUESTION);
    // One session: said in the singular.
    expect(shown, why).toMatch(/^indexed 1 session \(\d+ chunks?\) — recall works now$/m);
    expect(shown, why).toMatch(/^downloading the models \(BAAI\/bge-small-en-v1\.5 and/m);
    expect(shown, why).toContain("warning: funes is set up in codex, but the models were not downloaded");
    expect(existsSync(join(u.home, ".funes", "memory")), why).toBe(true);
  });

  it("without --yes asks about the models, and asks again what it does not understand", async () => {
    const u = user("asked");
    const r = await runFunesInPty(["add", "codex"], u, {
      ...SIZE,
      keys: [
        // Index first: the default (yes).
        { after: /\[Y\/n\] $/, type: "\r" },
        { after: /download them now\? \[Y\/n\] $/, type: "maybe\r" },
        { after: /please answer y or n/, type: "n\r" },
      ],
    });
    const shown = r.screen.lines.map((l) => l.join("").trimEnd()).join("\n");
    const why = `${r.raw}\n---\n${shown}`;
    expect(r.code, why).toBe(0);
    expect(shown, why).toContain('please answer y or n (not "maybe")');
    const asked = shown.split("\n").filter((l) => /download them now\? \[Y\/n\]/.test(l));
    expect(asked, why).toEqual([
      expect.stringMatching(/\[Y\/n\] maybe$/),
      expect.stringMatching(/\[Y\/n\] n$/),
    ]);
    // Answered no: what recall does meanwhile, as a warning, and nothing downloaded.
    expect(shown.replace(/\n +/g, " "), why).toContain(
      "warning: the models are not here (BAAI/bge-small-en-v1.5 and Xenova/ms-marco-MiniLM-L-6-v2): until `funes models pull`",
    );
    expect(shown, why).not.toContain("downloading the models");
  });

  it("with --quiet asks nothing: what needs an answer fails naming --quiet and --yes (exit 2)", async () => {
    const u = user("quiet");
    const r = await runFunesInPty(["add", "codex", "--quiet"], u, {
      ...SIZE,
      keys: [{ after: /\[(?:Y\/n|y\/N)\] $/, type: "\r" }],
    });
    const shown = r.screen.lines.map((l) => l.join("").trimEnd()).join("\n");
    const why = `${r.raw}\n---\n${shown}`;
    expect(r.code, why).toBe(2);
    expect(r.raw, why).not.toMatch(QUESTION);
    // On a terminal, "off a terminal" would not be true: the message says why it did not ask.
    expect(shown.replace(/\n +/g, " "), why).toContain(
      "can't ask with --quiet or off a terminal — pass --yes",
    );
    expect(existsSync(join(u.home, ".funes", "memory")), why).toBe(false);
    // With --yes as well it does the set-up and shows no progress: only the warning of what is left.
    const done = await runFunesInPty(["add", "codex", "--quiet", "--yes"], u, SIZE);
    const rest = done.screen.lines.map((l) => l.join("").trimEnd()).join("\n");
    expect(done.code, done.raw).toBe(0);
    // (--quiet counts stderr as no terminal, so the warning is not fitted to the width: rows are joined.)
    expect(rest.replace(/\n/g, ""), done.raw).toMatch(
      /^warning: funes is set up in codex, but the models were not downloaded \(.*\) — until `funes models pull` succeeds, recall finds passages by keyword only, and new chunks wait for their vectors$/,
    );
    expect(existsSync(join(u.home, ".funes", "memory")), done.raw).toBe(true);
  });

  it("off a terminal, --yes takes the same default: it downloads the models unasked", async () => {
    const r = await runFunes(["add", "codex", "--yes"], user("script"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^indexed 1 session \(\d+ chunks?\) — recall works now$/m);
    expect(r.stderr).toContain(
      "downloading the models (BAAI/bge-small-en-v1.5 and Xenova/ms-marco-MiniLM-L-6-v2), which are not here yet (--yes)\n",
    );
    expect(r.stderr).toContain("warning: funes is set up in codex, but the models were not downloaded");
  });
});
