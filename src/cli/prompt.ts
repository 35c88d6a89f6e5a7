/**
 * Questions on a terminal. Callers ask only when stdin and stderr are terminals; off a terminal commands
 * never prompt (they fail with a message naming the flag instead).
 *
 * The answer is read with the terminal in raw mode and echoed here, as the best CLIs' prompts do: an arrow
 * or function key (an escape sequence) is ignored instead of echoed as `^[[A` and read as part of the
 * answer; backspace and Ctrl-U edit; Ctrl-C interrupts as it would anywhere; Ctrl-D on an empty answer ends
 * the input. The question is wrapped at spaces to the terminal's width, and its last row (with the answer)
 * is redrawn with a return and an erase of that row only, the one cursor code the output guard lets
 * through (output-guard.ts). readline's terminal mode would write other cursor codes, which the guard
 * rightly escapes. Where stdin is not a terminal after all, a plain readline reads the line.
 */
import { createInterface } from "node:readline/promises";
import { fitText } from "./terminal-text.js";

/** What a key press is to a prompt. */
type Key = { kind: "char"; text: string } | { kind: "enter" | "erase" | "kill" | "interrupt" | "eof" };

/**
 * Splits raw terminal input into keys; escape sequences (CSI `ESC [ … final`, SS3 `ESC O x`, a lone ESC,
 * Alt+key) and other control characters are dropped. `pending` carries an escape sequence split between
 * two reads.
 */
export function keysOf(data: string, pending = ""): { keys: Key[]; pending: string } {
  const keys: Key[] = [];
  const s = pending + data;
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (c === "\x1b") {
      const next = s[i + 1];
      if (next === undefined) return { keys, pending: s.slice(i) };
      if (next === "[") {
        let j = i + 2;
        while (j < s.length && !/[@-~]/.test(s[j] as string)) j++;
        if (j >= s.length) return { keys, pending: s.slice(i) };
        i = j + 1;
      } else if (next === "O") {
        if (i + 2 >= s.length) return { keys, pending: s.slice(i) };
        i += 3;
      } else i += 2;
      continue;
    }
    i++;
    if (c === "\r" || c === "\n") keys.push({ kind: "enter" });
    else if (c === "\x7f" || c === "\b") keys.push({ kind: "erase" });
    else if (c === "\x15") keys.push({ kind: "kill" });
    else if (c === "\x03") keys.push({ kind: "interrupt" });
    else if (c === "\x04") keys.push({ kind: "eof" });
    else if (c >= " " && !/[\u0080-\u009f\u2028\u2029]/.test(c)) keys.push({ kind: "char", text: c });
  }
  return { keys, pending: "" };
}

/** The terminal's width for prompts (stderr's, else 80). */
function promptWidth(): number {
  return Math.max(20, process.stderr.columns || 80);
}

/** Reads a line in raw mode with its question on stderr; null at Ctrl-D on an empty line. */
function readRaw(question: string): Promise<string | null> {
  const input = process.stdin;
  const out = process.stderr;
  const width = promptWidth();
  const rows = fitText(question, width).split("\n");
  const last = rows.pop() ?? "";
  if (rows.length > 0) out.write(`${rows.join("\n")}\n`);
  let answer = "";
  let pending = "";
  const draw = () => {
    const cps = Array.from(answer);
    const room = Math.max(1, width - Array.from(last).length - 1);
    out.write(`\r\x1b[2K${last}${cps.slice(Math.max(0, cps.length - room)).join("")}`);
  };
  return new Promise((resolve) => {
    const finish = (value: string | null, interrupted = false) => {
      input.off("data", onData);
      input.pause();
      // Ctrl-C: the terminal gets its own mode back before the interrupt ends the run.
      if (interrupted) {
        rawHolds = 1;
        endRaw();
      }
      out.write("\n");
      if (interrupted) process.kill(process.pid, "SIGINT");
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      const r = keysOf(chunk.toString(), pending);
      pending = r.pending;
      // Typed characters are echoed as they come; only an edit redraws the row (the question once).
      let echo = "";
      let redraw = false;
      for (const k of r.keys) {
        if (k.kind === "enter") {
          if (echo !== "") out.write(echo);
          return finish(answer);
        }
        if (k.kind === "interrupt") return finish(null, true);
        if (k.kind === "eof") {
          if (answer === "") return finish(null);
          continue;
        }
        if (k.kind === "erase") {
          answer = Array.from(answer).slice(0, -1).join("");
          redraw = true;
        } else if (k.kind === "kill") {
          answer = "";
          redraw = true;
        } else if (k.kind === "char") {
          answer += k.text;
          echo += k.text;
        }
      }
      const fits = Array.from(last).length + Array.from(answer).length < width;
      if (redraw || !fits) draw();
      else out.write(echo);
    };
    // Raw before the question shows: nothing typed early is echoed by the terminal's own line discipline.
    beginRaw();
    input.setEncoding("utf8");
    input.on("data", onData);
    input.resume();
    draw();
  });
}

