/**
 * The Hub trace source keeps the contract every trace source keeps (test/contract/trace-source.ts): a
 * dataset's parquet conversion served by the loopback Hub stand-in, read through the real @huggingface/hub
 * client into a temporary Hugging Face cache.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { traceSourceContract } from "../../test/contract/trace-source.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { startHubStandin } from "../../test/helpers/hub-standin.js";
import { type TraceRow, writeTraceParquet } from "../../test/helpers/parquet.js";
import { HubTraceSource } from "./hub-traces.js";

const msg = (role: string, content: string) => JSON.stringify({ role, content });

const ASK = msg("user", "why does the gazebo lighting flicker on resize");
const ANSWER = msg("assistant", "the gazebo lighting recomputes shadows on every resize event");

const SESSION: TraceRow = {
  session_id: "hub-1",
  messages: [ASK, ANSWER],
  sent_at: "2026-06-19T00:00:02.000Z",
  harness: "pi",
  metadata: JSON.stringify({ cwd: "/home/dev/gazebo" }),
};

/** A stand-in serving `acme/traces` whose conversion holds these shards; the source reads it. */
async function sourceOver(shards: TraceRow[][]) {
  const t = tempDir();
  const files = new Map<string, Buffer>();
  shards.forEach((rows, i) => {
    const p = join(t.dir, `${i}.parquet`);
    writeTraceParquet(p, rows);
    files.set(`default/train/000${i}.parquet`, readFileSync(p));
  });
  const hub = await startHubStandin(
    new Map([
      [
        "acme/traces",
        {
          type: "dataset",
          commit: "a".repeat(40),
          files: new Map([["raw/session.jsonl", Buffer.from("{}\n")]]),
          convert: { commit: "c0ffee0000000000000000000000000000000001", files },
        },
      ],
    ]),
  );
  const source = new HubTraceSource({
    client: { hubUrl: hub.url },
    hubCache: join(t.dir, "hf-cache"),
    repo: "acme/traces",
  });
  const cleanup = () => {
    hub.close().then(t.cleanup, t.cleanup);
  };
  return { source, cleanup };
}

traceSourceContract("Hub agent traces", {
  harness: "pi",
  make: () => sourceOver([[SESSION], [{ ...SESSION, session_id: "hub-2" }]]),
  makeDamaged: () =>
    sourceOver([
      [{ ...SESSION, messages: [ASK, "{not json", ANSWER] }],
      [{ ...SESSION, session_id: "hub-2" }],
    ]),
});
