import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { editKept, removeKept, restoreKept, untouchedSince, writeIfChanged } from "./files.js";
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

  it("edit a user's file keeping what remove needs: the exact bytes back, or what the user changed since", () => {
    const t = tempDir();
    try {
      const f = { path: join(t.dir, "settings.json"), record: join(t.dir, "rec", "orig.json") };
      const strip = (text: string) => text.replace("+funes\n", "");
      const add = { strip, edit: (text: string | null) => (text ?? "").replace(/(\+funes\n)?$/, "+funes\n") };
      const remove = { strip, empty: (text: string) => text === "" };
      writeFileSync(f.path, "mine\n");
      expect(editKept(f, add)).toBe(true);
      expect(readFileSync(f.path, "utf8")).toBe("mine\n+funes\n");
      // Again: nothing written, so the file keeps its modification time.
      utimesSync(f.path, new Date(1_000_000), new Date(1_000_000));
      expect(editKept(f, add)).toBe(false);
      expect(statSync(f.path).mtimeMs).toBe(1_000_000);
      expect(untouchedSince(f)).toBe(true);
      expect(removeKept(f, remove)).toBe(true);
      expect(readFileSync(f.path, "utf8")).toBe("mine\n");
      expect(existsSync(f.record)).toBe(false);

      // The user's edit after add is kept by remove, and one between two adds too.
      editKept(f, add);
      writeFileSync(f.path, "mine, edited\n+funes\n");
      expect(untouchedSince(f)).toBe(false);
      editKept(f, add);
      removeKept(f, remove);
      expect(readFileSync(f.path, "utf8")).toBe("mine, edited\n");

      // A file funes created goes again (with the folders made for it), unless the user put something of
      // theirs in it.
      rmSync(f.path);
      editKept(f, add);
      removeKept(f, remove);
      expect(existsSync(f.path)).toBe(false);
      const deep = { path: join(t.dir, "agent", "conf", "settings.json"), record: f.record };
      editKept(deep, add);
      removeKept(deep, remove);
      expect(existsSync(join(t.dir, "agent"))).toBe(false);
      editKept(f, add);
      writeFileSync(f.path, "theirs\n+funes\n");
      removeKept(f, remove);
      expect(readFileSync(f.path, "utf8")).toBe("theirs\n");

      // Whatever an agent's own command did to the file once funes left it untouched: the original bytes.
      writeFileSync(f.path, "a\n");
      editKept(f, add);
      const untouched = untouchedSince(f);
      writeFileSync(f.path, "{rewritten by the agent}");
      restoreKept(f, { ...remove, untouched });
      expect(readFileSync(f.path, "utf8")).toBe("a\n");
    } finally {
      t.cleanup();
    }
  });
});
