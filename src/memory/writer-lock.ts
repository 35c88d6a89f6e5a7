/**
 * One writer at a time. The reference takes an advisory `flock` on `$FUNES_HOME/store.lock`; Node has no
 * flock, so a `flock(1)` child holds it for us: it locks the file, says so, and keeps the lock until our
 * end of its stdin closes, which also happens when this process dies (even by kill -9). Both tools thus
 * exclude each other. Where `flock(1)` is missing (macOS), an exclusive-create owner file with our pid is
 * used instead, and a dead owner's file is taken over.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Another process holds the writer lock. */
export class WriterBusyError extends Error {
  constructor() {
    super("another funes memory operation is in progress; retry in a moment");
  }
}

/** A held lock; `release` is idempotent and resolves once another process could take the lock. */
export interface WriterLock {
  release(): Promise<void>;
}

const BUSY_EXIT = 75;

/** Takes the writer lock at `path` without waiting; throws WriterBusyError when it is held. */
export async function acquireWriterLock(path: string): Promise<WriterLock> {
  mkdirSync(dirname(path), { recursive: true });
  const viaFlock = await tryFlock(path);
  if (viaFlock !== "unavailable") return viaFlock;
  return ownerFileLock(`${path}.owner`);
}

function tryFlock(path: string): Promise<WriterLock | "unavailable"> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(
        "flock",
        ["-n", "-E", String(BUSY_EXIT), path, "sh", "-c", "echo locked; exec cat >/dev/null"],
        {
          stdio: ["pipe", "pipe", "ignore"],
        },
      );
    } catch {
      resolve("unavailable");
      return;
    }
    let settled = false;
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      if (err.code === "ENOENT") resolve("unavailable");
      else reject(err);
    });
    child.on("exit", (code) => {
      if (settled) return;
      settled = true;
      if (code === BUSY_EXIT) reject(new WriterBusyError());
      else resolve("unavailable");
    });
    child.stdout?.once("data", () => {
      if (settled) return;
      settled = true;
      child.unref();
      child.stdout?.destroy();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      const exited = new Promise<void>((done) => {
        if (child.exitCode !== null) done();
        else child.once("exit", () => done());
      });
      let released = false;
      resolve({
        async release() {
          if (!released) {
            released = true;
            // Keep this process alive until the lock holder has exited.
            child.ref();
            child.stdin?.end();
          }
          await exited;
        },
      });
    });
  });
}

function ownerFileLock(path: string): WriterLock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" });
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {}
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(path, "utf8"));
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new WriterBusyError();
      unlinkSync(path);
    }
  }
  throw new WriterBusyError();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
