/**
 * The error policy, in one place: each meaning's next step, the sentences the catalogue builds, and
 * {@link describeFailure}, which turns any thrown value into one line for a person or an agent. The
 * exception type and its codes (`FunesError`, by meaning) live in memory/errors.ts, the lowest layer that
 * throws them; `code` lets the CLI pick an exit code (cli/error-policy.ts) and the MCP server a tool error
 * without reading messages.
 *
 * Written style (ARCHITECTURE.md, "Errors"; errors.test.ts checks every message thrown in src/): one line,
 * lowercase, no closing period; what failed, then " — " and what to do next (bad input may instead say what
 * is accepted: "takes human or agent, not …"); no stack trace unless FUNES_DEBUG=1. The codes keep their
 * names from before the policy where the name already said the meaning (`no_memory` is "not found",
 * `unreachable` is "offline", `refused_memory` is "corrupt memory"), so that code written against them
 * keeps compiling.
 */
import { DownloadCapError, IntegrityError, UnsafeMemoryError } from "../cache/index.js";
import { diskFullOf, IncompatibleMemoryError } from "../local/index.js";
import { FunesError, type FunesErrorCode, WriterBusyError } from "../memory/index.js";
import { UnknownRerankerError } from "../models/index.js";
import { HubUriError, hubFailure, UnsafeHubAnswerError } from "../remote/index.js";

export {
  FunesError,
  type FunesErrorCode,
  hubOfflineError,
  notAuthorizedError,
  readOnlyError,
} from "../memory/index.js";

/**
 * Each meaning's next step: the sentence said after a failure whose own message has none (an error from
 * the Hub or the network that no command planned around).
 */
export const NEXT_STEP: Record<FunesErrorCode, string> = {
  no_sessions: "check the path, or run `funes index` where an agent has written sessions",
  no_memory: "check the name, or run `funes index` (or `funes push`) to build it",
  no_access:
    "set a Hugging Face token that can read (or, to publish, write) this dataset: HF_TOKEN, or `hf auth login`",
  unreachable: "check your connection (and HF_ENDPOINT, proxy settings), then run it again",
  hub_refused:
    "check that your token has rights to that namespace, or do it on huggingface.co yourself, then run it again",
  bad_input: "see `funes --help` for what each command takes",
  busy: "run it again in a moment",
  declined: "nothing was changed; run it again and answer yes, or pass --yes",
  held_back: "run `funes scrub` to redact what the gate found, then run it again",
  refused_memory:
    "check that the dataset is a funes memory (a `chunks.lance` folder), or run `funes cache prune`",
  incompatible_memory: "read it on its own, or rebuild it with this funes",
  unreadable_source: "fix what the message names (a path, an agent's CLI or config), then run it again",
  disk_full: "free space and run it again",
};

/** What {@link BadArgumentError} is built from. */
export interface BadArgument {
  /** The MCP tools' name for the argument (`since`, `block_type`, `harness`, `query`). */
  arg: string;
  /** How the CLI spells it (`--since`, `--type`). */
  flag: string;
  /** The value as given. */
  value: string;
  /** What is wrong with it, after the quoted value ("is not a date…"). */
  problem: string;
  /** The CLI's message when `flag "value" problem` does not read well (a positional argument). */
  message?: string;
}

/**
 * A bad value for one named argument. The message names the CLI flag (`--since`); `arg` is the argument's
 * own name elsewhere (the MCP tools' `since`, `block_type`), so each front end names what its user typed.
 */
export class BadArgumentError extends FunesError {
  readonly arg: string;
  readonly value: string;
  private readonly problem: string;

  constructor(bad: BadArgument) {
    super("bad_input", bad.message ?? `${bad.flag} "${bad.value}" ${bad.problem}`);
    this.arg = bad.arg;
    this.value = bad.value;
    this.problem = bad.problem;
  }

  /** The message naming the argument by its own name (`arg`) instead of the CLI flag. */
  messageForArg(): string {
    return `${this.arg} "${this.value}" ${this.problem}`;
  }
}

