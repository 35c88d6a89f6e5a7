/**
 * The funes command line: argv to commands, errors to exit codes. The only place that exits.
 */
import { readFileSync } from "node:fs";
import { cac } from "cac";
import { AGENT_NAMES, ASK_AGENTS, orList } from "../agents/index.js";
import { applyNetworkEnv, networkEnv } from "../remote/index.js";
import { completionScript, SHELLS, type Shell } from "./completion.js";
import { readConfig } from "./config.js";
import { cacErrorMessage, flagsOf, reshapeHelp, unknownCommandMessage, unknownWordMessage } from "./help.js";
import { settleOptionValues } from "./option-values.js";
import { topLevelArgs } from "./pasted-get.js";
import { beQuiet } from "./quiet-mode.js";
import { UsageError } from "./usage-error.js";

/**
 * Each command's module is imported when that command runs: a `funes recall` from a shell loads Lance and
 * the recall path, not the Hub client, the MCP SDK or the agent wiring.
 */
/** A command's runner, imported when the command runs. */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return (async (...args: unknown[]) =>
    ((await load())[name] as (...a: unknown[]) => unknown)(...args)) as M[K];
}
const runAdd = lazy(() => import("./run-agents.js"), "runAdd");
const runRemove = lazy(() => import("./run-agents.js"), "runRemove");
const runAsk = lazy(() => import("./run-ask.js"), "runAsk");
const runCache = lazy(() => import("./run-cache.js"), "runCache");
const runCompact = lazy(() => import("./run-compact.js"), "runCompact");
const runCurate = lazy(() => import("./run-curate.js"), "runCurate");
const runDoctorCommand = lazy(() => import("./run-doctor.js"), "runDoctorCommand");
const runForget = lazy(() => import("./run-forget.js"), "runForget");
const runGet = lazy(() => import("./run-get.js"), "runGet");
const runIndex = lazy(() => import("./run-index.js"), "runIndex");
const runMcp = lazy(() => import("./run-mcp.js"), "runMcp");
const runModels = lazy(() => import("./run-models.js"), "runModels");
const runPush = lazy(() => import("./run-push.js"), "runPush");
const runRecall = lazy(() => import("./run-recall.js"), "runRecall");
const runScan = lazy(() => import("./run-scan.js"), "runScan");
const runScrub = lazy(() => import("./run-scrub.js"), "runScrub");
const runServer = lazy(() => import("./run-server.js"), "runServer");
const runSessions = lazy(() => import("./run-sessions.js"), "runSessions");
const runStatus = lazy(() => import("./run-status.js"), "runStatus");

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/** The agents `add`, `remove` and `--harness` take (agents/registry.ts), and those `ask` runs, for help. */
const AGENT_LIST = orList(AGENT_NAMES);
const ASK_LIST = orList(ASK_AGENTS);

/** The actions of commands that take one, for their --help and shell completion. */
const ACTIONS: Record<string, [string, string][]> = {
  models: [
    ["status", "Show the embedder and reranker, and whether each is present (default)"],
    ["pull", "Download the missing ones into the Hugging Face cache"],
  ],
  cache: [
    ["status", "List the Hub memories read on this machine and their size (default)"],
    ["prune", "Remove the older copies, keeping each memory's newest"],
  ],
  server: [
    ["status", "Whether it runs, its models and requests (default)"],
    ["start", "Start it in the background (recall starts it when needed)"],
    ["stop", "Stop it (it also stops when idle, or once funes is uninstalled)"],
    ["run", "Run it in the foreground (what start runs)"],
  ],
};

