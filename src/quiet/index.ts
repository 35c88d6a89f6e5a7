/**
 * quiet: keeping third-party chatter off stdout. `@huggingface/hub` logs each download with console.debug,
 * which would land on stdout, the MCP server's protocol channel. Calls run muted; the mute is counted, so
 * overlapping calls (several memories fetched at once) never restore it while one is still running.
 * Knows nothing of funes.
 */

let muted = 0;
let saved: typeof console.debug = console.debug;

/** Runs `fn` with console.debug muted. */
export async function withoutDebugOutput<T>(fn: () => Promise<T>): Promise<T> {
  if (muted++ === 0) {
    saved = console.debug;
    console.debug = () => {};
  }
  try {
    return await fn();
  } finally {
    if (--muted === 0) console.debug = saved;
  }
}
