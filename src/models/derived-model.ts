/**
 * The int8 embedder's file, derived once from the model folder's fp32 onnx/model.onnx and kept beside it
 * (`onnx/model_funes_q8_<tag>.onnx`), so only the first load pays for the rewrite (≈ 0.6 s). The tag
 * covers the source's size and modification time and the quantizer's version: a replaced model.onnx, or
 * a funes that quantizes differently, derives a new file and removes the old ones. A folder funes cannot
 * write (a read-only copy) gets the model rewritten in memory on every load instead.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { quantizeOnnx } from "./quantize.js";

/** Bumped whenever quantize.ts would write a different file for the same source. */
const QUANTIZER_VERSION = 1;
const PREFIX = "model_funes_q8_";

/** The derived model: its path (or its bytes when the folder cannot hold it), and whether it was just made. */
export interface DerivedModel {
  file: string | Uint8Array;
  fresh: boolean;
}

/** The int8 model of the folder `dir`, derived now unless a current one is already there. */
export function int8ModelFile(dir: string): DerivedModel {
  const onnx = join(dir, "onnx");
  const source = join(onnx, "model.onnx");
  const st = statSync(source);
  const tag = createHash("sha1")
    .update(`${QUANTIZER_VERSION}:${st.size}:${st.mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  const name = `${PREFIX}${tag}.onnx`;
  const target = join(onnx, name);
  try {
    if (statSync(target).isFile()) return { file: target, fresh: false };
  } catch {
    // not derived yet
  }
  const { bytes } = quantizeOnnx(readFileSync(source));
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, target);
  } catch {
    rmSync(tmp, { force: true });
    return { file: bytes, fresh: true };
  }
  for (const old of readdirSync(onnx))
    if (old.startsWith(PREFIX) && old !== name && old.endsWith(".onnx"))
      rmSync(join(onnx, old), { force: true });
  return { file: target, fresh: true };
}

/** Removes the derived file (it failed its check against fp32). */
export function dropInt8Model(d: DerivedModel): void {
  if (typeof d.file === "string") rmSync(d.file, { force: true });
}
