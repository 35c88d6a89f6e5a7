import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoCacheDir } from "./hf-cache.js";
import { locateEmbedder, type ModelsConfig } from "./models-config.js";
import { EMBEDDER_SPEC } from "./specs.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cache(): { hubCache: string; cfg: ModelsConfig } {
  const hubCache = mkdtempSync(join(tmpdir(), "funes-models-"));
  dirs.push(hubCache);
  return {
    hubCache,
    cfg: { hubCache, reranker: "ms-marco-MiniLM-L-6-v2", threads: 1, hubUrl: "http://hub" },
  };
}

/** A snapshot of the embedder's repo at `commit` holding `files`. */
function snapshot(hubCache: string, commit: string, files: string[]): string {
  const dir = join(repoCacheDir(hubCache, EMBEDDER_SPEC.repo), "snapshots", commit);
  for (const f of files) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), "x");
  }
  return dir;
}

const reason = (cfg: ModelsConfig) => {
  const loc = locateEmbedder(cfg);
  return loc.kind === "missing" ? loc.reason : `found ${loc.dir}`;
};

describe("where the embedder is, and which case it is when it is not", () => {
  it("not downloaded", () => {
    const { hubCache, cfg } = cache();
    expect(reason(cfg)).toBe(
      `BAAI/bge-small-en-v1.5@5c38ec7c405e is not in ${hubCache} — run \`funes models pull\` (or set FUNES_EMBED_MODEL_DIR)`,
    );
  });

  it("cached only at another revision", () => {
    const { hubCache, cfg } = cache();
    snapshot(hubCache, "a".repeat(40), EMBEDDER_SPEC.files);
    expect(reason(cfg)).toBe(
      `BAAI/bge-small-en-v1.5 is in ${hubCache} only at another revision (aaaaaaaaaaaa), not the pinned 5c38ec7c405e — run \`funes models pull\` (or set FUNES_EMBED_MODEL_DIR) to add the pinned one beside it`,
    );
  });

  it("the pinned revision without onnx/model.onnx (a download for another library)", () => {
    const { hubCache, cfg } = cache();
    snapshot(hubCache, EMBEDDER_SPEC.revision, [
      "config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "model.safetensors",
    ]);
    expect(reason(cfg)).toBe(
      `BAAI/bge-small-en-v1.5@5c38ec7c405e is in ${hubCache} without onnx/model.onnx (downloaded for another library?) — run \`funes models pull\` (or set FUNES_EMBED_MODEL_DIR) to fetch the missing files`,
    );
    snapshot(hubCache, EMBEDDER_SPEC.revision, ["onnx/model.onnx"]);
    expect(reason(cfg)).toBe(
      `found ${join(repoCacheDir(hubCache, EMBEDDER_SPEC.repo), "snapshots", EMBEDDER_SPEC.revision)}`,
    );
  });

  it("a folder variable naming no folder, or a folder without the model, is not ready", () => {
    const { hubCache, cfg } = cache();
    const nope = join(hubCache, "nope");
    expect(locateEmbedder({ ...cfg, embedDir: nope })).toMatchObject({
      kind: "missing",
      folder: true,
      reason: `FUNES_EMBED_MODEL_DIR="${nope}" is not a folder — point it at a copy of BAAI/bge-small-en-v1.5 (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx), or unset it to use the cache`,
    });
    mkdirSync(nope);
    writeFileSync(join(nope, "config.json"), "{}");
    expect(reason({ ...cfg, embedDir: nope })).toContain(
      `FUNES_EMBED_MODEL_DIR="${nope}" lacks tokenizer.json, tokenizer_config.json, onnx/model.onnx — `,
    );
  });
});
