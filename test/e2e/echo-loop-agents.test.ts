/**
 * The loop a team lives in, with the real Claude Code CLI (2.1.197) against a loopback model: machine A
 * publishes a decision to a Hub memory (the loopback stand-in); machine B has `funes add claude acme/mem`,
 * and asks about it three times. Each headless turn's model calls funes's recall; Claude's hook indexes the
 * turn (its question, the call, funes's output quoting A's passage, the answer), and B publishes it to the
 * same memory, so every later recall searches a memory that holds more copies of the passage. The first,
 * second and third recalls must all return A's original first; forgetting the original on the Hub then
 * leaves no recallable copy of it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/agents/index.js";
import { type CliEnv, hubUser, runFunes } from "../helpers/cli.js";
import { writeDecisions } from "../helpers/echo-loop.js";
import { ROOT, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { startModelStub } from "../helpers/model-stubs.js";
import { until } from "../helpers/wait.js";

const BIN = join(ROOT, "node_modules", ".bin");
const TOKEN = "hf_standintokenforecholoop";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function user(name: string): CliEnv & { env: Record<string, string> } {
  const u = hubUser({ dir: t.dir, name, hubUrl: hub.url, token: TOKEN });
  const extra = {
    ...u.extra,
    PATH: `${BIN}:${process.env.PATH ?? ""}`,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    FUNES_SERVER: "0",
  };
  return { ...u, extra, env: { ...extra, HOME: u.home, FUNES_HOME: u.funesHome } };
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("a decision recalled again and again across two machines", () => {
  it("the second and third recalls still return the original first", async () => {
    const a = user("a");
    const { decisions } = writeDecisions(a.home, { seed: 77, count: 3, lookalikes: 2 });
    const d = decisions[0];
    if (d === undefined) throw new Error("no decision written");
    expect((await runFunes(["index", "--yes"], a)).code).toBe(0);
    const push = await runFunes(["push", "acme/mem", "--create"], a);
    expect(push.code, push.stderr).toBe(0);

    const b = user("b");
    const add = await runFunes(["add", "claude", "acme/mem", "--yes"], b);
    expect(add.code, add.stderr).toBe(0);
    const caller = await startModelStub("Recalled it.", {
      name: "mcp__funes__recall",
      arguments: { query: d.query },
    });
    const log = join(b.home, ".funes", "integrations", "claude-plugin", "funes", "scripts", "funes-sync.log");
    const indexed = () =>
      existsSync(log) ? readFileSync(log, "utf8").split("index[claude]: ok").length - 1 : 0;
    const firstSessions: string[] = [];
    const answers: string[] = [];
    try {
      for (let turn = 1; turn <= 3; turn++) {
        const before = caller.requests.length;
        const ran = await runCli("claude", ["-p", `${d.query}?`, "--output-format", "json"], {
          env: { ...b.env, ANTHROPIC_BASE_URL: caller.url, ANTHROPIC_API_KEY: "sk-ant-stub" },
          cwd: b.home,
        });
        expect(ran.kind === "ran" && ran.stdout, ran.kind === "ran" ? ran.stderr : ran.kind).toContain(
          "Recalled it.",
        );
        type Block = { type: string; content?: { text?: string }[] | string };
        const results = caller.requests
          .slice(before)
          .flatMap((r) =>
            ((r.body.messages ?? []) as { content: Block[] | string }[]).flatMap((m) =>
              typeof m.content === "string" ? [] : m.content.filter((x) => x.type === "tool_result"),
            ),
          );
        const content = results.at(-1)?.content;
        const text = typeof content === "string" ? content : (content?.[0]?.text ?? "");
        firstSessions.push(/→ get (\S+) /.exec(text)?.[1] ?? "(none)");
        answers.push(text.slice(0, 600));
        // The turn's hook indexes it on B; B publishes it to the memory both machines read.
        expect(await until(() => indexed() >= turn, 60_000), `turn ${turn} indexed`).toBe(true);
        const published = await runFunes(["push", "acme/mem", "--yes"], b);
        expect(published.code, published.stderr).toBe(0);
      }
    } finally {
      await caller.close();
    }
    expect(firstSessions, answers.join("\n---\n")).toEqual([
      d.answerSession,
      d.answerSession,
      d.answerSession,
    ]);
    // The memory both read does hold B's echoes of the passage, and shows them on request.
    const shown = await runFunes(
      ["recall", d.query, "--memory", "acme/mem", "--echoes", "--json", "-k", "30"],
      a,
    );
    expect(shown.code, shown.stderr).toBe(0);
    const hits = JSON.parse(shown.stdout).hits as { kind: string; sessionId: string }[];
    expect(hits.filter((h) => h.kind === "echo").length).toBeGreaterThanOrEqual(3);
    expect(hits[0]?.sessionId).toBe(d.answerSession);
    // Forgetting the original on the Hub takes B's published copies of it too, and says so first.
    const forget = await runFunes(
      ["forget", "--session", d.answerSession, "--memory", "acme/mem", "--yes"],
      a,
    );
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toMatch(/of them copies/);
    const after = await runFunes(
      ["recall", d.query, "--memory", "acme/mem", "--echoes", "--json", "-k", "50"],
      a,
    );
    expect(after.code, after.stderr).toBe(0);
    const left = JSON.parse(after.stdout).hits as { text: string }[];
    expect(left.filter((h) => h.text.includes(d.answer)).map((h) => h.text)).toEqual([]);
    expect((await runFunes(["remove", "claude"], b)).code).toBe(0);
  }, 240_000);
});
