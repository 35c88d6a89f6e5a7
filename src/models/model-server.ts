/**
 * A model server: one process per `$FUNES_HOME` that keeps the embedder and rerankers loaded and answers
 * embed and score requests over a Unix socket, so a shell `funes recall` and every agent's MCP process
 * share one warm copy instead of each loading ~500 MiB. Newline-delimited JSON, one request per line,
 * answered in order. The socket file is owner-only (0600) in an owner-only folder: only this user (and
 * root) can connect. Models are loaded from the folders the clients name, on first use, with the same
 * loaders as in-process use; the server knows nothing of memories.
 */

import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type Embedder,
  type LoadOptions,
  loadEmbedder,
  loadReranker,
  ModelLoadError,
  type Reranker,
} from "./runtime.js";
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

/** How often a running server checks that its socket still exists, ms. */
const ORPHAN_CHECK_MS = 5000;

/** Query-passage scores the server keeps (about 100 bytes each). */
const SCORE_CACHE_MAX = 20_000;

/** Unix socket paths are limited to ~108 bytes; longer homes get a socket under the temp folder. */
const MAX_SOCKET_PATH = 100;

/** Where the model server of `funesHome` listens. */
export function modelSocketPath(funesHome: string): string {
  const own = join(funesHome, "run", "models.sock");
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) return own;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const tag = createHash("sha1").update(funesHome).digest("hex").slice(0, 16);
  return join(tmpdir(), `funes-${uid}`, `${tag}.sock`);
}

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

/**
 * Runs the server until it is stopped or idle. Resolves when it has shut down. Refuses to start (resolves
 * at once, returning false) when another live server holds the socket.
 */
export async function serveModels(o: ServeOptions): Promise<boolean> {
  mkdirSync(dirname(o.socketPath), { recursive: true, mode: 0o700 });
  chmodSync(dirname(o.socketPath), 0o700);
  const lock = `${o.socketPath}.pid`;
  if (!takePidFile(lock)) return false;
  if (existsSync(o.socketPath)) {
    if (await answers(o.socketPath)) {
      rmSync(lock, { force: true });
      return false;
    }
    unlinkSync(o.socketPath);
  }
  const embedders = new Map<string, Promise<Embedder>>();
  const rerankers = new Map<string, Promise<Reranker>>();
  const startedAt = o.now();
  let requests = 0;
  let scored = 0;
  let reused = 0;
  let idle: NodeJS.Timeout | null = null;
  let orphan: NodeJS.Timeout | null = null;
  let busy = 0;
  let server: Server | null = null;
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
    // Only while the pid file is still ours: a server that took over the path keeps its socket and lock.
    if (ownsPidFile(lock)) {
      rmSync(o.socketPath, { force: true });
      rmSync(lock, { force: true });
    }
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
  const scoreCache = new Map<string, number>();
  const cachedScores = async (req: Extract<ServerRequest, { op: "score" }>): Promise<number[]> => {
    const keys = req.passages.map((p) =>
      createHash("sha1")
        .update(key(req.model))
        .update("\0")
        .update(req.query)
        .update("\0")
        .update(p)
        .digest("hex"),
    );
    const missing = keys.flatMap((k, i) => (scoreCache.has(k) ? [] : [i]));
    scored += missing.length;
    reused += keys.length - missing.length;
    if (missing.length > 0) {
      const fresh = await (await reranker(req.model)).score(
        req.query,
        missing.map((i) => req.passages[i] as string),
      );
      missing.forEach((i, j) => {
        scoreCache.set(keys[i] as string, fresh[j] ?? 0);
      });
      // Oldest first out: a Map keeps insertion order.
      for (const k of scoreCache.keys()) {
        if (scoreCache.size <= SCORE_CACHE_MAX) break;
        scoreCache.delete(k);
      }
    }
    return keys.map((k) => scoreCache.get(k) ?? 0);
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
  server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => sock.destroy());
    let buf = "";
    let chain = Promise.resolve();
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => {
      buf += chunk;
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
        let req: ServerRequest;
        try {
          req = JSON.parse(line) as ServerRequest;
        } catch {
          sock.destroy();
          return;
        }
        busy++;
        touch();
        chain = chain
          .then(() => handle(req))
          .then((reply) => {
            if (!sock.destroyed) sock.write(`${JSON.stringify(reply)}\n`);
          })
          .finally(() => {
            busy--;
            touch();
          });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server?.once("error", reject);
    server?.listen(o.socketPath, () => resolve());
  });
  chmodSync(o.socketPath, 0o600);
  o.log(`listening on ${o.socketPath} (pid ${process.pid})`);
  touch();
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => stop(sig));
  // A server whose socket is gone (its FUNES_HOME deleted, another server took over) can never be reached;
  // one whose program is gone (uninstalled) must not outlive it.
  orphan = setInterval(() => {
    if (!existsSync(o.socketPath)) stop("its socket was removed");
    else if (o.program !== undefined && !existsSync(o.program))
      stop(`its program files were removed (${o.program})`);
  }, ORPHAN_CHECK_MS);
  orphan.unref();
  await done;
  return true;
}

/** Exclusive pid file; a dead owner's file is taken over. */
function takePidFile(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx", mode: 0o600 });
      return true;
    } catch {
      const pid = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) return false;
      rmSync(path, { force: true });
    }
  }
  return false;
}

function ownsPidFile(path: string): boolean {
  try {
    return readFileSync(path, "utf8").trim() === String(process.pid);
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True when something answers on the socket. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
