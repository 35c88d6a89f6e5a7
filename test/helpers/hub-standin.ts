/**
 * A loopback stand-in for the Hub's read endpoints, enough for the real @huggingface/hub client:
 * `GET /api/{models|datasets}/{repo}/revision/{rev}` (info with sha), `GET /api/…/tree/{rev}/{path}` (recursive,
 * paged with `Link`), `POST /api/…/paths-info/{rev}`, and `GET /[datasets/]{repo}/resolve/{rev}/{path}` with
 * Range. Private repos answer 401 without a token. Every request is recorded; `offline` refuses them all.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A repo: one commit holding files. */
export interface StandinRepo {
  commit: string;
  files: Map<string, Buffer>;
  type?: "model" | "dataset";
  private?: boolean;
}

/** A running stand-in. */
export interface HubStandin {
  url: string;
  requests: { method: string; path: string }[];
  /** Repos by name; tests may change them (new commits) while the server runs. */
  repos: Map<string, StandinRepo>;
  /** When true every request gets a 503. */
  offline: boolean;
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
  const state: HubStandin = { url: "", requests: [], repos, offline: false, close: async () => {} };
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
    let body = "";
    for await (const c of req) body += c;
    if (state.offline) return send(res, 503, "{}");
    const api = /^\/api\/(models|datasets)\/(.*)$/.exec(path);
    const type = api
      ? api[1] === "models"
        ? "model"
        : "dataset"
      : path.startsWith("/datasets/")
        ? "dataset"
        : "model";
    const rest = api ? (api[2] as string) : path.slice(type === "dataset" ? "/datasets/".length : 1);
    const found = find(type, rest);
    if (found === null)
      return send(res, 404, '{"error":"Repository not found"}', { "X-Error-Code": "RepoNotFound" });
    const [name, repo, tail] = found;
    if (repo.private === true && req.headers.authorization === undefined)
      return send(res, 401, '{"error":"Invalid username or password."}', { "X-Error-Code": "RepoNotFound" });
    const [kind = "", rev = "", ...more] = tail.split("/");
    if (!revOk(repo, rev))
      return send(res, 404, '{"error":"Revision not found"}', { "X-Error-Code": "RevisionNotFound" });
    const sub = more.join("/");
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
        const next = new URL(`${state.url}${url.pathname}${url.search}`);
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
      return send(res, 200, bytes, common);
    }
    return send(res, 404, "{}");
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
