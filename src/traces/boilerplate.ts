/**
 * Text an agent injects into every session on its own (instructions, environment descriptions, reminders),
 * recognised so it is not indexed as conversation: after one `codex exec` turn, 7 of 8 recall hits were
 * Codex's permission, skills and environment blocks. Only whole blocks are recognised, and only by the
 * wrappers the agents write; anything the user or the model said stays.
 */
import { type Block, countSkip, type SkipCounts } from "./types.js";

/** Leading markers of Codex's injected user-role blocks, with what they are. */
const CODEX_USER: readonly [RegExp, string][] = [
  [/^<environment_context>/, "codex <environment_context>"],
  [/^<user_instructions>/, "codex <user_instructions> (AGENTS.md)"],
  [/^# AGENTS\.md instructions for /, "codex AGENTS.md instructions"],
  [/^<permissions instructions>/, "codex permission instructions"],
  [/^<skills_instructions>/, "codex skills instructions"],
  [/^<INSTRUCTIONS>/, "codex AGENTS.md instructions"],
];

/** Whole-block wrappers Claude Code injects into user turns. */
const CLAUDE_WRAPPED: readonly [string, string][] = [
  ["system-reminder", "claude <system-reminder>"],
  ["local-command-caveat", "claude <local-command-caveat>"],
];

/** The skip reason under which an injected block is counted. */
export function injectedReason(what: string): string {
  return `agent-injected text left out: ${what}`;
}

/** Marks `block` as injected (`what` says by whom and what) and counts it. */
function mark(block: Block, what: string, skipped: SkipCounts): void {
  block.injected = what;
  countSkip(skipped, injectedReason(what));
}

/**
 * Codex: every developer-role message (permission, sandbox, skills and collaboration-mode instructions)
 * and user-role blocks that open with one of Codex's context wrappers.
 */
export function markCodexInjected(role: string, blocks: Block[], skipped: SkipCounts): void {
  for (const b of blocks) {
    if (b.blockType !== "text") continue;
    if (role === "developer") {
      mark(b, "codex developer instructions", skipped);
      continue;
    }
    if (role !== "user") continue;
    const head = b.text.trimStart();
    const hit = CODEX_USER.find(([re]) => re.test(head));
    if (hit !== undefined) mark(b, hit[1], skipped);
  }
}

/**
 * Claude Code: user text blocks that are wholly one `<system-reminder>` (CLAUDE.md, todo and file-change
 * reminders) or `<local-command-caveat>`, and every text block of a record Claude marks `isMeta` (skill
 * bodies, caveats).
 */
export function markClaudeInjected(
  role: string,
  isMeta: boolean,
  blocks: Block[],
  skipped: SkipCounts,
): void {
  if (role !== "user") return;
  for (const b of blocks) {
    if (b.blockType !== "text") continue;
    if (isMeta) {
      mark(b, "claude meta message (isMeta)", skipped);
      continue;
    }
    const t = b.text.trim();
    const hit = CLAUDE_WRAPPED.find(([tag]) => t.startsWith(`<${tag}>`) && t.endsWith(`</${tag}>`));
    if (hit !== undefined && wrapsWhole(t, hit[0])) mark(b, hit[1], skipped);
  }
}

/** True when `t` is one or more `<tag>…</tag>` elements back to back and nothing else. */
function wrapsWhole(t: string, tag: string): boolean {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  let rest = t;
  while (rest.startsWith(open)) {
    const end = rest.indexOf(close);
    if (end < 0) return false;
    rest = rest.slice(end + close.length).trimStart();
  }
  return rest === "";
}

/**
 * `user` records Qwen Code writes itself rather than from what the user typed: a background task's
 * notification and the goal runner's prompts (Qwen's own replay shows them as background notifications and
 * goal runtime messages). Newer versions also say so in `provenance` ("system", "goal_runtime"; the user's
 * own are "real_user"). A `cron` record, though written the same way, is the prompt the user scheduled, and
 * stays theirs.
 */
const QWEN_AGENT_SUBTYPES = new Map([
  ["notification", "qwen background notification"],
  ["background_task_completed", "qwen background task notification"],
  ["goal_runtime", "qwen goal runner prompt"],
]);
const QWEN_AGENT_PROVENANCE = new Map([
  ["system", "qwen notification"],
  ["goal_runtime", "qwen goal runner prompt"],
]);

/** What a UserPromptSubmit hook adds to a Qwen prompt: its own part, wholly inside this tag. */
const QWEN_HOOK_CONTEXT = "qwen:user-prompt-submit-context";

/**
 * Qwen Code: every text block of a `user` record Qwen wrote itself (by its subtype or provenance), and a
 * user text block that is wholly a UserPromptSubmit hook's context (which Qwen tells its model is "not user
 * input").
 */
export function markQwenInjected(
  record: { subtype: string | null; provenance: string | null },
  blocks: Block[],
  skipped: SkipCounts,
): void {
  const { subtype, provenance } = record;
  const own =
    subtype === "cron"
      ? undefined
      : (QWEN_AGENT_SUBTYPES.get(subtype ?? "") ?? QWEN_AGENT_PROVENANCE.get(provenance ?? ""));
  for (const b of blocks) {
    if (b.blockType !== "text") continue;
    if (own !== undefined) mark(b, own, skipped);
    else if (wrapsWhole(b.text.trim(), QWEN_HOOK_CONTEXT))
      mark(b, "qwen UserPromptSubmit hook context", skipped);
  }
}

/**
 * Claude Code: every block of a sub-agent record that is its parent session's own record, replayed. The
 * compaction fork (`agent-acompact-…`) and the side-question fork (`agent-aside_question-…`) of Claude Code
 * 2.1.8x copy the parent's history, same uuids and all, before their own request: in a real folder 2,100 of
 * 11,400 turns were such copies, each parent turn stored again once per fork. The parent's file holds them;
 * here they keep their place (ids stay the reference's) and are left out, counted.
 */
export function markClaudeReplayed(blocks: Block[], skipped: SkipCounts): void {
  for (const b of blocks)
    if (b.injected === undefined) mark(b, "claude sub-agent copy of its parent's record", skipped);
}
