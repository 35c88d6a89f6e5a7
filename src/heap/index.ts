/**
 * heap: keeping a long loop's garbage from piling up. On a machine with much memory V8 lets the old
 * generation grow to several times what is live before it collects it: a push's secret gate at a million
 * chunks left ≈ 900 MB of dead strings (each group's texts) resident before the first full collection.
 * A loop that makes garbage in rounds calls a bound's `check` once a round. Knows nothing of funes.
 * By hand: a full GC needs `--expose-gc`, which a bin cannot pass itself; npm's expose-gc is these lines.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null | undefined;

/** A full garbage collection now (a no-op where Node will not expose one). */
export function collectGarbage(): void {
  if (gc === undefined)
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    } catch {
      gc = null;
    }
  gc?.();
}

/** Default dead bytes a bound lets pile up before it collects. */
export const GARBAGE_SLACK_BYTES = 128 * 1024 * 1024;

/**
 * A bound on the heap's growth: `check()` collects when the heap has grown `slackBytes` past what was in use
 * after the last collection (or when the bound was made), so no more than about that much garbage is ever
 * resident. Each collection costs about the live heap's size to trace: a slack well above one round's
 * garbage keeps them rare.
 */
export function garbageBound(slackBytes = GARBAGE_SLACK_BYTES): { check: () => boolean } {
  const used = () => getHeapStatistics().used_heap_size;
  let base = used();
  return {
    check() {
      if (used() < base + slackBytes) return false;
      collectGarbage();
      base = used();
      return true;
    },
  };
}
