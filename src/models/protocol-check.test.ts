import { describe, expect, it } from "vitest";
import { parseReply, parseRequest } from "./protocol-check.js";

describe("model server frames", () => {
  it("a request of another shape is an error with its id, never a request", () => {
    for (const line of ["null", "42", '"status"', "[]", "{", '{"op":"status"}', '{"id":-1,"op":"status"}'])
      expect(parseRequest(line), line).toMatchObject({ id: 0, error: expect.any(String) });
    const model = { role: "embedder", key: "k", dir: "/m" };
    expect(parseRequest(JSON.stringify({ id: 3, op: "embed", model, texts: ["a", 1] }))).toMatchObject({
      id: 3,
    });
    expect(
      parseRequest(JSON.stringify({ id: 4, op: "score", model, query: 1, passages: [] })),
    ).toHaveProperty("error");
    expect(
      parseRequest(JSON.stringify({ id: 5, op: "load", model: { ...model, role: "x" } })),
    ).toHaveProperty("error");
    expect(parseRequest(JSON.stringify({ id: 6, op: "rm -rf" }))).toHaveProperty("error");
    expect(parseRequest(JSON.stringify({ id: 7, op: "embed", model, texts: ["a"] }))).toEqual({
      id: 7,
      op: "embed",
      model,
      texts: ["a"],
    });
  });

  it("a reply of another shape is null", () => {
    for (const line of ["null", "{}", '{"id":1}', '{"id":1,"ok":true,"scores":["x"]}', '{"id":1,"ok":false}'])
      expect(parseReply(line), line).toBeNull();
    expect(parseReply('{"id":1,"ok":true,"scores":[0.5]}')).toEqual({ id: 1, ok: true, scores: [0.5] });
  });
});
