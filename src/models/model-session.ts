/**
 * Models loaded once per process and kept warm: the CLI makes one per command, the MCP server one for its
 * lifetime. Each model is loaded on first use; a missing or broken model is remembered as a reason, so
 * recall degrades to what it has without retrying every call. With a model server (models/model-server.ts)
 * the models live in that shared process instead: this session starts it when none answers, uses it, and
 * falls back to loading in-process whenever it cannot be reached or stops answering.
 */
import { keepingQueryVectors, keepingScores } from "./kept-answers.js";
import { ModelClient, ModelServerError } from "./model-client.js";
import type { ModelRef } from "./model-server.js";
import {
  locateEmbedder,
  locateReranker,
  type ModelLocation,
  type ModelsConfig,
  modelLabel,
} from "./models-config.js";
import {
  type Embedder,
  type LoadOptions,
  loadEmbedder,
  loadReranker,
  ModelLoadError,
  type Reranker,
} from "./runtime.js";
import type { ModelSpec } from "./specs.js";

/** A model, or why there is none. */
export type Loaded<T> = { kind: "ready"; model: T; label: string } | { kind: "missing"; reason: string };

/** How to reach (and start) the shared model server. */
export interface ServerLink {
  socketPath: string;
  /**
   * Starts a server in the background. The promise settles when the process it started ends (a server
   * that found another one, or could not start), so nobody waits for a server that is already gone.
   */
  start: () => Promise<unknown>;
  /** How long to wait for a server just started to listen, ms. */
  waitMs: number;
  /** How long the server may stay silent while a request is out, ms (see model-client.ts). */
  answerMs?: number;
  /**
   * With no server running, load the models here for this process and start the server only when the
   * session closes, for the commands after it (a shell `funes recall`: the first of the day does not wait
   * for a server to start and load, ≈ 1 s, nor share the 2 cores with it while it answers). Off (the MCP
   * server, which lives long): wait for the server to start and use it.
   */
  startAfter?: boolean;
}

/** Lazily loaded embedder and reranker. */
export class ModelSession {
  private embedderP: Promise<Loaded<Embedder>> | null = null;
  private rerankerP: Promise<Loaded<Reranker>> | null = null;
  private clientP: Promise<ModelClient | null> | null = null;
  private local: Promise<unknown>[] = [];
  private notes = new Set<string>();
  /** Set when no server answered and one is to be started once this session closes. */
  private startOnClose = false;

  constructor(
    readonly config: ModelsConfig,
    private readonly server: ServerLink | null = null,
  ) {}

  /** The embedder (loaded on first call); a query asked again is answered from its kept vector. */
  embedder(): Promise<Loaded<Embedder>> {
    const fallback = this.fallback;
    this.embedderP ??= this.load(locateEmbedder(this.config), "embedder", loadEmbedder, (local, remote) => ({
      dim: remote.dim,
      embed: (texts) => remote.embed(texts).catch((err) => fallback(err, local, (m) => m.embed(texts))),
      close: () => remote.close(),
    })).then((l) => (l.kind === "ready" ? { ...l, model: keepingQueryVectors(l.model) } : l));
    return this.embedderP;
  }

  /** The configured reranker (loaded on first call); a pair scored before is answered from its kept score. */
  reranker(): Promise<Loaded<Reranker>> {
    const fallback = this.fallback;
    this.rerankerP ??= this.load(locateReranker(this.config), "reranker", loadReranker, (local, remote) => ({
      score: (q, ps) => remote.score(q, ps).catch((err) => fallback(err, local, (m) => m.score(q, ps))),
      close: () => remote.close(),
    })).then((l) => (l.kind === "ready" ? { ...l, model: keepingScores(l.model, l.label) } : l));
    return this.rerankerP;
  }

  /** Whether an embedder's files are there to load (no load, no request): recall skips work it cannot use. */
  hasEmbedder(): boolean {
    return locateEmbedder(this.config).kind === "found";
  }

