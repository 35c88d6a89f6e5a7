/**
 * Reading a memory table kept open between reads: a long-lived process (the MCP server) answers every call
 * from the table it opened first, instead of opening it again (≈ 1 ms) and asking Lance its schema, row
 * count and indexes each time. A read starts at the table's current version, and what is learnt of that
 * version (its compatibility, columns, rows, vector index, and the answers of the search legs and the
 * neighbour reads) is kept for that version only. Every write, by any process, makes a new version, and a
 * table deleted and made again is another folder (another inode), opened anew: nothing kept is ever an
 * answer about rows since forgotten or added.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { type RowFilter, rowFilterSql } from "./named-queries.js";
import {
  type HitRow,
  hitColumnsOf,
  type KeywordHit,
  keywordSearch,
  rowsInRanges,
  sessionRows,
  type VectorHit,
  type VectorLayout,
  vectorLayout,
  vectorSearch,
} from "./queries.js";
import { TABLE_NAME } from "./schema.js";
import { HAS_VECTOR } from "./sql.js";
import { LocalStore } from "./store.js";

/** Answers kept per version (oldest out): a recall asks 3–5 of them, so this holds the last dozen recalls. */
const KNOWN_MAX = 64;
/** Tables kept open (a Hub memory's every commit is a folder of its own); the least recently read goes. */
const KEPT_MAX = 8;

/** What one version of a table is known to answer. */
interface Known {
  version: number;
  answers: Map<string, Promise<unknown>>;
}

/** A table kept open, the identity of its folder when opened, and what its newest version read answers. */
interface Kept {
  identity: string;
  store: Promise<LocalStore | null>;
  known: Known | null;
}

const kept = new Map<string, Kept>();

/** The folder's identity: its inode and birth time (a table deleted and made again is another folder). */
function identityOf(dir: string): string | null {
  try {
    const st = statSync(join(dir, `${TABLE_NAME}.lance`));
    return `${st.ino}:${st.birthtimeMs}`;
  } catch {
    return null;
  }
}

/** The memory's table, open to read at one version, with what that version answers kept. */
export class ReadView {
  private constructor(
    readonly store: LocalStore,
    readonly version: number,
    private readonly known: Known,
  ) {}

  /**
   * A view of the table in `dir` at its current version (null: there is none), from the table kept open
   * since the last read of that folder. A memory of another embedding model is an IncompatibleMemoryError,
   * checked once per version.
   */
  static async open(dir: string): Promise<ReadView | null> {
    const identity = identityOf(dir);
    if (identity === null) return null;
    let entry = kept.get(dir);
    if (entry === undefined || entry.identity !== identity) {
      const fresh: Kept = { identity, store: LocalStore.open(dir), known: null };
      fresh.store.catch(() => {
        if (kept.get(dir) === fresh) kept.delete(dir);
      });
      entry = fresh;
    }
    // Most recently read last; past the bound the first goes (its table is released when unreferenced).
    kept.delete(dir);
    kept.set(dir, entry);
    for (const k of kept.keys()) {
      if (kept.size <= KEPT_MAX) break;
      kept.delete(k);
    }
    const store = await entry.store;
    if (store === null) return null;
    const version = await store.table.version();
    if (entry.known?.version !== version) entry.known = { version, answers: new Map() };
    const view = new ReadView(store, version, entry.known);
    await view.remember("compatible", () => store.checkCompatible());
    return view;
  }

  /** A kept list, copied: a caller that sorts or extends its answer leaves the kept one as it was. */
  private async list<T>(key: string, make: () => Promise<T[]>): Promise<T[]> {
    return [...(await this.remember(key, make))];
  }

  /** `make()`'s answer for this version, asked once (a failure is not kept). */
  private remember<T>(key: string, make: () => Promise<T>): Promise<T> {
    const { answers } = this.known;
    let p = answers.get(key) as Promise<T> | undefined;
    if (p !== undefined) {
      // Most recently used last.
      answers.delete(key);
      answers.set(key, p);
      return p;
    }
    p = make();
    answers.set(key, p);
    p.catch(() => {
      if (answers.get(key) === p) answers.delete(key);
    });
    for (const k of answers.keys()) {
      if (answers.size <= KNOWN_MAX) break;
      answers.delete(k);
    }
    return p;
  }

  /** Rows in the memory. */
  rows(): Promise<number> {
    return this.remember("rows", () => this.store.table.countRows());
  }

  /** True when at least one row has a vector (one matching row is enough: far cheaper than counting). */
  hasVectors(): Promise<boolean> {
    return this.remember("vectors", async () => {
      const one = await this.store.table.query().where(HAS_VECTOR).select(["id"]).limit(1).toArray();
      return one.length > 0;
    });
  }

  /** True when the memory has the `harness` column (memories from before the facet lack it). */
  hasHarnessFacet(): Promise<boolean> {
    return this.remember("harness", async () =>
      (await this.store.table.schema()).fields.some((f) => f.name === "harness"),
    );
  }

  private async columns(): Promise<string[]> {
    return hitColumnsOf(await this.hasHarnessFacet());
  }

  private layout(): Promise<VectorLayout> {
    return this.remember("layout", () => vectorLayout(this.store.table));
  }

  /** The keyword leg: BM25 over the text, filtered before ranking; `vectors` also reads each hit's vector. */
  keyword(q: { query: string; limit: number; filter: RowFilter; vectors: boolean }): Promise<KeywordHit[]> {
    const where = rowFilterSql(q.filter);
    return this.list(`keyword\0${JSON.stringify([q.query, q.limit, where ?? null, q.vectors])}`, async () =>
      keywordSearch(this.store.table, {
        query: q.query,
        limit: q.limit,
        where,
        vectors: q.vectors,
        columns: await this.columns(),
      }),
    );
  }

  /** The vector leg: nearest rows by cosine, filtered before ranking. */
  vector(q: { vector: Float32Array; limit: number; filter: RowFilter }): Promise<VectorHit[]> {
    const where = rowFilterSql(q.filter);
    const v = Buffer.from(q.vector.buffer, q.vector.byteOffset, q.vector.byteLength).toString("base64");
    return this.list(`vector\0${JSON.stringify([v, q.limit, where ?? null])}`, async () =>
      vectorSearch(this.store.table, {
        vector: q.vector,
        limit: q.limit,
        where,
        columns: await this.columns(),
        layout: await this.layout(),
      }),
    );
  }

  /** Every chunk of these sessions within these seq ranges, in one scan. */
  around(ranges: { sessionId: string; from: number; to: number }[]): Promise<HitRow[]> {
    return this.list(`around\0${JSON.stringify(ranges)}`, async () =>
      rowsInRanges(this.store.table, ranges, await this.columns()),
    );
  }

  /** Every chunk of one session. */
  session(sessionId: string): Promise<HitRow[]> {
    return this.list(`session\0${sessionId}`, async () =>
      sessionRows(this.store.table, sessionId, await this.columns()),
    );
  }
}
