/**
 * Everything funes reads from its environment, read once here and passed down as values.
 */
import { readFileSync, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { ModelsConfig } from "../commands/index.js";
import { DEFAULT_RERANKER } from "../models/index.js";
import type { AgentDirs } from "../traces/index.js";
import { funesHomeOf, homeOf } from "./home.js";

/**
 * From this many rows a memory's backfill runs in worker processes: from here on its vector index is
 * trained and folded (local/store.ts), the upkeep that holds the most memory.
 */
const DEFAULT_INDEX_WORKER_ROWS = 200_000;

/** The process's view of the world. */
export interface CliConfig {
  /** The user's home (agent session directories live under it). */
  home: string;
  /** `$FUNES_HOME`, else `~/.funes`. */
  funesHome: string;
  /** Agent folders their own variables moved: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `PI_CODING_AGENT_DIR`, `HERMES_HOME`. */
  agentDirs: AgentDirs;
  /** True when stderr is a terminal (progress bars, prompts). */
  stderrTty: boolean;
  stdoutTty: boolean;
  stdinTty: boolean;
  color: boolean;
  /** The terminal's width when stdout is one, else `$COLUMNS` when set. */
  columns: number | null;
  now: () => number;
  models: ModelsConfig;
  /** How agents' hooks and MCP registrations run this funes: `$FUNES_BIN`, else this Node and this script. */
  funesCommand: string[];
  /** The environment agent CLIs run in. */
  env: Record<string, string | undefined>;
  /** The shared model server: `FUNES_SERVER=0` turns it off; `FUNES_SERVER_IDLE` seconds until it exits. */
  server: { enabled: boolean; idleMs: number };
  /** Rows of a memory from which `index` runs its backfill in worker processes (`FUNES_INDEX_WORKER_ROWS`). */
  indexWorkerRows: number;
}

/**
 * How agents should run this funes: `$FUNES_BIN`; else the `funes` on PATH when it is this very install (its
 * path, e.g. npm's global bin link, stays valid when the package is reinstalled or the checkout it links to
 * moves); else this Node and this script.
 */
function funesCommand(env: NodeJS.ProcessEnv): string[] {
  const bin = nonEmpty(env.FUNES_BIN);
  if (bin !== undefined) return [bin];
  const script = process.argv[1];
  if (script === undefined) return ["funes"];
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return [process.execPath, resolve(script)];
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, "funes");
    try {
      if (realpathSync(candidate) === real) return [candidate];
    } catch {
      // not there
    }
  }
  return [process.execPath, real];
}

const nonEmpty = (v: string | undefined): string | undefined =>
  v === undefined || v.trim() === "" ? undefined : v;

/** The Hub token, in the reference's order: env variables, then the token file Python tools write. */
function readToken(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const fromEnv =
    nonEmpty(env.HF_TOKEN) ?? nonEmpty(env.HUGGING_FACE_HUB_TOKEN) ?? nonEmpty(env.HUGGINGFACE_TOKEN);
  if (fromEnv !== undefined) return fromEnv.trim();
  const file =
    nonEmpty(env.HF_HOME) !== undefined
      ? join(env.HF_HOME as string, "token")
      : join(home, ".cache", "huggingface", "token");
  try {
    return nonEmpty(readFileSync(file, "utf8"))?.trim();
  } catch {
    return undefined;
  }
}

/** Model settings from `HF_HUB_CACHE`/`HF_HOME`, `HF_ENDPOINT`, `FUNES_*` variables. */
function readModels(env: NodeJS.ProcessEnv, home: string): ModelsConfig {
  const hubCache =
    nonEmpty(env.HF_HUB_CACHE) ??
    (nonEmpty(env.HF_HOME) !== undefined
      ? join(env.HF_HOME as string, "hub")
      : join(home, ".cache", "huggingface", "hub"));
  const threads = Number(env.FUNES_THREADS ?? 2);
  return {
    hubCache: resolve(hubCache),
    embedDir: nonEmpty(env.FUNES_EMBED_MODEL_DIR),
    rerankDir: nonEmpty(env.FUNES_RERANK_MODEL_DIR),
    reranker: nonEmpty(env.FUNES_RERANKER) ?? DEFAULT_RERANKER,
    threads: Number.isInteger(threads) && threads > 0 ? threads : 2,
    hubUrl: (nonEmpty(env.HF_ENDPOINT) ?? "https://huggingface.co").replace(/\/+$/, ""),
    token: readToken(env, home),
    maxDownloadBytes:
      nonEmpty(env.FUNES_MAX_DOWNLOAD_MB) === undefined
        ? undefined
        : Number(env.FUNES_MAX_DOWNLOAD_MB) * 1048576,
  };
}

/** Agent folders moved by the agents' own variables (a relative one is taken from the current folder). */
function agentDirsOf(env: NodeJS.ProcessEnv): AgentDirs {
  const dir = (name: string) => {
    const v = nonEmpty(env[name]);
    return v === undefined ? undefined : resolve(v);
  };
  return {
    claude: dir("CLAUDE_CONFIG_DIR"),
    codex: dir("CODEX_HOME"),
    pi: dir("PI_CODING_AGENT_DIR"),
    hermes: dir("HERMES_HOME"),
  };
}

/** Reads the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const home = homeOf(env);
  const funesHome = funesHomeOf(env);
  return {
    home,
    funesHome,
    agentDirs: agentDirsOf(env),
    stderrTty: process.stderr.isTTY === true,
    stdoutTty: process.stdout.isTTY === true,
    stdinTty: process.stdin.isTTY === true,
    // no-color.org: any non-empty NO_COLOR turns colour off.
    color: nonEmpty(env.NO_COLOR) === undefined && process.stdout.isTTY === true,
    columns:
      process.stdout.isTTY === true && process.stdout.columns > 0
        ? process.stdout.columns
        : Number.isInteger(Number(env.COLUMNS)) && Number(env.COLUMNS) > 0
          ? Number(env.COLUMNS)
          : null,
    now: () => Date.now(),
    models: readModels(env, home),
    funesCommand: funesCommand(env),
    env: { ...env },
    server: {
      enabled: env.FUNES_SERVER !== "0",
      idleMs: (Number(env.FUNES_SERVER_IDLE) > 0 ? Number(env.FUNES_SERVER_IDLE) : 600) * 1000,
    },
    indexWorkerRows:
      nonEmpty(env.FUNES_INDEX_WORKER_ROWS) !== undefined && Number(env.FUNES_INDEX_WORKER_ROWS) >= 0
        ? Number(env.FUNES_INDEX_WORKER_ROWS)
        : DEFAULT_INDEX_WORKER_ROWS,
  };
}
