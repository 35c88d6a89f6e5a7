import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { rememberOriginal, restoreOriginal, writeIfChanged } from "./files.js";
import { AgentSetupError } from "./setup.js";

describe("agent config files", () => {
  it("write only changes, keep the file's mode, and name a path they cannot write", () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "a", "config.json");
      expect(writeIfChanged(p, "{}\n")).toBe(true);
      expect(writeIfChanged(p, "{}\n")).toBe(false);
      writeFileSync(join(t.dir, "secret.json"), "x", { mode: 0o600 });
      writeIfChanged(join(t.dir, "secret.json"), "y");
      expect(statSync(join(t.dir, "secret.json")).mode & 0o777).toBe(0o600);
      // A folder that is a file: the error names the path and what to do.
      writeFileSync(join(t.dir, "blocker"), "");
      const bad = join(t.dir, "blocker", "hooks.json");
      expect(() => writeIfChanged(bad, "{}")).toThrow(AgentSetupError);
      expect(() => writeIfChanged(bad, "{}")).toThrow(
        new RegExp(`can't write ${bad} \\(E[A-Z]+\\) — check that it and its folder are writable`),
      );
    } finally {
      t.cleanup();
    }
  });

  it("restore the user's exact bytes, or no file, when funes's entries were all that changed", () => {
    const t = tempDir();
    try {
      mkdirSync(join(t.dir, "rec"));
      const p = join(t.dir, "hooks.json");
      const record = join(t.dir, "rec", "orig.json");
      writeFileSync(p, '{ "hooks" : {} }');
      rememberOriginal(record, readFileSync(p, "utf8"));
      rememberOriginal(record, "later call keeps the first record");
      writeFileSync(p, '{"hooks":{"Stop":[]}}');
      restoreOriginal(p, record, () => true, "unused");
      expect(readFileSync(p, "utf8")).toBe('{ "hooks" : {} }');
      rememberOriginal(record, null);
      restoreOriginal(p, record, () => false, "edited\n");
      expect(readFileSync(p, "utf8")).toBe("edited\n");
    } finally {
      t.cleanup();
    }
  });
});
