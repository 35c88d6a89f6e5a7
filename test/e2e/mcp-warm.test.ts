/**
 * The MCP server keeps its memory's table open and what it read of each version (and its models' answers)
 * between calls. What another process writes meanwhile is what the next call answers from: a row
 * `funes forget` removed is never recalled again from what was kept, not even for the same question asked
 * again, and a session indexed since is found.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { connectMcp, type McpSession } from "../helpers/mcp.js";

/** A phrase of one chunk of the codex fixture. */
const PHRASE = "im a graphic designer";
const QUESTION = "graphic designer portfolio website";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
let mcp: McpSession;

async function recallText(query: string): Promise<string> {
  const text = await mcp.call("recall", { query, k: 10 });
  expect(text).not.toMatch(/^recall error/);
  return text;
}

beforeAll(async () => {
  t = tempDir();
  env = {
    home: join(t.dir, "home"),
    funesHome: join(t.dir, "funes"),
    extra: { HF_HUB_CACHE: TEST_HUB_CACHE },
  };
  mkdirSync(join(env.home, ".codex"), { recursive: true });
  copyFixture("codex", join(env.home, ".codex", "sessions"));
  const r = await runFunes(["index", "--yes"], env);
  expect(r.code, r.stderr).toBe(0);
  mcp = await connectMcp([], env);
});

afterAll(async () => {
  await mcp?.close();
  t?.cleanup();
});

describe("a warm MCP server", () => {
  it("never recalls a row forgotten since its last call, even for the same question", async () => {
    // Asked twice, so the second answer comes from what the server kept.
    expect(await recallText(QUESTION)).toContain(PHRASE);
    expect(await recallText(QUESTION)).toContain(PHRASE);
    const f = await runFunes(["forget", "--match", PHRASE, "--yes", "--json"], env);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout)).toMatchObject({ done: true, forgotten: 1 });
    const after = await recallText(QUESTION);
    expect(after).not.toContain(PHRASE);
    expect(after).toContain("→ get ");
  });

  it("finds a session indexed since its last call", async () => {
    expect(await recallText("earth textures three.js")).not.toContain("claude_code");
    mkdirSync(join(env.home, ".claude", "projects", "-home-dev-earth"), { recursive: true });
    copyFixture("claude", join(env.home, ".claude", "projects", "-home-dev-earth"));
    const r = await runFunes(["index", "--yes"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(await recallText("earth textures three.js")).toMatch(/earth/i);
  });
});
