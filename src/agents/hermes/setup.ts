/**
 * Hermes: hooks in `~/.hermes/config.yaml` (`post_llm_call` → index; `on_session_start` and
 * `on_session_finalize` → push when a memory is bound), their approvals in `shell-hooks-allowlist.json` so
 * they run without a consent prompt, the scripts in `~/.hermes/hooks/`, and `hermes mcp add funes`. The
 * YAML is edited as a document: the user's comments, anchors and layout elsewhere are kept, and `remove`
 * restores the exact bytes when nothing else changed.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Document, isAlias, isMap, isSeq, parseDocument } from "yaml";
import {
  canonicalJson,
  readTextOrNull,
  rememberOriginal,
  restoreOriginal,
  writeIfChanged,
} from "../files.js";
import {
  hookCommand,
  INDEX_SCRIPT,
  isFunesCommand,
  PUSH_SCRIPT,
  removeHookScripts,
  writeHookScripts,
} from "../hook-scripts.js";
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
import { hermesHome } from "./home.js";

interface HermesHook {
  event: string;
  command: string;
}

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

/** Drops funes's entries from every hook list (and lists, then `hooks`, left empty). */
function stripYaml(doc: Document): void {
  const hooks = doc.get("hooks", true);
  if (!isMap(hooks)) return;
  for (const pair of [...hooks.items]) {
    const seq = pair.value;
    if (!isSeq(seq)) continue;
    seq.items = seq.items.filter((item) => !(isMap(item) && isFunesCommand(item.get("command"))));
    if (seq.items.length === 0) hooks.items.splice(hooks.items.indexOf(pair), 1);
  }
  if (hooks.items.length === 0) doc.delete("hooks");
}

function addYaml(doc: Document, hooks: HermesHook[]): void {
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  for (const h of hooks) {
    const seq = doc.getIn(["hooks", h.event], true);
    const entry = doc.createNode({ command: h.command, timeout: 30 });
    if (isSeq(seq)) seq.items.push(entry);
    else doc.setIn(["hooks", h.event], doc.createNode([{ command: h.command, timeout: 30 }]));
  }
}

type Allowlist = Record<string, unknown> & { approvals?: unknown };

function loadAllowlist(path: string): Allowlist {
  const text = readTextOrNull(path);
  if (text === null || text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new AgentSetupError(`${path} isn't valid JSON — fix it, then run this again`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new AgentSetupError(`${path} isn't a JSON object — fix it, then run this again`);
  return v as Allowlist;
}

function stripApprovals(a: Allowlist): Allowlist {
  if (!Array.isArray(a.approvals)) return a;
  const approvals = a.approvals.filter(
    (x) => !(typeof x === "object" && x !== null && isFunesCommand((x as { command?: unknown }).command)),
  );
  return { ...a, approvals };
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const records = (home: string) => ({
  config: join(integrationsRoot(home), "hermes-config.orig.json"),
  allow: join(integrationsRoot(home), "hermes-allowlist.orig.json"),
});

/** Installs the hooks, their approvals and the MCP registration. */
export async function installHermes(o: InstallOptions): Promise<SetupReport> {
  const hermes = (args: string[], input?: string) => runCli("hermes", args, { ...o, input });
  await requireCli("hermes", "Hermes", o);
  const dir = hermesHome(o);
  const configPath = join(dir, "config.yaml");
  const allowPath = join(dir, "shell-hooks-allowlist.json");
  const doc = loadYaml(configPath);
  const allow = loadAllowlist(allowPath);
  rememberOriginal(records(o.home).config, readTextOrNull(configPath));
  rememberOriginal(records(o.home).allow, readTextOrNull(allowPath));
  const hooks = hooksFor(dir, o.memory);
  writeHookScripts(join(dir, "hooks"), o.funes);
  stripYaml(doc);
  addYaml(doc, hooks);
  writeIfChanged(configPath, doc.toString({ lineWidth: 0 }));
  const kept = stripApprovals(allow);
  const approvals = [
    ...(Array.isArray(kept.approvals) ? kept.approvals : []),
    ...hooks.map((h) => ({ event: h.event, command: h.command })),
  ];
  writeIfChanged(allowPath, json({ ...kept, approvals }));
  const report: SetupReport = [
    `installed funes hooks into ${configPath} (${hooks.map((h) => h.event).join(", ")}) and approved them in ${allowPath}`,
  ];
  const add = await hermes(
    [
      "mcp",
      "add",
      "funes",
      "--command",
      o.funes[0] as string,
      "--args",
      ...o.funes.slice(1),
      "mcp",
      ...(o.memory === null ? [] : [o.memory]),
    ],
    "y\ny\n",
  );
  if (add.kind !== "ran" || add.code !== 0)
    throw new AgentSetupError(
      `\`hermes mcp add funes\` failed (${lastLine(add)}) — the hooks are installed; run it yourself to see why`,
    );
  report.push("registered funes recall with Hermes — `recall` and `get` are available");
  return report;
}

/** Unregisters the MCP server and removes funes's hooks, approvals and scripts. */
export async function removeHermes(o: RemoveOptions): Promise<SetupReport> {
  const mcp = await runCli("hermes", ["mcp", "remove", "funes"], o);
  const dir = hermesHome(o);
  const configPath = join(dir, "config.yaml");
  const allowPath = join(dir, "shell-hooks-allowlist.json");
  // Both files are read before either changes: a bad one stops the removal with nothing half done.
  const doc = existsSync(configPath) ? loadYaml(configPath) : null;
  const allow = existsSync(allowPath) ? loadAllowlist(allowPath) : null;
  const report: SetupReport = [];
  if (doc !== null) {
    stripYaml(doc);
    const after = doc.toJS() as unknown;
    restoreOriginal(
      configPath,
      records(o.home).config,
      (before) => canonicalJson(parseDocument(before ?? "").toJS() ?? null) === canonicalJson(after ?? null),
      doc.toString({ lineWidth: 0 }),
    );
    report.push(`removed funes's hooks from ${configPath}`);
  }
  if (allow !== null) {
    const stripped = stripApprovals(allow);
    restoreOriginal(
      allowPath,
      records(o.home).allow,
      (before) => canonicalJson(before === null ? {} : JSON.parse(before)) === canonicalJson(stripped),
      json(stripped),
    );
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
