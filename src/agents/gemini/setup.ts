/**
 * Gemini CLI: funes's MCP server and hooks in `~/.gemini/settings.json` (AfterAgent → index each turn;
 * SessionEnd → publish when a memory is bound), a policy file `~/.gemini/policies/funes.toml` that allows
 * funes's read-only tools (headless, Gemini turns a prompt into a denial and hides the tool from the model),
 * and the hook scripts in `~/.gemini/hooks/`. `GEMINI_CLI_HOME` moves the home holding `.gemini`.
 *
 * Gemini hands an MCP server its environment minus every variable whose name looks secret (`*TOKEN*`,
 * `*KEY*`, `*AUTH*`…; `sanitizeEnvironment` in 0.61, which no setting lifts for those names), so funes's
 * server under Gemini finds a Hub token only in the token file (`hf auth login`), never in `HF_TOKEN`; the
 * other variables funes reads reach it as they are. Its hooks get the full environment.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { agentFolder } from "../../traces/index.js";
import { keepBefore, restoreKept, writeIfChanged } from "../files.js";
import {
  hookCommand,
  INDEX_SCRIPT,
  PUSH_SCRIPT,
  removeHookFolder,
  writeHookScripts,
} from "../hook-scripts.js";
import type { HookSpec } from "../json-hooks.js";
import { funesServer, installSettings, removeSettings, type SettingsPlan } from "../settings-json.js";
import {
  type InstallOptions,
  integrationsRoot,
  pruneIntegrations,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";

/** Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(o: { home: string; env: Record<string, string | undefined> }): string {
  return agentFolder("gemini", o.home, o.env);
}

/**
 * The policy rule: funes's tools that say they are read-only run without asking. A rule with
 * `toolAnnotations` needs a `toolName` (0.61's schema check).
 */
const POLICY = `# Written by \`funes add gemini\`: Gemini CLI runs funes's read-only tools (recall, get, sessions,
# scan, status) without asking, headless too. \`funes remove gemini\` takes this file out.
[[rule]]
mcpName = "funes"
toolName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
`;

function hookSpecs(dir: string, memory: string | null): HookSpec[] {
  const script = (name: string) => join(dir, "hooks", name);
  // The hooks name their agent: Gemini also exports CLAUDE_PROJECT_DIR to them.
  const specs: HookSpec[] = [
    {
      event: "AfterAgent",
      command: hookCommand(script(INDEX_SCRIPT), "gemini"),
      statusMessage: "Indexing turn into funes memory",
      timeout: 15,
    },
  ];
  if (memory !== null)
    specs.push({
      event: "SessionEnd",
      command: hookCommand(script(PUSH_SCRIPT), memory, "gemini"),
      statusMessage: "Publishing funes memory",
      timeout: 15,
    });
  return specs;
}

function records(home: string) {
  return {
    settings: join(integrationsRoot(home), "gemini-settings.orig.json"),
    policy: join(integrationsRoot(home), "gemini-policy.orig.json"),
  };
}

function plan(
  o: { home: string; env: Record<string, string | undefined> },
  memory: string | null,
  funes: readonly string[],
): SettingsPlan {
  const dir = geminiDir(o);
  return {
    path: join(dir, "settings.json"),
    record: records(o.home).settings,
    server: funesServer(funes, memory),
    hooks: hookSpecs(dir, memory),
    // Gemini's hook timeout is in milliseconds.
    handler: (s) => ({ type: "command", name: "funes", command: s.command, timeout: s.timeout * 1000 }),
  };
}

/** Installs the MCP server, its policy and the hooks. */
export async function installGemini(o: InstallOptions): Promise<SetupReport> {
  await requireCli("gemini", "Gemini CLI (npm i -g @google/gemini-cli)", o);
  const dir = geminiDir(o);
  const p = plan(o, o.memory, o.funes);
  const policy = join(dir, "policies", "funes.toml");
  installSettings(p);
  // The policy file is funes's own: what was there before it (usually nothing) is kept once, to go back to.
  keepBefore({ path: policy, record: records(o.home).policy }, (t) => t);
  writeIfChanged(policy, POLICY);
  writeHookScripts(join(dir, "hooks"), o.funes);
  const events = p.hooks.map((h) => h.event).join(", ");
  return [
    `installed funes's MCP server and hooks into ${p.path} (${events}) — indexes each turn${o.memory === null ? "" : ` and publishes to ${o.memory} when a session ends`}`,
    `allowed funes's read-only tools in ${policy} — \`recall\` and \`get\` run without asking, headless too (restart Gemini CLI if it's running)`,
  ];
}

/** Takes out the MCP server, the policy, the hooks and their scripts. */
export async function removeGemini(o: RemoveOptions): Promise<SetupReport> {
  const dir = geminiDir(o);
  const p = plan(o, null, []);
  const report: SetupReport = [];
  const policy = join(dir, "policies", "funes.toml");
  if (existsSync(records(o.home).policy) || existsSync(policy)) {
    // The file is funes's own: whatever was there before comes back, or nothing.
    if (existsSync(records(o.home).policy))
      restoreKept(
        { path: policy, record: records(o.home).policy },
        { untouched: true, strip: (t) => t, empty: () => true },
      );
    else rmSync(policy, { force: true });
    report.push(`removed funes's policy (${policy})`);
  }
  const policies = join(dir, "policies");
  if (existsSync(policies) && readdirSync(policies).length === 0) rmSync(policies, { recursive: true });
  removeHookFolder(join(dir, "hooks"), report);
  // The settings last: a folder funes created for them goes with them once nothing else is in it.
  if (removeSettings(p)) report.unshift(`removed funes's MCP server and hooks from ${p.path}`);
  pruneIntegrations(o.home);
  report.push("removed funes from Gemini CLI — recall tools and hooks");
  return report;
}