/** `funes completion <shell>`. */
function runCompletion(shell: unknown, cli: ReturnType<typeof cac>): void {
  const name = String(shell ?? "");
  if (!(SHELLS as readonly string[]).includes(name))
    throw new UsageError(
      `completion takes ${SHELLS.join(", ")}${shell === undefined ? "" : `, not "${name}"`} — e.g. eval "$(funes completion bash)"`,
    );
  const words: Record<string, string[]> = {
    add: [...AGENT_NAMES],
    remove: [...AGENT_NAMES],
    ask: [...ASK_AGENTS],
    completion: [...SHELLS],
    models: (ACTIONS.models ?? []).map(([a]) => a),
    cache: (ACTIONS.cache ?? []).map(([a]) => a),
    server: (ACTIONS.server ?? []).map(([a]) => a),
  };
  process.stdout.write(
    completionScript(
      name as Shell,
      cli.commands.map((c) => ({
        name: c.name,
        description: c.description,
        flags: flagsOf(cli, c).filter((f) => f !== "--help" && f !== "-h"),
        words: words[c.name] ?? [],
      })),
    ),
  );
}

/** The words a command takes in its first place: an action, an agent, a shell. */
const FIRST_WORDS: Record<string, { what: string; known: readonly string[] }> = {
  models: { what: "an action:", known: ["status", "pull"] },
  cache: { what: "an action:", known: ["status", "prune"] },
  server: { what: "an action:", known: (ACTIONS.server ?? []).map(([a]) => a) },
  add: { what: "an agent:", known: AGENT_NAMES },
  remove: { what: "an agent:", known: AGENT_NAMES },
  ask: { what: "an agent:", known: ASK_AGENTS },
  completion: { what: "a shell:", known: SHELLS },
};

