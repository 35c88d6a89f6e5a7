/**
 * `funes cache [status|prune]`: the Hub memories this machine has read, and removing their older copies.
 */
import { listCachedMemories, pruneCache } from "../cache/index.js";
import { FunesError } from "../commands/index.js";
import { viewsRoot } from "../memory/index.js";
import type { CliConfig } from "./config.js";

/** Shows or prunes the cache. */
export async function runCache(action: unknown, flags: { json?: boolean }, cfg: CliConfig): Promise<void> {
  const what = action === undefined ? "status" : String(action);
  const root = viewsRoot(cfg.funesHome);
  if (what === "status") {
    const memories = listCachedMemories(root);
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ hubCache: cfg.models.hubCache, memories }, null, 2)}\n`);
      return;
    }
    let out = `cache: ${cfg.models.hubCache} (views in ${root})\n`;
    if (memories.length === 0) out += "no Hub memory read yet\n";
    for (const m of memories)
      out += `${m.key.replace("--", "/").replace("/_root", "")}: ${m.views.length} commit${m.views.length === 1 ? "" : "s"}, newest ${m.views[0]?.sha.slice(0, 8) ?? "-"} (${(m.bytes / 1048576).toFixed(1)} MiB)\n`;
    process.stdout.write(out);
  } else if (what === "prune") {
    const r = pruneCache(root, cfg.models.hubCache);
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify(r)}\n`
        : `removed ${r.views} older view${r.views === 1 ? "" : "s"} and ${r.blobs} file${r.blobs === 1 ? "" : "s"} (${(r.bytes / 1048576).toFixed(1)} MiB); each memory keeps its newest commit${r.unused > 0 ? ` (less ${r.unused} file${r.unused === 1 ? "" : "s"} only forgotten rows used)` : ""}\n`,
    );
  } else throw new FunesError("bad_input", `unknown cache action "${what}" (expected status or prune)`);
}
