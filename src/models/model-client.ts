/**
 * The client side of the model server (model-server.ts): an Embedder and a Reranker whose work happens in
 * the server. Transport failures are ModelServerError, so callers can fall back to loading in-process; a
 * model the server could not load is a ModelLoadError, as in-process.
 *
 * Every request is bounded in time without cutting a long one short: while requests are out, the client
 * asks the server's status every `answerMs` (answered out of turn); a server that has not sent anything
 * for that long (stopped, hung) fails every request with a ModelServerError, and the connection is closed.
 * Before connecting, the socket's folder and the socket itself are checked to be this user's own.
 */
import { createConnection, type Socket } from "node:net";
import { FrameReader } from "./frames.js";
import type { ModelRef, ServerReply, ServerRequest, ServerStatus } from "./model-server.js";
import { unpackVectors } from "./model-server.js";
import { parseReply } from "./protocol-check.js";
import { type Embedder, ModelLoadError, type Reranker } from "./runtime.js";
import { socketState } from "./socket-place.js";

/** The server could not be reached, or stopped answering. */
export class ModelServerError extends Error {}

/** A request before it gets its id (Omit over each member of the union). */
type Outgoing = ServerRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

type Pending = { resolve: (r: ServerReply) => void; reject: (e: Error) => void };

/** The longest reply line read, bytes (64 vectors are ≈ 130 KB of base64). */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** How long a server may stay silent while a request is out before it counts as not answering, ms. */
export const DEFAULT_ANSWER_MS = 5000;

/** Connecting: the client, nothing listening there, or a place funes will not connect to (and why). */
export type Connected =
  | { kind: "connected"; client: ModelClient }
  | { kind: "absent" }
  | { kind: "refused"; reason: string };

/** Options of {@link ModelClient.connect}. */
export interface ConnectOptions {
  /** How long the connection may take, ms. */
  timeoutMs?: number;
  /** See {@link DEFAULT_ANSWER_MS}. */
  answerMs?: number;
}

/** A connection to a model server. */
export class ModelClient {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly frames = new FrameReader(MAX_REPLY_BYTES);
  private broken: Error | null = null;
  /** Ids of the status requests the watchdog sent. */
  private readonly pings = new Set<number>();
  private watchdog: NodeJS.Timeout | null = null;
  private heard = false;

  private constructor(
    private readonly sock: Socket,
    /** The socket's inode when it was checked (`server stop` removes only that one). */
    readonly ino: number,
    private readonly answerMs: number,
  ) {
    sock.on("data", (chunk: Buffer) => this.onData(chunk));
    sock.on("error", (err) => this.fail(`model server connection failed: ${err.message}`));
    sock.on("close", () => this.fail("model server closed the connection"));
  }

  /** Checks the socket's place, then connects within `timeoutMs`. */
  static connect(path: string, o: ConnectOptions = {}): Promise<Connected> {
    const there = socketState(path);
    if (there.kind !== "socket") return Promise.resolve(there);
    return new Promise((resolve) => {
      const sock = createConnection(path);
      const timer = setTimeout(() => {
        sock.destroy();
        resolve({ kind: "absent" });
      }, o.timeoutMs ?? 1000);
      sock.once("connect", () => {
        clearTimeout(timer);
        sock.unref();
        resolve({
          kind: "connected",
          client: new ModelClient(sock, there.ino, o.answerMs ?? DEFAULT_ANSWER_MS),
        });
      });
      sock.once("error", () => {
        clearTimeout(timer);
        resolve({ kind: "absent" });
      });
    });
  }

  private fail(why: string): void {
    this.broken ??= new ModelServerError(why);
    for (const p of this.pending.values()) p.reject(this.broken);
    this.pending.clear();
    this.stopWatchdog();
  }

  private onData(chunk: Buffer): void {
    this.heard = true;
    let lines: string[];
    try {
      lines = this.frames.push(chunk);
    } catch {
      this.fail("model server sent a reply longer than any it makes");
      this.sock.destroy();
      return;
    }
    for (const line of lines) {
      const reply = parseReply(line);
      if (reply === null) {
        this.fail("model server sent something that is not a reply");
        this.sock.destroy();
        return;
      }
      if (this.pings.delete(reply.id)) continue;
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      p?.resolve(reply);
    }
    if (this.pending.size === 0) this.stopWatchdog();
  }

  /**
   * While requests are out: after half of `answerMs` without a word from the server it is asked its status;
   * silent for the other half too, it fails them all. A quick request never sends a ping.
   */
  private startWatchdog(): void {
    if (this.watchdog !== null) return;
    this.heard = false;
    let asked = false;
    this.watchdog = setInterval(() => {
      if (this.heard) {
        this.heard = false;
        asked = false;
      } else if (!asked) {
        asked = true;
        const id = this.next++;
        this.pings.add(id);
        this.sock.write(`${JSON.stringify({ id, op: "status" })}\n`);
      } else {
        this.fail(`model server did not answer within ${Math.round(this.answerMs / 1000)} s`);
        this.sock.destroy();
      }
    }, this.answerMs / 2);
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private async call(req: Outgoing): Promise<ServerReply & { ok: true }> {
    if (this.broken !== null) throw this.broken;
    const id = this.next++;
    // Keep the process alive while a request is out; idle connections must not hold the CLI open.
    this.sock.ref();
    try {
      const reply = await new Promise<ServerReply>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.sock.write(`${JSON.stringify({ ...req, id })}\n`);
        this.startWatchdog();
      });
      if (!reply.ok)
        throw reply.modelError ? new ModelLoadError(reply.error) : new ModelServerError(reply.error);
      return reply;
    } finally {
      if (this.pending.size === 0) this.sock.unref();
    }
  }

  /** The server's embedder for `ref` (loaded there on first use). */
  async embedder(ref: ModelRef): Promise<Embedder> {
    const { dim } = await this.call({ op: "load", model: ref });
    if (dim === undefined) throw new ModelServerError("model server did not say the embedder's dimension");
    return {
      dim,
      embed: async (texts) => {
        if (texts.length === 0) return [];
        const r = await this.call({ op: "embed", model: ref, texts });
        const vectors = unpackVectors(r.vectors ?? "", dim);
        if (vectors.length !== texts.length)
          throw new ModelServerError(`model server sent ${vectors.length} vectors for ${texts.length} texts`);
        return vectors;
      },
      close: async () => {},
    };
  }

  /** The server's reranker for `ref`. */
  async reranker(ref: ModelRef): Promise<Reranker> {
    await this.call({ op: "load", model: ref });
    return {
      score: async (query, passages) => {
        if (passages.length === 0) return [];
        const scores = (await this.call({ op: "score", model: ref, query, passages })).scores ?? [];
        if (scores.length !== passages.length)
          throw new ModelServerError(
            `model server sent ${scores.length} scores for ${passages.length} passages`,
          );
        return scores;
      },
      close: async () => {},
    };
  }

  /** What the server holds. */
  async status(): Promise<ServerStatus> {
    const r = await this.call({ op: "status" });
    if (r.status === undefined) throw new ModelServerError("model server sent no status");
    return r.status;
  }

  /** Asks the server to stop. */
  async stop(): Promise<void> {
    await this.call({ op: "stop" });
  }

  /** Closes this connection (the server keeps running). */
  close(): void {
    this.stopWatchdog();
    this.sock.destroy();
  }
}
