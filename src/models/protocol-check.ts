/**
 * The model server's frames checked at the edge, both ways: a line is a request (or a reply) of exactly
 * the shapes model-server.ts defines, or it is answered with an error (or, on the client, ends the
 * connection). Nothing a peer sends can reach a handler as another type: a line `null`, a number, an op
 * funes does not know, texts that are not strings.
 */
import type { ModelRef, ServerReply, ServerRequest } from "./model-server.js";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

function isModelRef(v: unknown): v is ModelRef {
  return (
    isObject(v) &&
    (v.role === "embedder" || v.role === "reranker") &&
    typeof v.key === "string" &&
    typeof v.dir === "string"
  );
}

/** An error reply to request `id` (0 when the request had none) that is not about a model. */
export function badRequest(id: number, error: string): ServerReply {
  return { id, ok: false, error, modelError: false };
}

/** A request line as a request, or why it is not one (with its id when it had a usable one). */
export function parseRequest(line: string): ServerRequest | { id: number; error: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { id: 0, error: "the request is not JSON" };
  }
  if (!isObject(v)) return { id: 0, error: "the request is not a JSON object" };
  if (!isId(v.id)) return { id: 0, error: "the request has no numeric id" };
  const id = v.id;
  switch (v.op) {
    case "status":
    case "stop":
      return { id, op: v.op };
    case "load":
      if (isModelRef(v.model)) return { id, op: "load", model: v.model };
      break;
    case "embed":
      if (isModelRef(v.model) && isStrings(v.texts))
        return { id, op: "embed", model: v.model, texts: v.texts };
      break;
    case "score":
      if (isModelRef(v.model) && typeof v.query === "string" && isStrings(v.passages))
        return { id, op: "score", model: v.model, query: v.query, passages: v.passages };
      break;
    default:
      return { id, error: `unknown op ${JSON.stringify(v.op ?? null).slice(0, 40)}` };
  }
  return { id, error: `the ${v.op} request is missing a field or has one of the wrong type` };
}

/** A reply line as a reply, or null when it is not one. */
export function parseReply(line: string): ServerReply | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(v) || !isId(v.id)) return null;
  if (v.ok === false)
    return typeof v.error === "string"
      ? { id: v.id, ok: false, error: v.error, modelError: v.modelError === true }
      : null;
  if (v.ok !== true) return null;
  if (v.dim !== undefined && !isId(v.dim)) return null;
  if (v.vectors !== undefined && typeof v.vectors !== "string") return null;
  if (v.scores !== undefined && !(Array.isArray(v.scores) && v.scores.every((x) => typeof x === "number")))
    return null;
  if (v.status !== undefined && !isObject(v.status)) return null;
  return v as ServerReply;
}
