/**
 * pi: no MCP client and no hooks, so funes installs an extension (`~/.funes/integrations/pi`) whose `recall`
 * and `get` tools talk to `funes mcp`, and registers it with `pi install`. The bound memory is a `memory`
 * file beside it. pi has no per-turn hook: the extension runs the hook scripts written beside it when a
 * session shuts down (index, and with a memory the boundary push), logging to `funes-sync.log` there.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeIfChanged } from "../files.js";
import { writeHookScripts } from "../hook-scripts.js";
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
  const install = await runCli("pi", ["install", dir], o);
  if (install.kind !== "ran" || install.code !== 0)
    throw new AgentSetupError(
      `\`pi install ${dir}\` failed (${lastLine(install)}) — run it yourself to see why`,
    );
  return [
    `installed the funes extension into pi (${dir}) — \`recall\` and \`get\` read ${o.memory ?? "your local memory"}; each pi session is indexed${o.memory === null ? "" : ` and published to ${o.memory}`} when it ends`,
  ];
}

/** Unregisters the extension and deletes it. */
export async function removePi(o: RemoveOptions): Promise<SetupReport> {
  const dir = piExtensionDir(o.home);
  const out = await runCli("pi", ["remove", dir], o);
  if (out.kind === "ran" && out.code !== 0 && !`${out.stdout}${out.stderr}`.includes("No matching package"))
    throw new AgentSetupError(
      `\`pi remove ${dir}\` failed (${lastLine(out)}) — the extension files are still there`,
    );
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
