/** The shell examples of a Markdown page: each command line of its ```sh blocks, as a reader would type it. */

/** One command line of a ```sh block, its comment taken off. */
export interface ShellExample {
  /** The command as typed (continuation lines joined), without its trailing `# …` comment. */
  line: string;
  /** The line's words as the shell splits them (quotes removed, `$(…)` kept as one word). */
  words: string[];
}

/**
 * Splits a shell line into words and drops a trailing comment: quotes (single, double) and `$(…)` group, a
 * `#` that starts a word outside them starts the comment. Enough for documentation examples (no here-docs,
 * no escapes inside single quotes).
 */
export function shellWords(line: string): { words: string[]; commentAt: number } {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== null) {
      if (c === quote && depth === 0) quote = null;
      else if (c === "$" && line[i + 1] === "(") {
        depth++;
        word += c;
      } else if (c === ")" && depth > 0) {
        depth--;
        word += c;
      } else word += c;
      continue;
    }
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    if (c === "#" && word === null) return { words, commentAt: i };
    if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
      continue;
    }
    if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
      continue;
    }
    word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return { words, commentAt: line.length };
}

/** Every command line of the page's ```sh blocks, in order. */
export function shellExamples(markdown: string): ShellExample[] {
  const out: ShellExample[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) {
    const lines = (block[1] as string).replace(/\\\n\s*/g, " ").split("\n");
    for (const raw of lines) {
      const { words, commentAt } = shellWords(raw);
      const line = raw.slice(0, commentAt).trim();
      if (line !== "") out.push({ line, words });
    }
  }
  return out;
}

/** The `funes …` command a line runs: itself, or the one inside `eval "$(funes …)"`; null for another program. */
export function funesWords(example: ShellExample): string[] | null {
  if (example.words[0] === "funes") return example.words.slice(1);
  const inner = /^eval "\$\((funes [^)]*)\)"$/.exec(example.line)?.[1];
  return inner === undefined ? null : shellWords(inner).words.slice(1);
}
