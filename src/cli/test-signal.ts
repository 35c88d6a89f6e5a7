/**
 * A test-only hook (documented in SECURITY.md, "Forget and push"): `FUNES_TEST_SIGNAL_AT=<step>` makes this
 * process send itself `FUNES_TEST_SIGNAL` (SIGKILL by default, or SIGSTOP) when a write reaches that named
 * step (memory/steps.ts: `forget:marked`, `forget:remembered`, `forget:rewritten`, `forget:reindexed`,
 * `forget:cleaned`, `forget:hub-staged`, `push:staged`, `push:uploaded`, `push:committing`, `compact:staged`). Tests use it to kill -9 a forget at each step, or
 * to hold a push just before its commit, at a deterministic point instead of a timing race. It fires once. Before a
 * SIGSTOP it says so on stderr (`funes: test signal SIGSTOP at <step>`), so the test knows when it holds.
 */
import { setStepHook } from "../memory/index.js";

/** Installs the hook when the environment asks for one. */
export function installTestSignal(env: NodeJS.ProcessEnv): void {
  const at = env.FUNES_TEST_SIGNAL_AT;
  if (at === undefined || at === "") return;
  const signal = env.FUNES_TEST_SIGNAL === "SIGSTOP" ? "SIGSTOP" : "SIGKILL";
  let fired = false;
  setStepHook((step) => {
    if (step !== at || fired) return;
    fired = true;
    if (signal === "SIGSTOP") process.stderr.write(`funes: test signal SIGSTOP at ${step}\n`);
    process.kill(process.pid, signal);
  });
}
