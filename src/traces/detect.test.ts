import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, TRACES, tempDir } from "../../test/helpers/fixtures.js";
import { writeHermesDb } from "../../test/helpers/hermes-db.js";
import { sniffFile } from "./detect.js";
import { sourcesForPath, TracePathError } from "./sources.js";

describe("judging a file by its content", () => {
  it("knows each agent's transcripts by their records, not their names", () => {
    const t = tempDir();
    try {
      const cases: [string, string][] = [
        ["claude/claude_session.jsonl", "claude_code"],
        ["claude/episodic-memory-medium.jsonl", "claude_code"],
        ["codex/codex_session.jsonl", "codex"],
        ["pi/pi-mono-large-session.jsonl", "pi"],
        ["hermes/20250912_101500_a1b2c3.jsonl", "hermes"],
        ["hermes/session_20250913_081200_d4e5f6.json", "hermes"],
      ];
      for (const [rel, harness] of cases) {
        // Renamed, so only the content can tell.
        const ext = rel.endsWith(".json") ? ".json" : ".jsonl";
        const p = join(t.dir, `renamed${ext}`);
        cpSync(join(TRACES, rel), p);
        expect(sniffFile(p), rel).toEqual({ kind: "transcript", harness });
      }
    } finally {
      t.cleanup();
    }
  });

  it("does not take a Qwen Code file for Claude's when its first records carry no message", () => {
    // Qwen's records share Claude's keys (uuid, parentUuid, sessionId); a session can open with system
    // records (telemetry, a title, a slash command) that hold no Part list. A Claude file opening with
    // summaries and snapshots stays Claude's.
    const t = tempDir();
    try {
      const qwen = readFileSync(
        join(TRACES, "corpus/qwen/agent-sessions/019f0000-0000-7000-8000-000000000004.jsonl"),
        "utf8",
      )
        .split("\n")
        .filter((l) => l.trim() !== "");
      const opening = qwen.find((l) => l.includes('"subtype":"custom_title"'))!;
      const p = join(t.dir, "a.jsonl");
      writeFileSync(p, `${opening}\n${qwen.join("\n")}\n`);
      expect(sniffFile(p)).toEqual({ kind: "transcript", harness: "qwen" });
      const bare = JSON.stringify({ ...JSON.parse(opening), systemPayload: undefined });
      writeFileSync(p, `${bare}\n${qwen.filter((l) => !l.includes('"type":"system"')).join("\n")}\n`);
      expect(sniffFile(p)).toEqual({ kind: "transcript", harness: "qwen" });
      const claude = join(TRACES, "corpus/claude/codemie/incremental-simple/turn-2.jsonl");
      expect(sniffFile(claude)).toEqual({ kind: "transcript", harness: "claude_code" });
    } finally {
      t.cleanup();
    }
  });

  it("takes a Claude Code file holding only its `teleported-from` line for what it is, not for junk", () => {
    // A real stub Claude Code 2.1 left after teleporting a web session: one line, none of the keys its
    // other records carry. Given by path, it is indexed (nothing stored, the record counted), not refused.
    const p = join(TRACES, "corpus/claude/idaho-vault/0e973150-6151-404d-968f-a07b3f204eb3.jsonl");
    expect(sniffFile(p)).toEqual({ kind: "transcript", harness: "claude_code" });
    expect(sourcesForPath(p).map((s) => s.kind)).toEqual(["claude_code"]);
  });

  it("opens a SQLite file of any name as a Hermes database", () => {
    const t = tempDir();
    try {
      const db = join(t.dir, "hermes-2026.db");
      writeHermesDb(
        db,
        "v12",
        [{ id: "s1" }],
        [{ session_id: "s1", role: "user", content: "hi", timestamp: 1 }],
      );
      expect(sniffFile(db)).toEqual({ kind: "sqlite" });
      const [source] = sourcesForPath(db);
      expect(source!.kind).toBe("hermes");
      expect(source!.description).toBe(`scanning hermes sessions in ${db}`);
    } finally {
      t.cleanup();
    }
  });

  it("names empty files, READMEs and random bytes for what they are", () => {
    const t = tempDir();
    try {
      const empty = join(t.dir, "empty.jsonl");
      writeFileSync(empty, "");
      const bytes = join(t.dir, "noise.jsonl");
      writeFileSync(bytes, randomBytes(200_000));
      const json = join(t.dir, "config.jsonl");
      writeFileSync(json, '{"name":"not a transcript","version":3}\n');
      expect(sniffFile(empty)).toEqual({ kind: "empty" });
      expect(sniffFile(join(ROOT, "README.md"))).toEqual({ kind: "unknown" });
      expect(sniffFile(bytes)).toEqual({ kind: "unknown" });
      expect(sniffFile(json)).toEqual({ kind: "unknown" });
      const reason = (p: string) => {
        try {
          sourcesForPath(p);
        } catch (err) {
          return err instanceof TracePathError ? err.reason : "other";
        }
        return "none";
      };
      expect(reason(empty)).toBe("empty");
      expect(reason(bytes)).toBe("not_transcript");
      expect(reason(join(ROOT, "README.md"))).toBe("not_transcript");
      expect(reason(join(t.dir, "nope.jsonl"))).toBe("missing");
      expect(reason(t.dir)).toBe("none");
      const bare = join(t.dir, "bare");
      mkdirSync(bare);
      expect(() => sourcesForPath(bare, "hermes")).toThrow(
        /^no Hermes database in ".*" \(looked for state\.db and sessions\/\)/,
      );
      // A forced harness is trusted: the user says what the file is.
      expect(sourcesForPath(json, "codex")[0]!.kind).toBe("codex");
    } finally {
      t.cleanup();
    }
  });

  it("does not judge a file whose first record outgrows the head (a pasted image): Claude, as the reference", () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "big-first-line.jsonl");
      const line = JSON.stringify({
        type: "user",
        uuid: "u1",
        message: { role: "user", content: "x".repeat(400_000) },
      });
      writeFileSync(p, `${line}\n`);
      expect(sniffFile(p)).toEqual({ kind: "undecided" });
      expect(sourcesForPath(p)[0]!.kind).toBe("claude_code");
    } finally {
      t.cleanup();
    }
  });
});
