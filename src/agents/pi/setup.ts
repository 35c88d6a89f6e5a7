/**
 * pi: no MCP client and no hooks, so funes installs an extension (`~/.funes/integrations/pi`) whose `recall`
 * and `get` tools talk to `funes mcp`, and registers it with `pi install`. The bound memory is a `memory`
 * file beside it. pi has no per-turn hook: the extension runs the hook scripts written beside it when a
 * session shuts down (index, and with a memory the boundary push), logging to `funes-sync.log` there.
 */
import { existsSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { agentFolder } from "../../traces/index.js";
import {
  type KeptFile,
  keepAfter,
  keepBefore,
  readTextOrNull,
  restoreKept,
  untouchedSince,
  writeIfChanged,
} from "../files.js";
import { writeHookScripts } from "../hook-scripts.js";
import { editJsonText, jsonTextIsEmpty, readJsonText } from "../json-text.js";
import { lastLine, runCli } from "../run-cli.js";
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
import { shippedModule } from "../shipped.js";

/** Where the extension lives. */
export function piExtensionDir(home: string): string {
  return join(integrationsRoot(home), "pi");
}

/**
 * pi's settings (`$PI_CODING_AGENT_DIR/settings.json`, else `~/.pi/agent/settings.json`), which its own
 * `pi install`/`pi remove` rewrite whole (two-space JSON, no final newline; `remove` leaves
 * `"packages": []`): kept to be put back byte for byte.
 */
function piSettings(o: {
  home: string;
  env: Record<string, string | undefined>;
}): KeptFile & { dir: string } {
  const dir = agentFolder("pi", o.home, o.env);
  return {
    dir,
    path: join(dir, "settings.json"),
    record: join(integrationsRoot(o.home), "pi-settings.orig.json"),
  };
}

/** Whether a `packages` entry names `extension` (pi stores a local path relative to its folder). */
function namesExtension(entry: unknown, agentDir: string, extension: string): boolean {
  const source = typeof entry === "string" ? entry : (entry as { source?: unknown } | null)?.source;
  if (typeof source !== "string" || /^(npm|git):|:\/\//.test(source)) return false;
  return (isAbsolute(source) ? source : resolve(agentDir, source)) === extension;
}

/** pi's settings text without funes's package (and without `packages` once it is empty). */
function stripPackage(text: string, agentDir: string, extension: string): string {
  return editJsonText(text, (root) => {
    if (!Array.isArray(root.packages)) return root;
    const packages = root.packages.filter((p) => !namesExtension(p, agentDir, extension));
    if (packages.length === root.packages.length) return root;
    const { packages: _dropped, ...rest } = root;
    return packages.length > 0 ? { ...rest, packages } : rest;
  });
}

/** Writes the extension and registers it with pi. */
export async function installPi(o: InstallOptions): Promise<SetupReport> {
  await requireCli("pi", "pi", o);
  const dir = piExtensionDir(o.home);
  // The extension as tsc built it (agents/pi/extension.ts), with funes's command and its folder filled in.
  rmSync(join(dir, "index.ts"), { force: true });
  writeIfChanged(
    join(dir, "index.js"),
    shippedModule("agents/pi/extension.js", { FUNES: o.funes, HERE: dir }),
  );
  writeHookScripts(dir, o.funes);
  writeIfChanged(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "funes-pi", version: "0.1.0", private: true, type: "module", pi: { extensions: ["./index.js"] } }, null, 2)}\n`,
  );
  const memoryFile = join(dir, "memory");
  if (o.memory === null) rmSync(memoryFile, { force: true });
  else writeIfChanged(memoryFile, `${o.memory}\n`);
  const settings = piSettings(o);
  const strip = (t: string) => stripPackage(t, settings.dir, dir);
  keepBefore(settings, strip);
  const before = readTextOrNull(settings.path);
  const packages = readJsonText(before)?.packages;
  // Already registered: `pi install` would change nothing, so it does not run.
  if (!(Array.isArray(packages) && packages.some((p) => namesExtension(p, settings.dir, dir)))) {
    const install = await runCli("pi", ["install", dir], o);
    if (install.kind !== "ran" || install.code !== 0)
      throw new AgentSetupError(
        `\`pi install ${dir}\` failed (${lastLine(install)}) — run it yourself to see why`,
      );
    // pi rewrote its whole settings file: its one change is made again on the user's own text instead.
    const after = readTextOrNull(settings.path);
    const next = readJsonText(after);
    if (
      before !== null &&
      after !== null &&
      after !== before &&
      next !== null &&
      readJsonText(before) !== null
    )
      writeIfChanged(
        settings.path,
        editJsonText(before, () => next),
      );
  }
  keepAfter(settings);
  return [
    `installed the funes extension into pi (${dir}) — \`recall\` and \`get\` read ${o.memory ?? "your local memory"}; each pi session is indexed${o.memory === null ? "" : ` and published to ${o.memory}`} when it ends`,
  ];
}

/** Unregisters the extension and deletes it. */
export async function removePi(o: RemoveOptions): Promise<SetupReport> {
  const dir = piExtensionDir(o.home);
  const settings = piSettings(o);
  // Asked before pi's own `remove` rewrites the file, whose text before it is what funes edits otherwise.
  const untouched = untouchedSince(settings);
  const before = readTextOrNull(settings.path);
  const out = await runCli("pi", ["remove", dir], o);
  if (out.kind === "ran" && out.code !== 0 && !`${out.stdout}${out.stderr}`.includes("No matching package"))
    throw new AgentSetupError(
      `\`pi remove ${dir}\` failed (${lastLine(out)}) — the extension files are still there`,
    );
  if (out.kind === "ran" && (before === null || readJsonText(before) !== null))
    restoreKept(settings, {
      untouched,
      strip: (now) => (before === null ? now : stripPackage(before, settings.dir, dir)),
      empty: jsonTextIsEmpty,
    });
  const report: SetupReport = [];
  if (existsSync(dir)) {
    rmSync(dir, { recursive: true, force: true });
    report.push(`removed the funes extension files (${dir})`);
  }
  pruneIntegrations(o.home);
  if (out.kind === "missing") throw cliMissingOnRemove(report, "pi", "registration", `pi remove ${dir}`);
  report.push("removed funes from pi");
  return report;
}
