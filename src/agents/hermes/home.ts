import { agentFolder } from "../../traces/index.js";

/** Where Hermes keeps its configuration and sessions: `$HERMES_HOME`, else `~/.hermes`. */
export function hermesHome(o: { home: string; env: Record<string, string | undefined> }): string {
  return agentFolder("hermes", o.home, o.env);
}
