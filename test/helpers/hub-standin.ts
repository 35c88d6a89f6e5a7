/**
 * A loopback stand-in for the Hub's model file endpoints, enough for the real @huggingface/hub client:
 * `GET /api/models/{repo}/revision/{rev}`, `POST /api/models/{repo}/paths-info/{rev}`, and
 * `GET /{repo}/resolve/{rev}/{path}` with Range. It records every request.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A model repo: one commit holding files. */
export interface StandinRepo {
  commit: string;
  files: Map<string, Buffer>;
}

/** A running stand-in. */
export interface HubStandin {
  url: string;
  requests: { method: string; path: string }[];
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

/** Starts a stand-in on 127.0.0.1 with these repos (name → repo); branch `main` names each repo's commit. */
export async function startHubStandin(repos: Map<string, StandinRepo>): Promise<HubStandin> {
  const requests: { method: string; path: string }[] = [];
  const findRepo = (path: string): [string, StandinRepo, string] | null => {
    for (const [name, repo] of repos)
      if (path.startsWith(`${name}/`)) return [name, repo, path.slice(name.length + 1)];
    return null;
  };
  const revOk = (repo: StandinRepo, rev: string) => rev === repo.commit || rev === "main" || rev === "HEAD";
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname);
    requests.push({ method: req.method ?? "", path });
    let body = "";
    for await (const c of req) body += c;
    if (path.startsWith("/api/models/")) {
      const found = findRepo(path.slice("/api/models/".length));
      if (found === null)
        return send(res, 404, '{"error":"Repository not found"}', { "X-Error-Code": "RepoNotFound" });
      const [name, repo, rest] = found;
      const [kind, rev = ""] = rest.split("/");
      if (!revOk(repo, rev))
        return send(res, 404, '{"error":"Revision not found"}', { "X-Error-Code": "RevisionNotFound" });
      if (kind === "revision")
        return send(
          res,
          200,
          JSON.stringify({
            _id: name,
            id: name,
            sha: repo.commit,
            private: false,
            lastModified: "2026-01-01T00:00:00Z",
          }),
        );
      if (kind === "paths-info" && req.method === "POST") {
        const { paths } = JSON.parse(body) as { paths: string[] };
        const out = paths
          .filter((p) => repo.files.has(p))
          .map((p) => {
            const bytes = repo.files.get(p) as Buffer;
            return {
              type: "file",
              path: p,
              size: bytes.length,
              oid: createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex"),
              lfs: {
                oid: createHash("sha256").update(bytes).digest("hex"),
                size: bytes.length,
                pointerSize: 134,
              },
              lastCommit: { id: repo.commit, title: "add model", date: "2026-01-01T00:00:00Z" },
            };
          });
        return send(res, 200, JSON.stringify(out), { "Content-Type": "application/json" });
      }
      return send(res, 404, "{}");
    }
    const found = findRepo(path.slice(1));
    const m = found === null ? null : /^resolve\/([^/]+)\/(.+)$/.exec(found[2]);
    if (found === null || m === null) return send(res, 404, "{}", { "X-Error-Code": "EntryNotFound" });
    const [, rev = "", file = ""] = m;
    const bytes = found[1].files.get(file);
    if (!revOk(found[1], rev) || bytes === undefined)
      return send(res, 404, "{}", { "X-Error-Code": "EntryNotFound" });
    const etag = `"${createHash("sha256").update(bytes).digest("hex")}"`;
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? "");
    const common = {
      ETag: etag,
      "X-Repo-Commit": found[1].commit,
      "Accept-Ranges": "bytes",
      "Content-Type": "application/octet-stream",
    };
    if (range !== null) {
      const start = Number(range[1]);
      const end = range[2] === "" ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
      return send(res, 206, bytes.subarray(start, end + 1), {
        ...common,
        "Content-Range": `bytes ${start}-${end}/${bytes.length}`,
      });
    }
    return send(res, 200, bytes, common);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
