/**
 * Claude Code: a hooks-only plugin (Stop → index; SessionStart/SessionEnd → push when a memory is bound) in
 * a directory marketplace under `~/.funes/integrations/claude-plugin`, registered with Claude's own
 * `plugin marketplace add` / `plugin install` (reinstalled when its files change: a plain install keeps
 * the old copy), and the MCP server registered at user scope. Claude reads a directory plugin's hooks from
 * the source folder (`CLAUDE_PLUGIN_ROOT`), so the scripts and their log live there.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeIfChanged } from "../files.js";
import { hookCommand, INDEX_SCRIPT, PUSH_SCRIPT, writeHookScripts } from "../hook-scripts.js";
import { formatHooksFile, type HookSpec, mergeFunesHooks } from "../json-hooks.js";
import { type CliOutcome, lastLine, runCli } from "../run-cli.js";
import {
  AgentSetupError,
  cliMissingOnRemove,
  type InstallOptions,
  integrationsRoot,
  pruneIntegrations,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";
import {
  claudeFilesUntouched,
  claudeHolds,
  claudeServerIs,
  recordClaudeFilesAfter,
  recordClaudeFilesBefore,
  restoreClaudeFiles,
} from "./files.js";
import { allowClaudeTools, claudeSettingsPath, disallowClaudeTools } from "./permissions.js";

const MARKETPLACE = "huggingface";
const PLUGIN = `funes@${MARKETPLACE}`;

/** The plugin marketplace folder. */
export function claudePluginRoot(home: string): string {
  return join(integrationsRoot(home), "claude-plugin");
}

function hookSpecs(memory: string | null): HookSpec[] {
  const script = (name: string) => `\${CLAUDE_PLUGIN_ROOT}/scripts/${name}`;
  const index = {
    event: "Stop",
    command: hookCommand(script(INDEX_SCRIPT), "claude"),
    statusMessage: "Indexing turn into funes memory",
    timeout: 15,
  };
  if (memory === null) return [index];
  const push = (event: string) => ({
    event,
    command: hookCommand(script(PUSH_SCRIPT), memory, "claude"),
    statusMessage: "Publishing funes memory",
    timeout: 15,
  });
  return [index, push("SessionStart"), push("SessionEnd")];
}

/** Writes the plugin tree; true when any file changed. */
function writePlugin(o: InstallOptions): boolean {
  const root = claudePluginRoot(o.home);
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  const description =
    "funes: every completed turn indexed into your funes memory, published at session boundaries";
  const changed = [
    writeIfChanged(
      join(root, ".claude-plugin", "marketplace.json"),
      json({
        name: MARKETPLACE,
        owner: { name: MARKETPLACE },
        description: "funes integrations",
        plugins: [{ name: "funes", source: "./funes", description }],
      }),
    ),
    writeIfChanged(
      join(root, "funes", ".claude-plugin", "plugin.json"),
      json({ name: "funes", version: "0.1.0", description, author: { name: "funes" } }),
    ),
    writeIfChanged(
      join(root, "funes", "hooks", "hooks.json"),
      formatHooksFile(mergeFunesHooks({}, hookSpecs(o.memory))),
    ),
    writeHookScripts(join(root, "funes", "scripts"), o.funes),
  ];
  return changed.some((c) => c);
}

