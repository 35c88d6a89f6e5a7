/**
 * The JSONL tree source shared by Claude Code, Codex, pi, Gemini CLI, Qwen Code and Copilot CLI: a folder
 * (or one file) of one agent's transcripts, one unit per file, read by that agent's parser
 * (docs/transcript-formats.md#sources-and-units).
 */
import { basename, dirname, join } from "node:path";
import { PROJECT_ROOT_FILE, readAgentSidecar, TOOL_OUTPUT_FILE } from "./agent-file.js";
import { isSubagentId, type ParseContext, parseClaudeTranscript, streamClaudeTranscript } from "./claude.js";
import { parseCodexRollout, streamCodexRollout } from "./codex.js";
import { parseCopilotEvents, streamCopilotEvents } from "./copilot.js";
import { formatOf } from "./formats.js";
import { parseGeminiSession, streamGeminiSession } from "./gemini.js";
import { fileLines, parseJsonl, type TranscriptText } from "./jsonl.js";
import type { PersistedRead } from "./persisted-output.js";
import { parsePiSession, streamPiSession } from "./pi.js";
import { parseQwenSession, streamQwenSession } from "./qwen.js";
import { fileStem } from "./text.js";
import {
  countSkip,
  type Harness,
  mergeSkips,
  type SkipCounts,
  type StreamedUnit,
  type TraceSource,
  type Unit,
  type UnitRead,
} from "./types.js";
import { stampFiles, walkFiles } from "./walk.js";

/** Parser versions recorded in state.json: bump when a parser would now read a file differently. */
const PARSER_VERSIONS: Record<JsonlHarness, number> = {
  // 2: externalised tool results, agent-injected reminders left out. 3: prompts queued while busy. 4: a
  // sub-agent's copies of its parent's records left out. 5: a record without a uuid, or with the uuid of an
  // earlier record that said something else, a turn of its own (its id made from the session and its line),
  // where all of them shared one id and only the first was kept.
  claude_code: 5,
  // 2: developer instructions and environment context left out.
  codex: 2,
  pi: 1,
  // 2: older whole-file sessions whose keys come in another order.
  gemini: 2,
  // 2: a message written in pieces read whole; Qwen's own user records and hook context left out; a
  // sub-agent's transcript a session of its own.
  qwen: 2,
  copilot: 1,
};

/** The agents whose transcripts are JSONL (or JSON) files, read by a {@link JsonlTreeSource}. */
export type JsonlHarness = Exclude<Harness, "hermes" | "opencode">;

const PARSERS: Record<JsonlHarness, (text: TranscriptText, ctx: ParseContext) => UnitRead> = {
  claude_code: parseClaudeTranscript,
  codex: parseCodexRollout,
  pi: parsePiSession,
  gemini: parseGeminiSession,
  qwen: parseQwenSession,
  copilot: parseCopilotEvents,
};

/**
 * The parsers that read a transcript a turn at a time (in two passes), so that indexing holds a turn, not
 * a session (Gemini CLI's replayed log too: its first pass learns which version of each message survives).
 */
const STREAMERS: Partial<
  Record<JsonlHarness, (text: TranscriptText, ctx: ParseContext) => StreamedUnit | null>
> = {
  claude_code: streamClaudeTranscript,
  codex: streamCodexRollout,
  pi: streamPiSession,
  copilot: streamCopilotEvents,
  qwen: streamQwenSession,
  gemini: streamGeminiSession,
};

/** A directory (or one file) of JSONL transcripts of one harness: one unit per file. */
export class JsonlTreeSource implements TraceSource {
  readonly description: string;
  readonly parserVersion: number;

  /**
   * @param only in a folder holding several agents' transcripts, the files this source reads (the others
   *   belong to the sources of their own agents); every transcript-named file when absent.
   */
  constructor(
    readonly kind: JsonlHarness,
    private readonly root: string,
    private readonly only?: ReadonlySet<string>,
  ) {
    this.description = `scanning ${kind} transcripts under ${root}`;
    this.parserVersion = PARSER_VERSIONS[kind];
  }

  async listUnits(limit?: number): Promise<Unit[]> {
    const named = await walkFiles(this.root, (n, dir) => formatOf(this.kind).transcript(n, dir));
    const files = await stampFiles(
      this.only === undefined ? named : named.filter((f) => this.only?.has(f)),
      this.root,
    );
    const kept = limit === undefined ? files : files.slice(0, limit);
    const units = kept.map((f) => ({
      key: f.path,
      signature: f.signature,
      isSubagent: isSubagentId(fileStem(f.path)),
      bytes: f.bytes,
    }));
    // Sub-agent sessions go last: the main conversations are what recall needs first.
    return [...units.filter((u) => !u.isSubagent), ...units.filter((u) => u.isSubagent)];
  }

