/**
 * Fetching a model's missing files into the Hugging Face cache with @huggingface/hub, from `HF_ENDPOINT`
 * (the Hub's own variable), only the files the spec lists, at its pinned revision.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withoutDebugOutput } from "../quiet/index.js";
import { cachedCommit, repoCacheDir } from "./hf-cache.js";
import type { ModelSpec } from "./specs.js";

/** Where to fetch from. */
export interface HubAccess {
  hubUrl: string;
  token?: string | undefined;
  fetch?: typeof fetch;
}

/** Bytes received so far for one file. */
export interface DownloadProgress {
  file: string;
  bytes: number;
  total: number | null;
}

const COMMIT = /^[0-9a-f]{40}$/;

/** A fetch that reports body bytes as they arrive. */
function countingFetch(base: typeof fetch, onBytes: (n: number, total: number | null) => void): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (res.body === null || (init?.method !== undefined && init.method !== "GET")) return res;
    const len = Number(res.headers.get("content-length"));
    const total = Number.isFinite(len) && len > 0 ? len : null;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          onBytes(chunk.byteLength, total);
          ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The commit to fetch: the pinned one, or the branch resolved once on the Hub and recorded in refs/. */
async function commitFor(hubCache: string, spec: ModelSpec, access: HubAccess): Promise<string> {
  const known = cachedCommit(hubCache, spec);
  if (known !== null) return known;
  const { modelInfo } = await import("@huggingface/hub");
  const info = await modelInfo({
    name: spec.repo,
    revision: spec.revision,
    hubUrl: access.hubUrl,
    ...(access.token !== undefined ? { accessToken: access.token } : {}),
    ...(access.fetch !== undefined ? { fetch: access.fetch } : {}),
    additionalFields: ["sha"],
  });
  const sha = (info as { sha?: string }).sha ?? "";
  if (!COMMIT.test(sha)) throw new Error(`the Hub gave no commit for ${spec.repo}@${spec.revision}`);
  const refs = join(repoCacheDir(hubCache, spec.repo), "refs");
  mkdirSync(refs, { recursive: true });
  writeFileSync(join(refs, spec.revision), sha);
  return sha;
}

/**
 * Downloads every file of `spec` not yet in the cache; returns the snapshot folder. A file already cached
 * costs no request. `@huggingface/hub` logs each download with console.debug, which would land on stdout
 * (the MCP protocol channel); it is silenced for the duration.
 */
export async function downloadModel(
  hubCache: string,
  spec: ModelSpec,
  access: HubAccess,
  onProgress?: (p: DownloadProgress) => void,
): Promise<string> {
  const commit = await commitFor(hubCache, spec, access);
  const { downloadFileToCacheDir } = await import("@huggingface/hub");
  await withoutDebugOutput(async () => {
    for (const file of spec.files) {
      let bytes = 0;
      const f = countingFetch(access.fetch ?? fetch, (n, total) => {
        bytes += n;
        onProgress?.({ file, bytes, total });
      });
      await downloadFileToCacheDir({
        repo: { type: "model", name: spec.repo },
        path: file,
        revision: commit,
        cacheDir: hubCache,
        hubUrl: access.hubUrl,
        fetch: f,
        ...(access.token !== undefined ? { accessToken: access.token } : {}),
      });
    }
  });
  return join(repoCacheDir(hubCache, spec.repo), "snapshots", commit);
}