  /**
   * Notes since the last call: why models ran in this process although a shared server was asked for (it
   * could not be reached safely, or stopped answering). Each says what happened once.
   */
  takeNotes(): string[] {
    const out = [...this.notes];
    this.notes.clear();
    return out;
  }

  /** Whether the models are served by a shared server (true once one answered). */
  async served(): Promise<boolean> {
    return (await this.clientP) != null;
  }

  private client(): Promise<ModelClient | null> {
    const link = this.server;
    if (link === null) return Promise.resolve(null);
    const opts = { timeoutMs: 500, ...(link.answerMs === undefined ? {} : { answerMs: link.answerMs }) };
    this.clientP ??= (async () => {
      const first = await ModelClient.connect(link.socketPath, opts);
      if (first.kind === "connected") return first.client;
      if (first.kind === "refused")
        return this.unserved(`the model server's socket is refused: ${first.reason}`);
      if (link.startAfter === true) {
        this.startOnClose = true;
        return null;
      }
      let ended = false;
      link.start().then(
        () => (ended = true),
        () => (ended = true),
      );
      const until = performance.now() + link.waitMs;
      for (;;) {
        await new Promise((r) => setTimeout(r, 40));
        const c = await ModelClient.connect(link.socketPath, opts);
        if (c.kind === "connected") return c.client;
        if (c.kind === "refused") return this.unserved(`the model server's socket is refused: ${c.reason}`);
        if (ended || performance.now() >= until)
          return this.unserved("the model server did not start (see its log)");
      }
    })();
    return this.clientP;
  }

  /** Records why the shared server is not used; null (models load in this process). */
  private unserved(why: string): null {
    this.notes.add(`note: models run in this process — ${why}`);
    return null;
  }

  private async load<T extends Embedder | Reranker>(
    loc: ModelLocation,
    role: ModelRef["role"],
    loader: (dir: string, spec: ModelSpec, opts: LoadOptions) => Promise<T>,
    wrap: (local: () => Promise<T>, remote: T) => T,
  ): Promise<Loaded<T>> {
    if (loc.kind === "missing") return { kind: "missing", reason: loc.reason };
    const label = modelLabel(loc);
    let localP: Promise<T> | null = null;
    const local = () => {
      if (localP === null) {
        localP = loader(loc.dir, loc.spec, { threads: this.config.threads });
        this.local.push(localP);
      }
      return localP;
    };
    try {
      const client = await this.client();
      if (client !== null) {
        const ref = { role, key: loc.spec.key, dir: loc.dir };
        try {
          const remote = (role === "embedder" ? await client.embedder(ref) : await client.reranker(ref)) as T;
          return { kind: "ready", model: wrap(local, remote), label };
        } catch (err) {
          if (!(err instanceof ModelServerError)) throw err;
          this.unserved(err.message);
        }
      }
      return { kind: "ready", model: await local(), label };
    } catch (err) {
      if (err instanceof ModelLoadError) return { kind: "missing", reason: err.message };
      throw err;
    }
  }

  /** A server call that failed in transport is done in-process instead (and noted); anything else is the caller's. */
  private readonly fallback = async <M, R>(
    err: unknown,
    local: () => Promise<M>,
    run: (m: M) => Promise<R>,
  ): Promise<R> => {
    if (!(err instanceof ModelServerError)) throw err;
    this.unserved(err.message);
    return run(await local());
  };

  /** Releases whatever was loaded here, and the connection to the server. */
  async close(): Promise<void> {
    for (const p of this.local) {
      const m = (await p.catch(() => null)) as Embedder | Reranker | null;
      await m?.close();
    }
    (await this.clientP?.catch(() => null))?.close();
    // Started, not awaited: it runs detached, for the commands after this one.
    if (this.startOnClose && this.server !== null) {
      this.startOnClose = false;
      this.server.start().catch(() => {});
    }
  }
}
