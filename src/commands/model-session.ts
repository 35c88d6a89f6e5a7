/**
 * Models loaded once per process and kept warm: the CLI makes one per command, the MCP server one for its
 * lifetime. Each model is loaded on first use; a missing or broken model is remembered as a reason, so
 * recall degrades to what it has without retrying every call.
 */
import {
  type Embedder,
  type LoadOptions,
  loadEmbedder,
  loadReranker,
  ModelLoadError,
  type ModelSpec,
  type Reranker,
} from "../models/index.js";
import { locateEmbedder, locateReranker, type ModelLocation, type ModelsConfig } from "./models-config.js";

/** A model, or why there is none. */
export type Loaded<T> = { kind: "ready"; model: T; label: string } | { kind: "missing"; reason: string };

/** Lazily loaded embedder and reranker. */
export class ModelSession {
  private embedderP: Promise<Loaded<Embedder>> | null = null;
  private rerankerP: Promise<Loaded<Reranker>> | null = null;

  constructor(readonly config: ModelsConfig) {}

  /** The embedder (loaded on first call). */
  embedder(): Promise<Loaded<Embedder>> {
    this.embedderP ??= this.load(locateEmbedder(this.config), loadEmbedder);
    return this.embedderP;
  }

  /** The configured reranker (loaded on first call). */
  reranker(): Promise<Loaded<Reranker>> {
    this.rerankerP ??= this.load(locateReranker(this.config), loadReranker);
    return this.rerankerP;
  }

  private async load<T>(
    loc: ModelLocation,
    loader: (dir: string, spec: ModelSpec, opts: LoadOptions) => Promise<T>,
  ): Promise<Loaded<T>> {
    if (loc.kind === "missing") return { kind: "missing", reason: loc.reason };
    try {
      const model = await loader(loc.dir, loc.spec, { threads: this.config.threads });
      return { kind: "ready", model, label: `${loc.spec.repo}@${loc.revision}` };
    } catch (err) {
      if (err instanceof ModelLoadError) return { kind: "missing", reason: err.message };
      throw err;
    }
  }

  /** Releases whatever was loaded. */
  async close(): Promise<void> {
    for (const p of [this.embedderP, this.rerankerP]) {
      const m = p === null ? null : await p.catch(() => null);
      if (m?.kind === "ready") await m.model.close();
    }
  }
}
