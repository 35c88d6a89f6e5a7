import { describe, expect, it } from "vitest";
import { FUNES_ENV_VARS, withCodexEnvVars } from "./mcp-env.js";

const LINE = `env_vars = [${FUNES_ENV_VARS.map((v) => `"${v}"`).join(", ")}]`;

describe("withCodexEnvVars", () => {
  it("names the variables at the end of funes's table, before the next one, the rest of the file as it was", () => {
    const config =
      '# mine\n[mcp_servers.funes]\ncommand = "node"\nargs = ["m.js", "mcp"]\n\n[profiles.quick]\nmodel = "m"\n';
    expect(withCodexEnvVars(config, "funes")).toBe(
      `# mine\n[mcp_servers.funes]\ncommand = "node"\nargs = ["m.js", "mcp"]\n${LINE}\n\n[profiles.quick]\nmodel = "m"\n`,
    );
  });

  it("replaces a list already there, and leaves text without the table unchanged", () => {
    const config = '[mcp_servers.funes]\nenv_vars = ["OLD"]\ncommand = "node"\n';
    expect(withCodexEnvVars(config, "funes")).toBe(`[mcp_servers.funes]\n${LINE}\ncommand = "node"\n`);
    const again = withCodexEnvVars(config, "funes");
    expect(withCodexEnvVars(again, "funes")).toBe(again);
    const split = '[mcp_servers.funes]\nenv_vars = [\n  "OLD",\n]\ncommand = "node"\n';
    expect(withCodexEnvVars(split, "funes")).toBe(`[mcp_servers.funes]\n${LINE}\ncommand = "node"\n`);
    expect(withCodexEnvVars('[mcp_servers.other]\ncommand = "x"\n', "funes")).toBe(
      '[mcp_servers.other]\ncommand = "x"\n',
    );
  });

  it("names the Hub's token and endpoint variables, the proxies and funes's own", () => {
    for (const v of [
      "HF_TOKEN",
      "HF_ENDPOINT",
      "HF_HOME",
      "HF_HUB_CACHE",
      "HTTPS_PROXY",
      "no_proxy",
      "FUNES_HOME",
    ])
      expect(FUNES_ENV_VARS).toContain(v);
  });
});
