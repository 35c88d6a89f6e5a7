/**
 * The int8 embedder's file, derived from the model folder's fp32 onnx/model.onnx and kept beside it
 * (`onnx/model_funes_q8_<tag>_<sha256>.onnx`) once it has passed its check against fp32, so only the first
 * load pays for the rewrite (≈ 0.7 s). The name records the hash of the bytes kept, checked on every load
 * (reading and hashing 33 MiB, bge-small's size, took 85–110 ms on a loaded 2-core machine): a file changed
 * on disk is derived again. The check reads the file a MiB at a time and onnxruntime then loads it by path:
 * loaded from one buffer of the whole file, that buffer stayed in the process until a garbage collection
 * (none came in a backfill's minutes: the bench-shaped file, 131 MB, kept an index run ≈ 120 MiB higher
 * throughout). The tag covers the source's size and modification time and the
 * rewrite's version: a replaced model.onnx, or a funes that rewrites differently, derives a new file and
 * removes the old ones. A folder funes cannot write (a read-only copy) gets the model rewritten in memory
 * on every load instead.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { quantizeOnnx } from "./quantize.js";

/** Bumped whenever quantize.ts, pooled-row.ts or onnx-model.ts would write another file for a source. */
const QUANTIZER_VERSION = 1;
const PREFIX = "model_funes_q8_";
/** A temporary copy older than this is a crashed writer's, removed on the next derive. */
const STALE_TMP_MS = 60 * 60 * 1000;

/**
 * A kept file (checked against fp32 when it was made, and its bytes against the hash in its name now), or a
 * fresh rewrite to check, then `keep()`.
 */
export type DerivedModel =
  | { kind: "kept"; file: string }
  | { kind: "fresh"; bytes: Uint8Array; keep: () => void };

/** The hex digits of the content's sha256 a kept file's name carries. */
const HASH_HEX = 32;

function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, HASH_HEX);
}

/** `contentHash` of a file's bytes, read a MiB at a time (never the whole file in one buffer). */
function fileHash(file: string): string {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, "r");
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex").slice(0, HASH_HEX);
}

/**
 * The int8 model of the folder `dir`: the kept file when its bytes still hash to the value recorded in its
 * name, else a new rewrite of model.onnx. A kept file that fails
 * the check (damaged on disk, zeroed, cut short) is removed and derived again, so it is never used.
 */
export function int8Model(dir: string): DerivedModel {
  const onnx = join(dir, "onnx");
  const st = statSync(join(onnx, "model.onnx"));
  const tag = createHash("sha1")
    .update(`${QUANTIZER_VERSION}:${st.size}:${st.mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  const stem = `${PREFIX}${tag}_`;
  for (const name of readdirSync(onnx)) {
    const m = name.startsWith(stem) ? /^([0-9a-f]+)\.onnx$/.exec(name.slice(stem.length)) : null;
    if (m === null) continue;
    const file = join(onnx, name);
    let hash: string;
    try {
      hash = fileHash(file);
    } catch {
      continue;
    }
    if (m[1] === hash) return { kind: "kept", file };
    forgetInt8Model(file);
  }
  const { bytes } = quantizeOnnx(readFileSync(join(onnx, "model.onnx")));
  return { kind: "fresh", bytes, keep: () => keep(onnx, `${stem}${contentHash(bytes)}.onnx`, bytes) };
}

/** Writes the checked rewrite (atomically), and removes older versions and crashed writers' copies. */
function keep(onnx: string, name: string, bytes: Uint8Array): void {
  const target = join(onnx, name);
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, target);
  } catch {
    // A folder funes cannot write: the model stays in memory for this load.
    rmSync(tmp, { force: true });
    return;
  }
  // Ages are taken against the file just written, so no clock is read here.
  const now = statSync(target).mtimeMs;
  for (const old of readdirSync(onnx)) {
    if (!old.startsWith(PREFIX) || old === name) continue;
    const path = join(onnx, old);
    try {
      if (old.endsWith(".onnx") || now - statSync(path).mtimeMs > STALE_TMP_MS) rmSync(path, { force: true });
    } catch {
      // Open elsewhere (Windows) or gone already: the next derive tries again.
    }
  }
}

/** Removes a kept file that failed to load, so the next load derives it again. */
export function forgetInt8Model(file: string): void {
  rmSync(file, { force: true });
}
