/**
 * The int8 embedder's file, derived from the model folder's fp32 onnx/model.onnx and kept beside it
 * (`onnx/model_funes_q8_<tag>.onnx`) once it has passed its check against fp32, so only the first load
 * pays for the rewrite (≈ 0.7 s). The tag covers the source's size and modification time and the
 * rewrite's version: a replaced model.onnx, or a funes that rewrites differently, derives a new file and
 * removes the old ones. A folder funes cannot write (a read-only copy) gets the model rewritten in memory
 * on every load instead.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { quantizeOnnx } from "./quantize.js";

/** Bumped whenever quantize.ts, pooled-row.ts or onnx-model.ts would write another file for a source. */
const QUANTIZER_VERSION = 1;
const PREFIX = "model_funes_q8_";
/** A temporary copy older than this is a crashed writer's, removed on the next derive. */
const STALE_TMP_MS = 60 * 60 * 1000;

/** A kept file (checked when it was made), or a fresh rewrite to check, then `keep()`. */
export type DerivedModel =
  | { kind: "kept"; file: string }
  | { kind: "fresh"; bytes: Uint8Array; keep: () => void };

/** The int8 model of the folder `dir`: the kept file, or a new rewrite of model.onnx. */
export function int8Model(dir: string): DerivedModel {
  const onnx = join(dir, "onnx");
  const st = statSync(join(onnx, "model.onnx"));
  const tag = createHash("sha1")
    .update(`${QUANTIZER_VERSION}:${st.size}:${st.mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  const name = `${PREFIX}${tag}.onnx`;
  const target = join(onnx, name);
  try {
    if (statSync(target).isFile()) return { kind: "kept", file: target };
  } catch {
    // not derived yet
  }
  const { bytes } = quantizeOnnx(readFileSync(join(onnx, "model.onnx")));
  return { kind: "fresh", bytes, keep: () => keep(onnx, name, bytes) };
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
