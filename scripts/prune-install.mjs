/**
 * Runs after `npm install -g funes` (the package's postinstall): leaves out of the installed package what
 * Node never loads on this machine, so the install stays small.
 *
 * - LanceDB's embedding-function extras: `@lancedb/lancedb` lists `@huggingface/transformers` and `openai`
 *   as optional dependencies for embedding functions funes never calls; where they install (they need
 *   github.com for an old onnxruntime's GPU build), they and whatever only they use are removed.
 * - Native builds for other platforms: onnxruntime-node ships its runtime for every OS and CPU; only this
 *   machine's stays.
 *
 * What stays is computed, not listed: every package reachable from funes's own dependencies by Node's
 * lookup, following each package's dependencies, optional and peer dependencies except the edges above.
 * It acts only where funes owns the tree (`ownsTree`: a global install); as a dependency of someone's
 * project, under npx, or in a checkout it does nothing. Output goes to stderr; a failure leaves the install
 * as npm made it and never fails the install.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Dependency edges funes never follows at run time: package → dependencies it never loads. */
export const NEVER_LOADED = { "@lancedb/lancedb": ["@huggingface/transformers", "openai"] };

/** Packages that ship native builds for every platform: the folder holding `<platform>/<arch>` builds. */
export const PER_PLATFORM = { "onnxruntime-node": "bin/napi-v6" };

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** Where Node finds `name` when `from` (a package folder) imports it, or null; never above `root`. */
function resolve(from, name, root) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return candidate;
    }
    if (dir === root || dirname(dir) === dir) return null;
  }
}

/** Every package folder under `dir`'s node_modules, nested ones included. */
function installed(dir, out = []) {
  const nm = join(dir, "node_modules");
  if (!existsSync(nm)) return out;
  for (const entry of readdirSync(nm)) {
    if (entry.startsWith(".")) continue;
    const names = entry.startsWith("@") ? readdirSync(join(nm, entry)).map((n) => join(entry, n)) : [entry];
    for (const name of names) {
      const pkg = join(nm, name);
      if (!existsSync(join(pkg, "package.json"))) continue;
      out.push(pkg);
      installed(pkg, out);
    }
  }
  return out;
}

function sizeOf(path) {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const e of readdirSync(path)) total += sizeOf(join(path, e));
  return total;
}

/**
 * What a pruned install of the package at `root` keeps and leaves out. `platform`/`arch` name this
 * machine's native builds.
 */
export function planPrune(root, platform = process.platform, arch = process.arch) {
  const rootPkg = readJson(join(root, "package.json")) ?? {};
  const reachable = new Set();
  const queue = [];
  const visit = (from, name) => {
    const dir = resolve(from, name, root);
    if (dir !== null && !reachable.has(dir)) {
      reachable.add(dir);
      queue.push(dir);
    }
  };
  for (const name of Object.keys(rootPkg.dependencies ?? {})) visit(root, name);
  while (queue.length > 0) {
    const dir = queue.shift();
    const pkg = readJson(join(dir, "package.json"));
    // A manifest that cannot be read hides what its package needs: nothing is removed on a guess.
    if (pkg === null) throw new Error(`cannot read ${join(dir, "package.json")}`);
    const skip = new Set(NEVER_LOADED[pkg.name] ?? []);
    const deps = {
      ...pkg.peerDependencies,
      ...pkg.optionalDependencies,
      ...pkg.dependencies,
    };
    for (const name of Object.keys(deps)) if (!skip.has(name)) visit(dir, name);
  }
  // Nothing reachable lies inside an unreachable package (Node's lookup climbs, never descends into a
  // sibling), so removing the outermost unreachable folders removes exactly the unreachable ones.
  const remove = installed(root).filter((dir) => !reachable.has(dir));
  const outer = remove.filter((dir) => !remove.some((o) => o !== dir && dir.startsWith(o + sep)));
  for (const [name, folder] of Object.entries(PER_PLATFORM)) {
    const dir = join(root, "node_modules", name);
    const builds = join(dir, folder);
    if (!reachable.has(dir) || !existsSync(builds)) continue;
    for (const os of readdirSync(builds)) {
      const osDir = join(builds, os);
      if (!statSync(osDir).isDirectory()) continue;
      if (os !== platform) outer.push(osDir);
      else
        for (const cpu of readdirSync(osDir))
          if (cpu !== arch && statSync(join(osDir, cpu)).isDirectory()) outer.push(join(osDir, cpu));
    }
  }
  return { keep: [...reachable], remove: outer };
}

/** Removes what `planPrune` leaves out and the `.bin` links left pointing at nothing; returns bytes freed. */
export function prune(root, plan = planPrune(root)) {
  let freed = 0;
  for (const path of plan.remove) {
    freed += sizeOf(path);
    rmSync(path, { recursive: true, force: true });
  }
  for (const dir of [root, ...plan.keep]) {
    const bin = join(dir, "node_modules", ".bin");
    if (!existsSync(bin)) continue;
    for (const link of readdirSync(bin))
      if (!existsSync(join(bin, link))) rmSync(join(bin, link), { force: true });
  }
  return freed;
}

/** True when `root` is an installed package (inside a node_modules folder), not a checkout. */
export function isInstalledPackage(root) {
  const parent = dirname(root);
  return basename(parent) === "node_modules" || basename(dirname(parent)) === "node_modules";
}

/**
 * True only where funes owns the tree it would prune: a global install (npm says so:
 * `npm_config_global=true`), where funes sits directly in the global `node_modules` folder, with no
 * project around it (no package.json beside that folder), so every package under `root/node_modules` was
 * installed for funes alone. As a dependency of someone's project (or under npx, which makes a project of
 * its own) the tree is shared: nothing is touched.
 */
export function ownsTree(root, env) {
  if (env.npm_config_global !== "true") return false;
  const parent = dirname(root);
  if (basename(parent) !== "node_modules") return false;
  return !existsSync(join(dirname(parent), "package.json"));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  if (ownsTree(root, process.env) && process.env.FUNES_KEEP_ALL_DEPENDENCIES !== "1") {
    try {
      const plan = planPrune(root);
      const freed = prune(root, plan);
      if (freed > 0)
        process.stderr.write(
          `funes: left out ${Math.round(freed / 1e6)} MB Node never loads here (${plan.remove
            .map((p) => relative(root, p))
            .join(", ")})\n`,
        );
    } catch (err) {
      process.stderr.write(`funes: kept every dependency (could not prune: ${err?.message ?? err})\n`);
    }
  }
}
