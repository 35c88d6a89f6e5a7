/**
 * The `repo` facet: which GitHub/Hub repositories a session's checkout belongs to, from `git remote -v`
 * in its recorded cwd (docs/transcript-formats.md#the-repo-facet). `owner/name` of each remote, deduplicated,
 * sorted, space-separated; "" when the directory is gone, not a checkout, or git is missing.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";

/** `git@github.com:o/n.git`, `https://host/datasets/o/n/` → `o/n`; null when it has no two segments. */
export function remoteToOwnerName(url: string): string | null {
  let u = url.trim().replace(/\/+$/, "");
  if (u.endsWith(".git")) u = u.slice(0, -4);
  const scheme = u.indexOf("://");
  let path: string;
  if (scheme >= 0) {
    const rest = u.slice(scheme + 3);
    const slash = rest.indexOf("/");
    path = slash >= 0 ? rest.slice(slash + 1) : "";
  } else {
    const colon = u.indexOf(":");
    path = colon >= 0 ? u.slice(colon + 1) : u;
  }
  const segs = path.split("/").filter((s) => s !== "");
  if (segs.length < 2) return null;
  return `${segs[segs.length - 2]}/${segs[segs.length - 1]}`;
}

/** The repo facet of `git remote -v` output. */
export function repoFacetOf(remoteOutput: string): string {
  const names = new Set<string>();
  for (const line of remoteOutput.split("\n")) {
    const url = line.trim().split(/\s+/)[1];
    const name = url === undefined ? null : remoteToOwnerName(url);
    if (name !== null) names.add(name);
  }
  return [...names].sort().join(" ");
}

/** Finds repo facets, asking git once per directory. */
export class RepoFacets {
  private readonly cache = new Map<string, Promise<string>>();

  /** The facet for a checkout directory ("" when unknown). */
  of(cwd: string | null): Promise<string> {
    if (cwd === null || cwd === "") return Promise.resolve("");
    let p = this.cache.get(cwd);
    if (p === undefined) {
      p = existsSync(cwd)
        ? new Promise((resolve) =>
            execFile("git", ["-C", cwd, "remote", "-v"], { timeout: 5000 }, (err, stdout) =>
              resolve(err ? "" : repoFacetOf(stdout)),
            ),
          )
        : Promise.resolve("");
      this.cache.set(cwd, p);
    }
    return p;
  }
}
