/**
 * Files funes installs into an agent that run inside it (the pi extension, the OpenCode plugin, the hook
 * scripts): real files of this folder — modules type-checked and linted as the rest and shipped as `tsc`
 * builds them, shell scripts (`hooks/*.sh`) checked with ShellCheck and copied to `dist/` by the build —
 * copied at `add` time with their per-install values filled in. A value is a constant declared on one line
 * that ends with `// funes:fill` (JavaScript: its initialiser becomes the value as JSON) or `# funes:fill`
 * (shell: the variable becomes the value, a list as an array of quoted words), so the installed file is
 * the shipped one with nothing else changed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSetupError } from "./setup.js";

/** The marker that ends a line whose constant `add` fills in. */
export const FILL_MARK = "// funes:fill";

const FILL_LINE =
  /^(\s*(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=)[^\n]*;\s*\/\/ funes:fill\s*$/gm;
const SHELL_FILL_LINE = /^(\s*([A-Za-z_]\w*)=)[^\n]*#\s*funes:fill\s*$/gm;

/** A word for the shell, single-quoted. */
export function shQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

function shellValue(v: unknown): string {
  if (Array.isArray(v)) return `(${v.map((w) => shQuote(String(w))).join(" ")})`;
  return shQuote(String(v));
}

/**
 * The shipped file `rel` (under `dist/`, e.g. `agents/pi/extension.js`), found from this file's place (tsc's
 * output, a bundle chunk or the source alike sit under the package root), with `values` filled in. Every
 * fill line must get a value and every value a line.
 */
export function shippedModule(rel: string, values: Record<string, unknown>): string {
  const path = findShipped(rel);
  const left = new Set(Object.keys(values));
  const shell = rel.endsWith(".sh");
  const text = readFileSync(path, "utf8").replace(
    shell ? SHELL_FILL_LINE : FILL_LINE,
    (_line, head: string, name: string) => {
      if (!(name in values)) throw new Error(`${rel}: no value for ${name}`);
      left.delete(name);
      return shell ? `${head}${shellValue(values[name])}` : `${head} ${JSON.stringify(values[name])};`;
    },
  );
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