  async readUnit(unit: Unit): Promise<UnitRead> {
    // Lines read from the file one at a time: no whole-file string (a file past 512 MiB cannot be one).
    const refused: SkipCounts = {};
    const read = PARSERS[this.kind](fileLines(unit.key, this.root), await this.contextOf(unit, refused));
    mergeSkips(read.skipped, refused);
    return read;
  }

  async streamUnit(unit: Unit): Promise<StreamedUnit | null> {
    const stream = STREAMERS[this.kind];
    if (stream === undefined) return null;
    const refused: SkipCounts = {};
    const streamed = stream(fileLines(unit.key, this.root), await this.contextOf(unit, refused));
    if (streamed === null) return null;
    mergeSkips(streamed.read.skipped, refused);
    return streamed;
  }

  /** What the parser needs besides the text; a file beside the transcript that was refused counts in `refused`. */
  private async contextOf(unit: Unit, refused: SkipCounts): Promise<ParseContext> {
    const ctx: ParseContext = { path: unit.key };
    if (this.kind === "claude_code") {
      ctx.readToolResult = toolResultReader(unit.key);
      const parent = unit.isSubagent ? await this.parentUuids(unit.key) : null;
      if (parent !== null) ctx.parentUuids = parent;
    }
    if (this.kind === "gemini") ctx.cwd = geminiProjectRoot(unit.key, refused);
    return ctx;
  }

  /** Parents' record uuids by transcript path, read once per run: a session can have dozens of sub-agents. */
  private readonly parents = new Map<string, ReadonlySet<string> | null>();

  /**
   * The record uuids of the main transcript a sub-agent file at `<session>/subagents/agent-….jsonl` belongs
   * to (`<session>.jsonl` beside the `<session>` folder); null when that file is not there.
   */
  private async parentUuids(subagent: string): Promise<ReadonlySet<string> | null> {
    const folder = dirname(subagent);
    if (basename(folder) !== "subagents") return null;
    const session = dirname(folder);
    const parent = join(dirname(session), `${basename(session)}.jsonl`);
    let uuids = this.parents.get(parent);
    if (uuids === undefined) {
      uuids = null;
      try {
        const found = new Set<string>();
        // Read inside the folder beside the sub-agent's session folder, as the transcripts there are.
        for (const rec of parseJsonl(fileLines(parent, dirname(parent)), {})) {
          const id = rec.value.uuid;
          if (typeof id === "string") found.add(id);
        }
        uuids = found;
      } catch {
        // No parent beside it (a sub-agent folder copied alone): nothing is taken for a copy.
      }
      this.parents.set(parent, uuids);
    }
    return uuids;
  }
}

/**
 * The folder a Gemini CLI session was run in: the `.project_root` file of its project folder
 * (`tmp/<project>/chats/…`, a sub-agent one level deeper); null when none is found. A `.project_root` that
 * is refused (a link, not a regular file, over its cap) or is not one path is counted in `skipped`.
 */
function geminiProjectRoot(transcript: string, skipped: SkipCounts): string | null {
  for (let dir = dirname(dirname(transcript)), i = 0; i < 3; dir = dirname(dir), i++) {
    const r = readAgentSidecar(dir, join(dir, ".project_root"), PROJECT_ROOT_FILE);
    if (r === null) continue;
    if ("refused" in r) {
      countSkip(skipped, r.refused);
      return null;
    }
    const root = r.text.trim();
    if (/[\0\r\n]/.test(root)) {
      countSkip(skipped, SKIP_PROJECT_ROOT_NOT_PATH);
      return null;
    }
    if (root !== "") return root;
  }
  return null;
}

/** Skip reason for a `.project_root` holding more than one line (or a NUL): not a folder's path. */
export const SKIP_PROJECT_ROOT_NOT_PATH = ".project_root not read: more than one path (or a NUL) in it";

/**
 * Reads `<session>/tool-results/<file>` beside a Claude transcript: next to the main transcript, or two
 * levels up from a sub-agent's (`<session>/subagents/agent-….jsonl`). Each is read inside the folder it is
 * looked up from: a file there that is a link, not a regular file, or over its cap is refused, with why.
 */
function toolResultReader(transcript: string): (folder: string, file: string) => PersistedRead {
  const here = dirname(transcript);
  const bases = [here, dirname(dirname(here))];
  return (folder, file) => {
    for (const base of bases) {
      const r = readAgentSidecar(base, join(base, folder, "tool-results", file), TOOL_OUTPUT_FILE);
      if (r !== null) return "refused" in r ? r : r.text;
    }
    return null;
  };
}
