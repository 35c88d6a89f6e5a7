/**
 * Telling a leftover from work in progress. What funes writes aside carries the writing process's id:
 * `.build-<sha>-<pid>-<rand>` views, `.trash-<pid>-<rand>` folders on their way out, `<pid>-…` stages,
 * `<etag>.<pid>-<rand>.incomplete` downloads. One whose process no longer runs on this machine is a
 * leftover, safe to remove.
 */

/** True when a process with this id runs on this machine. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The process id a name funes wrote aside carries, or null for a name that is not one of those. */
export function writerPid(name: string): number | null {
  const rest = name.startsWith(".build-")
    ? name.slice(".build-".length + 41)
    : name.startsWith(".trash-")
      ? name.slice(".trash-".length)
      : name.endsWith(".incomplete")
        ? name.slice(name.indexOf(".") + 1)
        : name;
  const pid = Number(/^(\d+)-/.exec(rest)?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** True when `name` was written aside by a process that is gone (never this one). */
export function processGone(name: string): boolean {
  const pid = writerPid(name);
  return pid !== null && pid !== process.pid && !processAlive(pid);
}