/** Refuses a mistyped action, agent or shell before the command loads, suggesting the closest one. */
function checkFirstWord(cli: ReturnType<typeof cac>): void {
  const name = cli.matchedCommand?.name ?? "";
  const words = FIRST_WORDS[name];
  const typed = cli.args[0];
  if (words === undefined || typeof typed !== "string") return;
  const message = unknownWordMessage({ command: name, what: words.what, typed, known: words.known });
  if (message !== null) throw new UsageError(message);
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const cfg = readConfig(env, argv[1]);
  // Before any request: HF_HUB_OFFLINE and HTTPS_PROXY/HTTP_PROXY/NO_PROXY for every connection.
  await applyNetworkEnv(networkEnv(cfg.env));
  // `funes help recall` is `funes recall --help`; a pasted `→ get <session> <turn>` line is read as typed.
  const args = topLevelArgs(argv.slice(2));
  argv = [...argv.slice(0, 2), ...args];
  if (args.length === 1 && ["--version", "-v", "-V"].includes(args[0] ?? "")) {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const cli = cac("funes");
  cli
    .command(
      "index [path]",
      "Index agent transcripts into the local memory (text first: keyword-searchable at once)",
    )
    .option("--harness <agent>", `Only this agent: ${AGENT_LIST} (with a path: its format)`)
    .option("--limit <n>", "Only the newest N sessions of each source")
    .option("--no-thinking", "Leave out thinking blocks")
    .option("--yes", "Never ask; embed every waiting row (default: about a minute of embedding per run)")
    .option("--json", "Print the summary as JSON (every count)")
    .option("--force", "Re-read every session even if unchanged (stored chunks are kept, never duplicated)")
    .option("--verbose", "List every skip reason in the summary")
    .example("funes index")
    .example("funes index ~/.claude/projects --limit 20")
    .example("funes index --force ~/.hermes/hermes-backup.db --harness hermes")
    .example("funes index traces/0000.parquet")
    .example("funes index acme/agent-traces")
    .action((path, flags) => runIndex(path, flags, cfg));
  cli
    .command("status", "Show what the memory holds")
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default)",
    )
    .option(
      "--fallback-local",
      "If the Hub memory can't be read and isn't cached, read the local memory instead",
    )
    .option("--json", "Print as JSON")
    .example("funes status")
    .action((flags) => runStatus(flags, cfg));
  cli
    .command("recall [...query]", "Find past passages: hybrid search, bounded rerank, recency")
    .option("-k, --k, --limit <n>", "Number of results (default 8)")
    .option("--candidates <n>", "Candidates from each of vector and keyword search (default 30)")
    .option("--type <block_type>", "Only text, thinking, tool_use or tool_result")
    .option("--harness <agent>", `Only ${AGENT_LIST}`)
    .option("--since <when>", "Only turns at or after a date, timestamp or span back (7d, 12h, 2w)")
    .option("--until <when>", "Only turns at or before a date, timestamp or span back")
    .option("--half-life <days>", "Recency half-life in days (default 30; 0 turns recency off)")
    .option("--neighbors <n>", "Neighbouring turns to show (default 1; 0 for none)")
    .option("--rerank-budget <ms>", "Time for the cross-encoder (default 500; 0 turns rerank off)")
    .option("--reranker <name>", "ms-marco-MiniLM-L-6-v2 (default) or bge-reranker-base")
    .option("--echoes", "Also show funes's own outputs read back (earlier recalls quoting a passage)")
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default); repeat or comma-separate to search several",
    )
    .option(
      "--fallback-local",
      "If the Hub memory can't be read and isn't cached, read the local memory instead",
    )
    .option("--format <f>", "human or agent (default: human on a terminal, else agent)")
    .option("--full", "Human view: every passage whole, with its neighbouring turns (through $PAGER)")
    .option("--json", "Print hits as JSON")
    .example('funes recall "why did the lance fts build hang"')
    .example("funes recall deadlock --type tool_result --since 7d")
    .example('funes recall "release checklist" --memory local --memory acme/team-memory')
    .action((query, flags) => runRecall(query, flags, cfg, args));
  cli
    .command(
      "models [action]",
      "Show the embedder and reranker in use (status), or download missing ones (pull)",
    )
    .option("--reranker <name>", "ms-marco-MiniLM-L-6-v2 (default) or bge-reranker-base")
    .option("--json", "Print as JSON")
    .example("funes models")
    .example("funes models pull")
    .action((action, flags) => runModels(action, flags, cfg));
  cli
    .command("push <memory>", "Publish the local memory's embedded chunks to a Hugging Face dataset")
    .option("--create", "Create the dataset (private) if it does not exist")
    .option("--yes", "Publish even to a remote that shares no chunk with this memory")
    .option("--sessions <id>", "Publish only these sessions (repeat, or comma-separate)")
    .option("--dry-run", "Say what would be published and held back; change nothing (one head request)")
    .option(
      "--hook",
      "As an agent's hook at a session boundary: index that agent's new turns (--harness) and embed waiting rows first; exit 75 when more remains",
    )
    .option("--harness <agent>", `With --hook: the agent whose session ended (${AGENT_LIST})`)
    .option("--json", "Print the summary as JSON")
    .example("funes push acme/funes-memory --create")
    .example("funes push acme/funes-memory --dry-run")
    .action((memory, flags) => runPush(memory, flags, cfg));
  cli
    .command(
      "compact <memory>",
      "Fold a Hub memory's small files into few and drop what its newest version no longer needs (one commit)",
    )
    .option("--dry-run", "Fold in a staged copy and say what would change; commit nothing")
    .option("--json", "Print the summary as JSON")
    .example("funes compact acme/team-memory")
    .example("funes compact acme/team-memory --dry-run")
    .action((memory, flags) => runCompact(memory, flags, cfg));
  cli
    .command(
      "add <agent> [memory]",
      `Set funes up in ${AGENT_LIST}: recall tools, per-turn indexing, publishing`,
    )
    .option(
      "--yes",
      "Never ask: index first, install, push once, download the models (a missing memory still needs --create)",
    )
    .option("--create", "Create the Hub memory (a private dataset) if it does not exist")
    .option("--json", "Print what was done as JSON")
    .example("funes add claude")
    .example("funes add codex acme/funes-memory --create")
    .action((agent, memory, flags) => runAdd(agent, memory, flags, cfg));
  cli
    .command(
      "remove [agent]",
      "Take funes out of an agent (or every agent, --all): its hooks, recall registration and files",
    )
    .option("--all", "Take funes out of every agent it is set up in")
    .example("funes remove codex")
    .example("funes remove --all")
    .action((agent, flags) => runRemove(agent, flags, cfg));
  cli
    .command(
      "ask <agent> [...question]",
      `Have ${ASK_LIST} answer from your recalled passages only (no tools)`,
    )
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default); repeat or comma-separate to search several",
    )
    .option("--timeout <seconds>", "Stop the agent after this long (default 300)")
    .example('funes ask claude "why did we switch the FTS index to withPosition false?"')
    .example('funes ask codex "how do we publish a release?" --memory acme/funes-memory')
    .action((agent, question, flags) => runAsk(agent, question, flags, cfg));
  cli
    .command(
      "curate <memory> [project]",
      "Make a Hub memory the project memory of owner/name and choose which sessions it publishes",
    )
    .option("--include <session>", "Publish this session (repeat, or comma-separate)")
    .option("--exclude <session>", "Never publish this session (repeat, or comma-separate)")
    .option("--create", "Create the dataset (private) if it does not exist")
    .option("--yes", "Name a personal memory that already holds chunks (they are uploaded again)")
    .option("--json", "Print the result as JSON")
    .example("funes curate acme/app-memory acme/app --create")
    .example("funes curate acme/app-memory --include 019ef2fb-6574-7f83-bd99-9118713271f2")
    .action((memory, project, flags) => runCurate(memory, project, flags, cfg));
  cli
    .command("scrub", "Redact secrets found in the local memory in place (or drop their blocks), one commit")
    .option("--json", "Print the summary as JSON")
    .example("funes scrub")
    .action((flags) => runScrub(flags, cfg));
  cli
    .command("forget [...turn]", "Take chunks back out of the local memory or a Hub memory (preview first)")
    .option("--session <id>", "Forget these sessions (repeat, or comma-separate)")
    .option("--turn <session>", "Forget one turn: --turn <session_id> <turn_uuid> (repeat for more)")
    .option("--match <text>", "Forget chunks containing this text (repeat for more)")
    .option("--regex", "Read --match values as regular expressions")
    .option("--since <when>", "Only chunks at or after a date, timestamp or span back (7d, 12h, 2w)")
    .option("--until <when>", "Only chunks at or before a date, timestamp or span back")
    .option(
      "--memory <spec>",
      "org/repo or hf://datasets/org/repo[/path] to forget on the Hub (default: local)",
    )
    .option("--purge-history", "Hub: also rewrite the files that held them and squash the repo's history")
    .option("--allow-reindex", "Local: let `funes index` bring them (and earlier forgotten turns) back")
    .option(
      "--with-mentions",
      "Also take the mentions the preview lists: chunks carrying what is forgotten with no recall tying them to it",
    )
    .option("--yes", "Forget without asking (required off a terminal)")
    .option("--json", "Print the preview and result as JSON")
    .example('funes forget --match "sk-live-1234" --yes')
    .example("funes forget --session 019ef2fb-6574-7f83-bd99-9118713271f2 --memory acme/team-memory")
    .example('funes forget --match "ghp_" --memory acme/team-memory --purge-history')
    .action((turn, flags) => runForget(turn, flags, args, cfg));
  cli
    .command(
      "get <session_id> [turn_uuid]",
      "Read a turn and the turns around it, or a stretch of a session by position (--from/--to); ids may be shortened to an unambiguous start",
    )
    .option("--window <n>", "Turns either side of the turn id (default 3)")
    .option("--from <seq>", "Without a turn id: read from this position (20 turns when alone)")
    .option("--to <seq>", "Without a turn id: read up to this position, included (20 turns when alone)")
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default); several: the first that holds the session",
    )
    .option(
      "--fallback-local",
      "If the Hub memory can't be read and isn't cached, read the local memory instead",
    )
    .option("--format <f>", "human or agent (default: human on a terminal, else agent)")
    .option("--highlight <text>", "Mark this text in the human view")
    .option("--json", "Print the turns as JSON")
    .example("funes get 7028acdd-e85a-4fa0-88a5-71f4103333a0 765a0228 --window 1")
    .example("funes get 7028acdd 765a0228")
    .example("funes get 7028acdd --from 40 --to 60")
    .action((sid, tid, flags) => runGet(sid, tid, flags, cfg));
  cli
    .command(
      "scan <needle> <session_id>",
      "Find an exact text in one session's turns, in order (not ranked, not split into words); when it is not there, say so with the turns read",
    )
    .option("-i, --ignore-case", "Match any case")
    .option("--context <n>", "Turns to show before and after each matching turn (default 0, at most 50)")
    .option("--from <seq>", "Scan from this position (a turn's seq)")
    .option("--to <seq>", "Scan up to this position, included")
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default); several: the first that holds the session",
    )
    .option(
      "--fallback-local",
      "If the Hub memory can't be read and isn't cached, read the local memory instead",
    )
    .option("--format <f>", "human or agent (default: human on a terminal, else agent)")
    .option("--json", "Print the matches as JSON")
    .example('funes scan "ENOSPC" 7028acdd')
    .example('funes scan "todo(" 7028acdd -i --context 1')
    .example('funes scan "rate limit" 7028acdd --from 100 --to 250 --memory acme/team')
    .action((needle, sid, flags) => runScan(needle, sid, flags, cfg));
  cli
    .command(
      "sessions",
      "List the sessions a memory holds, newest first: when, agent, repo, turns, id, opening prompt",
    )
    .option("--repo <owner/name>", "Only sessions whose checkout resolved to this repo")
    .option(
      "--since <when>",
      "Only sessions started at or after a date, timestamp or span back (7d, 12h, 2w)",
    )
    .option("--until <when>", "Only sessions started at or before a date, timestamp or span back")
    .option("--limit <n>", "Sessions to list (default 50, at most 200)")
    .option("--offset <n>", "Skip this many of the newest matches, to walk back in time")
    .option(
      "--memory <spec>",
      "org/repo, hf://datasets/org/repo[/path], a memory directory, or local (default); repeat or comma-separate to list several",
    )
    .option(
      "--fallback-local",
      "If the Hub memory can't be read and isn't cached, read the local memory instead",
    )
    .option("--format <f>", "human or agent (default: human on a terminal, else agent)")
    .option("--json", "Print the sessions as JSON")
    .example("funes sessions")
    .example("funes sessions --repo huggingface/funes --since 2026-08-01")
    .example("funes sessions --since 7d --limit 20 --offset 20 --memory acme/team-memory")
    .action((flags) => runSessions(flags, cfg));
  cli
    .command("mcp [memory]", "Serve recall, get, sessions, scan and status to an agent over MCP (stdio)")
    .example("funes mcp")
    .example("funes mcp ~/team-memory")
    .action((memory) => runMcp(memory, cfg, pkg.version));
  cli
    .command(
      "cache [action]",
      "Show the Hub memories read on this machine (status), or remove their older copies (prune)",
    )
    .option("--json", "Print as JSON")
    .option("--verify", "Re-check every cached file against the hash recorded when it was fetched")
    .example("funes cache")
    .example("funes cache --verify")
    .example("funes cache prune")
    .action((action, flags) => runCache(action, flags, cfg));
  cli
    .command(
      "server [action]",
      "The shared model server that keeps the embedder and reranker warm for CLI recalls and agents' MCP servers: status (default), start, stop",
    )
    .option("--json", "Print as JSON")
    .example("funes server")
    .example("funes server stop")
    .action((action, flags) => runServer(action, flags, cfg));
  cli
    .command(
      "doctor",
      "Check Node, the models, the Hub and token, each agent's wiring, the memory and the cache; say how to fix each problem",
    )
    .option("--json", "Print the checks as JSON")
    .example("funes doctor")
    .action((flags) => runDoctorCommand(flags, cfg));
  cli
    .command("completion <shell>", "Print a shell completion script for bash, zsh or fish")
    .example('eval "$(funes completion bash)"    # in ~/.bashrc')
    .example('eval "$(funes completion zsh)"     # in ~/.zshrc')
    .example("funes completion fish > ~/.config/fish/completions/funes.fish")
    .action((shell) => runCompletion(shell, cli));
  cli.option(
    "-q, --quiet",
    "Print nothing on stdout, no progress, ask nothing; warnings and errors still show",
  );
  const width = Math.min(100, Math.max(60, cfg.columns ?? 80));
  cli.help(reshapeHelp(cli, { actions: ACTIONS, width }));
  cli.version(pkg.version);
  cli.parse(argv, { run: false });
  if (cli.matchedCommand === undefined) {
    if (cli.args.length > 0) throw new UsageError(unknownCommandMessage(String(cli.args[0]), cli));
    // `funes --hepl` is a typo, not a request for the command list.
    const flag = args.find(
      (a) => a.startsWith("-") && !["-h", "--help", "-v", "-V", "--version"].includes(a),
    );
    if (flag !== undefined)
      throw new UsageError(
        cacErrorMessage(`Unknown option \`${flag}\``, args, cli) ?? `unknown option ${flag}`,
      );
    if (!cli.options.help && !cli.options.version) cli.outputHelp();
    return 0;
  }
  try {
    if (!cli.options.help) {
      settleOptionValues(cli, args);
      checkFirstWord(cli);
    }
    if (cli.options.quiet === true && !cli.options.help) beQuiet(cfg);
    // `funes scan -- -x <session>`: the words after `--` are its needle and session, a leading `-` too.
    const afterDashes = cli.options["--"];
    if (cli.matchedCommand.name === "scan" && Array.isArray(afterDashes))
      cli.args = [...cli.args, ...afterDashes.map(String)];
    // A hook push nobody watched refused to publish: said once, before a command run on a terminal (never
    // in an agent's MCP server, the model server or a hook's own push).
    if (
      cfg.stderrTty &&
      !cli.options.help &&
      !["mcp", "server"].includes(cli.matchedCommand.name) &&
      cli.options.hook !== true
    )
      (await import("./refusal-warning.js")).warnOfRefusals(cfg.funesHome, (l) => process.stderr.write(l));
    // A command may return its exit code (a hook push that has more to publish returns 75).
    const code: unknown = await cli.runMatchedCommand();
    return typeof code === "number" ? code : 0;
  } catch (err) {
    const better =
      err instanceof Error && err.name === "CACError" ? cacErrorMessage(err.message, args, cli) : null;
    if (better !== null) throw new UsageError(better);
    throw err;
  }
}

/**
 * Runs the command line on `argv` (as `process.argv`: node, script, words) and returns the exit code; a failure
 * is printed as one line by meaning (cli/error-policy.ts), the stack only with FUNES_DEBUG=1. Tests of help,
 * usage errors and rendering call it in-process.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await main(argv, env);
  } catch (err) {
    const { failureReport } = await import("./error-policy.js");
    const report = failureReport(err, {
      debug: env.FUNES_DEBUG === "1",
      home: (await import("./home.js")).funesHomeOf(env),
    });
    // On a terminal the line wraps at spaces, continued under its text, never broken mid-word.
    const [line = "", ...stack] = report.text.split("\n");
    const width = process.stderr.isTTY === true ? Math.max(40, process.stderr.columns || 80) : null;
    const { fitText } = await import("./terminal-text.js");
    process.stderr.write([fitText(line, width), ...stack].join("\n"));
    return report.exitCode;
  }
}
