/**
 * Fetching a model's missing files into the Hugging Face cache from `HF_ENDPOINT` (the Hub's own variable),
 * only the files the spec lists, at its pinned revision. The Hub calls themselves come in as a
 * {@link ModelSource} (remote/'s `modelHub`), so this layer never loads the Hub client.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cachedCommit, repoCacheDir } from "./hf-cache.js";
import type { ModelSpec } from "./specs.js";

/** One file to download into the cache. */
export interface ModelFileDownload {
  /** The model repository (`owner/name`). */
  repo: string;
  /** The file's path in the repository. */
  path: string;
  /** The commit to fetch the file at (40 hex digits). */
  commit: string;
  /** The Hugging Face cache root (`…/huggingface/hub`). */
  cacheDir: string;
  /** Called as body bytes arrive: bytes in this piece, and the file's size when the source said it. */
  onBytes?: (bytes: number, total: number | null) => void;
}

/** Where model files come from: the two calls a download makes. */
export interface ModelSource {
  /** The commit `revision` (a branch or a commit) of model `repo` points at now. */
  commitOf(repo: string, revision: string): Promise<string>;
  /** Downloads one file into the cache layout under `cacheDir`. */
  downloadFile(file: ModelFileDownload): Promise<void>;
}

/** Bytes received so far for one file. */
export interface DownloadProgress {
  file: string;
  bytes: number;
  total: number | null;
}

/** The commit to fetch: the pinned one, or the branch resolved once on the Hub and recorded in refs/. */
async function commitFor(hubCache: string, spec: ModelSpec, source: ModelSource): Promise<string> {
  const known = cachedCommit(hubCache, spec);
  if (known !== null) return known;
  const sha = await source.commitOf(spec.repo, spec.revision);
  const refs = join(repoCacheDir(hubCache, spec.repo), "refs");
  mkdirSync(refs, { recursive: true });
  writeFileSync(join(refs, spec.revision), sha);
  return sha;
}

/**
 * Downloads every file of `spec` not yet in the cache; returns the snapshot folder. A file already cached
 * costs no request.
 */
export async function downloadModel(
  hubCache: string,
  spec: ModelSpec,
  source: ModelSource,
  onProgress?: (p: DownloadProgress) => void,
): Promise<string> {
  const commit = await commitFor(hubCache, spec, source);
  for (const file of spec.files) {
    let bytes = 0;
    await source.downloadFile({
      repo: spec.repo,
      path: file,
      commit,
      cacheDir: hubCache,
      onBytes: (n, total) => {
        bytes += n;
        onProgress?.({ file, bytes, total });
      },
    });
  }
  return join(repoCacheDir(hubCache, spec.repo), "snapshots", commit);
}
