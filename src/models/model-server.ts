/**
 * A model server: one process per `$FUNES_HOME` that keeps the embedder and rerankers loaded and answers
 * embed and score requests over a Unix socket, so a shell `funes recall` and every agent's MCP process
 * share one warm copy instead of each loading ~500 MiB. Newline-delimited JSON, one request per line,
 * answered in order. The socket file is owner-only (0600) in an owner-only folder: only this user (and
 * root) can connect. Models are loaded from the folders the clients name, on first use, with the same
 * loaders as in-process use; the server knows nothing of memories.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { FrameReader, FrameTooLongError } from "./frames.js";
import { KeptAnswers, scoresKept } from "./kept-answers.js";
import { badRequest, parseRequest } from "./protocol-check.js";
import {
  type Embedder,
  type LoadOptions,
  loadEmbedder,
  loadReranker,
  ModelLoadError,
  type Reranker,
} from "./runtime.js";
import { claimSocket, holds, releaseSocket } from "./socket-claim.js";
import { EMBEDDER_INT8_SPEC, EMBEDDER_SPEC, type ModelSpec, rerankerSpec } from "./specs.js";

/** Which model a request is for: its role, spec key and folder. */
export interface ModelRef {
  role: "embedder" | "reranker";
  key: string;
  dir: string;
}

/** Requests a client sends. */
export type ServerRequest =
  | { id: number; op: "load"; model: ModelRef }
  | { id: number; op: "embed"; model: ModelRef; texts: string[] }
  | { id: number; op: "score"; model: ModelRef; query: string; passages: string[] }
  | { id: number; op: "status" }
  | { id: number; op: "stop" };

/** What `status` reports. */
export interface ServerStatus {
  pid: number;
  /** Epoch ms. */
  startedAt: number;
  requests: number;
  /** Query-passage pairs the cross-encoder scored, and those answered from scores kept from before. */
  scored: number;
  reused: number;
  /** Loaded models, `role key dir`. */
  models: string[];
  rssBytes: number;
  /** Idle time before the server exits, ms. */
  idleMs: number;
}

/** Replies, matched to requests by id. */
export type ServerReply =
  | { id: number; ok: true; dim?: number; vectors?: string; scores?: number[]; status?: ServerStatus }
  | { id: number; ok: false; error: string; modelError: boolean };

/** How often a running server checks that its socket is still its own, ms. */
const ORPHAN_CHECK_MS = 5000;

/** Query-passage scores the server keeps (about 100 bytes each). */
const SCORE_CACHE_MAX = 20_000;

/**
 * The longest request line the server reads, bytes: 30 passages of 1,200 code points are ≈ 150 KB; a
 * longer line is refused and its connection closed.
 */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** Float32 vectors ↔ one base64 string (dim floats each). */
export function packVectors(vs: Float32Array[]): string {
  const out = Buffer.alloc(vs.reduce((n, v) => n + v.byteLength, 0));
  let o = 0;
  for (const v of vs) {
    Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(out, o);
    o += v.byteLength;
  }
  return out.toString("base64");
}

/** Inverse of packVectors. */
export function unpackVectors(b64: string, dim: number): Float32Array[] {
  const buf = Buffer.from(b64, "base64");
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const out: Float32Array[] = [];
  for (let i = 0; i + dim <= all.length; i += dim) out.push(all.slice(i, i + dim));
  return out;
}

function specFor(ref: ModelRef): ModelSpec {
  const spec =
    ref.role === "embedder"
      ? ([EMBEDDER_SPEC, EMBEDDER_INT8_SPEC].find((s) => s.key === ref.key) ?? null)
      : rerankerSpec(ref.key);
  if (spec === null) throw new ModelLoadError(`unknown ${ref.role} "${ref.key}"`);
  return spec;
}

/** Options of a running server. */
export interface ServeOptions {
  socketPath: string;
  /** The `$FUNES_HOME` it serves (its `run` folder is made inside it). */
  funesHome: string;
  load: LoadOptions;
  /** Exit after this long without a request, ms. */
  idleMs: number;
  /** One line per event (start, load, stop), for the server's log. */
  log: (line: string) => void;
  /** ms since the epoch (`status`'s start time). */
  now: () => number;
  /**
   * A file of the program the server runs from. When it is gone (funes uninstalled, or its build
   * removed), the server stops: code already loaded must not keep serving from deleted files.
   */
  program?: string | undefined;
}

/** How a server run ended: it served until stopped, another live server holds the socket, or it refused. */
export type ServeOutcome = { kind: "served" } | { kind: "held" } | { kind: "refused"; reason: string };

/**
 * Runs the server until it is stopped or idle. Resolves when it has shut down; at once when another live
 * server holds the socket, or when the socket's place is not this user's own (see socket-place.ts).
 */
