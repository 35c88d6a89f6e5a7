/**
 * The right session first on conversations no one here wrote (issue 38), in-process on two of LoCoMo's
 * dialogs (test/fixtures/recall-eval): keyword-only recall, as every user starts, against textbook BM25 over
 * the same turns and over whole sessions. The full table over all ten dialogs, with the models' modes, is
 * `npm run bench -- --quality`.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DialogMode,
  type DialogRanks,
  dialogScore,
  evaluateDialogs,
  loadDialogs,
} from "./helpers/dialog-eval.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "recall-eval", "locomo10.json.gz");

describe("recall on long multi-session dialogs", () => {
  let dir: string;
  let results: Map<DialogMode, DialogRanks>;
  let noUuids: Map<DialogMode, DialogRanks>;
  const all = (mode: DialogMode, r = results) =>
    dialogScore([...(r.get(mode) as DialogRanks).values()].flat());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "funes-dialogs-"));
    const empty = join(dir, "none");
    mkdirSync(empty, { recursive: true });
    // One dialog looked at while the rule was chosen, one not.
    const dialogs = loadDialogs(FIXTURE).filter((d) => d.id === "conv-30" || d.id === "conv-47");
    const models = {
      hubCache: empty,
      threads: 2,
      hubUrl: "http://127.0.0.1:9",
      reranker: "ms-marco-MiniLM-L-6-v2",
    };
    results = await evaluateDialogs({
      dir: join(dir, "uuids"),
      dialogs,
      modes: ["bm25-turns", "bm25-sessions", "keyword"],
      models,
      emptyHubCache: empty,
    });
    noUuids = await evaluateDialogs({
      dir: join(dir, "plain"),
      dialogs,
      modes: ["keyword"],
      models,
      emptyHubCache: empty,
      uuids: false,
    });
  }, 240_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every question's gold sessions from the fixture", () => {
    expect(all("keyword").n).toBe(105 + 190);
  });

  it("puts the right session first more often than textbook BM25 over turns or over whole sessions", () => {
    const funes = all("keyword");
    expect(funes.r1).toBeGreaterThan(all("bm25-turns").r1 + 0.05);
    expect(funes.r1).toBeGreaterThan(all("bm25-sessions").r1);
    expect(funes.r5).toBeGreaterThanOrEqual(all("bm25-sessions").r5);
    expect(funes.mrr).toBeGreaterThan(all("bm25-sessions").mrr);
  });

  it("ranks as well when the transcript's records carry no uuid (every turn kept, none a repeat)", () => {
    const plain = all("keyword", noUuids);
    const withIds = all("keyword");
    expect(plain.n).toBe(withIds.n);
    // Ids differ, so exact ties may fall the other way; no more than that.
    expect(Math.abs(plain.r1 - withIds.r1) * plain.n).toBeLessThanOrEqual(2);
    expect(Math.abs(plain.r5 - withIds.r5) * plain.n).toBeLessThanOrEqual(2);
  });
});
