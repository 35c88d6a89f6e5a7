/**
 * Hermes's setup, loaded on first use: its YAML library costs ~30 ms to import, which every other command
 * (the MCP server's start above all) would otherwise pay.
 */
import type { InstallOptions, RemoveOptions, SetupReport } from "./setup.js";

/** See hermes.ts. */
export async function installHermes(o: InstallOptions): Promise<SetupReport> {
  return (await import("./hermes.js")).installHermes(o);
}

/** See hermes.ts. */
export async function removeHermes(o: RemoveOptions): Promise<SetupReport> {
  return (await import("./hermes.js")).removeHermes(o);
}
