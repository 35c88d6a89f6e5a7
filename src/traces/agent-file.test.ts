import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture, tempDir } from "../../test/helpers/fixtures.js";
import {
  type AgentFileKind,
  AgentFileRefusedError,
  PROJECT_ROOT_FILE,
  readAgentFile,
  TOOL_OUTPUT_FILE,
} from "./agent-file.js";
import { HermesFilesSource } from "./hermes-legacy.js";
import { JsonlTreeSource } from "./jsonl-tree.js";
import { SKIP_PERSISTED_MISSING } from "./persisted-output.js";
import type { Turn } from "./types.js";

/** What a `~/.aws/credentials` holds (a made-up key of the real shape). */
const AWS =
  "[default]\naws_access_key_id = AKIAQYLPMN5HHHFPZAM2\naws_secret_access_key = 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\n";
const posix = process.platform !== "win32";
const SMALL: AgentFileKind = { label: "test file", maxBytes: 64 };

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/** Every string a turn stores (its columns and its blocks). */
function stored(turns: Turn[]): string {
  return JSON.stringify(turns);
}

describe("a file in an agent's folder", () => {
  it("is read when it is a regular file within its cap", () => {
    const t = tempDir();
    try {
      writeFileSync(join(t.dir, "a.txt"), "hello");
      const r = readAgentFile(t.dir, join(t.dir, "a.txt"), SMALL);
      expect(r.kind === "read" && r.bytes.toString()).toBe("hello");
      expect(readAgentFile(t.dir, join(t.dir, "gone.txt"), SMALL)).toEqual({ kind: "absent" });
    } finally {
      t.cleanup();
    }
  });

  it.runIf(posix)(
    "is refused, unread, when it is a link, a FIFO, a device, or reached through a linked folder",
    () => {
      const t = tempDir();
      try {
        const root = join(t.dir, "agent");
        mkdirSync(root);
        writeFileSync(join(t.dir, "credentials"), AWS);
        writeFileSync(join(root, "inside.txt"), "inside");
        symlinkSync(join(t.dir, "credentials"), join(root, "out.txt"));
        // Even a link to a file inside the folder: links in an agent's folder are not followed.
        symlinkSync(join(root, "inside.txt"), join(root, "in.txt"));
        symlinkSync("/dev/zero", join(root, "zero.txt"));
        mkfifo(join(root, "fifo.txt"));
        symlinkSync(t.dir, join(root, "up"));
        const reasons = ["out.txt", "in.txt", "zero.txt", "fifo.txt", "up/credentials"].map((n) => {
          const r = readAgentFile(root, join(root, n), SMALL);
          return r.kind === "refused" ? r.reason : r.kind;
        });
        expect(reasons).toEqual([
          "test file not read: a link (links in an agent's folder are not followed)",
          "test file not read: a link (links in an agent's folder are not followed)",
          "test file not read: a link (links in an agent's folder are not followed)",
          "test file not read: not a regular file (a FIFO, socket or device is never opened)",
          "test file not read: reached through a linked folder that leaves the agent's folder",
        ]);
        // A linked folder that stays inside is a way in like any other.
        symlinkSync(root, join(root, "self"));
        const via = readAgentFile(root, join(root, "self", "inside.txt"), SMALL);
        expect(via.kind === "read" && via.bytes.toString()).toBe("inside");
        // The root itself may be a link (a `~/.claude` kept elsewhere), and a file given as the root is read.
        symlinkSync(root, join(t.dir, "linked-root"));
        expect(
          readAgentFile(join(t.dir, "linked-root"), join(t.dir, "linked-root", "inside.txt"), SMALL).kind,
        ).toBe("read");
        expect(readAgentFile(join(root, "in.txt"), join(root, "in.txt"), SMALL).kind).toBe("read");
      } finally {
        t.cleanup();
      }
    },
  );

  it("over its cap is refused before it is read", () => {
    const t = tempDir();
    try {
      writeFileSync(join(t.dir, "big.txt"), "x".repeat(65));
      writeFileSync(join(t.dir, "fits.txt"), "x".repeat(64));
      expect(readAgentFile(t.dir, join(t.dir, "big.txt"), SMALL)).toEqual({
        kind: "refused",
        reason: "test file not read: over its 64 bytes cap",
      });
      expect(readAgentFile(t.dir, join(t.dir, "fits.txt"), SMALL).kind).toBe("read");
      expect(TOOL_OUTPUT_FILE.maxBytes).toBe(16 * 1024 * 1024);
      expect(PROJECT_ROOT_FILE.maxBytes).toBe(4096);
    } finally {
      t.cleanup();
    }
  });
});

