/**
 * `funes ask codex`: `codex exec` with a read-only sandbox (Codex has no switch for no tools), not stored
 * (`--ephemeral`), each of the user's MCP servers switched off by name, its `--json` events read as they
 * come.
 */
import type { AskEvent, AskSpec } from "../agent.js";
import { runCli } from "../run-cli.js";
import { str } from "../stream-json.js";

/**
 * The MCP servers Codex has configured. `-c mcp_servers={}` does not remove them (0.171 merges the
 * override into the user's table), so `ask` switches each one off by name.
 */
async function codexMcpServers(env: Record<string, string | undefined>): Promise<string[]> {
  const out = await runCli("codex", ["mcp", "list", "--json"], { env });
  if (out.kind !== "ran" || out.code !== 0) return [];
  try {
    const list = JSON.parse(out.stdout) as { name?: unknown }[];
    // Codex's `-c` takes bare dotted keys only (a quoted segment becomes part of the name).
    return list.map((s) => s.name).filter((n): n is string => typeof n === "string" && /^[\w-]+$/.test(n));
  } catch {
    return [];
  }
}

/** What one event of `codex exec --json` says. */
function parseCodexEvent(e: Record<string, unknown>): AskEvent {
  const item = e.item as Record<string, unknown> | undefined;
  if (e.type === "item.completed" && item?.type === "agent_message" && typeof item.text === "string")
    return { kind: "answer", text: item.text };
  // `Reconnecting... 2/5 (stream disconnected …)`, `Reconnecting... waiting for network (…)`.
  const message = str(e.message);
  if (e.type === "error" && message !== null) {
    const retry = /^Reconnecting\.*\s*(.*?)\s*(?:\((.*)\))?$/s.exec(message);
    if (retry === null) return { kind: "failed", text: message };
    const why = retry[2] ?? "connection failed";
    const when = retry[1] ?? "";
    const text = `${why}, ${when === "" ? "retrying" : /^\d/.test(when) ? `retry ${when}` : when}`;
    return { kind: "retry", text, network: true };
  }
  if (e.type === "turn.failed") {
    const text = str((e.error as { message?: unknown } | undefined)?.message);
    return { kind: "failed", text: text ?? "the turn failed" };
  }
  if (e.type === "turn.started" || item?.type === "reasoning") return { kind: "status", text: "thinking…" };
  return { kind: "none" };
}

export const codexAsk: AskSpec = {
  prepare: async ({ prompt, env }) => {
    const mcpOff = await codexMcpServers(env);
    return {
      args: [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--sandbox",
        "read-only",
        ...(mcpOff.length === 0
          ? ["-c", "mcp_servers={}"]
          : mcpOff.flatMap((name) => ["-c", `mcp_servers.${name}.enabled=false`])),
        "--",
        prompt,
      ],
    };
  },
  parse: parseCodexEvent,
};
