/**
 * Every real transcript under test/fixtures/traces (origins in its README) goes through its parser: data that
 * other projects published and nobody here shaped to the code. Each record becomes a turn or is counted under
 * a reason, a file without conversation says why, ids are the same on a second parse, and no chunk is blank.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_TIERS, chunkTurns } from "../../src/chunk/index.js";
import {
  type Harness,
  JsonlTreeSource,
  knownSources,
  sniffFile,
  type UnitRead,
} from "../../src/traces/index.js";
import { TRACES, tempDir } from "../helpers/fixtures.js";
import { type FileHarness, PARSERS } from "../helpers/real-transcripts.js";

/** Folder names (first level, or second under `corpus/`) to the harness whose files they hold. */
const FOLDERS: Record<string, FileHarness> = {
  claude: "claude_code",
  codex: "codex",
  pi: "pi",
  hermes: "hermes",
  gemini: "gemini",
  qwen: "qwen",
  copilot: "copilot",
};

/** Every transcript file under TRACES, by path relative to it (`/`-separated), with its harness. */
function transcripts(): { rel: string; harness: FileHarness }[] {
  const out: { rel: string; harness: FileHarness }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.jsonl?$/.test(name)) {
        const rel = relative(TRACES, p).split(/[\\/]/);
        const folder = rel[0] === "corpus" ? rel[1] : rel[0];
        const harness = FOLDERS[folder ?? ""];
        if (harness === undefined) throw new Error(`no harness for "${rel.join("/")}"`);
        out.push({ rel: rel.join("/"), harness });
      }
    }
  };
  walk(TRACES);
  return out;
}

/** Reasons that count a block or a content part inside a record that may still give a turn. */
const PART_LEVEL = /^(agent-injected text left out: |content part )/;

/** Files that hold no conversation at all, with what they hold instead. */
const NO_CONVERSATION: Record<string, string> = {
  "claude/episodic-memory-medium.jsonl": "file-history snapshots and a summary",
  "corpus/codex/agent-sessions/codex_050_legacy.jsonl": "a session_meta line and turn or token events",
  "corpus/claude/idaho-vault/0e973150-6151-404d-968f-a07b3f204eb3.jsonl": "a lone teleported-from line",
};

/**
 * Files whose only message is text the agent wrote into the session itself (kept as a turn, so no message is
 * lost, but left out of every chunk): a Codex session opened and closed before the user typed anything.
 */
const INJECTED_ONLY: Record<string, string> = {
  "corpus/codex/openprintkit/rollout-2025-10-31T18-36-16-fa1ac8bf-348e-4b9a-a06d-767050fa1e10.jsonl":
    "Codex 0.34's <environment_context>",
};

/**
 * Files whose publisher overwrote record ids with one placeholder. A record under it that says what the
 * first said keeps it (a repeat, stored once); any other is named by its line, so no distinct text shares a
 * chunk id. Real agents write a fresh id per record.
 */
const PLACEHOLDER_IDS: Record<string, string> = {
  "claude/agent-sessions-schema-catalog.jsonl": "[trimmed for fixture]",
};

