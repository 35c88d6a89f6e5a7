/**
 * Hermes: hooks in `~/.hermes/config.yaml` (`post_llm_call` → index; `on_session_start` and
 * `on_session_finalize` → push when a memory is bound), their approvals in `shell-hooks-allowlist.json` so
 * they run without a consent prompt, the scripts in `~/.hermes/hooks/`, and `hermes mcp add funes`. Both
 * files are edited in place (config-yaml.ts, json-text.ts: comments, anchors and every other line kept),
 * a second `add` changes nothing, and `remove` restores the exact bytes when nothing changed them since.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Document, isAlias, isMap, parseDocument } from "yaml";
import {
  canonicalJson,
  editKept,
  keepAfter,
  readTextOrNull,
  removeKept,
  restoreKept,
  untouchedSince,
} from "../files.js";
import {
  hookCommand,
  INDEX_SCRIPT,
  isFunesCommand,
  PUSH_SCRIPT,
  removeHookScripts,
  writeHookScripts,
} from "../hook-scripts.js";
import { editJsonText, jsonTextIsEmpty, readJsonText } from "../json-text.js";
import { lastLine, runCli } from "../run-cli.js";
import {
  AgentSetupError,
  cliMissingOnRemove,
  type InstallOptions,
  integrationsRoot,
  type RemoveOptions,
  requireCli,
  type SetupReport,
} from "../setup.js";
import { addYamlText, type HermesHook, stripYamlText } from "./config-yaml.js";
import { hermesHome } from "./home.js";

function hooksFor(hermesDir: string, memory: string | null): HermesHook[] {
  const dir = join(hermesDir, "hooks");
  const out = [{ event: "post_llm_call", command: hookCommand(join(dir, INDEX_SCRIPT), "hermes") }];
  if (memory !== null)
    for (const event of ["on_session_start", "on_session_finalize"])
      out.push({ event, command: hookCommand(join(dir, PUSH_SCRIPT), memory, "hermes") });
  return out;
}

function loadYaml(path: string): Document {
  const doc = parseDocument(readTextOrNull(path) ?? "");
  if (doc.errors.length > 0)
    throw new AgentSetupError(
      `${path} isn't valid YAML (${doc.errors[0]?.message.split("\n")[0]}) — fix it, then run this again`,
    );
  if (doc.contents !== null && !isMap(doc.contents))
    throw new AgentSetupError(
      `${path} isn't a YAML mapping — funes leaves it alone; fix it, then run this again`,
    );
  const hooks = doc.contents === null ? null : doc.get("hooks", true);
  if (isAlias(hooks))
    throw new AgentSetupError(
      `${path}: "hooks" is an alias of another node — funes won't edit shared YAML; make it a plain mapping, then run this again`,
    );
  if (hooks !== undefined && hooks !== null && !isMap(hooks))
    throw new AgentSetupError(`${path}: "hooks" isn't a mapping — fix it, then run this again`);
  return doc;
}

type Allowlist = Record<string, unknown> & { approvals?: unknown };

function loadAllowlist(path: string): Allowlist {
  const v = readJsonText(readTextOrNull(path));
  if (v === null) throw new AgentSetupError(`${path} isn't a JSON object — fix it, then run this again`);
  return v as Allowlist;
}

function stripApprovals(a: Allowlist): Allowlist {
  if (!Array.isArray(a.approvals)) return a;
  const approvals = a.approvals.filter(
    (x) => !(typeof x === "object" && x !== null && isFunesCommand((x as { command?: unknown }).command)),
  );
  return { ...a, approvals };
}

const files = (home: string, dir: string) => ({
  config: { path: join(dir, "config.yaml"), record: join(integrationsRoot(home), "hermes-config.orig.json") },
  allow: {
    path: join(dir, "shell-hooks-allowlist.json"),
    record: join(integrationsRoot(home), "hermes-allowlist.orig.json"),
  },
});
const stripAllow = (text: string) => editJsonText(text, stripApprovals);
const yamlIsEmpty = (text: string) => {
  const v: unknown = parseDocument(text).toJS();
  return v === null || v === undefined || (typeof v === "object" && Object.keys(v).length === 0);
};

/** Installs the hooks, their approvals and the MCP registration. */
export async function installHermes(o: InstallOptions): Promise<SetupReport> {
  const hermes = (args: string[], input?: string) => runCli("hermes", args, { ...o, input });
  await requireCli("hermes", "Hermes", o);
  const dir = hermesHome(o);
  const configPath = join(dir, "config.yaml");
  const allowPath = join(dir, "shell-hooks-allowlist.json");
  loadYaml(configPath);
  loadAllowlist(allowPath);
  const f = files(o.home, dir);
  const hooks = hooksFor(dir, o.memory);
  writeHookScripts(join(dir, "hooks"), o.funes);
  editKept(f.config, { strip: stripYamlText, edit: (text) => addYamlText(text ?? "", hooks) });
  editKept(f.allow, {
    strip: stripAllow,
    edit: (text) =>
      editJsonText(text, (root) => {
        const approvals = Array.isArray(root.approvals) ? root.approvals : [];
        const wanted = hooks.map((h) => ({ event: h.event, command: h.command }));
        const mine = approvals.filter((x) => isFunesCommand((x as { command?: unknown })?.command));
        if (canonicalJson(mine) === canonicalJson(wanted)) return root;
        const kept = stripApprovals(root);
        return { ...kept, approvals: [...(Array.isArray(kept.approvals) ? kept.approvals : []), ...wanted] };
      }),
  });
  const report: SetupReport = [
    `installed funes hooks into ${configPath} (${hooks.map((h) => h.event).join(", ")}) and approved them in ${allowPath}`,
  ];
  const args = [...o.funes.slice(1), "mcp", ...(o.memory === null ? [] : [o.memory])];
  // Hermes keeps its MCP servers in config.yaml (`mcp_servers.<name>`: command, args), and its `mcp add`
  // rewrites the file: it runs only when funes's entry there differs.
  const server = parseDocument(readTextOrNull(configPath) ?? "").toJS()?.mcp_servers?.funes;
  if (server?.command !== o.funes[0] || canonicalJson(server?.args ?? null) !== canonicalJson(args)) {
    const add = await hermes(
      ["mcp", "add", "funes", "--command", o.funes[0] as string, "--args", ...args],
      "y\ny\n",
    );
    if (add.kind !== "ran" || add.code !== 0)
      throw new AgentSetupError(
        `\`hermes mcp add funes\` failed (${lastLine(add)}) — the hooks are installed; run it yourself to see why`,
      );
    keepAfter(f.config);
  }
  report.push("registered funes recall with Hermes — `recall` and `get` are available");
  return report;
}

