/**
 * Downloading one file of a dataset at a commit, as a stream from the endpoint. Where the bytes go and how
 * they are checked is the cache's business (cache/blob-store.ts): the client's own `downloadFileToCacheDir`
 * is not used, because it names the blob after whatever etag the endpoint sends and writes it in place.
 */
import { type HubClient, hubLibrary, readParams } from "./access.js";
import { HubConnectionLostError } from "./network-error.js";
import { UnsafeHubAnswerError } from "./validate.js";

/**
 * The bytes of `path` at `sha` (a listed file of `size` bytes), as a stream. The request goes to the
 * endpoint's own resolve URL, whose redirect to the Hub's download host is followed without the token
 * (and only there: readParams);
 * no download info is asked for first, since the listing already gave the size and hashes, and so no
 * host the endpoint names is ever sent the token. The caller checks what arrives; nothing here touches
 * the disk.
 */
export async function openDownload(o: {
  client: HubClient;
  repo: string;
  sha: string;
  path: string;
  size: number;
  etag: string;
}): Promise<ReadableStream<Uint8Array>> {
  const url = `${o.client.hubUrl}/datasets/${o.repo}/resolve/${encodeURIComponent(o.sha)}/${o.path}`;
  const params = readParams(o.client);
  // The client turns a failed request inside the stream into a bare string: a refusal (a redirect to
  // another host) is kept here so it reaches the caller as what it is, not as a lost connection.
  let refused: UnsafeHubAnswerError | null = null;
  const fetchRefusing: typeof fetch = async (input, init) => {
    try {
      return await params.fetch(input, init);
    } catch (err) {
      if (err instanceof UnsafeHubAnswerError) refused = err;
      throw err;
    }
  };
  const blob = await (await hubLibrary()).downloadFile({
    repo: { type: "dataset", name: o.repo },
    path: o.path,
    revision: o.sha,
    xet: false,
    downloadInfo: { size: o.size, etag: o.etag, url },
    ...params,
    fetch: fetchRefusing,
  });
  if (blob === null) throw new HubConnectionLostError(`the Hub has no ${o.path} at ${o.sha}`);
  // The client aborts a failed request's stream with a bare message string: turned back into a network
  // error here, so a connection lost mid-download reads as "unreachable", like every other.
  const reader = (blob.stream() as ReadableStream<Uint8Array>).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(
          (refused as UnsafeHubAnswerError | null) ??
            (err instanceof Error
              ? err
              : new HubConnectionLostError(`download of ${o.path} failed: ${String(err)}`)),
        );
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
