/**
 * Reading and trimming Codex's `config.toml` as text, so every line funes does not own keeps its bytes:
 * the `[mcp_servers.funes]` table `codex mcp add` writes (its command and arguments, to tell whether a
 * second `add` would change anything), and that table taken out of a text.
 */

/** A TOML string's value: a basic string (JSON's escapes) or a literal one; null for anything else. */
function tomlValue(raw: string): string | null {
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1);
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

const STRING = /"(?:[^"\\]|\\.)*"|'[^']*'/g;

/** The line range of a table `[name]` (its header through its last line before the next header), or null. */
function tableLines(lines: string[], name: string): { start: number; end: number } | null {
  const start = lines.findIndex((l) => l.replace(/\s+#.*$/, "").trim() === `[${name}]`);
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
  return { start, end };
}

/** The command and arguments of `[mcp_servers.<name>]`, or null when there is no such table. */
export function codexMcpEntry(
  config: string,
  name: string,
): { command: string | null; args: string[] } | null {
  const lines = config.split("\n");
  const range = tableLines(lines, `mcp_servers.${name}`);
  if (range === null) return null;
  const body = lines.slice(range.start + 1, range.end).join("\n");
  const command = /^\s*command\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/m.exec(body)?.[1];
  const list = /^\s*args\s*=\s*\[([\s\S]*?)\]/m.exec(body)?.[1] ?? "";
  const args = [...list.matchAll(STRING)].map((m) => tomlValue(m[0]) ?? "");
  return { command: command === undefined ? null : tomlValue(command), args };
}

/** `config` without the table `[name]` (the last one also without the blank line before it). */
export function withoutTomlTable(config: string, name: string): string {
  const lines = config.split("\n");
  const range = tableLines(lines, name);
  if (range === null) return config;
  let { start, end } = range;
  const blank = (i: number) => (lines[i] ?? "").trim() === "";
  if (end >= lines.length) {
    // The final line break stays; so does what separated the table from the one before, minus one blank.
    while (end > start + 1 && blank(end - 1)) end--;
    if (start > 0 && blank(start - 1)) start--;
  }
  return [...lines.slice(0, start), ...lines.slice(end)].join("\n");
}
