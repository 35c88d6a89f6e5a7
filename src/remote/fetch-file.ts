/**
 * Downloading one file of a dataset at a commit, as a stream from the endpoint. Where the bytes go and how
 * they are checked is the cache's business (cache/blob-store.ts): the client's own `downloadFileToCacheDir`
 * is not used, because it names the blob after whatever etag the endpoint sends and writes it in place.
 */
import { downloadFile } from "@huggingface/hub";
import { type HubClient, readParams } from "./access.js";

/**
 * The bytes of `path` at `sha`, as a stream from the endpoint itself (no Xet reconstruction hosts: the
 * plain resolve URL, which the Hub may redirect to its CDN). Null when the commit has no such file. The
 * caller checks what arrives against the listing's size and hashes; nothing here touches the disk.
 */
export async function openDownload(o: {
  client: HubClient;
  repo: string;
  sha: string;
  path: string;
}): Promise<{ size: number; stream: ReadableStream<Uint8Array> } | null> {
  const blob = await downloadFile({
    repo: { type: "dataset", name: o.repo },
    path: o.path,
    revision: o.sha,
    xet: false,
    ...readParams(o.client),
  });
  if (blob === null) return null;
  // The client aborts a failed request's stream with a bare message string: turned back into a network
  // error here, so a connection lost mid-download reads as "unreachable", like every other.
  const reader = (blob.stream() as ReadableStream<Uint8Array>).getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(
          err instanceof Error ? err : new TypeError(`download of ${o.path} failed: ${String(err)}`),
        );
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { size: blob.size, stream };
}
