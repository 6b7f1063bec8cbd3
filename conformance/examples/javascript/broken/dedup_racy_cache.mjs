// Deliberately broken: runs the calls as concurrent async tasks, but fills the cache only
// after a call's result is awaited, so a duplicate started meanwhile runs the tool again.
// The tools answer synchronously and the adapter never holds a call in flight, yet the
// race shows: every task checks the cache before any of them resumes from its await.
// parcall: breaks DEDUP-CACHE-HIT
export { execute_tool_calls, dumps } from "../solution.mjs";
import { dumps } from "../solution.mjs";

export async function run_parallel_calls(tools, calls) {
  const cache = {};
  await Promise.all(
    calls.map(async (call) => {
      const key = `${call.name}(${dumps(call.args ?? {})})`;
      if (key in cache) return; // the race: another task may be awaiting this key right now
      const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
      let result;
      if (tool === undefined) {
        result = `error: unknown tool '${call.name}'`;
      } else {
        try {
          result = await tool(call.args ?? {});
        } catch (e) {
          result = `error: ${e.message}`;
        }
      }
      if (!(key in cache)) cache[key] = result;
    }),
  );
  return cache;
}
