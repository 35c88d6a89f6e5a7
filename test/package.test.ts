/**
 * What `npm pack` would publish: the licence and the notices of the MIT transcripts it ships, and no source
 * map pointing at a `src/` the package does not contain.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/fixtures.js";

describe("the package", () => {
  it("ships LICENSE and third-party notices, and no dangling source maps", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_config_loglevel: "silent" },
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toContain("LICENSE");
    expect(files).toContain("THIRD_PARTY_NOTICES.md");
    expect(files).toContain("dist/cli/main.js");
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.some((f) => f.startsWith("src/"))).toBe(false);
    // Every MIT-licensed example transcript has its notice.
    const notices = readFileSync(join(ROOT, "THIRD_PARTY_NOTICES.md"), "utf8");
    const examples = readFileSync(join(ROOT, "examples", "README.md"), "utf8");
    for (const row of examples.split("\n").filter((l) => l.endsWith("| MIT |"))) {
      const repo = /\| ([\w.-]+\/[\w.-]+), /.exec(row)?.[1];
      expect(repo, row).toBeDefined();
      expect(notices).toContain(`## ${repo} — MIT`);
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License");
    expect(pkg.license).toBe("Apache-2.0");
  });
});
