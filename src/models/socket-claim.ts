/**
 * Taking the model server's socket path. Liveness is the listening socket itself, not a pid file: the
 * kernel refuses connections to a socket whose process is gone, so a dead server's socket is known at once
 * and replaced, whatever process now has its pid. A server listens first under its own name, then links
 * that socket into place (atomic: only when the path is free) or, over a dead server's socket, renames it
 * into place; afterwards the path is its own while it holds the same inode, which it checks to notice a
 * server that took over after it.
 */
import { chmodSync, linkSync, lstatSync, renameSync, rmSync } from "node:fs";
import { createConnection, type Server } from "node:net";
import { bindingPath, prepareSocketFolder, socketState } from "./socket-place.js";

/** How long a connection to an existing socket may take before it counts as not answering, ms. */
const PROBE_MS = 1000;

/** The outcome of taking the path. */
export type Claim = { kind: "claimed"; ino: number } | { kind: "held" } | { kind: "refused"; reason: string };

/** Listens on `path` unless a live server holds it or the place is not this user's own. */
export async function claimSocket(server: Server, path: string, funesHome: string): Promise<Claim> {
  const bad = prepareSocketFolder(path, funesHome);
  if (bad !== null) return { kind: "refused", reason: bad };
  const there = socketState(path);
  if (there.kind === "refused") return there;
  if (there.kind === "socket" && (await accepts(path))) return { kind: "held" };
  const own = bindingPath(path);
  rmSync(own, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(own, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(own, 0o600);
  const ino = lstatSync(own).ino;
  try {
    linkSync(own, path);
    rmSync(own, { force: true });
  } catch {
    // Taken since, or a filesystem without links: a live holder wins, a dead one is replaced.
    if (socketState(path).kind === "socket" && (await accepts(path))) {
      server.close();
      return { kind: "held" };
    }
    const now = socketState(path);
    if (now.kind === "refused") {
      server.close();
      return now;
    }
    renameSync(own, path);
  }
  // Another server may have done the same a moment later: the path is ours only if it holds our socket.
  if (!holds(path, ino)) {
    server.close();
    return { kind: "held" };
  }
  // A pid file of an older funes: liveness no longer reads it.
  rmSync(`${path}.pid`, { force: true });
  return { kind: "claimed", ino };
}

/** Whether `path` is still the socket with inode `ino`. */
export function holds(path: string, ino: number): boolean {
  try {
    return lstatSync(path).ino === ino;
  } catch {
    return false;
  }
}

/** Removes `path` if it is still the socket with inode `ino` (never a successor's). */
export function releaseSocket(path: string, ino: number): void {
  if (holds(path, ino)) rmSync(path, { force: true });
}

/** True when something accepts a connection on the socket (a live server, even one that is stopped). */
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    const timer = setTimeout(() => {
      s.destroy();
      resolve(true);
    }, PROBE_MS);
    s.once("connect", () => {
      clearTimeout(timer);
      s.destroy();
      resolve(true);
    });
    s.once("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