export async function serveModels(o: ServeOptions): Promise<ServeOutcome> {
  let server: Server | null = createServer((sock) => serveConnection(sock));
  const claim = await claimSocket(server, o.socketPath, o.funesHome);
  if (claim.kind !== "claimed") return claim;
  const embedders = new Map<string, Promise<Embedder>>();
  const rerankers = new Map<string, Promise<Reranker>>();
  const startedAt = o.now();
  let requests = 0;
  let scored = 0;
  let reused = 0;
  let idle: NodeJS.Timeout | null = null;
  let orphan: NodeJS.Timeout | null = null;
  let busy = 0;
  const sockets = new Set<Socket>();
  let stopped: () => void = () => {};
  const done = new Promise<void>((r) => {
    stopped = r;
  });
  const stop = (why: string) => {
    if (server === null) return;
    o.log(`stopping: ${why}`);
    const s = server;
    server = null;
    s.close();
    if (orphan !== null) clearInterval(orphan);
    if (idle !== null) clearTimeout(idle);
    idle = null;
    for (const sock of sockets) sock.destroy();
    // Only while the path holds our socket: a server that took over the path keeps it.
    releaseSocket(o.socketPath, claim.ino);
    void Promise.all(
      [...embedders.values(), ...rerankers.values()].map((p) => p.then((m) => m.close()).catch(() => {})),
    ).then(() => stopped());
  };
  const touch = () => {
    if (server === null) return; // stopped: no timer may keep the process alive
    if (idle !== null) clearTimeout(idle);
    idle = busy > 0 ? null : setTimeout(() => stop(`idle for ${Math.round(o.idleMs / 1000)} s`), o.idleMs);
  };
  const key = (ref: ModelRef) => `${ref.role} ${ref.key} ${ref.dir}`;
  const embedder = (ref: ModelRef) => {
    let p = embedders.get(key(ref));
    if (p === undefined) {
      o.log(`loading ${key(ref)}`);
      p = loadEmbedder(ref.dir, specFor(ref), o.load);
      embedders.set(key(ref), p);
      p.catch(() => embedders.delete(key(ref)));
    }
    return p;
  };
  const reranker = (ref: ModelRef) => {
    let p = rerankers.get(key(ref));
    if (p === undefined) {
      o.log(`loading ${key(ref)}`);
      p = loadReranker(ref.dir, specFor(ref), o.load);
      rerankers.set(key(ref), p);
      p.catch(() => rerankers.delete(key(ref)));
    }
    return p;
  };
  // Scores already computed for a query and passage (a repeated recall, an agent asking again) are kept:
  // the cross-encoder is most of a warm recall's time.
  const scoreCache = new KeptAnswers<number>(SCORE_CACHE_MAX);
  const cachedScores = async (req: Extract<ServerRequest, { op: "score" }>): Promise<number[]> => {
    const r = await scoresKept(scoreCache, {
      model: key(req.model),
      query: req.query,
      passages: req.passages,
      score: async (ps) => (await reranker(req.model)).score(req.query, ps),
    });
    scored += r.scored;
    reused += r.reused;
    return r.scores;
  };
  const handle = async (req: ServerRequest): Promise<ServerReply> => {
    requests++;
    try {
      switch (req.op) {
        case "load":
          if (req.model.role === "embedder")
            return { id: req.id, ok: true, dim: (await embedder(req.model)).dim };
          await reranker(req.model);
          return { id: req.id, ok: true };
        case "embed": {
          const e = await embedder(req.model);
          return { id: req.id, ok: true, dim: e.dim, vectors: packVectors(await e.embed(req.texts)) };
        }
        case "score":
          return {
            id: req.id,
            ok: true,
            scores: await cachedScores(req),
          };
        case "status":
          return {
            id: req.id,
            ok: true,
            status: {
              pid: process.pid,
              startedAt,
              requests,
              scored,
              reused,
              models: [...embedders.keys(), ...rerankers.keys()],
              rssBytes: process.memoryUsage().rss,
              idleMs: o.idleMs,
            },
          };
        case "stop":
          setImmediate(() => stop("asked to stop"));
          return { id: req.id, ok: true };
      }
    } catch (err) {
      return {
        id: req.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
        modelError: err instanceof ModelLoadError,
      };
    }
  };
  function serveConnection(sock: Socket): void {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => sock.destroy());
    const frames = new FrameReader(MAX_REQUEST_BYTES);
    let chain = Promise.resolve();
    const send = (reply: ServerReply) => {
      if (!sock.destroyed) sock.write(`${JSON.stringify(reply)}\n`);
    };
    sock.on("data", (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = frames.push(chunk);
      } catch (err) {
        if (!(err instanceof FrameTooLongError)) throw err;
        o.log(`refused a request: ${err.message}`);
        sock.end(`${JSON.stringify(badRequest(0, err.message))}\n`);
        sock.destroySoon();
        return;
      }
      for (const line of lines) {
        const req = parseRequest(line);
        if ("error" in req) {
          send(badRequest(req.id, req.error));
          continue;
        }
        // Status is answered at once, out of turn: a client waiting on a long request asks it to learn
        // that the server is alive (replies are matched by id).
        if (req.op === "status") {
          void handle(req).then(send);
          continue;
        }
        busy++;
        touch();
        chain = chain
          .then(() => handle(req))
          .then(send)
          .finally(() => {
            busy--;
            touch();
          });
      }
    });
  }
  o.log(`listening on ${o.socketPath} (pid ${process.pid})`);
  touch();
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => stop(sig));
  // A server whose socket is gone (its FUNES_HOME deleted, `server stop` gave up on it, another server
  // took over) can never be reached; one whose program is gone (uninstalled) must not outlive it.
  orphan = setInterval(() => {
    if (!holds(o.socketPath, claim.ino)) stop("its socket was removed or replaced");
    else if (o.program !== undefined && !existsSync(o.program))
      stop(`its program files were removed (${o.program})`);
  }, ORPHAN_CHECK_MS);
  orphan.unref();
  await done;
  return { kind: "served" };
}
