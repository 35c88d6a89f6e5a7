/**
 * `funes mcp [memory]`: serves the memory over stdio until the client disconnects. stdout carries only the
 * protocol: anything a library prints there (console.log/info/debug) is sent to stderr instead.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ModelSession } from "../commands/index.js";
import { createMcpServer } from "../mcp/index.js";
import type { CliConfig } from "./config.js";

/** Runs the server; resolves when the transport closes. */
export async function runMcp(memory: unknown, cfg: CliConfig, version: string): Promise<void> {
  const toStderr = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(" ")}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  let session: ModelSession | null = null;
  const getSession = async () => {
    session ??= (await import("./run-server.js")).recallModels(cfg);
    return session;
  };
  const server = createMcpServer({
    memory: memory === undefined ? undefined : String(memory),
    funesHome: cfg.funesHome,
    home: cfg.home,
    agentEnv: cfg.agentEnv,
    models: cfg.models,
    // An agent can't be asked: an unreachable Hub memory answers from the local one, and says so.
    fallbackLocal: true,
    // Loaded on the first call, off the path to the tool list.
    prepare: async () => {
      const { applyNetworkEnv, networkEnv } = await import("../remote/index.js");
      await applyNetworkEnv(networkEnv(cfg.env));
    },
    session: getSession,
    now: cfg.now,
    version,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await (session as ModelSession | null)?.close();
}