/** A failure as one line, for the CLI's stderr and an MCP tool result. */
export interface FailureLine {
  /** The meaning, or "unexpected" for a bug or a failure funes has no words for. */
  code: FunesErrorCode | "unexpected";
  /** What failed and what to do next; no stack. */
  message: string;
}

/**
 * The meaning of an error a lower layer throws with a message already fit to show (it says what failed and
 * why), when no command caught it: a Hub memory funes refuses (a hostile answer or manifest, a file that
 * does not match its hash, over the download cap), a memory of another model, the writer lock held, a bad
 * Hub URI. Null for anything else.
 */
export function meaningOf(err: unknown): FunesErrorCode | null {
  if (
    err instanceof UnsafeHubAnswerError ||
    err instanceof UnsafeMemoryError ||
    err instanceof IntegrityError ||
    err instanceof DownloadCapError
  )
    return "refused_memory";
  if (err instanceof IncompatibleMemoryError) return "incompatible_memory";
  if (err instanceof WriterBusyError) return "busy";
  if (err instanceof HubUriError || err instanceof UnknownRerankerError) return "bad_input";
  return null;
}

/** Hub meanings to our codes. */
const HUB_CODE = {
  offline: "unreachable",
  no_access: "no_access",
  hub_refused: "hub_refused",
  not_found: "no_memory",
} as const satisfies Record<string, FunesErrorCode>;

/**
 * Any thrown value as one line by meaning: a {@link FunesError} says its own message; a Hub answer or
 * network failure no command caught gets the Hub's words and its meaning's next step; anything else is
 * "unexpected", with its message and how to see more. `hubUrl` names the host when the error does not.
 */
export function describeFailure(err: unknown, hubUrl?: string, home?: string): FailureLine {
  const line = failureLine(err, hubUrl, home);
  return { code: line.code, message: withoutSourcePaths(line.message) };
}

/**
 * `s` without the source locations native libraries put in their messages (Lance's
 * `…/.cargo/registry/src/…/lance-8.0.0/src/dataset.rs:123:45`, `/rustc/<hash>/library/…rs:1:2`): they
 * say nothing to a user and name the build machine's folders.
 */
export function withoutSourcePaths(s: string): string {
  return s.replace(/[,;:]?\s*[^\s,;()'"]*\.rs:\d+(?::\d+)?/g, "");
}

/**
 * A full disk as one line: `path` is the folder written to (or funes's home); null when neither is known.
 */
export function diskFullError(path: string | null): FunesError {
  const where = path === null ? "" : ` holding ${JSON.stringify(path)}`;
  return new FunesError("disk_full", `the disk${where} is full — free space and run it again`);
}

/** The folder of a file funes was writing (Lance's temp and data files say little), or the folder itself. */
function folderOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return /^[^.].*\.[A-Za-z0-9]+$/.test(path.slice(cut + 1)) && cut > 0 ? path.slice(0, cut) : path;
}

function failureLine(err: unknown, hubUrl?: string, home?: string): FailureLine {
  // A full disk first, whatever wrapped it: its own meaning, never "unexpected" nor an embedder's fault.
  const full = err instanceof FunesError && err.code === "disk_full" ? null : diskFullOf(err);
  if (full !== null) return diskFullError(full.path === null ? (home ?? null) : folderOf(full.path));
  if (err instanceof FunesError) return { code: err.code, message: err.message };
  const known = meaningOf(err);
  if (known !== null && err instanceof Error) return { code: known, message: err.message };
  const hub = hubFailure(err, hubUrl);
  if (hub !== null) {
    const code = HUB_CODE[hub.kind];
    return { code, message: `the Hub request failed (${hub.detail}) — ${NEXT_STEP[code]}` };
  }
  const what =
    err instanceof Error ? `${err.name === "Error" ? "" : `${err.name}: `}${err.message}` : String(err);
  return {
    code: "unexpected",
    message: `unexpected error: ${firstLine(what)} — run it again with FUNES_DEBUG=1 to see where, and report it if it keeps happening`,
  };
}

/** The first line of `s`, so a multi-line message from a library stays one line. */
function firstLine(s: string): string {
  const line = s.split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
