/**
 * Files funes installs into an agent that run inside it (the pi extension, the OpenCode plugin): real
 * modules of this folder, type-checked and linted as the rest, shipped as `tsc` builds them
 * (`dist/agents/…`), and copied at `add` time with their per-install values filled in. A value is a
 * constant declared on one line that ends with `// funes:fill`; its initialiser is replaced by the value as
 * JSON, so the installed file is the built module with nothing else changed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSetupError } from "./setup.js";

/** The marker that ends a line whose constant `add` fills in. */
export const FILL_MARK = "// funes:fill";

const FILL_LINE =
  /^(\s*(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=)[^\n]*;\s*\/\/ funes:fill\s*$/gm;

/**
 * The built module `rel` (under `dist/`, e.g. `agents/pi/extension.js`), found from this file's place (tsc's
 * output, a bundle chunk or the source alike sit under the package root), with `values` filled in. Every
 * fill line must get a value and every value a line.
 */
export function shippedModule(rel: string, values: Record<string, unknown>): string {
  const path = findShipped(rel);
  const left = new Set(Object.keys(values));
  const text = readFileSync(path, "utf8").replace(FILL_LINE, (_line, head: string, name: string) => {
    if (!(name in values)) throw new Error(`${rel}: no value for ${name}`);
    left.delete(name);
    return `${head} ${JSON.stringify(values[name])};`;
  });
  if (left.size > 0) throw new Error(`${rel}: no line to fill for ${[...left].join(", ")}`);
  return text;
}

function findShipped(rel: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "dist", rel);
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir)
      throw new AgentSetupError(
        `funes's own file dist/${rel} is missing from its installation — install funes again (or run \`npm run build\` in a checkout)`,
      );
    dir = up;
  }
}
