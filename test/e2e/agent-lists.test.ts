/**
 * Every list of agents the built CLI and MCP server show comes from one registry (src/agents/registry.ts):
 * help, completion words, refusals of an unknown agent, and the MCP recall tool's harness argument. A new
 * registry entry shows up in each; a list kept by hand elsewhere would fail here.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_NAMES, ASK_AGENTS, orList } from "../../src/agents/index.js";
import { type CliEnv, runFunes } from "../helpers/cli.js";
import { tempDir } from "../helpers/fixtures.js";
import { connectMcp } from "../helpers/mcp.js";

describe("lists of agents", () => {
  const t = tempDir("funes-agent-lists-");
  const env: CliEnv = { home: t.dir, funesHome: `${t.dir}/funes` };
  afterAll(() => t.cleanup());

  /** A run's output with the help's line wrapping undone. */
  async function text(args: string[]): Promise<string> {
    const r = await runFunes(args, env);
    return `${r.stdout}${r.stderr}`.replace(/\s+/g, " ");
  }

  it("help names every agent where a command takes one, and ask's agents for ask", async () => {
    for (const command of ["index", "recall", "push", "add"])
      expect(await text([command, "--help"]), command).toContain(orList(AGENT_NAMES));
    expect(await text(["ask", "--help"])).toContain(`Have ${orList(ASK_AGENTS)} answer`);
  });

  it("completion offers the registry's agents to add, remove and ask", async () => {
    const script = await text(["completion", "bash"]);
    for (const [command, names] of [
      ["add", AGENT_NAMES],
      ["remove", AGENT_NAMES],
      ["ask", ASK_AGENTS],
    ] as const)
      expect(script).toMatch(new RegExp(`${command}\\) flags='[^']*'; words='${names.join(" ")}'`));
  });

  it("an unknown agent is refused with the registry's names", async () => {
    expect(await text(["remove"])).toContain(`remove needs an agent (${orList(AGENT_NAMES)}), or --all`);
    expect(await text(["add", "vim"])).toContain(AGENT_NAMES.join(", "));
    expect(await text(["ask", "vim"])).toContain(ASK_AGENTS.join(", "));
  });

  it("the MCP recall tool's harness argument names every agent", async () => {
    const mcp = await connectMcp([], env);
    try {
      const recall = (await mcp.tools()).tools.find((x) => x.name === "recall");
      const harness = (recall?.inputSchema.properties?.harness as { description?: string } | undefined)
        ?.description;
      for (const name of AGENT_NAMES) expect(harness).toMatch(new RegExp(`\\b${name}\\b`));
    } finally {
      await mcp.close();
    }
  });
});
