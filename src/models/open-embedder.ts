/**
 * The embedder a batch job (indexing, scrubbing) loads in its own process: found where the settings say,
 * loaded once, or the reason there is none. One path for every such job; recall's sessions go through
 * model-session.ts (and the shared model server).
 */
import { collectGarbage } from "../heap/index.js";
import { locateEmbedder, type ModelsConfig, modelLabel } from "./models-config.js";
import { type Embedder, loadEmbedder, ModelLoadError } from "./runtime.js";

/** A loaded embedder (close it when done) and what it is, or why there is none. */
export type OpenedEmbedder =
  | {
      kind: "ready";
      embedder: Embedder;
      repo: string;
      revision: string;
      /** Its folder. */
      dir: string;
      /** `repo@revision`, with ` int8` when the int8 embedder runs. */
      label: string;
    }
  | { kind: "missing"; reason: string };

/** Finds and loads the embedder; a missing model or one that fails to load is a reason, not an error. */
export async function openEmbedder(cfg: ModelsConfig): Promise<OpenedEmbedder> {
  const where = locateEmbedder(cfg);
  if (where.kind === "missing") return { kind: "missing", reason: where.reason };
  try {
    // What the job left before the model (an index run's text pass) is collected first, so the model's
    // memory comes on top of what is live, not of that garbage too: V8 had not collected it yet.
    collectGarbage();
    // The job's only session: its threads may spin; its batches vary in shape (runtime.ts).
    const embedder = await loadEmbedder(where.dir, where.spec, {
      threads: cfg.threads,
      spin: true,
      varyingShapes: true,
    });
    return {
      kind: "ready",
      embedder,
      repo: where.spec.repo,
      revision: where.revision,
      dir: where.dir,
      label: modelLabel(where),
    };
  } catch (err) {
    if (err instanceof ModelLoadError) return { kind: "missing", reason: err.message };
    throw err;
  }
}
