/**
 * What an agent's folder (`agents/<name>/`) gives the registry: a descriptor (its `index.ts`), read on every
 * run, and the module the descriptor loads on first use — its install and removal, its wiring check, its
 * hook log, and, when `funes ask` runs it, its one-shot run. The generic code (`inspect.ts`, `hook-log.ts`,
 * `ask-run.ts`, the commands) goes through these, so an agent's specifics stay in its folder.
 */
import type { Harness } from "../traces/index.js";
import type { InstallOptions, RemoveOptions, SetupReport } from "./setup.js";

/** The environment, as values. */
export type Env = Record<string, string | undefined>;

/** Where an agent's files are: the user's home, and the environment whose variables may move them. */
export interface Where {
  home: string;
  env: Env;
}

/** What funes left in one agent, and whether it would run. */
export interface Wiring {
  /** Whether funes left anything in this agent. */
  installed: boolean;
  /** Problems, each a sentence; empty when the wiring would run. */
  problems: string[];
}

/** What one line of an agent's JSON event stream says. */
export type AskEvent =
  | { kind: "text"; text: string }
  | { kind: "answer"; text: string }
  | { kind: "status"; text: string }
  /** The agent says why it cannot answer (not logged in, a refused request): its own words. */
  | { kind: "failed"; text: string }
  /** The agent could not reach its model and tries again; `network`: the connection itself failed. */
  | { kind: "retry"; text: string; network: boolean }
  | { kind: "none" };

/** One ask run as an agent makes it: its argv, what it adds to the environment, where it runs. */
export interface AskRun {
  args: string[];
  env?: Record<string, string> | undefined;
  /** The folder it runs in, when not the caller's. */
  cwd?: string | undefined;
  /** Undoes what the run leaves behind (a throw-away folder, a session), once it has ended. */
  cleanup?: (() => void) | undefined;
}

/**
 * How `funes ask` runs an agent once: no MCP servers, no hooks of funes at work, no session left behind,
 * no tools (or read-only ones where the agent has no switch for none), and its answer read from a JSON event
 * stream.
 */
export interface AskSpec {
  prepare(o: Where & { prompt: string }): Promise<AskRun>;
  /** What one parsed JSON line of its stream says. */
  parse(e: Record<string, unknown>): AskEvent;
}

/** Asking to let the agent run funes's read-only tools without a prompt each time (`funes add --yes`). */
export interface ToolConsent {
  /** Whether the agent allows them already. */
  allowed(o: Where): boolean;
  /** The question a terminal asks. */
  question: string;
  /** The note when nobody could be asked and `--yes` was not given. */
  unasked: string;
}

/** What the agents layer does with one agent, loaded on first use (`AgentInfo.load`). */
export interface AgentModule {
  install(o: InstallOptions): Promise<SetupReport>;
  remove(o: RemoveOptions): Promise<SetupReport>;
  /** What funes left in it and whether it would run (reads files only; never runs the agent). */
  inspect(o: Where): Wiring;
  /** Where its hook scripts log (`funes-sync.log`). */
  hookLog(o: Where): string;
  /** Its one-shot run, when `funes ask` runs it (`AgentInfo.ask`). */
  ask?: AskSpec | undefined;
  /** Its consent to funes's tools, when it asks before each call otherwise. */
  toolConsent?: ToolConsent | undefined;
  /** What `funes add` tells the user once it is installed. */
  installNotes?: ((o: { memory: string | null; env: Env }) => string[]) | undefined;
}

/** One agent funes integrates with: what every run reads (lists, help), and its module's loader. */
export interface AgentInfo {
  /** Its word on the command line (`funes add <name>`, `--harness <name>`), which is also its CLI's name. */
  name: string;
  /** The trace harness its sessions are stored under (the recall facet; `traces/` parses it). */
  harness: Harness;
  /** Whether `funes ask` can run it (its module then has `ask`). */
  ask: boolean;
  /**
   * Whether `funes add` indexes its sessions first and pushes once: not for pi, whose extension indexes
   * and pushes when a pi session shuts down.
   */
  firstRun: boolean;
  /** Everything else about it, loaded on first use (a heavy library only where its own code needs it). */
  load: () => Promise<AgentModule>;
}
