import { describe, expect, it } from "vitest";
import { codexMcpEntry, withoutTomlTable } from "./config-toml.js";

const CONFIG = `# my codex config
model = "o4"

[mcp_servers.funes]
command = "/opt/Funes Bin/funes"
args = ["mcp", 'acme/kb']   # bound
env_vars = ["HF_TOKEN"]

[profiles.fast]
model = "mini"
`;

describe("Codex's config.toml as text", () => {
  it("reads funes's MCP entry: basic and literal strings, none when the table is absent", () => {
    expect(codexMcpEntry(CONFIG, "funes")).toEqual({
      command: "/opt/Funes Bin/funes",
      args: ["mcp", "acme/kb"],
    });
    expect(codexMcpEntry('[mcp_servers.other]\ncommand = "x"\n', "funes")).toBeNull();
    expect(codexMcpEntry('[mcp_servers.funes]\ncommand = "a\\"b"\nargs = [\n  "mcp",\n]\n', "funes")).toEqual(
      {
        command: 'a"b',
        args: ["mcp"],
      },
    );
  });

  it("takes a table out with its lines only, the rest byte for byte", () => {
    expect(withoutTomlTable(CONFIG, "mcp_servers.funes")).toBe(
      '# my codex config\nmodel = "o4"\n\n[profiles.fast]\nmodel = "mini"\n',
    );
    expect(
      withoutTomlTable('model = "o4"\n\n[mcp_servers.funes]\ncommand = "f"\n', "mcp_servers.funes"),
    ).toBe('model = "o4"\n');
    expect(withoutTomlTable('model = "o4"\n', "mcp_servers.funes")).toBe('model = "o4"\n');
  });
});
