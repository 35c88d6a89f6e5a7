/**
 * Named points inside the writes that must survive a kill or a race (a local forget's rewrite and cleanup, a
 * Hub forget's staging, a push's staging, its uploads done, and its commit request about to go, a Hub
 * compaction's staging). Each calls {@link reachStep}; by default that
 * does nothing. `cli/` installs a hook only when a test asks for one (`FUNES_TEST_SIGNAL_AT`, see
 * cli/test-signal.ts), so a test can stop or kill the process at exactly that point — a real signal at a
 * deterministic moment, never a timing race.
 */

let hook: ((step: string) => void) | null = null;

/** Installs the hook (cli/ only), or removes it with null. */
export function setStepHook(fn: ((step: string) => void) | null): void {
  hook = fn;
}

/**
 * Marks that the write reached `step` (`forget:rewritten`, `push:staged`, `push:uploaded`: every file sent,
 * `push:committing`: the forgotten ids looked at, the commit request next, …).
 */
export function reachStep(step: string): void {
  hook?.(step);
}
