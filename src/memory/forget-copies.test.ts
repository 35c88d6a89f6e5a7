/**
 * Forget takes an agent's restatement of a recalled passage by the passage's content (its names, numbers
 * and rare words, in any order, among any words), lists the rows that carry that content untied as
 * mentions, and leaves boilerplate many sessions share alone (forget-copies.ts, forget-content.ts).
 */
import { describe, expect, it } from "vitest";
import { APACHE_HEADER, licenceRows } from "../../test/helpers/echo-adversarial.js";
import type { ForgetCandidate } from "../local/index.js";
import { carries, contentTokens } from "./forget-content.js";
import { copiesAndMentions } from "./forget-copies.js";

let n = 0;
const row = (
  sessionId: string,
  seq: number,
  role: string,
  blockType: string,
  text: string,
  toolName: string | null = null,
): ForgetCandidate => ({
  id: `${sessionId}-r${n++}`,
  sessionId,
  turnUuid: `${sessionId}-t${seq}`,
  seq,
  ts: `2026-10-0${1 + (seq % 8)}T10:00:00.000Z`,
  role,
  blockType,
  toolName,
  blockIdx: 0,
  sourcePath: `/x/${sessionId}.jsonl`,
  text,
});

/** An agent-format hit as funes prints it (format/agent-format.ts). */
const hit = (sessionId: string, turnUuid: string, text: string) =>
  `[2026-10-01T10:00:00.000Z] claude_code -home-dev-ledger/${sessionId.slice(0, 8)} text  score=0.733\n  → get ${sessionId} ${turnUuid}\n${text}\n---\n`;

const DECISION =
  "Decided: journal replay runs backwards from the last checkpoint through ReplayCursor in src/journal/replay.ts, capped at 512 MB with 3 retries; Marta signed off on it.";
const EXPORTS =
  "Decided: the billing export writes Parquet files to s3://ledger-exports nightly at 02:00 through ExportJob, and Tomasz owns it.";

/** A decision's session, another passage's, and a session that recalls both and retells them. */
function corpus() {
  const dec = [
    row("dec", 0, "user", "text", "how should journal replay work after a crash?"),
    row("dec", 1, "assistant", "text", DECISION),
  ];
  const exp = [
    row("exp", 0, "user", "text", "who runs the billing export?"),
    row("exp", 1, "assistant", "text", EXPORTS),
  ];
  const rec = [
    row("rec", 0, "user", "text", "what did we settle on for replay and the exports?"),
    row("rec", 1, "assistant", "tool_use", '{"query":"replay exports"}', "mcp__funes__recall"),
    row(
      "rec",
      2,
      "user",
      "tool_result",
      hit("dec", "dec-t1", DECISION) + hit("exp", "exp-t1", EXPORTS),
      "mcp__funes__recall",
    ),
    // The decision retold: other words inserted, its names and numbers in another order.
    row(
      "rec",
      3,
      "assistant",
      "text",
      "From memory: we settled that ReplayCursor (in src/journal/replay.ts) replays everything backwards, starting at the most recent checkpoint, and it stops at 512 MB after 3 retries, which Marta approved.",
    ),
    // The other passage the same recall returned, retold.
    row(
      "rec",
      4,
      "assistant",
      "text",
      "Also: ExportJob pushes Parquet files to s3://ledger-exports every night at 02:00, and Tomasz is its owner.",
    ),
    // Turns later, with no recall in that exchange: the decision again, tied by nothing funes wrote.
    row("rec", 5, "user", "text", "ok, now write the crash recovery test"),
    row(
      "rec",
      6,
      "assistant",
      "text",
      "Writing it against the design we have: backwards replay via ReplayCursor in src/journal/replay.ts, a 512 MB cap, three retries, as Marta agreed.",
    ),
  ];
  return { all: [...dec, ...exp, ...rec], dec, rec };
}

describe("a restatement carrying the forgotten passage's content (issue 42)", () => {
  it("is taken with inserted and reordered words; the same recall's restatement of another passage is not", () => {
    const { all, dec, rec } = corpus();
    const { copies, mentions } = copiesAndMentions(all, dec);
    const ids = copies.map((r) => r.id).sort();
    // The recall's output (it names the decision's turn) and the decision retold.
    expect(ids).toEqual([rec[2]?.id, rec[3]?.id].sort());
    // Not the retelling of the exports decision, though the same recall returned it.
    expect(ids).not.toContain(rec[4]?.id);
    // The later turn carries the decision with no recall tying it: a mention, not a copy.
    expect(mentions.map((r) => r.id)).toEqual([rec[6]?.id]);
  });

  it("order and inserted words do not matter; names count as names, the function words not at all", () => {
    const d = contentTokens(DECISION);
    expect(d.get("replaycursor")).toBe(true);
    expect(d.get("src/journal/replay.ts")).toBe(true);
    expect(d.get("512")).toBe(true);
    expect(d.get("marta")).toBe(true);
    expect(d.get("decided")).toBe(false);
    expect(d.has("through")).toBe(false);
    const shuffled = contentTokens("512 src/journal/replay.ts, so Marta, yes, ReplayCursor: trust it");
    expect(carries(shuffled, d)).toBe(true);
    expect(carries(contentTokens("ReplayCursor and 512 somewhere else entirely"), d)).toBe(false);
  });

  it("forgetting the exports passage instead takes its own retelling and not the decision's", () => {
    const { all, rec } = corpus();
    const exp = all.filter((r) => r.sessionId === "exp");
    const { copies, mentions } = copiesAndMentions(all, exp);
    expect(copies.map((r) => r.id).sort()).toEqual([rec[2]?.id, rec[4]?.id].sort());
    expect(mentions).toEqual([]);
  });
});

describe("boilerplate never links rows (issue 42)", () => {
  it("an unrelated session repeating a licence header is neither a copy nor a mention", () => {
    const lic = licenceRows();
    const { copies, mentions } = copiesAndMentions(
      lic.all,
      lic.all.filter((r) => r.sessionId === lic.forgotten),
    );
    expect(copies.map((r) => r.id).sort()).toEqual([...lic.copies].sort());
    expect(mentions).toEqual([]);
  });

  it("a header three sessions print is not distinctive, even beside a rare name", () => {
    const forgotten = row("h-1", 0, "assistant", "text", `Added to LedgerCore.ts:\n${APACHE_HEADER}`);
    const others = ["h-2", "h-3", "h-4"].map((s) =>
      row(s, 0, "assistant", "text", `Added to ${s}.ts:\n${APACHE_HEADER}`),
    );
    const { copies, mentions } = copiesAndMentions([forgotten, ...others], [forgotten]);
    expect(copies).toEqual([]);
    expect(mentions).toEqual([]);
  });

  it("a decision retold in many sessions' recalls stays distinctive: each retelling is taken", () => {
    const dec = [row("d", 0, "user", "text", "replay?"), row("d", 1, "assistant", "text", DECISION)];
    const recalls = ["r1", "r2", "r3", "r4"].flatMap((s) => [
      row(s, 0, "user", "text", "remind me of the replay design"),
      row(s, 1, "assistant", "tool_use", '{"query":"replay"}', "mcp__funes__recall"),
      row(s, 2, "user", "tool_result", hit("d", "d-t1", DECISION), "mcp__funes__recall"),
      row(
        s,
        3,
        "assistant",
        "text",
        `${s}: per memory, 512 MB is the cap for ReplayCursor in src/journal/replay.ts (Marta said so).`,
      ),
    ]);
    const { copies } = copiesAndMentions([...dec, ...recalls], dec);
    expect(copies.filter((r) => r.blockType === "text")).toHaveLength(4);
  });
});
