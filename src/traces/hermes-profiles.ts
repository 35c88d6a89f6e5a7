/**
 * Hermes's named profiles (`hermes -p <name>`): each is a whole Hermes home of its own at
 * `~/.hermes/profiles/<name>/`, with its own `state.db` and `sessions/` (hermes-agent `hermes_cli/profiles.py`:
 * profile ids match `[a-z0-9][a-z0-9_-]{0,63}`; `default` is `~/.hermes` itself). The reference reads only
 * `~/.hermes/state.db`, so a profile's conversations were never indexed.
 */
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

const PROFILE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The named profiles' homes under a Hermes home (`<hermesHome>/profiles/<id>`), in name order. */
export function hermesProfileHomes(hermesHome: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(hermesHome, "profiles"), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && e.name !== "default" && PROFILE_ID.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => join(hermesHome, "profiles", name));
}
