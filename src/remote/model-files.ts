/**
 * Model repositories on the Hub: resolving a pinned revision to its commit and downloading one file into
 * the Hugging Face cache layout. `models/` owns which files and which cache folder; this file owns the Hub
 * client calls, so `models/` never loads `@huggingface/hub`.
 */
import type { ModelSource } from "../models/index.js";
import { type HubClient, hubLibrary, hubParams, quietly } from "./access.js";
import { isCommitSha } from "./validate.js";

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

/**
 * The model Hub at `client`'s endpoint. Downloads run with console.debug muted: the client logs each one
 * there, which would land on stdout, the MCP protocol channel.
 */
export function modelHub(client: HubClient): ModelSource {
  return {
    async commitOf(repo, revision) {
      const { modelInfo } = await hubLibrary();
      const info = await modelInfo({ ...hubParams(client), name: repo, revision, additionalFields: ["sha"] });
      const sha = (info as { sha?: string }).sha ?? "";
      if (!isCommitSha(sha)) throw new Error(`the Hub gave no commit for ${repo}@${revision}`);
      return sha;
    },
    async downloadFile(file) {
      const { downloadFileToCacheDir } = await hubLibrary();
      const params = hubParams(client);
      const f = file.onBytes === undefined ? params.fetch : countingFetch(params.fetch, file.onBytes);
      await quietly(() =>
        downloadFileToCacheDir({
          ...params,
          fetch: f,
          repo: { type: "model", name: file.repo },
          path: file.path,
          revision: file.commit,
          cacheDir: file.cacheDir,
        }),
      );
    },
  };
}