/** What each file of the new corpus gives, pinned: turns by role and every skip reason with its count. */
const CORPUS_FACTS: Record<string, { roles: Record<string, number>; skipped: Record<string, number> }> = {
  "corpus/claude/spotter/tool_heavy.jsonl": {
    // "/mcp", typed while a tool ran, was queued and handed to the running turn: a user turn of its own.
    roles: { user: 14, assistant: 8 },
    skipped: {
      'record type "file-history-snapshot"': 3,
      'record type "progress"': 10,
      'record type "queue-operation"': 1,
      'record type "system"': 2,
      "agent-injected text left out: claude meta message (isMeta)": 1,
      "assistant record with no indexable content": 1,
    },
  },
  "corpus/claude/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl": {
    roles: { user: 3, assistant: 5 },
    skipped: { 'record type "progress"': 2 },
  },
  "corpus/claude/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl": {
    roles: { user: 3, assistant: 1 },
    skipped: { "agent-injected text left out: claude meta message (isMeta)": 2 },
  },
  "corpus/claude/codemie/session-196820da.jsonl": {
    roles: { user: 38, assistant: 57 },
    skipped: {
      'record type "file-history-snapshot"': 2,
      "agent-injected text left out: claude meta message (isMeta)": 1,
      "user record with no indexable content": 3,
    },
  },
  "corpus/claude/codemie/session-9eda1058.jsonl": {
    roles: { user: 7, assistant: 12 },
    skipped: {
      'record type "file-history-snapshot"': 3,
      'record type "summary"': 16,
      'record type "system"': 2,
    },
  },
  "corpus/claude/codemie/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl": {
    roles: { user: 8, assistant: 10 },
    skipped: { 'record type "file-history-snapshot"': 6, "user record with no indexable content": 1 },
  },
  "corpus/claude/codemie/agent-36541525.jsonl": { roles: { user: 1, assistant: 1 }, skipped: {} },
  "corpus/claude/codemie/incremental-subagents/subagents/agent-a485154.jsonl": {
    roles: { user: 17, assistant: 19 },
    skipped: { 'record type "progress"': 1 },
  },
  "corpus/claude/agent-history/session-01.jsonl": {
    roles: { user: 1, assistant: 1 },
    skipped: { 'record type "queue-operation"': 2, 'record type "last-prompt"': 1 },
  },
  "corpus/codex/agent-history/session-01.jsonl": {
    roles: { developer: 1, user: 2, assistant: 1 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "event_msg"': 5,
      'record type "turn_context"': 1,
      "agent-injected text left out: codex developer instructions": 1,
      "agent-injected text left out: codex <environment_context>": 1,
    },
  },
  "corpus/pi/agent-history/session-01.jsonl": {
    roles: { user: 1, assistant: 1 },
    skipped: {
      'record type "session"': 1,
      'record type "session_info"': 1,
      'record type "model_change"': 1,
      'record type "thinking_level_change"': 1,
    },
  },
  "corpus/codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": {
    // The developer turn is kept (its ids stay the reference's) but every block of it is left out.
    roles: { developer: 1, user: 3, assistant: 29, tool: 22 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "event_msg"': 31,
      'record type "turn_context"': 2,
      "agent-injected text left out: codex developer instructions": 4,
      "agent-injected text left out: codex AGENTS.md instructions": 1,
      "agent-injected text left out: codex <environment_context>": 1,
      "reasoning item with no indexable content": 6,
    },
  },
  "corpus/codex/codemie/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": {
    // Its publisher kept the user's prompts only as `event_msg/user_message` (Codex writes them as a
    // response item too): with no user response item in the file, the prompts come from those events.
    roles: { user: 3, assistant: 19, tool: 17 },
    skipped: {
      'record type "session_meta"': 1,
      "reasoning item with no indexable content": 10,
    },
  },
  "corpus/codex/agent-sessions/codex_050_legacy.jsonl": {
    roles: {},
    skipped: { 'record type "session_meta"': 1, 'record type "event_msg"': 4 },
  },
  "corpus/pi/pi-mono/before-compaction.jsonl": {
    roles: { user: 6, assistant: 9, tool: 5 },
    skipped: { 'record type "session"': 1, 'record type "thinking_level_change"': 4 },
  },
  "corpus/hermes/intelligent-engineer-pro/20260419_203826_c736a3.jsonl": {
    // Hermes's own `sessions/<id>.jsonl`: a compaction summary written as an assistant row, tool rows that
    // carry no tool name (it comes from the assistant's tool_calls), reasoning on every assistant row.
    roles: { user: 2, assistant: 7, tool: 6 },
    skipped: {},
  },
  "corpus/hermes/intelligent-engineer-pro/session_cron_0bf0a3a2a078_20260424_000152.json": {
    // A `session_<id>.json` snapshot of a cron run: the system prompt and the 27 tool schemas are fields of
    // the document, not messages; the one message is the job's prompt.
    roles: { user: 1 },
    skipped: {},
  },
  "corpus/hermes/intelligent-engineer-pro/request_dump_20260424_230145_1eda6e_20260424_230154_857481.json": {
    // An API request dump (the call failed: 402, out of credits) of a delegated sub-agent session no other
    // file of the folder holds: the system prompt as a `developer` message (gpt-5.4), then the task.
    roles: { user: 1 },
    skipped: { "hermes system prompt (agent-injected) not indexed": 1 },
  },
  "corpus/codex/openprintkit/rollout-2025-10-31T18-36-16-fa1ac8bf-348e-4b9a-a06d-767050fa1e10.jsonl": {
    roles: { user: 1 },
    skipped: {
      'record type "session_meta"': 1,
      "agent-injected text left out: codex <environment_context>": 1,
    },
  },
  "corpus/codex/openprintkit/rollout-2025-10-31T19-02-58-c61729d4-da6d-46a4-9a29-ec2c614e5e23.jsonl": {
    // Codex 0.34: no turn_context lines; prompts written both as response items and as events.
    roles: { user: 8, assistant: 69, tool: 58 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "event_msg"': 84,
      "agent-injected text left out: codex <environment_context>": 1,
      "reasoning item with no indexable content": 30,
    },
  },
  "corpus/codex/moonmind/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl": {
    // Codex 0.57: a turn_context per model call, apply_patch as custom_tool_call, an interrupted turn.
    roles: { user: 8, assistant: 201, tool: 97 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "turn_context"': 103,
      'record type "event_msg"': 319,
      "agent-injected text left out: codex AGENTS.md instructions": 1,
      "agent-injected text left out: codex <environment_context>": 1,
      "reasoning item with no indexable content": 2,
    },
  },
  "corpus/codex/moonmind/rollout-2025-11-13T18-21-11-019a802a-aab1-7c31-9831-d2510c7a74a2.jsonl": {
    roles: { user: 3, assistant: 86, tool: 42 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "turn_context"': 43,
      'record type "event_msg"': 133,
      "agent-injected text left out: codex AGENTS.md instructions": 1,
      "agent-injected text left out: codex <environment_context>": 1,
      'response_item "ghost_snapshot" not indexed': 1,
    },
  },
  "corpus/codex/agentic-neurodata-conversion/rollout-2025-09-26T17-01-04-019985ca-7ef7-7580-a921-c20ac619f40b.jsonl":
    {
      // Codex 0.40 from VS Code on Windows (a `c:\Users\…` cwd), four interrupted turns.
      roles: { user: 16, assistant: 54, tool: 17 },
      skipped: {
        'record type "session_meta"': 1,
        'record type "turn_context"': 31,
        'record type "event_msg"': 83,
        "agent-injected text left out: codex <environment_context>": 2,
      },
    },
  "corpus/codex/agentic-neurodata-conversion/rollout-2025-09-29T13-07-08-01999467-65bf-7281-8ab6-73bb53989041.jsonl":
    {
      roles: { user: 3, assistant: 4 },
      skipped: {
        'record type "session_meta"': 1,
        'record type "turn_context"': 2,
        'record type "event_msg"': 10,
        "agent-injected text left out: codex <environment_context>": 1,
      },
    },
  "corpus/codex/agentic-neurodata-conversion/rollout-2025-09-29T13-09-19-01999469-65fd-7fa2-ab93-d24bb4c714cb.jsonl":
    {
      roles: { user: 3, assistant: 48, tool: 24 },
      skipped: {
        'record type "session_meta"': 1,
        'record type "turn_context"': 25,
        'record type "event_msg"': 74,
        "agent-injected text left out: codex <environment_context>": 2,
      },
    },
  "corpus/codex/coda/rollout-2025-10-04T22-31-15-0199b26c-737a-71a2-9939-52ce68c95cbe.jsonl": {
    roles: { user: 4, assistant: 81, tool: 38 },
    skipped: {
      'record type "session_meta"': 1,
      'record type "turn_context"': 41,
      'record type "event_msg"': 128,
      "agent-injected text left out: codex <environment_context>": 1,
    },
  },
  "corpus/claude/claude-reliability/coverage-test-fix/transcript.jsonl": {
    // Claude Code 2.1.14 run by a test harness: a plugin's stop hook speaks through isMeta user records.
    roles: { user: 16, assistant: 21 },
    skipped: {
      'record type "queue-operation"': 1,
      "agent-injected text left out: claude meta message (isMeta)": 2,
    },
  },
  "corpus/claude/claude-reliability/python-to-rust-port/transcript.jsonl": {
    roles: { user: 38, assistant: 55 },
    skipped: {
      'record type "queue-operation"': 1,
      "agent-injected text left out: claude meta message (isMeta)": 1,
      "user record with no indexable content": 3,
    },
  },
  "corpus/claude/spotter/subagent.jsonl": {
    roles: { user: 20, assistant: 27 },
    skipped: {
      'record type "file-history-snapshot"': 3,
      'record type "progress"': 44,
      'record type "system"': 1,
      "agent-injected text left out: claude meta message (isMeta)": 1,
      "assistant record with no indexable content": 1,
    },
  },
  "corpus/claude/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl": {
    // Two prompts typed during a long test run ("check again", "new beads … tackle them") reach the model
    // only through the queue: each is a user turn where the `remove` hands it over.
    roles: { user: 18, assistant: 21 },
    skipped: {
      'record type "progress"': 86,
      'record type "queue-operation"': 3,
      "assistant record with no indexable content": 1,
      "user record with no indexable content": 1,
    },
  },
  "corpus/claude/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": {
    // A window around a compaction: the compact_boundary system record, then the isCompactSummary prompt.
    roles: { user: 4, assistant: 10 },
    skipped: {
      'record type "progress"': 52,
      'record type "system"': 1,
      "assistant record with no indexable content": 1,
      "user record with no indexable content": 2,
    },
  },
  "corpus/claude/episodic-memory/short-conversation.jsonl": {
    roles: { user: 1, assistant: 1 },
    skipped: { 'record type "summary"': 1 },
  },
  "corpus/claude/episodic-memory/long-conversation.jsonl": {
    // Claude Code 2.0.5: a PDF arrives as an isMeta `document` part; five system/api_error retries.
    roles: { user: 22, assistant: 25 },
    skipped: {
      'record type "file-history-snapshot"': 7,
      'record type "system"': 5,
      'content part "document" not indexed': 1,
      "user record with no indexable content": 1,
    },
  },
  "corpus/claude/episodic-memory/large-conversation.jsonl": {
    roles: { user: 47, assistant: 87 },
    skipped: { 'record type "summary"': 2, "user record with no indexable content": 4 },
  },
  "corpus/claude/codemie/incremental-simple/turn-2.jsonl": {
    roles: { user: 6, assistant: 14 },
    skipped: {
      'record type "summary"': 15,
      'record type "file-history-snapshot"': 4,
      'record type "system"': 6,
    },
  },
  "corpus/pi/pi-mono/before-compaction-windows.jsonl": {
    // pi format v1 from later in the same session: a real `compaction` entry, a `bashExecution` message (the
    // user's own `!ls`; left out like any role but user, assistant and toolResult, as in the reference) and
    // five model changes.
    roles: { user: 13, assistant: 49, tool: 38 },
    skipped: {
      'record type "session"': 1,
      'record type "compaction"': 1,
      'record type "model_change"': 5,
      'message role "bashExecution" not indexed': 1,
      "assistant message with no indexable content": 3,
    },
  },
  "corpus/claude/idaho-vault/ca2442ad-2504-45cb-8b0f-adb8df732dc7.jsonl": {
    // Claude Code 2.1.90 out of usage: `permission-mode` and `attachment` records (MCP instructions, the
    // companion), two synthetic rate-limit answers, a local command with its caveat and output.
    roles: { user: 5, assistant: 2 },
    skipped: {
      'record type "permission-mode"': 1,
      'record type "file-history-snapshot"': 3,
      'record type "attachment"': 2,
      "agent-injected text left out: claude meta message (isMeta)": 1,
    },
  },
  "corpus/claude/idaho-vault/0e973150-6151-404d-968f-a07b3f204eb3.jsonl": {
    // Claude Code 2.1's stub for a session teleported from the web: its only line names the remote session.
    roles: {},
    skipped: { 'record type "teleported-from"': 1 },
  },
  "corpus/codex/idaho-vault/archived_sessions/rollout-2026-03-23T01-39-29-019d19a2-6ff2-7cf3-a8e7-16f38b9dee35.jsonl":
    {
      // Codex 0.116 from VS Code, as Codex moved it to `archived_sessions/`: permission, collaboration-mode and
      // skills instructions in one developer message, two questions answered without tools.
      roles: { developer: 1, user: 3, assistant: 2 },
      skipped: {
        'record type "session_meta"': 1,
        'record type "event_msg"': 12,
        'record type "turn_context"': 2,
        "agent-injected text left out: codex developer instructions": 3,
        "agent-injected text left out: codex <environment_context>": 1,
        "reasoning item with no indexable content": 1,
      },
    },
  "corpus/pi/idaho-vault/2026-04-20T03-20-25-829Z_019da8e7-53e5-77d8-ad66-8096de722bcd.jsonl": {
    // pi v3 on Windows with a local model (ollama, openai-completions): two answers cut off (`aborted`).
    roles: { user: 5, assistant: 5 },
    skipped: {
      'record type "session"': 1,
      'record type "model_change"': 1,
      'record type "thinking_level_change"': 1,
    },
  },
  "corpus/pi/agent-sessions/small.jsonl": {
    roles: { user: 2, assistant: 2 },
    skipped: {
      'record type "session"': 1,
      'record type "model_change"': 1,
      'record type "thinking_level_change"': 1,
      'record type "compaction"': 2,
    },
  },
  // Gemini CLI's older whole-file `session-*.json` (before the JSONL log): each message a turn, each tool call's
  // result a tool turn after its call.
  "corpus/gemini/codemie/session-2025-12-01T21-45-5b959dae.json": {
    roles: { user: 3, assistant: 11, tool: 10 },
    skipped: {},
  },
  "corpus/gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json": {
    roles: { user: 5, assistant: 9, tool: 14 },
    skipped: {},
  },
  "corpus/gemini/agent-history/session-01.json": { roles: { user: 1, assistant: 1 }, skipped: {} },
  "corpus/gemini/idaho-vault/tmp/f528f00f72f21423df709bb5104dfe181c28474fac473cf1028c3bfd64be534a/chats/session-2026-03-29T19-11-7726f628.json":
    {
      // Windows, the older `tmp/<projectHash>/` folder; twelve questions answered without tools.
      roles: { user: 12, assistant: 27 },
      skipped: {},
    },
  "corpus/gemini/idaho-vault/tmp/loganf/chats/session-2026-04-14T19-55-d031dc7c.json": {
    roles: { user: 9, assistant: 16, tool: 7 },
    skipped: {},
  },
  "corpus/gemini/idaho-vault/tmp/idaho-vault/chats/session-2026-04-13T17-57-b9d28477.json": {
    // The CLI's own "Update successful!" notice is an `info` message.
    roles: { user: 1, assistant: 1 },
    skipped: { 'message type "info" not indexed': 1 },
  },
  "corpus/gemini/idaho-vault/tmp/idaho-vault/chats/f328310d-05ea-45ce-b9cb-fe2717bebe12/twynek.json": {
    // A sub-agent (`kind: "subagent"`, codebase investigator) in `chats/<parent session>/<id>.json`.
    roles: { user: 2, assistant: 11, tool: 10 },
    skipped: {},
  },
  "corpus/gemini/agent-sessions/jsonl_v040.jsonl": {
    roles: { user: 1, assistant: 2, tool: 1 },
    skipped: { "session metadata record": 1, "metadata update ($set)": 1 },
  },
  // Qwen Code 0.21 files another project wrote to test its reader (synthetic text, Qwen's record shapes).
  "corpus/qwen/agent-sessions/019f0000-0000-7000-8000-000000000001.jsonl": {
    // A UserPromptSubmit hook's context part and a background notification: kept as blocks, never indexed.
    roles: { user: 2, assistant: 2, tool: 1 },
    skipped: {
      'system record "ui_telemetry"': 1,
      "agent-injected text left out: qwen UserPromptSubmit hook context": 1,
      "agent-injected text left out: qwen background notification": 1,
    },
  },
  "corpus/qwen/agent-sessions/019f0000-0000-7000-8000-000000000004.jsonl": {
    // An answer written in two pieces under one uuid (a thought, then the call and the text) is one turn; the
    // answer a rewind left behind is kept, as a Claude Code branch is.
    roles: { user: 2, assistant: 2 },
    skipped: {
      'system record "custom_title"': 2,
      'system record "rewind"': 1,
      'system record "session_artifact_snapshot"': 1,
      "record continuing a message (joined to it)": 1,
    },
  },
  "corpus/copilot/idaho-vault/session-state/3fc55392-3e98-4470-8d46-86557601b171/events.jsonl": {
    // Copilot CLI on Windows out of quota: the prompt, a 402 `session.error`, a resume with a model change,
    // the same prompt again and the same error; no answer.
    roles: { user: 2 },
    skipped: {
      'copilot event "session.start" not indexed': 1,
      'copilot event "assistant.turn_start" not indexed': 2,
      'copilot event "assistant.turn_end" not indexed': 2,
      'copilot event "session.error" not indexed': 2,
      'copilot event "session.shutdown" not indexed': 2,
      'copilot event "session.resume" not indexed': 1,
      'copilot event "session.model_change" not indexed': 1,
    },
  },
  "corpus/copilot/idaho-vault/session-state/252d6b6b-aaad-4790-8254-7ada091ee9fc/events.jsonl": {
    // `reasoningText` on the first answer, failed `powershell` calls (`error.message`), a 214 KB view result.
    roles: { user: 1, assistant: 6, tool: 10 },
    skipped: {
      'copilot event "session.start" not indexed': 1,
      'copilot event "assistant.turn_start" not indexed': 6,
      'copilot event "tool.execution_start" not indexed': 10,
      'copilot event "assistant.turn_end" not indexed': 6,
      'copilot event "session.compaction_start" not indexed': 1,
    },
  },
  "corpus/copilot/agent-sessions/large.jsonl": {
    roles: { user: 3, assistant: 4, tool: 1 },
    skipped: {
      'copilot event "session.start" not indexed': 1,
      'copilot event "session.model_change" not indexed': 1,
      'copilot event "session.info" not indexed': 1,
      'copilot event "system.message" not indexed': 1,
      'copilot event "assistant.turn_start" not indexed': 1,
      'copilot event "tool.execution_start" not indexed': 1,
      'copilot event "hook.start" not indexed': 1,
      'copilot event "hook.end" not indexed': 1,
      'copilot event "assistant.turn_end" not indexed': 1,
      'copilot event "session.truncation" not indexed': 1,
    },
  },
  "corpus/copilot/agent-sessions/subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl": {
    roles: { user: 1, assistant: 2, tool: 1 },
    skipped: {
      'copilot event "session.start" not indexed': 1,
      'copilot event "assistant.turn_start" not indexed': 1,
      'copilot event "tool.execution_start" not indexed': 1,
      'copilot event "assistant.turn_end" not indexed': 1,
    },
  },
};

