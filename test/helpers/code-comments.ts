/**
 * The comments of a source file, found as a reader finds them: TypeScript and JavaScript (`//` and `/* … *\/`,
 * never inside a string, a template literal, its `${…}` or a regular expression literal) and shell (`#` that
 * starts a word outside quotes). A `/` starts a regular expression where an operand may begin (after an
 * operator, an opening bracket, a keyword such as `return`), as the language decides; enough for this
 * repository's sources, not a full tokenizer.
 */

/** One comment: the line it starts on (1-based) and its text, markers included. */
export interface CodeComment {
  line: number;
  text: string;
}

/** Words after which a `/` begins a regular expression rather than a division. */
const OPERAND_KEYWORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

const WORD = /[\p{L}\p{N}_$]/u;

/** The comments of TypeScript or JavaScript source. */
export function scriptComments(src: string): CodeComment[] {
  const out: CodeComment[] = [];
  let line = 1;
  // What came last outside comments and blanks: a word, or one punctuation character ("" at the start).
  let prev = "";
  // One entry per open `${`: the brace depth inside it, so its closing `}` resumes the template.
  const templates: number[] = [];
  let i = 0;
  const n = src.length;
  const take = (end: number) => {
    for (let k = i; k < end; k++) if (src[k] === "\n") line++;
    i = end;
  };
  /** Reads a template literal's text from `i` (just past a backtick or a `}`) to its end or its next `${`. */
  const templateText = () => {
    let k = i;
    while (k < n && src[k] !== "`" && !(src[k] === "$" && src[k + 1] === "{")) k += src[k] === "\\" ? 2 : 1;
    if (src[k] === "`") {
      take(k + 1);
      prev = "`";
    } else {
      take(k + 2);
      templates.push(0);
      prev = "{";
    }
  };
  while (i < n) {
    const c = src[i] as string;
    if (c === "\n" || c === " " || c === "\t" || c === "\r") {
      take(i + 1);
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      out.push({ line, text: src.slice(i, stop) });
      take(stop);
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      out.push({ line, text: src.slice(i, stop) });
      take(stop);
      continue;
    }
    if (c === "'" || c === '"') {
      let k = i + 1;
      while (k < n && src[k] !== c && src[k] !== "\n") k += src[k] === "\\" ? 2 : 1;
      take(k + 1);
      prev = c;
      continue;
    }
    if (c === "`") {
      take(i + 1);
      templateText();
      continue;
    }
    if (c === "/" && (prev === "" || OPERAND_KEYWORDS.has(prev) || /^[(,=:[!&|?{;+\-*%<>~^]$/.test(prev))) {
      let k = i + 1;
      let inClass = false;
      while (k < n && src[k] !== "\n" && (inClass || src[k] !== "/")) {
        if (src[k] === "\\") k++;
        else if (src[k] === "[") inClass = true;
        else if (src[k] === "]") inClass = false;
        k++;
      }
      k++;
      while (k < n && WORD.test(src[k] as string)) k++;
      take(k);
      prev = "/re/";
      continue;
    }
    if (WORD.test(c)) {
      let k = i + 1;
      while (k < n && WORD.test(src[k] as string)) k++;
      prev = src.slice(i, k);
      take(k);
      continue;
    }
    if (templates.length > 0) {
      const depth = templates.length - 1;
      if (c === "{") templates[depth] = (templates[depth] as number) + 1;
      else if (c === "}") {
        if (templates[depth] === 0) {
          templates.pop();
          take(i + 1);
          templateText();
          continue;
        }
        templates[depth] = (templates[depth] as number) - 1;
      }
    }
    prev = c;
    take(i + 1);
  }
  return out;
}

/** The comments of a shell script: from a `#` that starts a word outside quotes to the end of its line. */
export function shellComments(src: string): CodeComment[] {
  const out: CodeComment[] = [];
  src.split("\n").forEach((text, index) => {
    let quote: string | null = null;
    for (let k = 0; k < text.length; k++) {
      const c = text[k] as string;
      if (quote !== null) {
        if (c === "\\" && quote === '"') k++;
        else if (c === quote) quote = null;
      } else if (c === "\\") k++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === "#" && (k === 0 || /\s/.test(text[k - 1] as string))) {
        out.push({ line: index + 1, text: text.slice(k) });
        return;
      }
    }
  });
  return out;
}
