/**
 * What a person sees on a real pseudo-terminal of a given size (test/helpers/pty.ts replays the output
 * through a small terminal emulator): recall's view fits the screen with the top passages on it and no
 * line the terminal has to break, its short `get` line works, a question re-asks what it does not
 * understand and never echoes an arrow key, and saying no is the documented exit code.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes, spawnFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { runFunesInPty } from "../helpers/pty.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
/** Eight keyword hits in the memory below. */
const QUERY = "workspace files command";

beforeAll(async () => {
  t = tempDir();
  // Indexed with the (test) models; recalled where they are not: recall is keyword-only and not
  // reranked, and says so in two notes on stderr (about 150 characters each), which take their rows on
  // the screen too.
  const indexing = { home: t.dir, funesHome: join(t.dir, ".funes"), extra: { HF_HUB_CACHE: TEST_HUB_CACHE } };
  env = { ...indexing, extra: { HF_HUB_CACHE: join(t.dir, "no-models") } };
  // Codex sessions have 36-character ids, and turn ids longer still.
  for (const [agent, file] of [
    ["codex", "codex_session.jsonl"],
    ["codex", "agent-sessions-schema-catalog.jsonl"],
    ["claude", "claude_session.jsonl"],
    ["claude", "episodic-memory-medium.jsonl"],
    ["claude", "agent-sessions-schema-catalog.jsonl"],
  ] as const) {
    const to = join(t.dir, "traces", agent);
    mkdirSync(to, { recursive: true });
    copyFileSync(join(TRACES, agent, file), join(to, file));
    const r = await runFunes(["index", join(to, file), "--yes"], indexing);
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(() => t.cleanup());

/** The hits on the screen: each header's row, and whether passage text follows it. */
function hitsOn(rows: string[]): { header: string; text: boolean }[] {
  return rows.flatMap((r, i) =>
    /^\d+\. /.test(r) ? [{ header: r, text: !/^\s*→ funes get /.test(rows[i + 1] ?? "") }] : [],
  );
}

describe.each([
  { cols: 80, rows: 24 },
  { cols: 120, rows: 15 },
])("recall on a $cols×$rows terminal", ({ cols, rows }) => {
  it("fits the screen, notes included, with the top hits' passages on it and no line broken by the terminal", async () => {
    const r = await runFunesInPty(["recall", QUERY], env, { cols, rows });
    expect(r.code, r.raw).toBe(0);
    const shown = r.screen.visible();
    const why = `${r.raw}\n---\n${shown.join("\n")}`;
    // Nothing scrolled away: the note and hit 1 are on the screen, and a row is left for the prompt.
    expect(r.screen.rowsUsed(), why).toBeLessThanOrEqual(rows);
    expect(shown.at(-1), why).toBe("");
    expect(shown[0], why).toMatch(/^note: keyword-only recall/);
    expect(shown.join("\n"), why).toContain("note: not reranked");
    // No line reached the edge and went on: nothing is broken mid-word.
    expect(r.screen.wraps, why).toBe(0);
    const hits = hitsOn(shown);
    expect(hits[0]?.header, why).toMatch(/^1\. /);
    expect(hits[0]?.text, why).toBe(true);
    expect(hits.filter((h) => h.text).length, why).toBeGreaterThanOrEqual(2);
    // The short get line is one a person can run as it is.
    const getLine = shown.find((l) => /^\s*→ funes get /.test(l)) ?? "";
    const words = getLine.trim().split(/\s+/).slice(3, 5);
    expect(words.join(" ").length, why).toBeLessThanOrEqual(40);
    const get = await runFunes(["get", ...words, "--window", "0"], env);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain("turn=");
  });
});

describe("recall's notes", () => {
  it("go to stderr when the output is piped, as on a terminal", async () => {
    const piped = await spawnFunes(["recall", QUERY], env);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/^note: keyword-only recall/);
    expect(piped.stdout).not.toContain("note:");
    expect(piped.stdout).toMatch(/^\[\d{4}-/);
  });
});

describe("a question on a terminal", () => {
  it("asks again what it does not understand, never echoes an arrow key, and a no is exit 2", async () => {
    const r = await runFunesInPty(["forget", "--match", "workspace"], env, {
      cols: 80,
      rows: 24,
      keys: [
        { after: /\[y\/N\] $/, type: "maybe\r" },
        { after: /please answer y or n/, type: "\x1b[A\x1b[Bn\r" },
      ],
    });
    const shown = r.screen.visible().join("\n");
    expect(shown, r.raw).toContain('please answer y or n (not "maybe")');
    expect(r.raw).not.toContain("^[[A");
    expect(shown).toMatch(/\[y\/N\] n\n/);
    expect(shown).toContain("funes: nothing was forgotten: you answered no");
    expect(r.screen.wraps, shown).toBe(0);
    expect(r.code).toBe(2);
    // Nothing was forgotten.
    const again = await spawnFunes(["recall", "workspace", "--json"], env);
    expect(JSON.parse(again.stdout).hits.length).toBeGreaterThan(0);
  });
});