const FILES = transcripts();

function parse(rel: string, harness: FileHarness): UnitRead {
  const path = join(TRACES, rel);
  return PARSERS[harness](readFileSync(path, "utf8"), { path });
}

/**
 * Records a file holds: non-blank lines of JSONL, messages of a Hermes `session_<id>.json` snapshot; a Gemini
 * CLI line that sets the whole message list (`{"$set": {"messages": […]}}`) holds one record per message.
 */
function recordsIn(rel: string, read: UnitRead): number {
  if (rel.endsWith(".json")) return read.records;
  return readFileSync(join(TRACES, rel), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .reduce((n, l) => n + (geminiList(l)?.length ?? 1), 0);
}

/** The messages of a Gemini CLI `$set` line that replaces the message list, or null for any other line. */
function geminiList(line: string): unknown[] | null {
  try {
    const messages = (JSON.parse(line) as { $set?: { messages?: unknown } }).$set?.messages;
    return Array.isArray(messages) ? messages : null;
  } catch {
    return null;
  }
}

/**
 * Turns made from records. A Gemini CLI tool answer is a turn made from part of a message (the call's
 * result, or a message of tool responses), not a record of its own.
 */
function recordTurns(read: UnitRead, harness: Harness): number {
  const turns = read.sessions.flatMap((s) => s.turns);
  return turns.filter((t) => !(harness === "gemini" && t.role === "tool")).length;
}

/**
 * The text parts of the messages a file holds, read straight from its JSON (not through the parser): Claude's
 * user and assistant `text` parts (or string content), Codex's `input_text`/`output_text`, pi's user and
 * assistant `text`, Hermes's string content. A lost message is one of these in no block.
 */
function messageTexts(rel: string, harness: Harness): string[] {
  const raw = readFileSync(join(TRACES, rel), "utf8");
  // A Hermes request dump holds its messages under `request.body` (`messages`, or `input` for Responses).
  const doc = (d: {
    messages?: unknown[];
    request?: { body?: { messages?: unknown[]; input?: unknown[] } };
  }) => d.messages ?? d.request?.body?.messages ?? d.request?.body?.input ?? [];
  const records: unknown[] = rel.endsWith(".json")
    ? doc(JSON.parse(raw))
    : raw.split("\n").flatMap((l) => {
        try {
          return geminiList(l) ?? [JSON.parse(l) as unknown];
        } catch {
          return [];
        }
      });
  const out: string[] = [];
  const texts = (content: unknown, kinds: string[]) => {
    if (typeof content === "string") out.push(content);
    else if (Array.isArray(content))
      for (const p of content as { type?: string; text?: unknown }[])
        if (kinds.includes(p?.type ?? "") && typeof p.text === "string") out.push(p.text);
  };
  const obj = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  for (const rec of records.map(obj)) {
    const message = obj(rec.message);
    const payload = obj(rec.payload);
    if (harness === "claude_code" && (rec.type === "user" || rec.type === "assistant"))
      texts(message.content, ["text"]);
    else if (harness === "codex" && rec.type === "response_item" && payload.type === "message")
      texts(payload.content, ["input_text", "output_text"]);
    else if (harness === "pi" && rec.type === "message" && Array.isArray(message.content)) {
      if (message.role === "user" || message.role === "assistant") texts(message.content, ["text"]);
    } else if (harness === "qwen" && (rec.type === "user" || rec.type === "assistant")) {
      texts(message.parts, [""]); // Gemini's parts, which Qwen keeps, carry no `type`
    } else if (harness === "gemini" && (rec.type === "user" || rec.type === "gemini")) {
      // The CLI's own context message opens every session; it is not said by anyone.
      const before = out.length;
      texts(rec.content, [""]); // Gemini's parts carry no `type`
      if (out.slice(before).some((t) => t.startsWith("<session_context>"))) out.length = before;
    } else if (harness === "hermes" && typeof rec.content === "string") {
      // The system prompt (`developer` when Hermes talks to OpenAI's newer models) is Hermes's, not said.
      if (rec.role !== "system" && rec.role !== "developer") out.push(rec.content);
    } else if (harness === "copilot" && (rec.type === "user.message" || rec.type === "assistant.message")) {
      const content = obj(rec.data).content;
      if (typeof content === "string") out.push(content);
    }
  }
  return out.filter((t) => t.trim() !== "");
}

const sum = (counts: Record<string, number>, keep: (reason: string) => boolean) =>
  Object.entries(counts).reduce((n, [reason, c]) => n + (keep(reason) ? c : 0), 0);

describe("real transcripts", () => {
  it("are all found, in every harness, the new corpus among them", () => {
    const harnesses = new Set(FILES.map((f) => f.harness));
    expect([...harnesses].sort()).toEqual([
      "claude_code",
      "codex",
      "copilot",
      "gemini",
      "hermes",
      "pi",
      "qwen",
    ]);
    expect(FILES.filter((f) => f.rel.startsWith("corpus/")).length).toBeGreaterThanOrEqual(36);
  });

  describe.each(FILES)("$rel", ({ rel, harness }) => {
    it("is recognised by its content as a transcript of its harness", () => {
      expect(sniffFile(join(TRACES, rel))).toEqual({ kind: "transcript", harness });
    });

    it("accounts for every record: a turn, or a counted reason", () => {
      const read = parse(rel, harness);
      const turns = recordTurns(read, harness);
      for (const [reason, n] of Object.entries(read.skipped)) {
        expect(reason.trim()).not.toBe("");
        expect(Number.isInteger(n) && n > 0).toBe(true);
      }
      expect(turns + sum(read.skipped, (r) => !PART_LEVEL.test(r))).toBe(recordsIn(rel, read));
    });

    it("yields turns and chunks, or is a file known to hold no conversation", () => {
      const read = parse(rel, harness);
      const turns = read.sessions.flatMap((s) => s.turns);
      const chunks = chunkTurns(turns, { tiers: ALL_TIERS, thinking: true, repo: "" });
      if (rel in NO_CONVERSATION) {
        expect(turns).toHaveLength(0);
        // Every record is named by its type: nothing was a message that got lost.
        expect(sum(read.skipped, (r) => /^record type "/.test(r))).toBe(recordsIn(rel, read));
        return;
      }
      if (rel in INJECTED_ONLY) {
        // Every block of every turn was counted as injected, and nothing else reached a chunk.
        const blocks = turns.flatMap((t) => t.blocks);
        expect(blocks.length).toBeGreaterThan(0);
        expect(blocks.every((b) => b.injected !== undefined)).toBe(true);
        expect(sum(read.skipped, (r) => r.startsWith("agent-injected text left out: "))).toBe(blocks.length);
        expect(chunks).toEqual([]);
        return;
      }
      expect(turns.length).toBeGreaterThan(0);
      expect(chunks.length).toBeGreaterThan(0);
    });

    it("loses no message: every text a message holds is some block's text", () => {
      const blocks = new Set(
        parse(rel, harness).sessions.flatMap((s) => s.turns.flatMap((t) => t.blocks.map((b) => b.text))),
      );
      const texts = messageTexts(rel, harness);
      expect(texts.length > 0).toBe(!(rel in NO_CONVERSATION));
      expect(texts.filter((t) => !blocks.has(t))).toEqual([]);
    });

    it("names every tool output after the call it answers, when the call is in the session", () => {
      for (const s of parse(rel, harness).sessions) {
        const blocks = s.turns.flatMap((t) => t.blocks);
        const calls = new Map(
          blocks
            .filter((b) => b.blockType === "tool_use" && b.toolUseId !== null)
            .map((b) => [b.toolUseId, b]),
        );
        for (const b of blocks.filter((x) => x.blockType === "tool_result")) {
          const call = b.toolUseId === null ? undefined : calls.get(b.toolUseId);
          if (call !== undefined) expect(b.toolName).toBe(call.toolName);
        }
      }
    });

    it.runIf(harness === "gemini")(
      "streamed for indexing, gives what reading it whole gives (a replayed log read a turn at a time)",
      async () => {
        const source = new JsonlTreeSource("gemini", join(TRACES, rel));
        const [unit] = await source.listUnits();
        if (unit === undefined) throw new Error(`${rel} is not listed`);
        const whole = await source.readUnit(unit);
        const streamed = await source.streamUnit(unit);
        if (streamed === null) throw new Error(`${rel} was not streamed`);
        const sessions = streamed.sessions.map((s) => ({ ...s, turns: [...s.turns] }));
        const { unreadable, ...read } = streamed.read;
        const got = { sessions, ...read, ...(unreadable?.length ? { unreadable } : {}) };
        expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(whole)));
      },
    );

    it("numbers turns densely, with non-blank blocks, and no chunk is blank", () => {
      const read = parse(rel, harness);
      for (const s of read.sessions) {
        expect(s.sessionId).not.toBe("");
        s.turns.forEach((t, i) => {
          expect(t.seq).toBe(i);
          expect(t.sessionId).toBe(s.sessionId);
          expect(t.harness).toBe(harness);
          expect(t.turnUuid).not.toBe("");
          expect(t.blocks.length).toBeGreaterThan(0);
          for (const b of t.blocks) expect(b.text.trim()).not.toBe("");
        });
        for (const c of chunkTurns(s.turns, { tiers: ALL_TIERS, thinking: true, repo: "" }))
          expect(c.text.trim()).not.toBe("");
      }
    });

    it("gives the same chunk ids and texts on a second parse, each id once", () => {
      const chunksOf = () =>
        chunkTurns(
          parse(rel, harness).sessions.flatMap((s) => s.turns),
          { tiers: ALL_TIERS, thinking: true, repo: "" },
        ).map((c) => [c.id, c.text]);
      const first = chunksOf();
      expect(chunksOf()).toEqual(first);
      const placeholder = PLACEHOLDER_IDS[rel];
      const turns = parse(rel, harness).sessions.flatMap((s) => s.turns);
      if (placeholder === undefined) {
        expect(new Set(turns.map((t) => t.turnUuid)).size).toBe(turns.length);
        expect(new Set(first.map(([id]) => id)).size).toBe(first.length);
      } else {
        // Only the turns under the placeholder collide, and only with the same text.
        const own = turns.filter((t) => t.turnUuid !== placeholder);
        expect(new Set(own.map((t) => t.turnUuid)).size).toBe(own.length);
        expect(turns.length - own.length).toBeGreaterThan(1);
        expect(own.some((t) => t.turnUuid.includes("-line-"))).toBe(true);
        const textOf = new Map<string | undefined, string | undefined>();
        for (const [id, text] of first) {
          expect(textOf.get(id) ?? text).toBe(text);
          textOf.set(id, text);
        }
      }
    });
  });

  it.each(Object.entries(CORPUS_FACTS))("%s gives its pinned turns and skip counts", (rel, facts) => {
    const harness = FILES.find((f) => f.rel === rel)?.harness;
    if (harness === undefined) throw new Error(`missing fixture "${rel}"`);
    const read = parse(rel, harness);
    const roles: Record<string, number> = {};
    for (const t of read.sessions.flatMap((s) => s.turns)) roles[t.role] = (roles[t.role] ?? 0) + 1;
    expect(roles).toEqual(facts.roles);
    expect(read.skipped).toEqual(facts.skipped);
  });

  it("lists the Claude corpus with every sub-agent file last and marked, whatever folder it sits in", async () => {
    const source = new JsonlTreeSource("claude_code", join(TRACES, "corpus", "claude"));
    const units = await source.listUnits();
    const names = units.map((u) =>
      relative(join(TRACES, "corpus", "claude"), u.key)
        .split(/[\\/]/)
        .pop(),
    );
    const firstSub = units.findIndex((u) => u.isSubagent);
    expect(units.slice(firstSub).every((u) => u.isSubagent)).toBe(true);
    expect(names.slice(firstSub).sort()).toEqual([
      "agent-36541525.jsonl",
      "agent-a485154.jsonl",
      "agent-a881341.jsonl",
      "agent-acompact-fffbd0.jsonl",
    ]);
    for (const u of units) {
      const read = await source.readUnit(u);
      expect(read.sessions.map((s) => s.isSubagent)).toEqual([u.isSubagent]);
    }
  });

  it.each(["claude", "codex", "pi"] as const)(
    "the %s corpus read as an agent directory gives what each file gives alone",
    async (folder) => {
      const harness = FOLDERS[folder]!;
      if (harness === "hermes") throw new Error("not a JSONL tree");
      const root = join(TRACES, "corpus", folder);
      const source = new JsonlTreeSource(harness, root);
      const units = await source.listUnits();
      const rels = units.map((u) => relative(TRACES, u.key).split(/[\\/]/).join("/"));
      expect([...rels].sort()).toEqual(
        FILES.filter((f) => f.rel.startsWith(`corpus/${folder}/`))
          .map((f) => f.rel)
          .sort(),
      );
      for (const [i, unit] of units.entries()) {
        const viaSource = await source.readUnit(unit);
        const alone = parse(rels[i]!, harness);
        const ids = (r: UnitRead) =>
          r.sessions.flatMap((s) => s.turns.map((t) => `${t.sessionId}/${t.turnUuid}`));
        expect(ids(viaSource)).toEqual(ids(alone));
        expect(viaSource.skipped).toEqual(alone.skipped);
      }
    },
  );

  it("reads a real archived Codex session where Codex moved it, as the file alone reads", async () => {
    const rel =
      "corpus/codex/idaho-vault/archived_sessions/rollout-2026-03-23T01-39-29-019d19a2-6ff2-7cf3-a8e7-16f38b9dee35.jsonl";
    const home = tempDir();
    try {
      const dir = join(home.dir, ".codex", "archived_sessions");
      mkdirSync(dir, { recursive: true });
      cpSync(join(TRACES, rel), join(dir, rel.split("/").pop()!));
      const sources = knownSources(home.dir);
      expect(sources.map((s) => s.kind)).toEqual(["codex"]);
      const [unit, ...rest] = await sources[0]!.listUnits();
      expect(rest).toEqual([]);
      const read = await sources[0]!.readUnit(unit!);
      const alone = parse(rel, "codex");
      expect(read.sessions.map((s) => s.turns.map((t) => t.turnUuid))).toEqual(
        alone.sessions.map((s) => s.turns.map((t) => t.turnUuid)),
      );
      expect(read.sessions[0]!.cwd).toBe("c:\\Users\\loganf\\Documents\\IDAHO-VAULT");
    } finally {
      home.cleanup();
    }
  });

  it("indexes a Bash output saved to tool-results/ from the record itself when the folder was not published", async () => {
    // The publisher shipped the sub-agent transcript without `<session>/tool-results/`; its last record's
    // tool_result is a 2 KB preview, and `toolUseResult.stdout` holds the whole 126.7 KB output.
    const dir = join(TRACES, "corpus", "claude", "codemie", "incremental-subagents");
    const source = new JsonlTreeSource("claude_code", dir);
    const [unit] = await source.listUnits();
    const read = await source.readUnit(unit!);
    const last = read.sessions[0]!.turns.at(-1)!;
    expect(last.blocks.map((b) => [b.blockType, b.toolName])).toEqual([
      ["tool_result", "Bash"],
      ["tool_result", "Bash"],
    ]);
    expect(last.blocks[0]!.text).toMatch(/^<persisted-output>\nOutput too large \(126\.7KB\)/);
    expect(last.blocks[1]!.text.length).toBe(129_724);
    expect(read.skipped).toEqual({ 'record type "progress"': 1 });
  });
});
