/**
 * The events of `claude --output-format stream-json`, which `qwen -o stream-json` prints too: what `funes
 * ask` reads from either.
 */
import type { AskEvent } from "./agent.js";

/** A string with something in it, or null. */
export const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

/** What one event of Claude Code's stream-json says. */
export function parseStreamJson(e: Record<string, unknown>): AskEvent {
  if (e.type === "result") {
    if (e.is_error === false && typeof e.result === "string") return { kind: "answer", text: e.result };
    if (e.is_error === true) return { kind: "failed", text: str(e.result) ?? String(e.subtype ?? "error") };
  }
  // Each retry of an API call; no HTTP status means the connection itself failed.
  if (e.type === "system" && e.subtype === "api_retry") {
    const network = e.error_status === null || e.error_status === undefined;
    const why = network ? "connection failed" : `HTTP ${String(e.error_status)}`;
    const of = typeof e.max_retries === "number" ? ` of ${e.max_retries}` : "";
    return { kind: "retry", text: `${why}, retry ${String(e.attempt ?? "?")}${of}`, network };
  }
  if (e.type === "assistant") {
    const content = (e.message as { content?: unknown } | undefined)?.content;
    const blocks = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
    const text = blocks
      .filter((b) => b.type === "text" && typeof b.text === "string")
      .map((b) => b.text as string)
      .join("");
    // A message claude made up itself to say it failed ("Not logged in · Please run /login") is no answer.
    if (str(e.error) !== null) return { kind: "failed", text: str(text) ?? String(e.error) };
    if (text !== "") return { kind: "text", text };
    if (blocks.some((b) => b.type === "thinking")) return { kind: "status", text: "thinking…" };
  }
  return { kind: "none" };
}