describe("the agents' sidecar files", () => {
  it.runIf(posix)(
    "Gemini's .project_root linked to ~/.aws/credentials is not read into the workdir",
    async () => {
      const t = tempDir();
      try {
        const tmp = copyFixture("gemini/tmp", join(t.dir, ".gemini", "tmp"));
        writeFileSync(join(t.dir, "credentials"), AWS);
        rmSync(join(tmp, "app", ".project_root"));
        symlinkSync(join(t.dir, "credentials"), join(tmp, "app", ".project_root"));
        const source = new JsonlTreeSource("gemini", tmp);
        const units = await source.listUnits();
        for (const unit of units) {
          const r = await source.readUnit(unit);
          expect(stored(r.sessions.flatMap((s) => s.turns))).not.toContain("AKIAQYLPMN5HHHFPZAM2");
          expect(r.sessions[0]?.workdir).toBe("app");
          expect(r.sessions[0]?.cwd).toBeNull();
          expect(
            r.skipped[".project_root not read: a link (links in an agent's folder are not followed)"],
          ).toBe(1);
        }
        // Several lines are not one folder's path.
        rmSync(join(tmp, "app", ".project_root"));
        writeFileSync(join(tmp, "app", ".project_root"), AWS);
        const r = await source.readUnit(units[0]!);
        expect(stored(r.sessions.flatMap((s) => s.turns))).not.toContain("AKIAQYLPMN5HHHFPZAM2");
        expect(r.skipped[".project_root not read: more than one path (or a NUL) in it"]).toBe(1);
      } finally {
        t.cleanup();
      }
    },
  );

  it.runIf(posix)(
    "Claude's tool-results/<file> linked to /dev/zero, a FIFO, or over its cap: the preview kept, each counted",
    async () => {
      const t = tempDir();
      try {
        const sid = "046765e9-1878-49aa-b195-de74c14c3930";
        const project = join(t.dir, "projects", "-home-dev-app");
        mkdirSync(join(project, sid, "tool-results"), { recursive: true });
        const files = ["zero.txt", "fifo.txt", "big.txt", "gone.txt"];
        const rec = (o: object) =>
          JSON.stringify({ sessionId: sid, cwd: "/home/dev/app", timestamp: "2026-06-16T00:40:17Z", ...o });
        const lines = files.flatMap((f, i) => [
          rec({
            type: "assistant",
            uuid: `a${i}`,
            message: {
              role: "assistant",
              content: [{ type: "tool_use", id: `t${i}`, name: "Bash", input: {} }],
            },
          }),
          rec({
            type: "user",
            uuid: `u${i}`,
            message: {
              role: "user",
              content: [
                {
                  type: "tool_result",
                  tool_use_id: `t${i}`,
                  content: `<persisted-output>\nOutput too large (70KB). Full output saved to: /home/dev/.claude/projects/-home-dev-app/${sid}/tool-results/${f}\n\nPreview (first 2KB):\npreview ${i}\n</persisted-output>`,
                },
              ],
            },
          }),
        ]);
        writeFileSync(join(project, `${sid}.jsonl`), lines.join("\n"));
        const saved = join(project, sid, "tool-results");
        symlinkSync("/dev/zero", join(saved, "zero.txt"));
        mkfifo(join(saved, "fifo.txt"));
        writeFileSync(join(saved, "big.txt"), Buffer.alloc(TOOL_OUTPUT_FILE.maxBytes + 1, 97));
        const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
        const r = await source.readUnit((await source.listUnits())[0]!);
        const results = r.sessions[0]!.turns.filter((x) => x.role === "user");
        expect(results.map((x) => x.blocks.length)).toEqual([1, 1, 1, 1]);
        expect(r.skipped).toEqual({
          "saved tool output not read: a link (links in an agent's folder are not followed)": 1,
          "saved tool output not read: not a regular file (a FIFO, socket or device is never opened)": 1,
          "saved tool output not read: over its 16 MiB cap": 1,
          [SKIP_PERSISTED_MISSING]: 1,
        });
      } finally {
        t.cleanup();
      }
    },
  );
});

describe("transcripts in an agent's folder", () => {
  it.runIf(posix)(
    "a transcript-named link or FIFO is listed, refused with its reason, never opened",
    async () => {
      const t = tempDir();
      try {
        const project = join(t.dir, "projects", "-home-dev-app");
        mkdirSync(project, { recursive: true });
        writeFileSync(join(t.dir, "credentials"), AWS);
        symlinkSync(join(t.dir, "credentials"), join(project, "linked.jsonl"));
        mkfifo(join(project, "fifo.jsonl"));
        const source = new JsonlTreeSource("claude_code", join(t.dir, "projects"));
        const units = await source.listUnits();
        expect(units.map((u) => [u.key.slice(project.length + 1), u.signature])).toEqual(
          expect.arrayContaining([
            ["linked.jsonl", null],
            ["fifo.jsonl", null],
          ]),
        );
        const failures = await Promise.all(
          units.map((u) =>
            source.readUnit(u).then(
              () => "read",
              (e: unknown) => e,
            ),
          ),
        );
        for (const f of failures) expect(f).toBeInstanceOf(AgentFileRefusedError);
        expect(failures.map((f) => (f as AgentFileRefusedError).reason).sort()).toEqual([
          "transcript not read: a link (links in an agent's folder are not followed)",
          "transcript not read: not a regular file (a FIFO, socket or device is never opened)",
        ]);
      } finally {
        t.cleanup();
      }
    },
  );

  it.runIf(posix)("a Hermes session file's twin linked to /dev/zero is refused, not read", async () => {
    const t = tempDir();
    try {
      const sessions = join(t.dir, ".hermes", "sessions");
      mkdirSync(sessions, { recursive: true });
      writeFileSync(
        join(sessions, "20260101_000000_abc.jsonl"),
        `${JSON.stringify({ role: "user", content: "hello", timestamp: "2026-01-01T00:00:00" })}\n`,
      );
      symlinkSync("/dev/zero", join(sessions, "session_20260101_000000_abc.json"));
      const source = new HermesFilesSource(sessions);
      const units = await source.listUnits();
      const outcomes = await Promise.all(
        units.map((u) =>
          source.readUnit(u).then(
            () => "read",
            (e: unknown) => (e as AgentFileRefusedError).reason,
          ),
        ),
      );
      expect(outcomes).toEqual([
        "session file not read: a link (links in an agent's folder are not followed)",
        "session file not read: a link (links in an agent's folder are not followed)",
      ]);
    } finally {
      t.cleanup();
    }
  });
});
