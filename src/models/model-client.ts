/**
 * The client side of the model server (model-server.ts): an Embedder and a Reranker whose work happens in
 * the server. Transport failures are ModelServerError, so callers can fall back to loading in-process; a
 * model the server could not load is a ModelLoadError, as in-process.
 */
import { createConnection, type Socket } from "node:net";
import {
  type ModelRef,
  type ServerReply,
  type ServerRequest,
  type ServerStatus,
  unpackVectors,
} from "./model-server.js";
import { type Embedder, ModelLoadError, type Reranker } from "./runtime.js";

/** The server could not be reached, or stopped answering. */
export class ModelServerError extends Error {}

/** A request before it gets its id (Omit over each member of the union). */
type Outgoing = ServerRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

type Pending = { resolve: (r: ServerReply) => void; reject: (e: Error) => void };

/** A connection to a model server. */
export class ModelClient {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private buf = "";
  private broken: Error | null = null;

  private constructor(private readonly sock: Socket) {
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => this.onData(chunk));
    const fail = (why: string) => {
      this.broken ??= new ModelServerError(why);
      for (const p of this.pending.values()) p.reject(this.broken);
      this.pending.clear();
    };
    sock.on("error", (err) => fail(`model server connection failed: ${err.message}`));
    sock.on("close", () => fail("model server closed the connection"));
  }

  /** Connects, or resolves null when nothing listens at `path` within `timeoutMs`. */
  static connect(path: string, timeoutMs = 1000): Promise<ModelClient | null> {
    return new Promise((resolve) => {
      const sock = createConnection(path);
      const timer = setTimeout(() => {
        sock.destroy();
        resolve(null);
      }, timeoutMs);
      sock.once("connect", () => {
        clearTimeout(timer);
        sock.unref();
        resolve(new ModelClient(sock));
      });
      sock.once("error", () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    let nl = this.buf.indexOf("\n");
    while (nl >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      nl = this.buf.indexOf("\n");
      let reply: ServerReply;
      try {
        reply = JSON.parse(line) as ServerReply;
      } catch {
        this.sock.destroy(new Error("model server sent something that is not JSON"));
        return;
      }
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      p?.resolve(reply);
    }
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
        return unpackVectors(r.vectors ?? "", dim);
      },
      close: async () => {},
    };
  }

  /** The server's reranker for `ref`. */
  async reranker(ref: ModelRef): Promise<Reranker> {
    await this.call({ op: "load", model: ref });
    return {
      score: async (query, passages) =>
        passages.length === 0
          ? []
          : ((await this.call({ op: "score", model: ref, query, passages })).scores ?? []),
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
    this.sock.destroy();
  }
}
