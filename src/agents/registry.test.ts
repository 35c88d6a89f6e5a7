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
import { askArgs } from "./ask-run.js";
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

  it("has each agent's inspection and hook log, in the registry's order", () => {
    expect(inspectAgents(home, { PATH: "" }).map((w) => w.agent)).toEqual([...AGENT_NAMES]);
    expect(new Set(hookLogPaths({ home, env: {} })).size).toBe(AGENTS.length);
  });

  it("loads each agent's install and removal", async () => {
    for (const a of AGENTS) {
      const setup = await a.setup();
      expect([typeof setup.install, typeof setup.remove], a.name).toEqual(["function", "function"]);
    }
  });

  it("builds a one-shot command line for every agent ask runs, and only those are askable", () => {
    expect(ASK_AGENTS).toEqual(AGENTS.filter((a) => a.ask).map((a) => a.name));
    for (const name of ASK_AGENTS) expect(askArgs(name, "why?").join(" "), name).toContain("why?");
  });

  it("finds an agent by its name as typed, and lists names as a sentence does", () => {
    expect(agentNamed(" Codex ")?.harness).toBe("codex");
    expect(agentNamed("claude_code")).toBeNull();
    expect(orList(["a", "b", "c"])).toBe("a, b or c");
    expect(orList(["a"])).toBe("a");
  });
});