/** Whether answers are read in raw mode: stdin is a terminal that has one. */
function rawCapable(): boolean {
  return process.stdin.isTTY === true && typeof process.stdin.setRawMode === "function";
}

/** Raw mode holds nest: the terminal is back in its own mode when the outermost ends. */
let rawHolds = 0;

function beginRaw(): void {
  if (rawHolds++ === 0) process.stdin.setRawMode(true);
}

function endRaw(): void {
  if (rawHolds > 0 && --rawHolds === 0) process.stdin.setRawMode(false);
}

/**
 * Runs `ask` with the terminal in raw mode throughout, so what is typed between one try and the next
 * (after "please answer …") is not echoed by the terminal either.
 */
async function holdingRaw<T>(ask: () => Promise<T>): Promise<T> {
  if (!rawCapable()) return ask();
  beginRaw();
  try {
    return await ask();
  } finally {
    endRaw();
  }
}

/** Reads one answer to `question` on stderr (see the file header); null when the input ended. */
export async function askLine(question: string): Promise<string | null> {
  if (rawCapable()) return holdingRaw(() => readRaw(question));
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    return await rl.question(fitText(question, promptWidth()));
  } catch {
    return null;
  } finally {
    rl.close();
  }
}

/**
 * Asks `question [y/N]` (or `[Y/n]` when yes is the default) on stderr: an empty answer takes the default,
 * y/yes and n/no answer, anything else is asked again; the input ending is a no.
 */
export function askYesNo(question: string, defaultYes = false): Promise<boolean> {
  return holdingRaw(() => yesNo(question, defaultYes));
}

async function yesNo(question: string, defaultYes: boolean): Promise<boolean> {
  for (;;) {
    const answer = await askLine(`${question} ${defaultYes ? "[Y/n]" : "[y/N]"} `);
    if (answer === null) return false;
    const a = answer.trim().toLowerCase();
    if (a === "") return defaultYes;
    if (a === "y" || a === "yes") return true;
    if (a === "n" || a === "no") return false;
    process.stderr.write(fitText(`please answer y or n (not "${answer.trim()}")\n`, promptWidth()));
  }
}

/**
 * Asks until an answer is one of `choices` (a word or its start, any case: `i`, `inc`, `include`);
 * an empty answer is `empty`, the input ending `ended`.
 */
export async function askChoice<T extends string>(
  question: string,
  choices: readonly T[],
  o: { empty: T; ended: T },
): Promise<T> {
  return holdingRaw(() => choice(question, choices, o));
}

async function choice<T extends string>(
  question: string,
  choices: readonly T[],
  o: { empty: T; ended: T },
): Promise<T> {
  for (;;) {
    const answer = await askLine(question);
    if (answer === null) return o.ended;
    const a = answer.trim().toLowerCase();
    if (a === "") return o.empty;
    const hit = choices.find((c) => c.startsWith(a));
    if (hit !== undefined) return hit;
    process.stderr.write(
      fitText(
        `please answer ${choices.map((c) => c[0]).join(", ")} (not "${answer.trim()}")\n`,
        promptWidth(),
      ),
    );
  }
}