const claudeEnv = (o: { env: Record<string, string | undefined> }) => ({
  env: { ...o.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
});

function failed(step: string, out: CliOutcome, manual: string): AgentSetupError {
  return new AgentSetupError(`\`${step}\` failed (${lastLine(out)}) — run \`${manual}\` yourself to see why`);
}

/** Installs the hooks plugin and the MCP registration. */
export async function installClaude(o: InstallOptions): Promise<SetupReport> {
  const claude = (args: string[]) => runCli("claude", args, claudeEnv(o));
  await requireCli("claude", "Claude Code (npm i -g @anthropic-ai/claude-code)", claudeEnv(o));
  const root = claudePluginRoot(o.home);
  recordClaudeFilesBefore(o, PLUGIN);
  const dirty = writePlugin(o);
  const report: SetupReport = [];
  // Claude's commands rewrite its files (keys reordered) even when they change nothing: each runs only when
  // what it sets up is not there as it should be.
  const held = claudeHolds(o, { marketplace: MARKETPLACE, plugin: PLUGIN, root });
  if (!held.marketplace) {
    const market = await claude(["plugin", "marketplace", "add", root]);
    if (market.kind !== "ran" || market.code !== 0)
      throw failed("claude plugin marketplace add", market, `claude plugin marketplace add ${root}`);
  }
  if (dirty || !held.marketplace || !held.plugin) {
    if (dirty) await claude(["plugin", "uninstall", PLUGIN]);
    const install = await claude(["plugin", "install", PLUGIN]);
    if (install.kind !== "ran" || install.code !== 0)
      throw failed("claude plugin install", install, `claude plugin install ${PLUGIN}`);
    const list = await claude(["plugin", "list"]);
    if (list.kind !== "ran" || !list.stdout.includes(PLUGIN))
      throw new AgentSetupError(
        `Claude Code does not list the ${PLUGIN} plugin after installing it, so its hooks would not run — check \`claude plugin list\``,
      );
  }
  report.push(
    `installed the funes hooks plugin into Claude Code (${root}) — indexes each turn${o.memory === null ? " (local only — pass a memory to also publish)" : ` and publishes to ${o.memory} at session boundaries`}`,
  );
  const mcpArgs = [...o.funes.slice(1), "mcp", ...(o.memory === null ? [] : [o.memory])];
  if (!claudeServerIs(o, o.funes[0] as string, mcpArgs)) {
    await claude(["mcp", "remove", "funes", "-s", "user"]);
    const add = await claude(["mcp", "add", "funes", "-s", "user", "--", o.funes[0] as string, ...mcpArgs]);
    if (add.kind !== "ran" || add.code !== 0)
      throw failed(
        "claude mcp add funes",
        add,
        `claude mcp add funes -s user -- ${[...o.funes, "mcp"].join(" ")}`,
      );
  }
  report.push(
    "registered funes recall with Claude Code (user scope) — `recall` and `get` are available (restart Claude Code if it's running)",
  );
  if (o.allowTools === true) {
    const added = allowClaudeTools(o);
    report.push(
      added.length > 0
        ? `allowed funes's read-only tools (recall, get, sessions, scan, status) in ${claudeSettingsPath(o)} — headless \`claude -p\` runs can use them; \`funes remove claude\` takes them out`
        : "funes's read-only tools were already allowed in Claude Code",
    );
  }
  recordClaudeFilesAfter(o);
  return report;
}

/** Unregisters the MCP server and the plugin, and deletes the extracted files. */
export async function removeClaude(o: RemoveOptions): Promise<SetupReport> {
  const claude = (args: string[]) => runCli("claude", args, claudeEnv(o));
  const root = claudePluginRoot(o.home);
  const report: SetupReport = [];
  const steps: [string[], string][] = [
    [["mcp", "remove", "funes", "-s", "user"], 'No MCP server named "funes"'],
    [["plugin", "uninstall", PLUGIN], "not found"],
    [["plugin", "marketplace", "remove", MARKETPLACE], "not found"],
  ];
  const problems: string[] = [];
  let missing = false;
  const untouched = claudeFilesUntouched(o);
  for (const [args, absent] of steps) {
    const out = await claude(args);
    if (out.kind === "missing") {
      missing = true;
      break;
    }
    if (out.code !== 0 && !`${out.stdout}${out.stderr}`.includes(absent))
      problems.push(`\`claude ${args.join(" ")}\` failed (${lastLine(out)})`);
  }
  if (disallowClaudeTools(o).length > 0)
    report.push(`took funes's tools out of permissions.allow in ${claudeSettingsPath(o)}`);
  // Claude's own commands leave its files reformatted, with empty keys and the plugin's cached copy.
  if (!missing) restoreClaudeFiles(o, untouched, MARKETPLACE);
  if (existsSync(root)) {
    rmSync(root, { recursive: true, force: true });
    report.push(`removed the extracted plugin files (${root})`);
  }
  pruneIntegrations(o.home);
  if (missing)
    throw cliMissingOnRemove(
      report,
      "claude",
      "registrations",
      `claude mcp remove funes -s user; claude plugin uninstall ${PLUGIN}; claude plugin marketplace remove ${MARKETPLACE}`,
    );
  if (problems.length > 0)
    throw new AgentSetupError(`${problems.join("; ")} — the local plugin files were removed`);
  report.push("removed funes from Claude Code — recall registration and hooks plugin");
  return report;
}