/** Unregisters the MCP server and removes funes's hooks, approvals and scripts. */
export async function removeHermes(o: RemoveOptions): Promise<SetupReport> {
  const dir = hermesHome(o);
  const f = files(o.home, dir);
  // Asked before Hermes's own `mcp remove` rewrites config.yaml.
  const untouched = untouchedSince(f.config);
  const mcp = await runCli("hermes", ["mcp", "remove", "funes"], o);
  const removed =
    mcp.kind === "ran" && (mcp.code === 0 || `${mcp.stdout}${mcp.stderr}`.includes("not found"));
  const configPath = join(dir, "config.yaml");
  const allowPath = join(dir, "shell-hooks-allowlist.json");
  // Both files are read before either changes: a bad one stops the removal with nothing half done.
  const doc = existsSync(configPath) ? loadYaml(configPath) : null;
  const allow = existsSync(allowPath) ? loadAllowlist(allowPath) : null;
  const report: SetupReport = [];
  if (doc !== null) {
    restoreKept(f.config, { untouched: untouched && removed, strip: stripYamlText, empty: yamlIsEmpty });
    report.push(`removed funes's hooks from ${configPath}`);
  }
  if (allow !== null) {
    removeKept(f.allow, { strip: stripAllow, empty: jsonTextIsEmpty });
    report.push(`removed funes's approvals from ${allowPath}`);
  }
  const hooksDir = join(dir, "hooks");
  if (removeHookScripts(hooksDir)) report.push(`removed the hook scripts from ${hooksDir}`);
  if (existsSync(hooksDir) && readdirSync(hooksDir).length === 0) rmSync(hooksDir, { recursive: true });
  if (mcp.kind === "missing")
    throw cliMissingOnRemove(report, "hermes", "MCP registration", "hermes mcp remove funes");
  if (mcp.code !== 0 && !`${mcp.stdout}${mcp.stderr}`.includes("not found"))
    throw new AgentSetupError(`\`hermes mcp remove funes\` failed (${lastLine(mcp)})`);
  report.push("removed funes from Hermes — recall registration and hooks");
  return report;
}
