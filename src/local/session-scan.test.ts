/**
 * The session scan compares cells as bytes and decodes only what changed: it must fold exactly as decoding
 * every cell would, whatever the rows' order, their nulls, their text type or their batches.
 */
import type { Vector } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { arrow } from "./arrow.js";
import { type FoldedSession, foldSessions } from "./session-scan.js";

type Cell = string | null;
interface Row {
  session_id: Cell;
  harness: Cell;
  repo: Cell;
  workdir: Cell;
  ts: Cell;
  turn_uuid: Cell;
  seq: number;
}
const TEXT = ["session_id", "harness", "repo", "workdir", "ts", "turn_uuid"] as const;

/** A table of `rows` in batches of `size`, text columns as `large` (LargeUtf8) or Utf8. */
function tableOf(rows: Row[], o: { size: number; large: boolean }) {
  const batches = [];
  for (let from = 0; from < rows.length; from += o.size) {
    const part = rows.slice(from, from + o.size);
    const cols: Record<string, unknown> = {};
    for (const name of TEXT)
      cols[name] = arrow.vectorFromArray(
        part.map((r) => r[name]),
        o.large ? new arrow.LargeUtf8() : new arrow.Utf8(),
      );
    cols.seq = arrow.vectorFromArray(
      part.map((r) => BigInt(r.seq)),
      new arrow.Int64(),
    );
    batches.push(...new arrow.Table(cols as Record<string, Vector>).batches);
  }
  return new arrow.Table(batches);
}

/** What decoding every cell gives (the rule the scan keeps). */
function reference(rows: Row[]): FoldedSession[] {
  const by = new Map<string, FoldedSession & { seen: Set<string> }>();
  for (const r of rows) {
    const key = `${r.harness ?? ""}\u0000${r.session_id ?? ""}`;
    let s = by.get(key);
    if (s === undefined) {
      s = {
        sessionId: r.session_id ?? "",
        harness: r.harness ?? "",
        repo: "",
        workdir: "",
        started: "",
        ended: "",
        turns: 0,
        seen: new Set(),
      };
      by.set(key, s);
    }
    const t = r.ts ?? "";
    if (/^\d{4}-/.test(t)) {
      if (s.started === "" || t < s.started) s.started = t;
      if (t > s.ended) s.ended = t;
    }
    if (s.repo === "") s.repo = r.repo ?? "";
    if (s.workdir === "") s.workdir = r.workdir ?? "";
    s.seen.add(r.turn_uuid || `#${r.seq}`);
  }
  return [...by.values()].map(({ seen, ...s }) => ({ ...s, turns: seen.size }));
}

const byKey = (xs: FoldedSession[]) =>
  [...xs].sort((a, b) => `${a.harness}/${a.sessionId}`.localeCompare(`${b.harness}/${b.sessionId}`));

describe("the session scan", () => {
  it("folds as decoding every cell would: interleaved sessions, nulls, times that are none, empty turn ids", () => {
    const rows: Row[] = [];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const sessions = ["a", "b", "ab", "é-ü", "", "long-session-id-0123456789"];
    for (let i = 0; i < 600; i++) {
      // Runs of one session (as writes make them), broken now and then by another's rows.
      const s =
        rand(5) === 0
          ? (sessions[rand(sessions.length)] as string)
          : (sessions[Math.floor(i / 100)] as string);
      const day = 1 + rand(28);
      rows.push({
        session_id: rand(50) === 0 ? null : s,
        harness: rand(3) === 0 ? "codex" : rand(20) === 0 ? null : "claude_code",
        repo: rand(4) === 0 ? null : rand(3) === 0 ? "" : `acme/r${rand(3)}`,
        workdir: rand(6) === 0 ? null : `/w/${rand(2)}`,
        ts:
          rand(15) === 0
            ? rand(2) === 0
              ? null
              : "[trimmed]"
            : `2026-0${1 + rand(9)}-${String(day).padStart(2, "0")}T10:00:00.000Z`,
        turn_uuid: rand(10) === 0 ? (rand(2) === 0 ? null : "") : `t${Math.floor(i / 3)}`,
        seq: Math.floor(i / 3),
      });
    }
    for (const size of [600, 97, 1])
      for (const large of [false, true])
        expect(byKey(foldSessions(tableOf(rows, { size, large }))), `${size} ${large}`).toEqual(
          byKey(reference(rows)),
        );
  });

  it("reads a memory without the harness and repo facets", () => {
    const t = new arrow.Table({
      session_id: arrow.vectorFromArray(["s", "s"], new arrow.Utf8()),
      workdir: arrow.vectorFromArray(["/w", "/w"], new arrow.Utf8()),
      ts: arrow.vectorFromArray(["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"], new arrow.Utf8()),
      turn_uuid: arrow.vectorFromArray(["u1", "u2"], new arrow.Utf8()),
    });
    expect(foldSessions(t)).toEqual([
      {
        sessionId: "s",
        harness: "",
        repo: "",
        workdir: "/w",
        started: "2026-01-01T00:00:00Z",
        ended: "2026-01-02T00:00:00Z",
        turns: 2,
      },
    ]);
  });
});
