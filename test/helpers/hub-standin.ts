/**
 * A loopback stand-in for the Hub's read endpoints, enough for the real @huggingface/hub client:
 * `GET /api/{models|datasets}/{repo}/revision/{rev}` (info with sha), `GET /api/…/tree/{rev}/{path}` (recursive,
 * paged with `Link`), `POST /api/…/paths-info/{rev}`, and `GET /[datasets/]{repo}/resolve/{rev}/{path}` with
 * Range, commits with `parentCommit` (412 when the head moved) and `POST /api/datasets/{repo}/super-squash/main`
 * (the history becomes one commit holding the head's files; LFS objects no remaining commit of any repo uses
 * are dropped, as the Hub's garbage collection eventually does). Private repos answer 401 without a token.
 * Every request is recorded; `offline` refuses them all.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { readTree } from "./fixtures.js";

/** A repo: one commit holding files (and, for datasets, the Hub's parquet conversion, if any). */
export interface StandinRepo {
  commit: string;
  files: Map<string, Buffer>;
  type?: "model" | "dataset";
  private?: boolean;
  /** What `refs/convert/parquet` points at. */
  convert?: { commit: string; files: Map<string, Buffer> };
}

/** A running stand-in. */
export interface HubStandin {
  /** Bytes received in LFS uploads and inline commit files. */
  uploadedBytes: number;
  /** Every file path committed, in order. */
  committedPaths: string[];
  /** Every commit's full file set, by sha (repo name → commits in order); a squash leaves only its own. */
  history: Map<string, { sha: string; files: Map<string, Buffer> }[]>;
  url: string;
  requests: { method: string; path: string }[];
  /** Repos by name; tests may change them (new commits) while the server runs. */
  repos: Map<string, StandinRepo>;
  /** Every LFS object the stand-in holds, by sha256. */
  lfs: Map<string, Buffer>;
  /** When true every request gets a 503. */
  offline: boolean;
  /** This many next commits are refused with 412, as if someone had just published. */
  conflicts: number;
  /**
   * Network faults: for a request it matches, `drop` cuts the connection without an answer; `truncate`
   * sends a file download's headers and half its bytes, then cuts it; `corrupt` sends a whole file download
   * with one bit flipped (same size, as a damaged disk or an altering proxy would); `forbid` answers 403 as
   * the Hub does for a token without rights to the namespace.
   */
  fault: ((method: string, path: string) => "drop" | "truncate" | "corrupt" | "forbid" | null) | null;
  /** When set, a tree listing's `Link: next` points at this origin instead of the stand-in (a hostile endpoint). */
  nextPageOrigin: string | null;
  close(): Promise<void>;
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "Content-Length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const gitOid = (b: Buffer) => createHash("sha1").update(`blob ${b.length}\0`).update(b).digest("hex");

/** Starts a stand-in on 127.0.0.1; `main` and `HEAD` name each repo's commit. */
export async function startHubStandin(
  repos: Map<string, StandinRepo>,
  opts: { pageSize?: number } = {},
): Promise<HubStandin> {
  const state: HubStandin = {
    url: "",
    requests: [],
    repos,
    offline: false,
    conflicts: 0,
    fault: null,
    nextPageOrigin: null,
    uploadedBytes: 0,
    committedPaths: [],
    history: new Map(),
    lfs: new Map(),
    close: async () => {},
  };
  const lfs = state.lfs;
  /** Heads replaced by a commit that the history does not list (a test's initial commit): still readable. */
  const earlier = new Map<string, { sha: string; files: Map<string, Buffer> }>();
  const pageSize = opts.pageSize ?? 1000;
  const find = (type: string, rest: string): [string, StandinRepo, string] | null => {
    for (const [name, repo] of repos)
      if ((repo.type ?? "model") === type && rest.startsWith(`${name}/`))
        return [name, repo, rest.slice(name.length + 1)];
    return null;
  };
  const revOk = (repo: StandinRepo, rev: string) => rev === repo.commit || rev === "main" || rev === "HEAD";
  const fileEntry = (repo: StandinRepo, p: string) => {
    const bytes = repo.files.get(p) as Buffer;
    return {
      type: "file",
      path: p,
      size: bytes.length,
      oid: gitOid(bytes),
      lfs: { oid: sha256(bytes), size: bytes.length, pointerSize: 134 },
      lastCommit: { id: repo.commit, title: "update", date: "2026-01-01T00:00:00Z" },
    };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname);
    state.requests.push({ method: req.method ?? "", path: `${path}${url.search}` });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString("utf8");
    if (path === "/__stats")
      return send(
        res,
        200,
        JSON.stringify({
          requests: state.requests.length,
          uploadedBytes: state.uploadedBytes,
          paths: state.requests.map((r) => r.path),
        }),
      );
    if (state.offline) return send(res, 503, "{}");
    const fault = state.fault?.(req.method ?? "", path) ?? null;
    if (fault === "drop") {
      req.socket.destroy();
      return;
    }
    if (fault === "forbid")
      return send(
        res,
        403,
        '{"error":"You don\'t have the rights to create a dataset under this namespace"}',
      );
    if (path === "/api/whoami-v2")
      return (req.headers.authorization ?? "").startsWith("Bearer hf_")
        ? send(res, 200, JSON.stringify({ type: "user", name: "standin-user" }))
        : send(res, 401, '{"error":"Invalid credentials"}');
    const put = /^\/__lfs\/([0-9a-f]{64})$/.exec(path);
    if (put !== null && req.method === "PUT") {
      if (sha256(raw) !== put[1]) return send(res, 400, '{"error":"sha256 mismatch"}');
      lfs.set(put[1] as string, raw);
      state.uploadedBytes += raw.length;
      return send(res, 200, "", { ETag: `"${put[1]}"` });
    }
    const batch = /^\/(?:datasets\/)?(.+)\.git\/info\/lfs\/objects\/batch$/.exec(path);
    if (batch !== null && req.method === "POST") {
      const { objects } = JSON.parse(body) as { objects: { oid: string; size: number }[] };
      const out = objects.map((o) =>
        lfs.has(o.oid)
          ? { oid: o.oid, size: o.size }
          : { oid: o.oid, size: o.size, actions: { upload: { href: `${state.url}/__lfs/${o.oid}` } } },
      );
      return send(res, 200, JSON.stringify({ transfer: "basic", objects: out }), {
        "Content-Type": "application/vnd.git-lfs+json",
      });
    }
    if (path === "/api/repos/create" && req.method === "POST") {
      const req2 = JSON.parse(body) as {
        name: string;
        organization?: string;
        type?: string;
        visibility?: string;
        private?: boolean;
      };
      const name = req2.organization === undefined ? req2.name : `${req2.organization}/${req2.name}`;
      const priv = req2.visibility === "private" || req2.private === true;
      if (repos.has(name)) return send(res, 409, '{"error":"You already created this dataset repo"}');
      const kind = req2.type === "dataset" ? "dataset" : "model";
      repos.set(name, {
        type: kind,
        private: priv === true,
        commit: createHash("sha1").update(`init:${name}`).digest("hex"),
        files: new Map([[".gitattributes", Buffer.from("*.lance filter=lfs\n")]]),
      });
      return send(res, 200, JSON.stringify({ url: `${state.url}/datasets/${name}`, name }));
    }
    const api = /^\/api\/(models|datasets)\/(.*)$/.exec(path);
    const type = api
      ? api[1] === "models"
        ? "model"
        : "dataset"
      : path.startsWith("/datasets/")
        ? "dataset"
        : "model";
    // Repo names are plain; the revision is one percent-encoded segment (`refs%2Fconvert%2Fparquet`).
    const rawApi = /^\/api\/(?:models|datasets)\/(.*)$/.exec(url.pathname);
    const rest = rawApi
      ? (rawApi[1] as string)
      : url.pathname.slice(type === "dataset" ? "/datasets/".length : 1);
    const found = find(type, rest);
    if (found === null)
      return send(res, 404, '{"error":"Repository not found"}', { "X-Error-Code": "RepoNotFound" });
    const [name, main, rawTail] = found;
    const [, rawRev = ""] = rawTail.split("/");
    const wantsConvert =
      main.convert !== undefined &&
      (decodeURIComponent(rawRev) === "refs/convert/parquet" ||
        decodeURIComponent(rawRev) === main.convert.commit);
    // Reads pinned to an earlier commit see that commit's files, as on the Hub (until a squash drops it).
    const rev0 = decodeURIComponent(rawRev);
    const past =
      rev0 === main.commit
        ? undefined
        : (state.history.get(name)?.find((c) => c.sha === rev0) ?? earlier.get(`${name}@${rev0}`));
    const repo: StandinRepo =
      wantsConvert && main.convert !== undefined
        ? { ...main, ...main.convert }
        : past !== undefined
          ? { ...main, commit: past.sha, files: past.files }
          : main;
    if (repo.private === true && req.headers.authorization === undefined)
      return send(res, 401, '{"error":"Invalid username or password."}', { "X-Error-Code": "RepoNotFound" });
    const [kind = "", ...afterKind] = rawTail.split("/");
    const rev = decodeURIComponent(afterKind[0] ?? "");
    const more = afterKind.slice(1).map(decodeURIComponent);
    if (!wantsConvert && !revOk(repo, rev))
      return send(res, 404, '{"error":"Revision not found"}', { "X-Error-Code": "RevisionNotFound" });
    const sub = more.join("/");
    if (api && kind === "preupload" && req.method === "POST") {
      const { files } = JSON.parse(body) as { files: { path: string; size: number; sample: string }[] };
      const mode = (f: { size: number; sample: string }) =>
        f.size >= 10 * 1024 * 1024 || Buffer.from(f.sample, "base64").includes(0) ? "lfs" : "regular";
      return send(
        res,
        200,
        JSON.stringify({ files: files.map((f) => ({ path: f.path, uploadMode: mode(f) })) }),
      );
    }
    if (api && kind === "commit" && req.method === "POST") {
      const lines = body
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as { key: string; value: Record<string, unknown> });
      const header = lines.find((l) => l.key === "header")?.value ?? {};
      if (state.conflicts > 0) {
        state.conflicts--;
        repo.commit = createHash("sha1").update(`${repo.commit}:moved`).digest("hex");
      }
      if (typeof header.parentCommit === "string" && header.parentCommit !== repo.commit)
        return send(res, 412, '{"error":"A commit has happened since. Please refresh and try again."}');
      earlier.set(`${name}@${repo.commit}`, { sha: repo.commit, files: repo.files });
      const next = new Map(repo.files);
      for (const l of lines) {
        const p = String(l.value.path);
        if (l.key === "file") {
          const bytes = Buffer.from(String(l.value.content), "base64");
          state.uploadedBytes += bytes.length;
          next.set(p, bytes);
        } else if (l.key === "lfsFile") {
          const bytes = lfs.get(String(l.value.oid));
          if (bytes === undefined)
            return send(res, 422, `{"error":"LFS object ${String(l.value.oid)} is missing"}`);
          next.set(p, bytes);
        } else if (l.key === "deletedFile") next.delete(p);
        if (l.key !== "header") state.committedPaths.push(p);
      }
      repo.files = next;
      repo.commit = createHash("sha1").update(`${repo.commit}:${Math.random()}`).digest("hex");
      const h = state.history.get(name) ?? [];
      h.push({ sha: repo.commit, files: next });
      state.history.set(name, h);
      return send(
        res,
        200,
        JSON.stringify({
          commitOid: repo.commit,
          commitUrl: `${state.url}/datasets/${name}/commit/${repo.commit}`,
        }),
      );
    }
    if (api && kind === "super-squash" && req.method === "POST") {
      if (req.headers.authorization === undefined) return send(res, 401, '{"error":"Unauthorized"}');
      for (const k of [...earlier.keys()]) if (k.startsWith(`${name}@`)) earlier.delete(k);
      repo.commit = createHash("sha1").update(`${repo.commit}:squash:${Math.random()}`).digest("hex");
      state.history.set(name, [{ sha: repo.commit, files: repo.files }]);
      const used = new Set<string>();
      for (const r of repos.values()) for (const b of r.files.values()) used.add(sha256(b));
      for (const h of state.history.values())
        for (const c of h) for (const b of c.files.values()) used.add(sha256(b));
      for (const oid of [...lfs.keys()]) if (!used.has(oid)) lfs.delete(oid);
      return send(res, 200, JSON.stringify({ commitId: repo.commit }));
    }
    if (api && kind === "revision")
      return send(
        res,
        200,
        JSON.stringify({
          _id: name,
          id: name,
          sha: repo.commit,
          private: repo.private === true,
          lastModified: "2026-01-01T00:00:00Z",
        }),
      );
    if (api && kind === "paths-info" && req.method === "POST") {
      const { paths } = JSON.parse(body) as { paths: string[] };
      return send(
        res,
        200,
        JSON.stringify(paths.filter((p) => repo.files.has(p)).map((p) => fileEntry(repo, p))),
        {
          "Content-Type": "application/json",
        },
      );
    }
    if (api && kind === "tree") {
      const recursive = url.searchParams.get("recursive") === "true";
      const prefix = sub === "" ? "" : `${sub}/`;
      const all = [...repo.files.keys()]
        .filter((p) => p.startsWith(prefix) && (recursive || !p.slice(prefix.length).includes("/")))
        .sort();
      if (sub !== "" && all.length === 0)
        return send(res, 404, '{"error":"Entry not found"}', { "X-Error-Code": "EntryNotFound" });
      const cursor = Number(url.searchParams.get("cursor") ?? 0);
      const page = all.slice(cursor, cursor + pageSize).map((p) => fileEntry(repo, p));
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (cursor + pageSize < all.length) {
        const next = new URL(`${state.nextPageOrigin ?? state.url}${url.pathname}${url.search}`);
        next.searchParams.set("cursor", String(cursor + pageSize));
        headers.Link = `<${next.toString()}>; rel="next"`;
      }
      return send(res, 200, JSON.stringify(page), headers);
    }
    if (!api && kind === "resolve") {
      const bytes = repo.files.get(sub);
      if (bytes === undefined) return send(res, 404, "{}", { "X-Error-Code": "EntryNotFound" });
      const common = {
        ETag: `"${sha256(bytes)}"`,
        "X-Repo-Commit": repo.commit,
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
      };
      const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? "");
      if (range !== null) {
        const start = Number(range[1]);
        const end = range[2] === "" ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
        return send(res, 206, bytes.subarray(start, end + 1), {
          ...common,
          "Content-Range": `bytes ${start}-${end}/${bytes.length}`,
        });
      }
      if (fault === "corrupt") {
        const bad = Buffer.from(bytes);
        const at = Math.floor(bad.length / 2);
        bad[at] = (bad[at] ?? 0) ^ 0x01;
        return send(res, 200, bad, common);
      }
      if (fault === "truncate") {
        res.writeHead(200, { ...common, "Content-Length": String(bytes.length) });
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      return send(res, 200, bytes, common);
    }
    return send(res, 404, "{}");
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, String(err)));
  });
  // Like the Hub, keep idle connections open longer than clients do, so a reused socket is never cut mid-request.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/**
 * A user of the stand-in at `hubUrl`: their own HOME, FUNES_HOME and HF cache under `dir`, each named after
 * `name`, and `extra` (a token, an embedder folder) on top.
 */
export function standinUser(
  dir: string,
  name: string,
  hubUrl: string,
  extra: Record<string, string> = {},
): { home: string; funesHome: string; extra: Record<string, string> } {
  const home = join(dir, `${name}-home`);
  mkdirSync(home, { recursive: true });
  return {
    home,
    funesHome: join(dir, `${name}-funes`),
    extra: { HF_HUB_CACHE: join(dir, `${name}-hf`), HF_ENDPOINT: hubUrl, ...extra },
  };
}

/** A memory's table folder (`…/chunks.lance`) as the files of a repo holding it at its root. */
export function tableRepoFiles(tableDir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [p, b] of readTree(tableDir)) out.set(`chunks.lance/${p}`, b);
  return out;
}
