import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { until } from "../../test/helpers/wait.js";
import { FILL_MARK, shippedModule } from "./shipped.js";

/** A hook script that records its arguments in `out`. */
function recordingScript(dir: string, name: string, out: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > ${JSON.stringify(out)}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Writes `text` as an ES module in `dir` and imports it. */
async function load(dir: string, name: string, text: string): Promise<Record<string, unknown>> {
  const file = join(dir, name);
  writeFileSync(file, text);
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

describe("files funes installs into agents", () => {
  it("are the built modules with every fill line given its value, loading nothing but Node's own", () => {
    for (const [rel, values] of [
      [
        "agents/pi/extension.js",
        { FUNES: ["node", "/opt/funes/main.js"], HERE: "/home/u/.funes/integrations/pi" },
      ],
      ["agents/opencode/plugin.js", { SCRIPT: "/s/funes-index.sh", ARGS: ["opencode", "acme/mem"] }],
    ] as const) {
      const text = shippedModule(rel, values);
      expect(text, rel).not.toContain(FILL_MARK);
      for (const v of Object.values(values)) expect(text, rel).toContain(JSON.stringify(v));
      const imports = [...text.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g)].map(
        (m) => m[1] ?? m[2],
      );
      expect(
        imports.filter((s) => !s?.startsWith("node:")),
        rel,
      ).toEqual([]);
    }
  });

  it("refuses a value without a line and a line without a value", () => {
    expect(() => shippedModule("agents/opencode/plugin.js", { SCRIPT: "/s" })).toThrow(/no value for ARGS/);
    expect(() => shippedModule("agents/opencode/plugin.js", { SCRIPT: "/s", ARGS: [], EXTRA: 1 })).toThrow(
      /no line to fill for EXTRA/,
    );
  });

  it("OpenCode's plugin runs the index script with its arguments when a session goes idle, and only then", async () => {
    const t = tempDir();
    try {
      const out = join(t.dir, "args.txt");
      const script = recordingScript(t.dir, "funes-index.sh", out);
      const m = await load(
        t.dir,
        "plugin.mjs",
        shippedModule("agents/opencode/plugin.js", { SCRIPT: script, ARGS: ["opencode", "acme/mem"] }),
      );
      const plugin = await (m.FunesPlugin as () => Promise<{ event: (i: unknown) => Promise<void> }>)();
      await plugin.event({ event: { type: "message.updated" } });
      await plugin.event({});
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(out)).toBe(false);
      await plugin.event({ event: { type: "session.idle" } });
      await until(() => existsSync(out) && readFileSync(out, "utf8").includes("acme/mem"));
      expect(readFileSync(out, "utf8")).toBe("opencode\nacme/mem\n");
    } finally {
      t.cleanup();
    }
  });

  it("pi's extension registers recall and get, and at a session's end runs the push script with the bound memory", async () => {
    const t = tempDir();
    try {
      const here = join(t.dir, "pi");
      mkdirSync(here);
      const out = join(t.dir, "args.txt");
      recordingScript(here, "funes-push.sh", out);
      writeFileSync(join(here, "memory"), "acme/team\n");
      const m = await load(
        here,
        "index.mjs",
        shippedModule("agents/pi/extension.js", { FUNES: ["/nonexistent/funes"], HERE: here }),
      );
      const tools: string[] = [];
      const handlers = new Map<string, () => void>();
      (m.default as (pi: unknown) => void)({
        registerTool: (tool: { name: string }) => tools.push(tool.name),
        on: (event: string, handler: () => void) => handlers.set(event, handler),
      });
      expect(tools).toEqual(["recall", "get"]);
      handlers.get("session_shutdown")?.();
      await until(() => existsSync(out) && readFileSync(out, "utf8").includes("pi"));
      expect(readFileSync(out, "utf8")).toBe("acme/team\npi\n");
    } finally {
      t.cleanup();
    }
  });
});
