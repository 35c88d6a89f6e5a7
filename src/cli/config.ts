/**
 * Everything funes reads from its environment, read once here and passed down as values.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { ModelsConfig } from "../commands/index.js";
import { DEFAULT_RERANKER, type EmbedPrecision, type SocketPlaces } from "../models/index.js";
import type { AgentEnv } from "../traces/index.js";
import { funesHomeOf, homeOf } from "./home.js";
import { UsageError } from "./usage-error.js";

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
  /** Where the agents' folder variables are read (each trace format's variable, traces/formats.ts). */
  agentEnv: AgentEnv;
  /** True when stderr is a terminal (progress bars, prompts). */
  stderrTty: boolean;
  stdoutTty: boolean;
  stdinTty: boolean;
  color: boolean;
  /** The terminal's width when stdout is one, else `$COLUMNS` when set. */
  columns: number | null;
  /** The terminal's height when stdout is one (and reports it), else `$LINES` when set. */
  rows: number | null;
  /** `--quiet`: nothing on stdout, no progress or questions (cli/app.ts sets it after parsing). */
  quiet: boolean;
  now: () => number;
  models: ModelsConfig;
  /** How agents' hooks and MCP registrations run this funes: `$FUNES_BIN`, else this Node and this script. */
  funesCommand: string[];
  /** This funes's own script (argv[1]), which its workers and its model server run; undefined in a REPL. */
  script: string | undefined;
  /** The environment agent CLIs run in. */
  env: Record<string, string | undefined>;
  /**
   * The shared model server: `FUNES_SERVER=0` turns it off; `FUNES_SERVER_IDLE` seconds until it exits;
   * where its socket may go when `$FUNES_HOME/run` is too long a path (`XDG_RUNTIME_DIR`, `TMPDIR`).
   */
  server: { enabled: boolean; idleMs: number; places: SocketPlaces };
  /** Rows of a memory from which `index` runs its backfill in worker processes (`FUNES_INDEX_WORKER_ROWS`). */
  indexWorkerRows: number;
  /**
   * Files under a Hub memory's folder past which a push compacts it (`FUNES_COMPACT_FILES`; 0: never;
   * unset: the push's default).
   */
  compactAtFiles: number | undefined;
}

/**
 * How agents should run this funes: `$FUNES_BIN`; else the `funes` on PATH when it is this very install (its
 * path, e.g. npm's global bin link, stays valid when the package is reinstalled or the checkout it links to
 * moves); else this Node and this script.
 */
function funesCommand(env: NodeJS.ProcessEnv, script: string | undefined): string[] {
  const bin = nonEmpty(env.FUNES_BIN);
  if (bin !== undefined) return [bin];
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

/**
 * A numeric variable as set, `fallback` when unset or blank; any other value is refused (a typo must not
 * quietly become the default: `FUNES_MAX_DOWNLOAD_MB=-1` is not "no cap").
 */
function envNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  o: { min: number; integer: boolean; fallback: number; example: string; above?: boolean },
): number {
  const raw = nonEmpty(env[name])?.trim();
  if (raw === undefined) return o.fallback;
  const n = Number(raw);
  const shape = o.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!shape.test(raw) || !Number.isFinite(n) || n < o.min || (o.above === true && n === o.min))
    throw new UsageError(
      `${name}="${raw}" is not ${o.integer ? "a whole number" : "a number"} ${o.above === true ? ">" : "≥"} ${o.min} — set e.g. ${name}=${o.example}, or unset it for the default`,
    );
  return n;
}

/** `HF_ENDPOINT` without trailing slashes, refused unless it is an http(s) URL. */
function hubEndpoint(env: NodeJS.ProcessEnv): string {
  const raw = nonEmpty(env.HF_ENDPOINT)?.trim();
  if (raw === undefined) return "https://huggingface.co";
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(raw).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new UsageError(
      `HF_ENDPOINT="${raw}" is not an http(s) address — set e.g. HF_ENDPOINT=https://huggingface.co, or unset it`,
    );
  return raw.replace(/\/+$/, "");
}

