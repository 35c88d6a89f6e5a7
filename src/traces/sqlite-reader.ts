/**
 * SQLite, read in a worker thread with a time budget per query. The engine is `node-sqlite3-wasm`, SQLite
 * compiled to WebAssembly with a file system layer on Node's `fs`: it installs from the npm registry with
 * nothing to compile or download, and reads a file in place (a database is not loaded whole into memory).
 * SQLite has no way to stop a query from outside but `sqlite3_interrupt`, which that package does not
 * expose; a worker running WebAssembly can be terminated, though, mid-query. So each database is opened in
 * a worker of its own and every call waits for its answer at most `budgetMs`: a query that does not end (a
 * view over an endless recursive query) ends the worker and throws {@link SqliteBudgetError}, and the
 * reader refuses every later call with the same error. Calls stay synchronous for the callers (the
 * detection of a file's agent is): the main thread sleeps on a shared flag the worker raises when its
 * answer is posted, then takes the answer off the port.
 *
 * The worker opens the database read-write with `locking_mode=EXCLUSIVE`: the file is a private copy
 * (`sqlite-snapshot.ts`), and in exclusive mode SQLite keeps the WAL's index in memory instead of a shared
 * `-shm` mapping, which this engine lacks, so commits still in the `-wal` are read. `query_only` refuses any
 * statement that would write.
 */
import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/** A value SQLite hands back or takes as a parameter. */
export type SqlValue = number | bigint | string | Uint8Array | null;

/** A query ran past its budget; the database's reader is ended. */
export class SqliteBudgetError extends Error {
  constructor(
    readonly path: string,
    readonly budgetMs: number,
  ) {
    super(
      `reading "${path}" took longer than ${Math.round(budgetMs / 1000)} s and was stopped — check that it is the agent's own database (a view over an endless query can do this)`,
    );
  }
}

/**
 * The worker's program, run as a CommonJS script (`eval`), so it needs no file of its own in `dist/` nor a
 * TypeScript loader under the tests. Flag values: 0 waiting, 1 answered, 2 the worker ended.
 */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { port, flag, enginePath } = workerData;
const raise = (v) => { Atomics.store(flag, 0, v); Atomics.notify(flag, 0); };
process.on("exit", () => raise(2));
let engine = null;
let db = null;
port.on("message", (req) => {
  let reply;
  try {
    if (req.op === "open") {
      engine ??= require(enginePath);
      db = new engine.Database(req.path, { fileMustExist: true });
      db.exec("PRAGMA locking_mode = EXCLUSIVE");
      db.exec("PRAGMA query_only = 1");
      reply = { value: null };
    } else if (req.op === "all") {
      reply = { value: db.all(req.sql, req.params) };
    } else if (req.op === "close") {
      if (db !== null && db.isOpen) db.close();
      db = null;
      reply = { value: null };
    }
  } catch (e) {
    reply = { error: String((e && e.message) || e) };
  }
  port.postMessage(reply);
  raise(1);
});
`;

type Request =
  | { op: "open"; path: string }
  | { op: "all"; sql: string; params: SqlValue[] }
  | { op: "close" };
type Reply = { value: unknown } | { error: string };

/** How long the worker may take to start and open a database, whatever the budget of a query. */
const ENGINE_START_MS = 60_000;

/** One SQLite database open in a worker thread; every call bounded by the budget. */
export class SqliteReader {
  private ended: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly flag: Int32Array,
    /** The database this is a copy of, as messages name it. */
    readonly label: string,
    /** Milliseconds one call may take. */
    readonly budgetMs: number,
  ) {}

  /**
   * Opens `path` (a private copy: the worker may write to it), named `label` in messages. Throws what SQLite
   * says when it cannot.
   */
  static open(path: string, opts: { budgetMs: number; label: string }): SqliteReader {
    const { budgetMs, label } = opts;
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const enginePath = createRequire(import.meta.url).resolve("node-sqlite3-wasm");
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { port: port2, flag, enginePath },
      transferList: [port2],
      // The engine's own messages (it prints an abort's reason) must never reach stdout: under MCP that is
      // the protocol. They are read and dropped.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // Neither keeps the process alive: a run that is done exits with the worker still parked.
    worker.unref();
    port1.unref();
    const reader = new SqliteReader(worker, port1, flag, label, budgetMs);
    try {
      // The first call also starts the worker and compiles the engine (seconds on a loaded machine): it
      // is not the store's query, and gets a start-up allowance beside the budget.
      reader.call({ op: "open", path }, Math.max(budgetMs, ENGINE_START_MS));
    } catch (e) {
      reader.end();
      throw e;
    }
    return reader;
  }

  /** Every row of `sql`, columns by name. */
  all<T>(sql: string, ...params: SqlValue[]): T[] {
    return this.call({ op: "all", sql, params }) as T[];
  }

  /** The first row of `sql`, or undefined. */
  get<T>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.all<T>(sql, ...params)[0];
  }

  /** Closes the database (its files are the caller's to remove) and ends the worker. */
  close(): void {
    try {
      if (this.ended === null) this.call({ op: "close" });
    } finally {
      this.end();
    }
  }

  private end(): void {
    this.ended ??= new Error(`the SQLite reader of "${this.label}" is closed`);
    void this.worker.terminate();
  }

  private call(req: Request, budgetMs = this.budgetMs): unknown {
    if (this.ended !== null) throw this.ended;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(req);
    const waited = Atomics.wait(this.flag, 0, 0, budgetMs);
    const reply = receiveMessageOnPort(this.port)?.message as Reply | undefined;
    if (reply === undefined) {
      this.ended =
        waited === "timed-out"
          ? new SqliteBudgetError(this.label, budgetMs)
          : new Error(`the SQLite reader of "${this.label}" stopped — run the command again`);
      this.end();
      throw this.ended;
    }
    if ("error" in reply) throw new Error(reply.error);
    return reply.value;
  }
}
