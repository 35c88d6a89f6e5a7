/**
 * `get`'s short ids, as git resolves an abbreviated commit: over a real Lance memory in a temp folder.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { numberedChunk } from "../../test/helpers/chunks.js";
import { tempDir } from "../../test/helpers/fixtures.js";
import { LocalStore } from "../local/index.js";
import type { SingleMemory } from "../memory/index.js";
import { FunesError } from "./errors.js";
import { getTurn, resolveTurnIds, shortTurnId } from "./get.js";

const A = "7028acdd-e85a-4fa0-88a5-71f4103333a0";
const B = "7028ac11-0000-4000-8000-000000000000";
const PI = "2026-01-05T10-20-30-123Z_9b1e0c2f-0000-4000-8000-000000000000";
let t: { dir: string; cleanup: () => void };

beforeAll(async () => {
  t = tempDir();
  const store = await LocalStore.openOrCreate(t.dir);
  await store.append([
    numberedChunk(1, { sessionId: A, turnUuid: "4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978" }),
    numberedChunk(2, { sessionId: A, turnUuid: "4f1c77aa-0b7d-4c5e-9a1f-2d3c4b5a6978" }),
    numberedChunk(3, { sessionId: B, turnUuid: `${B}-3` }),
    numberedChunk(4, { sessionId: PI, turnUuid: "e1" }),
  ]);
});
afterAll(() => t.cleanup());
const local = (): SingleMemory => ({ kind: "local", dir: t.dir, label: t.dir, isDefault: true });

describe("short ids", () => {
  it("shortens a uuid to 8 characters, a session-and-number id to its number", () => {
    expect(shortTurnId(A, "4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978")).toBe("4f1c2e9a");
    expect(shortTurnId(B, `${B}-12`)).toBe("12");
    expect(shortTurnId(B, "4821")).toBe("4821");
  });

  it("resolves an unambiguous prefix of the session (or of what follows its timestamp) and of the turn", async () => {
    const memory = local();
    expect(await resolveTurnIds(memory, "7028acdd", "4f1c2e9a")).toEqual({
      sessionId: A,
      turnUuid: "4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978",
    });
    expect(await resolveTurnIds(memory, "7028ac11", "3")).toEqual({ sessionId: B, turnUuid: `${B}-3` });
    expect(await resolveTurnIds(memory, "9b1e0c2f", "e1")).toEqual({ sessionId: PI, turnUuid: "e1" });
    const turns = await getTurn(memory, A, "4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978", 0);
    expect(turns?.[0]?.center).toBe(true);
    // Full ids pass as they are; a prefix that names nothing is left for the caller to call not found.
    expect(await resolveTurnIds(memory, A, "4f1c77aa-0b7d-4c5e-9a1f-2d3c4b5a6978")).toEqual({
      sessionId: A,
      turnUuid: "4f1c77aa-0b7d-4c5e-9a1f-2d3c4b5a6978",
    });
    expect(await resolveTurnIds(memory, "ffff0000", "x")).toEqual({ sessionId: "ffff0000", turnUuid: "x" });
    // Too short to be taken as a prefix.
    expect(await resolveTurnIds(memory, "702", "4f1c2e9a")).toEqual({
      sessionId: "702",
      turnUuid: "4f1c2e9a",
    });
  });

  it("an ambiguous prefix is an error listing the candidates", async () => {
    const memory = local();
    const session = await resolveTurnIds(memory, "7028ac", "4f1c").catch((e: unknown) => e);
    expect(session).toBeInstanceOf(FunesError);
    expect((session as FunesError).code).toBe("bad_input");
    expect((session as Error).message).toBe(
      `session "7028ac" is ambiguous: 2 sessions begin with it ("${B}", "${A}") — give more of its id`,
    );
    const turn = await resolveTurnIds(memory, "7028acdd", "4f1c").catch((e: unknown) => e);
    expect((turn as Error).message).toBe(
      `turn "4f1c" is ambiguous: 2 turns of session "${A}" begin with it ("4f1c2e9a-0b7d-4c5e-9a1f-2d3c4b5a6978", "4f1c77aa-0b7d-4c5e-9a1f-2d3c4b5a6978") — give more of its id`,
    );
  });
});
