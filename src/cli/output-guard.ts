/**
 * One guard on everything this process writes to stdout and stderr. Each printer escapes a stranger's text
 * itself (format/safe-text.ts), and this is the pass nothing can route around: a field a formatter forgot,
 * text a renderer decoded after escaping (a tool call's JSON), a library's debug line, `--json` and MCP
 * messages alike. Only the CLI's own styling passes raw: the colours `paint` and `get --highlight` use, and
 * the progress line's return-and-erase. Anything else a terminal would act on leaves as a `\uXXXX` escape.
 */
import { StringDecoder } from "node:string_decoder";
import { outputGuard } from "../format/index.js";

/**
 * The CLI's own escape sequences (terminal-text.ts, run-get.ts, progress.ts, run-ask.ts), as regex source
 * so no control character sits in this file.
 */
const OURS = String.raw`\r\u001b\[2K|\u001b\[(?:1|2|7|22|27|32|33|36|39)m`;

const guard = outputGuard(OURS);

/** Text bound for a terminal with every control character but the CLI's own styling escaped. */
export function guardedText(s: string): string {
  return guard(s);
}

/**
 * Makes every later write of `stream` pass through the guard: strings, and bytes as UTF-8 (decoded across
 * writes, so a character split between two chunks of a piped stream is not mangled).
 */
export function guardStream(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  const bytes = new StringDecoder("utf8");
  const guarded = (chunk: unknown, ...rest: unknown[]): boolean => {
    const enc = typeof rest[0] === "string" ? rest[0] : "utf8";
    if (typeof chunk === "string" && (enc === "utf8" || enc === "utf-8")) return write(guard(chunk), ...rest);
    if (chunk instanceof Uint8Array) return write(guard(bytes.write(Buffer.from(chunk))), ...rest);
    return write(chunk, ...rest);
  };
  stream.write = guarded as typeof stream.write;
}
