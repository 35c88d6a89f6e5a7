/**
 * The one exception type funes throws for outcomes a caller does not plan around, and its codes by meaning.
 * It lives here, the lowest layer that throws it (opening a memory); the policy around it — each meaning's
 * next step, the one line a failure prints, the other layers' errors by meaning — is commands/errors.ts.
 */

/** What went wrong, by meaning (never by exit number): for exit codes and tool results. */
export type FunesErrorCode =
  /** Not found: no session on this machine to index. */
  | "no_sessions"
  /** Not found: no memory there (no local index, no such dataset, a dataset without an index). */
  | "no_memory"
  /** No access: no token, or a token that cannot read or write what was asked. */
  | "no_access"
  /** Offline: the Hub (or an agent's model) could not be reached. */
  | "unreachable"
  /** Refused by the Hub: it answered, and said no (403 on create, a quota, a rule). */
  | "hub_refused"
  /** Bad input: an argument, flag or file funes cannot use as given. */
  | "bad_input"
  /** Busy: another funes process holds the memory, or others kept publishing. */
  | "busy"
  /** Declined by the user: a question answered no, or left unanswered off a terminal without --yes. */
  | "declined"
  /** Held back by the gate: the secret gate kept back everything there was to publish. */
  | "held_back"
  /** Corrupt memory: a Hub memory funes will not open (hostile answers or manifests, damaged files, over the download cap). */
  | "refused_memory"
  /** A memory built with another embedding model or schema: readable, but not together with this one. */
  | "incompatible_memory"
  /** A source or agent funes could not read or run (a transcript folder, an agent CLI, its config). */
  | "unreadable_source"
  /** A full disk: no space left (ENOSPC) or the user's quota reached (EDQUOT) where funes was writing. */
  | "disk_full";

/** A failure with a message that says what failed and what to do next. */
export class FunesError extends Error {
  constructor(
    readonly code: FunesErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/**
 * The Hub refused to show `uri` to this token (or to no token): said once, for every command. `need` is what
 * the command was going to do with it.
 */
export function notAuthorizedError(uri: string, need: "read" | "write"): FunesError {
  return new FunesError(
    "no_access",
    `not authorized to read ${uri} — set a Hugging Face token that can ${need === "read" ? "read" : "read and write"} it (HF_TOKEN, or \`hf auth login\`)`,
  );
}

/** The token can read `uri` but the Hub refused a write; `doing` names the write ("publishing"). */
export function readOnlyError(uri: string, doing: string): FunesError {
  return new FunesError(
    "no_access",
    `${uri} is read-only for your token — ${doing} needs write access (set a token that can write it: HF_TOKEN, or \`hf auth login\`)`,
  );
}

/**
 * A memory names a model repo: the same bad input whether it was to be read or written (a memory lives in
 * a dataset repo).
 */
export function modelRepoError(repo: string): FunesError {
  return new FunesError(
    "bad_input",
    `${repo} is a model repo, not a dataset — a funes memory lives in a dataset repo (create one at https://huggingface.co/new-dataset)`,
  );
}

/**
 * The Hub did not answer about `uri` (`reason`: the host and the cause), so `doing` ("push", "forget")
 * cannot start: said once, for every command that writes.
 */
export function hubOfflineError(uri: string, doing: string, reason: string, offlineMode = false): FunesError {
  // Offline mode is the user's own setting: naming the connection would send them the wrong way.
  if (offlineMode)
    return new FunesError(
      "unreachable",
      `${uri} was not asked: HF_HUB_OFFLINE is set (offline mode) — unset HF_HUB_OFFLINE to ${doing}`,
    );
  return new FunesError(
    "unreachable",
    `${uri} is unreachable (${reason}) — can't ${doing} while offline; check your connection, then run it again`,
  );
}
