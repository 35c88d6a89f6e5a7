/**
 * Where Hermes keeps its configuration, sessions and funes's hook scripts: read by its wiring check and hook
 * log without loading the YAML library its setup needs.
 */
import { join } from "node:path";
import { envDir } from "../setup.js";

/** Where Hermes keeps its configuration and sessions: `$HERMES_HOME`, else `~/.hermes`. */
export function hermesHome(o: { home: string; env: Record<string, string | undefined> }): string {
  return envDir(o.env.HERMES_HOME, join(o.home, ".hermes"));
}
