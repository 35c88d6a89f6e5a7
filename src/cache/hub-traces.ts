/**
 * `funes index org/repo`: a Hub agent-traces dataset, read through the Hub's parquet conversion
 * (`refs/convert/parquet`). Each shard is a unit keyed by its `hf://` address and signed with the
 * conversion's commit, so a re-run against an unchanged conversion reads (and downloads) nothing; shards
 * are fetched whole into the Hugging Face cache, like every other Hub file funes reads.
 */

import {
  fetchRepoHead,
  type HubClient,
  isModelRepo,
  ListingTooLongError,
  listTree,
  type RemoteFile,
} from "../remote/index.js";
import { readTraceParquet, type TraceSource, type Unit, type UnitRead } from "../traces/index.js";
import { cachedBlob } from "./blob-store.js";

/** Most files a traces repo's listing may name: as many as the default download cap holds at 4 KiB each. */
const MAX_LISTED_FILES = 1_048_576;

/** The Hub ref holding the parquet conversion of a dataset. */
export const CONVERT_REF = "refs/convert/parquet";

/** Options of a Hub trace source. */
export interface HubTracesOptions {
  client: HubClient;
  hubCache: string;
  /** `owner/name`. */
  repo: string;
}

/** A Hub agent-traces dataset as a trace source. */
export class HubTraceSource implements TraceSource {
  readonly kind = "parquet" as const;
  description: string;
  private sha = "";
  /** The listed shards by path: what each download is checked against. */
  private files = new Map<string, RemoteFile>();

  constructor(private readonly o: HubTracesOptions) {
    this.description = `indexing ${o.repo} (Hub agent traces)`;
  }

  /** The conversion's shards in path order; `limit` keeps the first N. */
  async listUnits(limit?: number): Promise<Unit[]> {
    const { client, repo } = this.o;
    const main = await fetchRepoHead({ client, repo });
    switch (main.kind) {
      case "missing":
        throw new Error(
          (await isModelRepo({ client, repo }))
            ? `${repo} is a model repo, not a dataset — funes indexes agent-traces datasets`
            : `${repo} doesn't exist on the Hub (or isn't visible to your token)`,
        );
      case "unauthorized":
        throw new Error(
          `not authorized to read ${repo} — set a Hugging Face token that can read it (HF_TOKEN, or \`hf auth login\`)`,
        );
      case "offline":
        throw new Error(`the Hub is unreachable (${main.reason}) — try again once you're back online`);
      case "found":
        break;
    }
    const conv = await fetchRepoHead({ client, repo, revision: CONVERT_REF });
    if (conv.kind !== "found")
      throw new Error(
        conv.kind === "offline"
          ? `the Hub is unreachable (${conv.reason}) — try again once you're back online`
          : `${repo} has no parquet conversion (${CONVERT_REF}) yet — the Hub converts agent-trace uploads on its own; try again later, or index a local .parquet file`,
      );
    this.sha = conv.sha;
    // As many files as a memory may hold (cache/snapshot-view.ts): an endpoint cannot page on forever.
    const listed = await listTree({
      client,
      repo,
      sha: conv.sha,
      folder: "",
      maxEntries: MAX_LISTED_FILES,
    }).catch((err) => {
      if (!(err instanceof ListingTooLongError)) throw err;
      throw new Error(
        `${repo} lists more than ${MAX_LISTED_FILES} files at ${CONVERT_REF} — funes reads agent traces from a repo of fewer`,
      );
    });
    this.files = new Map(listed.map((f) => [f.path, f]));
    const shards = listed
      .map((f) => f.path)
      .filter((p) => p.endsWith(".parquet"))
      .sort();
    if (shards.length === 0) throw new Error(`${repo} has no parquet files at ${CONVERT_REF}`);
    this.description = `indexing ${repo} — ${shards.length} parquet shard(s) @ ${CONVERT_REF}:${conv.sha.slice(0, 8)}`;
    return shards.slice(0, limit ?? shards.length).map((p) => ({
      key: `hf://datasets/${repo}/${p}`,
      signature: conv.sha,
      isSubagent: false,
    }));
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    const prefix = `hf://datasets/${this.o.repo}/`;
    const path = unit.key.slice(prefix.length);
    const file = this.files.get(path);
    if (file === undefined) throw new Error(`${path} is not a listed shard of ${this.o.repo}`);
    // Checked against the size and hash the listing gave before it enters the cache (cache/blob-store.ts).
    const local = await cachedBlob({
      client: this.o.client,
      hubCache: this.o.hubCache,
      repo: this.o.repo,
      sha: this.sha,
      file,
    });
    return readTraceParquet(local, { path: unit.key });
  }
}
