/**
 * The loopback Hub stand-in as its own process, so the benchmark's recall timings do not share a thread
 * with the server's request handling. Prints its URL, serves until stdin closes; `/__stats` reports counts.
 */
import { startHubStandin } from "../test/helpers/hub-standin.js";

const hub = await startHubStandin(new Map());
process.stdout.write(`${hub.url}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void hub.close().then(() => process.exit(0));
});
