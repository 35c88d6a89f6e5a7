/**
 * Yes/no questions on a terminal. Callers ask only when stdin and stderr are terminals; off a terminal
 * commands never prompt (they fail with a message naming the flag instead).
 */
import { createInterface } from "node:readline/promises";

/** Asks `question [y/N]` (or `[Y/n]` when yes is the default) on stderr; an empty answer takes the default. */
export async function askYesNo(question: string, defaultYes = false): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} ${defaultYes ? "[Y/n]" : "[y/N]"} `)).trim();
    return answer === "" ? defaultYes : /^y/i.test(answer);
  } catch {
    return false;
  } finally {
    rl.close();
  }
}
