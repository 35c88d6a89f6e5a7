import { describe, expect, it } from "vitest";
import { isUnreachable } from "./access.js";
import {
  HubCommitUnreachableError,
  HubConflictError,
  HubReadOnlyError,
  hubFailure,
  writeFailure,
} from "./hub-failure.js";
import { describeNetworkError, HubConnectionLostError, isNetworkFailure } from "./network-error.js";

const withCause = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code }) });

describe("isUnreachable", () => {
  it("looks at the cause: network codes, timeouts and a lost download are offline", () => {
    for (const code of [
      "ENOTFOUND",
      "ECONNREFUSED",
      "ETIMEDOUT",
      "UND_ERR_SOCKET",
      "CERT_HAS_EXPIRED",
      "HF_HUB_OFFLINE",
    ])
      expect(isUnreachable(withCause(code)), code).toBe(true);
    const aggregate = new TypeError("fetch failed", {
      cause: new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })]),
    });
    expect(isUnreachable(aggregate)).toBe(true);
    expect(isUnreachable(Object.assign(new Error("t"), { name: "TimeoutError" }))).toBe(true);
    expect(isUnreachable(new HubConnectionLostError("download of a.lance failed: terminated"))).toBe(true);
    expect(isUnreachable({ statusCode: 503 })).toBe(true);
    // A port fetch refuses to use: undici's "fetch failed" with a cause that has no code.
    expect(isUnreachable(new TypeError("fetch failed", { cause: new Error("bad port") }))).toBe(true);
  });

  it("is false for a TypeError without a network cause, a disk error, and a 4xx", () => {
    expect(isUnreachable(new TypeError("Invalid URL"))).toBe(false);
    expect(
      isUnreachable(new TypeError("Failed to parse URL from x", { cause: withCause("ERR_INVALID_URL") })),
    ).toBe(false);
    expect(isNetworkFailure(withCause("ENOSPC"))).toBe(false);
    expect(isUnreachable({ statusCode: 403 })).toBe(false);
  });

  it("describes a lost connection like undici's own", () => {
    expect(describeNetworkError(new HubConnectionLostError("terminated"), "http://127.0.0.1:9/x")).toBe(
      "127.0.0.1:9: connection closed",
    );
  });
});

describe("hubFailure", () => {
  it("maps statuses and network causes to meanings once", () => {
    const status = (statusCode: number) => Object.assign(new Error("said no"), { statusCode });
    expect(hubFailure(status(401))?.kind).toBe("no_access");
    expect(hubFailure(status(403))).toEqual({ kind: "hub_refused", detail: "HTTP 403: said no" });
    expect(hubFailure(status(404))?.kind).toBe("not_found");
    expect(hubFailure(status(502))?.kind).toBe("offline");
    expect(hubFailure(withCause("ENOTFOUND"), "https://hub.example")).toEqual({
      kind: "offline",
      detail: "hub.example: DNS lookup failed",
    });
    expect(hubFailure(new RangeError("bug"))).toBeNull();
  });
});

describe("writeFailure", () => {
  it("says what a failed commit, squash or creation means, once for all of them", () => {
    const status = (statusCode: number) => Object.assign(new Error("said no"), { statusCode });
    const o = { hubUrl: "https://hub.example", readOnly: "the token cannot write this repo" };
    expect(writeFailure(status(412), o)).toBeInstanceOf(HubConflictError);
    expect(writeFailure(status(409), o)).toBeInstanceOf(HubConflictError);
    const denied = writeFailure(status(403), o);
    expect(denied).toBeInstanceOf(HubReadOnlyError);
    expect(denied?.message).toBe("the token cannot write this repo");
    expect(writeFailure(status(401), { ...o, readOnly: "HTTP 401" })?.message).toBe("HTTP 401");
    const down = writeFailure(status(503), o);
    expect(down).toBeInstanceOf(HubCommitUnreachableError);
    expect(down?.message).toBe("HTTP 503");
    const refused = writeFailure(withCause("ECONNREFUSED"), o);
    expect(refused).toBeInstanceOf(HubCommitUnreachableError);
    expect(refused?.message).toBe("hub.example: connection refused");
    // Anything else is the caller's to throw as it is.
    expect(writeFailure(status(400), o)).toBeNull();
    expect(writeFailure(new RangeError("bug"), o)).toBeNull();
  });
});
