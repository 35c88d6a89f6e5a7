/** Waiting on what another process does, with margins that hold on a loaded machine. */

/** Polls `check` every `every` ms until it holds or `ms` pass; returns whether it held. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
  every = 100,
): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, every)))
    if (await check()) return true;
  return check();
}
