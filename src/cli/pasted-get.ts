/**
 * The words of a command line as funes reads them. `funes help [command]` is `funes [command] --help`, and
 * `funes get` takes a recall hit's `→ get <session> <turn> [--memory …]` line (or the people's view's
 * `→ funes get …`) pasted as is: after `funes`, after `funes get`, or whole inside one pair of quotes (with
 * `--from`/`--to` only a line that opens with `→`, `funes` or `get`: one word there is a session id). Ids given as separate words are never split or
 * unquoted here: a stranger's session id may hold spaces and quotes (format/agent-format.ts quotes such
 * ids for the shell), and it must reach `get` exactly as the shell passed it.
 */

/** Options of `get` that take a value (their value is never read as a pasted line). */
const GET_VALUE_FLAGS = ["--window", "--from", "--to", "--memory", "--format", "--highlight"];

/**
 * A pasted line split as a POSIX shell splits it: blanks separate words, '…' and "…" quote, a backslash
 * outside single quotes escapes the next character (so `'it'\''s'` is `it's`).
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word = (word ?? "") + c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string))
        word = (word ?? "") + (line[++i] as string);
      else word = (word ?? "") + c;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < line.length) word = (word ?? "") + line[++i];
    else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The words a paste leaves before the ids, each optional, in this order: a shell prompt's `$`, the
 * agent format's `→`, `funes` (the people's view prints `→ funes get …`), `get`.
 */
function dropPrompt(words: string[]): string[] {
  let out = words;
  for (const lead of ["$", "→", "funes", "get"]) if (out[0] === lead) out = out.slice(1);
  return out;
}

/** See the file header. */
export function topLevelArgs(args: string[]): string[] {
  if (args[0] === "help") return [...args.slice(1, 2), "--help"];
  let words = args;
  // `funes → get s t`, or `funes "→ get s t"`.
  if (words[0] === "→") words = words.slice(1);
  else if (words[0]?.startsWith("→ ") === true) words = [...shellWords(words[0]), ...words.slice(1)].slice(1);
  if (words[0] === "funes" && words[1] === "get") words = words.slice(1);
  if (words[0] !== "get") return words;
  let rest = dropPrompt(words.slice(1));
  const positional = rest.flatMap((w, i) =>
    w.startsWith("-") || GET_VALUE_FLAGS.includes(rest[i - 1] ?? "") ? [] : [i],
  );
  const only = positional.length === 1 ? (positional[0] as number) : -1;
  const word = only >= 0 ? (rest[only] as string).trim() : "";
  // With --from/--to one word is a whole session id (a stranger's may hold spaces), unless it opens as a
  // pasted line does.
  const ranged = rest.some((w) => /^--(from|to)(=|$)/.test(w));
  const pasted = !ranged || /^(\$|→|funes\s|get\s)/.test(word);
  // One word that holds a whole line (`funes get "→ get 'a b' t --memory m"`): split it as the shell would.
  if (only >= 0 && /\s/.test(word) && pasted)
    rest = [...rest.slice(0, only), ...dropPrompt(shellWords(rest[only] as string)), ...rest.slice(only + 1)];
  return ["get", ...rest];
}
