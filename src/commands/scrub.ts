/**
 * `funes scrub`: clean secrets out of the local memory, in place, under the writer lock. Every block is
 * rebuilt from its chunks and scanned whole. A dirty block is redacted where the scanner located each
 * value; it is kept only if the redacted block rescans clean, then re-chunked (same piece count → same ids).
 * Anything else is dropped whole. Kept rows keep their vectors; replacements are re-embedded when an
 * embedder is here (else they wait for `funes index`). One commit swaps old rows for new ones.
 * Scrub never touches a remote: what was published stays published.
 */
import { type Chunk, chunkId, splitText } from "../chunk/index.js";
import { chunksById, countRows, LocalStore, replaceChunks, storeVectors } from "../local/index.js";
import { funesPaths, withWriterLock } from "../memory/index.js";
import { type ModelsConfig, openEmbedder } from "../models/index.js";
import { applyRedactions, findingsPerText } from "../redact/index.js";
import { type DirtyBlock, dirtyBlocks, firstRule } from "../sync/index.js";

/** What scrub did. */
export interface ScrubSummary {
  /** Rows in the memory before scrubbing. */
  total: number;
  /** Rows after. */
  rows: number;
  redactedBlocks: number;
  /** Secrets redacted, by rule. */
  redacted: Record<string, number>;
  droppedBlocks: number;
  droppedRows: number;
  /** Dropped blocks, by the first rule that found a secret in them. */
  dropped: Record<string, number>;
  /** Replacement rows embedded now. */
  embedded: number;
  /** Replacement rows left without a vector (no embedder here); `funes index` embeds them. */
  waitingForVectors: number;
  /** Why replacements were not embedded, when they were not. */
  note: string | null;
}

/** Options of a scrub. */
export interface ScrubOptions {
  funesHome: string;
  models?: ModelsConfig | undefined;
}

/** A dirty block's fate: its replacement chunks' texts and the secrets replaced, or null to drop it. */
async function redactBlocks(
  dirty: DirtyBlock[],
): Promise<({ texts: string[]; counts: Record<string, number> } | null)[]> {
  const redacted = dirty.map((d) => applyRedactions(d.text, d.findings));
  // Removing one value can expose another (a credential URL inside another, say): keep only clean results.
  const rescan = await findingsPerText(redacted.map((r) => r.text));
  // A secret in another column (the working folder, an id) is in every row the block's chunks are made
  // from: the block is dropped.
  return redacted.map((r, i) =>
    (rescan[i] ?? []).length === 0 && (dirty[i]?.fields.length ?? 0) === 0
      ? { texts: splitText(r.text), counts: r.counts }
      : null,
  );
}

/** Scrubs the local memory; null when there is none. */
export async function scrubMemory(opts: ScrubOptions): Promise<ScrubSummary | null> {
  return withWriterLock(opts.funesHome, async () => {
    const store = await LocalStore.open(funesPaths(opts.funesHome).memory);
    if (store === null) return null;
    try {
      return await scrubStore(store, opts);
    } finally {
      store.close();
    }
  });
}

async function scrubStore(store: LocalStore, opts: ScrubOptions): Promise<ScrubSummary> {
  const total = await countRows(store);
  const summary: ScrubSummary = {
    total,
    rows: total,
    redactedBlocks: 0,
    redacted: {},
    droppedBlocks: 0,
    droppedRows: 0,
    dropped: {},
    embedded: 0,
    waitingForVectors: 0,
    note: null,
  };
  if (total === 0) return summary;
  const dirty = await dirtyBlocks(store);
  if (dirty.length === 0) return summary;
  const fates = await redactBlocks(dirty);
  const templates = new Map(
    (
      await chunksById(
        store,
        dirty.map((d) => d.chunks[0]?.id ?? ""),
      )
    ).map((c) => [c.id, c]),
  );
  const remove: string[] = [];
  const replacements: Chunk[] = [];
  dirty.forEach((d, i) => {
    for (const c of d.chunks) remove.push(c.id);
    const fate = fates[i];
    const template = templates.get(d.chunks[0]?.id ?? "");
    if (fate === null || fate === undefined || template === undefined) {
      summary.droppedBlocks++;
      summary.droppedRows += d.chunks.length;
      const rule = firstRule(d);
      summary.dropped[rule] = (summary.dropped[rule] ?? 0) + 1;
      return;
    }
    summary.redactedBlocks++;
    for (const [rule, n] of Object.entries(fate.counts))
      summary.redacted[rule] = (summary.redacted[rule] ?? 0) + n;
    replacements.push(
      ...fate.texts.map((text, splitIdx) => ({
        ...template,
        text,
        splitIdx,
        id: chunkId(template.sessionId, template.turnUuid, template.blockIdx, splitIdx),
      })),
    );
  });
  await replaceChunks(store, remove, replacements);
  summary.rows = await countRows(store);
  const vectors = await embedReplacements(
    replacements.map((r) => ({ id: r.id, text: r.text })),
    opts.models,
  );
  if (vectors.kind === "ready") summary.embedded = await storeVectors(store, vectors.vectors);
  else summary.note = vectors.reason;
  summary.waitingForVectors = replacements.length - summary.embedded;
  await store.maintainTextIndex();
  return summary;
}

async function embedReplacements(
  rows: { id: string; text: string }[],
  models: ModelsConfig | undefined,
): Promise<{ kind: "ready"; vectors: Map<string, Float32Array> } | { kind: "missing"; reason: string }> {
  if (rows.length === 0) return { kind: "ready", vectors: new Map() };
  if (models === undefined) return { kind: "missing", reason: "no embedder configured" };
  const opened = await openEmbedder(models);
  if (opened.kind === "missing") return opened;
  const { embedder } = opened;
  try {
    const out = new Map<string, Float32Array>();
    for (let i = 0; i < rows.length; i += 64) {
      const part = rows.slice(i, i + 64);
      const vs = await embedder.embed(part.map((r) => r.text));
      part.forEach((r, j) => {
        const v = vs[j];
        if (v !== undefined) out.set(r.id, v);
      });
    }
    return { kind: "ready", vectors: out };
  } finally {
    await embedder.close();
  }
}
