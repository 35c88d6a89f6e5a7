import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { agentFolder, movedFolders, TRACE_FORMATS } from "./formats.js";
import { agentFolders, knownRoots, parseHarness, UnknownHarnessError } from "./sources.js";

const SRC = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

describe("the trace format registry", () => {
  it("lists each harness and each --harness spelling once", () => {
    const harnesses = TRACE_FORMATS.map((f) => f.harness);
    expect(new Set(harnesses).size).toBe(harnesses.length);
    const names = TRACE_FORMATS.flatMap((f) => f.names);
    expect(new Set(names).size).toBe(names.length);
    for (const f of TRACE_FORMATS)
      for (const n of f.names) expect(parseHarness(` ${n.toUpperCase()} `)).toBe(f.harness);
    expect(() => parseHarness("cursor")).toThrow(UnknownHarnessError);
    expect(new UnknownHarnessError("cursor").message).toContain(
      TRACE_FORMATS.map((f) => f.names[0])
        .join(", ")
        .replace(/, ([^,]+)$/, ", or $1"),
    );
  });

  it("moves each agent's folder by its own variable, else puts it under the home", () => {
    for (const f of TRACE_FORMATS) {
      const home = "/home/u";
      const moved = agentFolder(f.harness, home, { [f.folder.variable]: "/elsewhere" });
      expect(moved, f.harness).toBe(join("/elsewhere", ...(f.folder.inside ?? [])));
      expect(agentFolder(f.harness, home, { [f.folder.variable]: "  " }), f.harness).toBe(
        join(home, ...f.folder.under),
      );
      expect(
        agentFolders(home, movedFolders({ vars: { [f.folder.variable]: "/elsewhere" }, cwd: "/" }))[
          f.harness
        ],
      ).toBe(moved);
      // Every root the index walks for it sits in that folder.
      const roots = knownRoots(
        home,
        movedFolders({ vars: { [f.folder.variable]: "/elsewhere" }, cwd: "/" }),
      ).filter((r) => r.harness === f.harness);
      expect(
        roots.some((r) => r.path.startsWith(moved)),
        f.harness,
      ).toBe(true);
    }
  });

  it("reads a relative variable from the folder it is given and keeps OPENCODE_DB as written", () => {
    const dirs = movedFolders({
      vars: { CODEX_HOME: "rel/codex", OPENCODE_DB: "opencode-beta.db" },
      cwd: "/cwd",
    });
    expect(dirs.codex).toBe("/cwd/rel/codex");
    expect(dirs.opencodeDb).toBe("opencode-beta.db");
    expect(knownRoots("/h", dirs).map((r) => r.path)).toContain(
      join("/h", ".local", "share", "opencode", "opencode-beta.db"),
    );
  });

  it("is the one place the folder variables are read: no other source reads one", () => {
    const readers: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (rel === join("traces", "formats.ts")) continue;
      const text = readFileSync(file, "utf8");
      for (const f of TRACE_FORMATS) {
        const v = f.folder.variable;
        if (text.includes(`env.${v}`) || text.includes(`"${v}"`) || text.includes(`env["${v}"]`))
          readers.push(`${rel}: ${v}`);
      }
    }
    // Claude Code keeps its own state file (`.claude.json`) in the folder the variable names itself, not
    // in the folder it moves (`$CLAUDE_CONFIG_DIR/.claude.json` against `~/.claude.json`).
    expect(readers).toEqual([join("agents", "claude", "permissions.ts: CLAUDE_CONFIG_DIR")]);
  });
});
