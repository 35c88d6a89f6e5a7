import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { parseHubUri } from "../remote/index.js";
import {
  clearHookRefusal,
  readHookRefusals,
  recordHookRefusal,
  takeUnwarnedRefusals,
} from "./hook-refusals.js";
import { readPublishConsent, recordPublishConsent, withdrawPublishConsent } from "./publish-consent.js";

let t: { dir: string; cleanup: () => void };
beforeAll(() => {
  t = tempDir();
});
afterAll(() => t.cleanup());

const TEAM = "hf://datasets/acme/team";

describe("consent to publish into a memory", () => {
  it("is kept per memory with the agents that gave it, and dropped with the last of them", () => {
    const home = join(t.dir, "consent");
    expect(readPublishConsent(home, TEAM)).toBeNull();
    expect(withdrawPublishConsent(home, "claude")).toEqual([]);
    recordPublishConsent(home, parseHubUri(TEAM), "claude", Date.UTC(2026, 11, 5));
    recordPublishConsent(home, parseHubUri(TEAM), "codex", Date.UTC(2026, 11, 5));
    recordPublishConsent(home, parseHubUri("hf://datasets/acme/other"), "codex", 0);
    expect(readPublishConsent(home, TEAM)).toMatchObject({ uri: TEAM, agents: ["claude", "codex"] });
    expect(withdrawPublishConsent(home, "claude")).toEqual([]);
    expect(readPublishConsent(home, TEAM)?.agents).toEqual(["codex"]);
    expect(withdrawPublishConsent(home, "codex").sort()).toEqual(["hf://datasets/acme/other", TEAM]);
    expect(readPublishConsent(home, TEAM)).toBeNull();
  });
});

describe("hook push refusals", () => {
  it("are warned of once each, a new refusal anew, and cleared by a push that publishes", () => {
    const home = join(t.dir, "refusals");
    const loc = parseHubUri(TEAM);
    const declined = {
      memory: "acme/team",
      code: "declined",
      message: `${TEAM} holds 398 chunks and shares none with your memory`,
      fix: "funes push acme/team --yes",
    };
    recordHookRefusal(home, loc, declined, Date.UTC(2026, 11, 5, 10));
    expect(readHookRefusals(home)).toEqual([
      { uri: TEAM, ...declined, at: "2026-12-05T10:00:00.000Z", warned: false },
    ]);
    expect(takeUnwarnedRefusals(home).map((r) => r.fix)).toEqual(["funes push acme/team --yes"]);
    expect(takeUnwarnedRefusals(home)).toEqual([]);
    // The hook refusing again on the next turn is the same refusal: no second warning.
    recordHookRefusal(home, loc, declined, Date.UTC(2026, 11, 5, 11));
    expect(takeUnwarnedRefusals(home)).toEqual([]);
    expect(readHookRefusals(home)[0]?.at).toBe("2026-12-05T11:00:00.000Z");
    // Another reason is another refusal.
    recordHookRefusal(
      home,
      loc,
      { ...declined, code: "held_back", message: "held back", fix: "funes scrub" },
      Date.UTC(2026, 11, 5, 12),
    );
    expect(takeUnwarnedRefusals(home).map((r) => r.code)).toEqual(["held_back"]);
    clearHookRefusal(home, loc);
    expect(readHookRefusals(home)).toEqual([]);
    expect(existsSync(join(home, "hook-refusals"))).toBe(true);
  });
});