/** `FUNES_SERVER`: on unless 0 (or false/off/no); any other word is refused. */
function serverEnabled(env: NodeJS.ProcessEnv): boolean {
  const raw = nonEmpty(env.FUNES_SERVER)?.trim().toLowerCase();
  if (raw === undefined || ["1", "true", "on", "yes"].includes(raw)) return true;
  if (["0", "false", "off", "no"].includes(raw)) return false;
  throw new UsageError(
    `FUNES_SERVER="${env.FUNES_SERVER}" is not 0 or 1 — set FUNES_SERVER=0 to keep models in each process, or unset it`,
  );
}

/** `FUNES_EMBED_PRECISION`: fp32 (the default) or int8; any other word is refused. */
function embedPrecision(env: NodeJS.ProcessEnv): EmbedPrecision {
  const raw = nonEmpty(env.FUNES_EMBED_PRECISION)?.trim().toLowerCase();
  if (raw === undefined || raw === "fp32") return "fp32";
  if (raw === "int8") return "int8";
  throw new UsageError(
    `FUNES_EMBED_PRECISION="${env.FUNES_EMBED_PRECISION}" is not fp32 or int8 — set FUNES_EMBED_PRECISION=int8 for the faster embedder, or unset it for fp32`,
  );
}

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
  const maxMb = envNumber(env, "FUNES_MAX_DOWNLOAD_MB", {
    min: 0,
    above: true,
    integer: false,
    fallback: 0,
    example: "8192",
  });
  return {
    hubCache: resolve(hubCache),
    embedDir: nonEmpty(env.FUNES_EMBED_MODEL_DIR),
    rerankDir: nonEmpty(env.FUNES_RERANK_MODEL_DIR),
    reranker: nonEmpty(env.FUNES_RERANKER) ?? DEFAULT_RERANKER,
    threads: envNumber(env, "FUNES_THREADS", { min: 1, integer: true, fallback: 2, example: "2" }),
    embedPrecision: embedPrecision(env),
    hubUrl: hubEndpoint(env),
    token: readToken(env, home),
    maxDownloadBytes: maxMb === 0 ? undefined : maxMb * 1048576,
  };
}

/** A terminal dimension: as stdout reports it when it is a terminal, else its variable when set, else null. */
function terminalSize(reported: number | undefined, variable: string | undefined): number | null {
  if (process.stdout.isTTY === true && reported !== undefined && reported > 0) return reported;
  const n = Number(variable);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** Reads the environment; `script` is the funes being run (`process.argv[1]`). */
export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  script: string | undefined = process.argv[1],
): CliConfig {
  const home = homeOf(env);
  const funesHome = funesHomeOf(env);
  if (existsSync(funesHome) && !statSync(funesHome).isDirectory())
    throw new UsageError(
      `FUNES_HOME="${funesHome}" is a file, not a folder — point FUNES_HOME at a folder, or unset it for ~/.funes`,
    );
  return {
    home,
    funesHome,
    // Agent folders moved by the agents' own variables (a relative one is taken from the current folder).
    agentEnv: { vars: env, cwd: process.cwd() },
    stderrTty: process.stderr.isTTY === true,
    stdoutTty: process.stdout.isTTY === true,
    stdinTty: process.stdin.isTTY === true,
    // no-color.org: any non-empty NO_COLOR turns colour off.
    color: nonEmpty(env.NO_COLOR) === undefined && process.stdout.isTTY === true,
    columns: terminalSize(process.stdout.columns, env.COLUMNS),
    rows: terminalSize(process.stdout.rows, env.LINES),
    quiet: false,
    now: () => Date.now(),
    models: readModels(env, home),
    funesCommand: funesCommand(env, script),
    script,
    env: { ...env },
    server: {
      enabled: serverEnabled(env),
      idleMs:
        envNumber(env, "FUNES_SERVER_IDLE", {
          min: 0,
          above: true,
          integer: false,
          fallback: 600,
          example: "600",
        }) * 1000,
      places: { runtimeDir: nonEmpty(env.XDG_RUNTIME_DIR), tmpDir: nonEmpty(env.TMPDIR) ?? tmpdir() },
    },
    indexWorkerRows: envNumber(env, "FUNES_INDEX_WORKER_ROWS", {
      min: 0,
      integer: true,
      fallback: DEFAULT_INDEX_WORKER_ROWS,
      example: "200000",
    }),
    compactAtFiles:
      nonEmpty(env.FUNES_COMPACT_FILES) === undefined
        ? undefined
        : envNumber(env, "FUNES_COMPACT_FILES", { min: 0, integer: true, fallback: 0, example: "1000" }),
  };
}
