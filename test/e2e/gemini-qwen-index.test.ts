/**
 * Gemini CLI's and Qwen Code's folders as `funes index` walks them, moved or not. A Gemini CLI session
 * indexed while it grows — before a resume, then after the resume rewrote its message list — ends with
 * exactly the rows of the whole file indexed once: no turn doubled, none lost; status and recall name the
 * agent.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../src/local/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { copyFixture, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";

const NAME = "session-2026-12-01T23-39-b5c61e55.jsonl";
let t: { dir: string; cleanup: () => void };

beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

function user(name: string): CliEnv & { chats: string } {
  const home = join(t.dir, name);
  const project = join(home, ".gemini", "tmp", "app");
  mkdirSync(join(project, "chats"), { recursive: true });
  copyFixture("gemini/tmp/app/.project_root", join(project, ".project_root"));
  return {
    home,
    funesHome: join(home, ".funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE },
    chats: join(project, "chats"),
  };
}

async function ids(funesHome: string): Promise<string[]> {
  const store = await LocalStore.open(join(funesHome, "memory"));
  try {
    const rows = (await store?.table.query().select(["id"]).toArray()) ?? [];
    return rows.map((r) => String(r.id)).sort();
  } finally {
    store?.close();
  }
}

describe("Gemini CLI and Qwen Code sessions, indexed", () => {
  it("a Gemini session indexed as it grows stores what one read of the whole file stores", async () => {
    const lines = readFileSync(join(TRACES, "gemini", "tmp", "app", "chats", NAME), "utf8").split("\n");
    const growing = user("growing");
    // The file as it was after the first turn (11 lines), then after `--resume` and a second turn.
    writeFileSync(join(growing.chats, NAME), `${lines.slice(0, 11).join("\n")}\n`);
    const first = await runFunes(["index", "--harness", "gemini"], growing);
    expect(first.code, first.stderr).toBe(0);
    const before = await ids(growing.funesHome);
    writeFileSync(join(growing.chats, NAME), lines.join("\n"));
    const second = await runFunes(["index", "--harness", "gemini"], growing);
    expect(second.code, second.stderr).toBe(0);

    const whole = user("whole");
    writeFileSync(join(whole.chats, NAME), lines.join("\n"));
    expect((await runFunes(["index", "--harness", "gemini"], whole)).code).toBe(0);
    const once = await ids(whole.funesHome);
    expect(before.length).toBeGreaterThan(0);
    expect(once.length).toBeGreaterThan(before.length);
    expect(await ids(growing.funesHome)).toEqual(once);
    // Status counts the agent; `--harness gemini` finds its turns, labelled with it.
    const status = JSON.parse((await runFunes(["status", "--json"], whole)).stdout);
    expect(JSON.stringify(status)).toContain('"harness":"gemini"');
    const hits = await runFunes(
      ["recall", "which file was it in", "--harness", "gemini", "--format", "agent"],
      whole,
    );
    expect(hits.code, hits.stderr).toBe(0);
    expect(hits.stdout).toMatch(/\] gemini -tmp-gemini-fixture-home-app\/b5c61e55/);
  });

  it("finds Gemini CLI's and Qwen Code's sessions where GEMINI_CLI_HOME and QWEN_HOME moved them", async () => {
    const home = join(t.dir, "moved");
    const elsewhere = join(t.dir, "elsewhere");
    copyFixture("gemini/tmp", join(elsewhere, "gemini-home", ".gemini", "tmp"));
    copyFixture("qwen/projects", join(elsewhere, "qwen", "projects"));
    const r = await runFunes(["index", "--json"], {
      home,
      funesHome: join(home, ".funes"),
      extra: {
        HF_HUB_CACHE: TEST_HUB_CACHE,
        GEMINI_CLI_HOME: join(elsewhere, "gemini-home"),
        QWEN_HOME: join(elsewhere, "qwen"),
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toBe(4);
  });
});
