/**
 * `funes cache [status|prune] [--verify]`: the Hub memories this machine has read, checking their cached
 * copies against the hashes recorded when they were fetched, and removing older copies, leftovers and
 * whatever fails that check.
 */
import { join } from "node:path";
import { listCachedMemories, pruneCache, removeStaleStages, verifyCache } from "../cache/index.js";
import { FunesError } from "../commands/index.js";
import { oneLine } from "../format/index.js";
import { viewsRoot } from "../memory/index.js";
import type { CliConfig } from "./config.js";

/** Shows, verifies or prunes the cache. */
export async function runCache(
  action: unknown,
  flags: { json?: boolean; verify?: boolean },
  cfg: CliConfig,
): Promise<void> {
  const what = action === undefined ? "status" : String(action);
  const root = viewsRoot(cfg.funesHome);
  if (what === "status") {
    const memories = listCachedMemories(root);
    const verified = flags.verify === true ? await verifyCache(root, cfg.models.hubCache) : null;
    if (flags.json === true) {
      process.stdout.write(
        `${JSON.stringify({ hubCache: cfg.models.hubCache, memories, ...(verified === null ? {} : { verify: verified }) }, null, 2)}\n`,
      );
    } else {
      let out = `cache: ${cfg.models.hubCache} (views in ${root})\n`;
      if (memories.length === 0) out += "no Hub memory read yet\n";
      for (const m of memories)
        out += `${oneLine(m.key.replace("--", "/").replace("/_root", ""))}: ${m.views.length} commit${m.views.length === 1 ? "" : "s"}, newest ${m.views[0]?.sha.slice(0, 8) ?? "-"} (${(m.bytes / 1048576).toFixed(1)} MiB)\n`;
      if (verified !== null) {
        out +=
          verified.failures.length === 0
            ? `verified: all ${verified.files} cached files match their hashes\n`
            : `verified: ${verified.failures.length} of ${verified.files} cached files do not match their hashes — run \`funes cache prune\` to remove them (the next read fetches them again)\n`;
        for (const f of verified.failures) out += `  damaged: ${oneLine(f.path)}\n`;
      }
      process.stdout.write(out);
    }
    if (verified !== null && verified.failures.length > 0)
      throw new FunesError(
        "refused_memory",
        `${verified.failures.length} cached file${verified.failures.length === 1 ? " is" : "s are"} damaged — run \`funes cache prune\` to remove them`,
      );
  } else if (what === "prune") {
    const r = await pruneCache(root, cfg.models.hubCache);
    r.leftovers += removeStaleStages(join(cfg.funesHome, "staging"));
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify(r)}\n`
        : `removed ${r.views} older view${r.views === 1 ? "" : "s"} and ${r.blobs} file${r.blobs === 1 ? "" : "s"} (${(r.bytes / 1048576).toFixed(1)} MiB)${r.damaged > 0 ? `, ${r.damaged} damaged file${r.damaged === 1 ? "" : "s"}` : ""}${r.leftovers > 0 ? `, ${r.leftovers} leftover${r.leftovers === 1 ? "" : "s"} of interrupted runs` : ""}; each memory keeps its newest intact commit${r.unused > 0 ? ` (less ${r.unused} file${r.unused === 1 ? "" : "s"} only forgotten rows used)` : ""}\n`,
    );
  } else throw new FunesError("bad_input", `unknown cache action "${what}" (expected status or prune)`);
}
