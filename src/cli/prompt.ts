/**
 * Yes/no questions on a terminal. Callers ask only when stdin and stderr are terminals; off a terminal
 * commands never prompt (they fail with a message naming the flag instead).
 */
import { createInterface } from "node:readline/promises";

/** Asks `question [y/N]` on stderr; true only for an answer starting with y. */
export async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^\s*y/i.test(answer);
  } finally {
    rl.close();
  }
}
