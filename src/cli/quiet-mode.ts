/**
 * `--quiet` for every command.
 */
import type { CliConfig } from "./config.js";

/**
 * `--quiet` (uv's `-q`, rg's `-q`): stdout is dropped, and stderr is treated as not a terminal, so there is
 * no progress line and no question (what would need an answer fails naming its flag, as in a script).
 * Warnings and the error line still reach stderr.
 */
export function beQuiet(cfg: CliConfig): void {
  cfg.quiet = true;
  cfg.stderrTty = false;
  process.stdout.write = ((_chunk: unknown, enc?: unknown, cb?: unknown) => {
    const done = typeof enc === "function" ? enc : cb;
    if (typeof done === "function") process.nextTick(done as () => void);
    return true;
  }) as typeof process.stdout.write;
}
