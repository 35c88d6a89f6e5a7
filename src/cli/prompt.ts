/**
 * Questions on a terminal. Callers ask only when stdin and stderr are terminals; off a terminal commands
 * never prompt (they fail with a message naming the flag instead).
 *
 * readline runs with `terminal: false`: the terminal's own line discipline echoes and edits the answer, and
 * readline writes the question as plain text. In terminal mode it would also write cursor moves and
 * erases (`ESC[1G ESC[0J … ESC[32G`), which the output guard (output-guard.ts) rightly escapes, so the
 * question would show as `\u001b[1G\u001b[0J…` on a real terminal.
 */
import { createInterface, type Interface } from "node:readline/promises";

/** A reader of answers typed on stdin, its questions written on stderr without cursor codes. */
export function answerReader(): Interface {
  return createInterface({ input: process.stdin, output: process.stderr, terminal: false });
}

/** Asks `question [y/N]` (or `[Y/n]` when yes is the default) on stderr; an empty answer takes the default. */
export async function askYesNo(question: string, defaultYes = false): Promise<boolean> {
  const rl = answerReader();
  try {
    const answer = (await rl.question(`${question} ${defaultYes ? "[Y/n]" : "[y/N]"} `)).trim();
    return answer === "" ? defaultYes : /^y/i.test(answer);
  } catch {
    return false;
  } finally {
    rl.close();
  }
}
