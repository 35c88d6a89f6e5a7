/**
 * The registry of agents agrees with every other place an agent is named: `traces/` (a layer below, which
 * keeps its own harness list), the per-agent code of the agents layer (inspection, hook logs, setup), and
 * `ask`'s runs. test/e2e/agent-lists.test.ts checks what the built CLI and MCP server derive from it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { knownRoots, parseHarness } from "../traces/index.js";
import { askSpec } from "./ask-run.js";
import { hookLogPaths } from "./hook-log.js";
import { inspectAgents } from "./inspect.js";
import { AGENT_NAMES, AGENTS, ASK_AGENTS, agentNamed, agentOfHarness, orList } from "./registry.js";

describe("the agent registry", () => {
  const home = mkdtempSync(join(tmpdir(), "funes-registry-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("names each agent once, each with a harness of its own", () => {
    expect(new Set(AGENT_NAMES).size).toBe(AGENTS.length);
    expect(new Set(AGENTS.map((a) => a.harness)).size).toBe(AGENTS.length);
    for (const a of AGENTS) expect(agentOfHarness(a.harness)).toBe(a.name);
    expect(agentOfHarness("cursor")).toBeNull();
  });

  it("agrees with traces/: each name is a --harness spelling of its harness, and every known folder is an agent's", () => {
    for (const a of AGENTS) expect(parseHarness(a.name)).toBe(a.harness);
    const walked = new Set(knownRoots(home).map((r) => r.harness));
    expect(walked).toEqual(new Set(AGENTS.map((a) => a.harness)));
  });

  it("has each agent's inspection and a hook log of its own, in the registry's order", async () => {
    const wiring = await inspectAgents(home, { PATH: "" });
    expect(wiring.map((w) => w.agent)).toEqual([...AGENT_NAMES]);
    // Nothing is installed in an empty home.
    expect(wiring.filter((w) => w.installed || w.problems.length > 0)).toEqual([]);
    const logs = await hookLogPaths({ home, env: {} });
    expect(new Set(logs).size).toBe(AGENTS.length);
    for (const log of logs) expect(log.startsWith(home), log).toBe(true);
  });

  it("loads each agent's install and removal", async () => {
    for (const a of AGENTS) {
      const m = await a.load();
      expect([typeof m.install, typeof m.remove], a.name).toEqual(["function", "function"]);
    }
  });

  it("has a one-shot run for every agent ask runs, and only those: its command line holds the prompt", async () => {
    expect(ASK_AGENTS).toEqual(AGENTS.filter((a) => a.ask).map((a) => a.name));
    for (const a of AGENTS) expect((await a.load()).ask !== undefined, a.name).toBe(a.ask);
    for (const name of ASK_AGENTS) {
      // An empty PATH: no agent CLI is asked for its MCP servers.
      const run = await (await askSpec(name)).prepare({
        prompt: "why?",
        home,
        env: { PATH: "", HOME: home },
      });
      try {
        expect(run.args, name).toContain("why?");
      } finally {
        run.cleanup?.();
      }
    }
  });

  it("finds an agent by its name as typed, and lists names as a sentence does", () => {
    expect(agentNamed(" Codex ")?.harness).toBe("codex");
    expect(agentNamed("claude_code")).toBeNull();
    expect(orList(["a", "b", "c"])).toBe("a, b or c");
    expect(orList(["a"])).toBe("a");
  });
});
