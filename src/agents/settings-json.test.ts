import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { funesServer, installSettings, removeSettings, type SettingsPlan } from "./settings-json.js";
import { AgentSetupError } from "./setup.js";

function planIn(dir: string): SettingsPlan {
  return {
    path: join(dir, "settings.json"),
    record: join(dir, "record.json"),
    server: funesServer(["/bin/funes"], "acme/m"),
    hooks: [
      { event: "AfterAgent", command: 'bash "/x/funes-index.sh" "gemini"', statusMessage: "s", timeout: 15 },
    ],
    handler: (s) => ({ type: "command", command: s.command }),
  };
}

describe("Gemini-family settings", () => {
  it("creates a missing file and removes it again", () => {
    const t = tempDir();
    try {
      const plan = planIn(t.dir);
      installSettings(plan);
      const written = JSON.parse(readFileSync(plan.path, "utf8"));
      expect(written.mcpServers.funes).toEqual({ command: "/bin/funes", args: ["mcp", "acme/m"] });
      expect(written.hooks.AfterAgent).toEqual([
        { hooks: [{ type: "command", command: 'bash "/x/funes-index.sh" "gemini"' }] },
      ]);
      expect(removeSettings(plan)).toBe(true);
      expect(existsSync(plan.path)).toBe(false);
      expect(removeSettings(plan)).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it("keeps what the user changed meanwhile, and gives back their bytes when they changed nothing", () => {
    const t = tempDir();
    try {
      const plan = planIn(t.dir);
      const mine = '{ "mcpServers": { "notes": { "command": "notes" } },  "ui": {"theme": "ANSI"} }\n';
      writeFileSync(plan.path, mine);
      installSettings(plan);
      installSettings(plan); // again: the same file, funes's entries once
      expect(JSON.parse(readFileSync(plan.path, "utf8")).hooks.AfterAgent).toHaveLength(1);
      removeSettings(plan);
      expect(readFileSync(plan.path, "utf8")).toBe(mine);

      installSettings(plan);
      const edited = JSON.parse(readFileSync(plan.path, "utf8"));
      writeFileSync(plan.path, JSON.stringify({ ...edited, general: { vimMode: true } }));
      removeSettings(plan);
      expect(JSON.parse(readFileSync(plan.path, "utf8"))).toEqual({
        mcpServers: { notes: { command: "notes" } },
        ui: { theme: "ANSI" },
        general: { vimMode: true },
      });
    } finally {
      t.cleanup();
    }
  });

  it("edits a settings file with comments in place: add twice changes nothing, remove gives the bytes back", () => {
    const t = tempDir();
    try {
      const plan = planIn(t.dir);
      const commented =
        '{\n  // Gemini reads comments here\n  "ui": { "theme": "ANSI" }, // mine\n  "hooks": {\n    "AfterAgent": [\n      { "hooks": [{ "type": "command", "command": "echo mine" }] }\n    ]\n  }\n}\n';
      writeFileSync(plan.path, commented);
      installSettings(plan);
      const added = readFileSync(plan.path, "utf8");
      expect(added).toContain("// Gemini reads comments here");
      expect(added).toContain('"ui": { "theme": "ANSI" }, // mine');
      expect(added).toContain('      { "hooks": [{ "type": "command", "command": "echo mine" }] },\n      {');
      utimesSync(plan.path, new Date(1_000_000), new Date(1_000_000));
      installSettings(plan);
      expect(readFileSync(plan.path, "utf8")).toBe(added);
      expect(statSync(plan.path).mtimeMs).toBe(1_000_000);
      expect(removeSettings(plan)).toBe(true);
      expect(readFileSync(plan.path, "utf8")).toBe(commented);

      // An edit of the user's in between is kept, comments and all; only funes's entries go.
      installSettings(plan);
      writeFileSync(
        plan.path,
        readFileSync(plan.path, "utf8").replace('"ANSI" }', '"ANSI", "hideTips": true }'),
      );
      removeSettings(plan);
      expect(readFileSync(plan.path, "utf8")).toBe(
        commented.replace('"ANSI" }', '"ANSI", "hideTips": true }'),
      );
    } finally {
      t.cleanup();
    }
  });

  it("refuses settings that are not a JSON object, changing nothing", () => {
    const t = tempDir();
    try {
      const plan = planIn(t.dir);
      const broken = '{\n  "ui": {\n}\n';
      writeFileSync(plan.path, broken);
      expect(() => installSettings(plan)).toThrow(AgentSetupError);
      expect(() => installSettings(plan)).toThrow("isn't a JSON object");
      expect(readFileSync(plan.path, "utf8")).toBe(broken);
      expect(existsSync(plan.record)).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
