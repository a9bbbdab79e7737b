// Runs agent-eval-harness's tool-use checks (the reference) over a JSONL file of trajectories:
// validateTrajectory + summarizeResultVerification per line, one JSON result line out per
// trajectory, as `forge check --format jsonl` does.
// usage: node ref_check.mjs LIB_DIR TRAJECTORIES.jsonl TOOLS.json
import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [libDir, file, toolsFile] = process.argv.slice(2);
const { validateTrajectory } = await import(pathToFileURL(path.join(libDir, "validator.js")));
const { summarizeResultVerification } = await import(pathToFileURL(path.join(libDir, "result-verifier.js")));

const schemas = {};
for (const t of JSON.parse(readFileSync(toolsFile, "utf8"))) {
  const f = t.function ?? t;
  schemas[f.name] = { name: f.name, description: f.description, parameters: f.parameters };
}

const out = [];
let n = 0;
const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const traj = JSON.parse(line);
  const validation = validateTrajectory(traj, schemas);
  const summary = summarizeResultVerification(traj);
  out.push(JSON.stringify({ trajectory_id: traj.trajectory_id, validation, summary }));
  n++;
  if (out.length >= 256) { process.stdout.write(out.join("\n") + "\n"); out.length = 0; }
}
if (out.length) process.stdout.write(out.join("\n") + "\n");
process.stderr.write(`${n} trajectories\n`);
