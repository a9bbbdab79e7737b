// ajv 8 (draft 2020-12, strict: false) on the benchmark cases, one side of slices.py (bench_schema
// serve is the other). A case file holds a schema with "valid" and "invalid" instances, or
// "groups" of them (a mixed set). Instances are parsed once, and both sets are checked (so V8
// has seen the same instances) before the process says "ready"; then each line "SET PASSES" (SET
// 0 valid, 1 invalid) is answered with the nanoseconds that many passes over the set took:
// validation only. In modes first and all the errors are objects without message text
// (messages: false), as forge's are records until rendered; first-text and all-text build each
// error's message (ajv's default), as forge renders its errors there.
// usage: node ajv_bench.js NODE_MODULES first|all|first-text|all-text serve CASE.json
//        node ajv_bench.js NODE_MODULES filter IN.json OUT.json
//   (filter keeps the groups ajv compiles and answers as the case file expects)
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, mode, ...rest] = process.argv.slice(2);
const Ajv2020 = require(path.join(modules, "ajv/dist/2020")).default;
const compile = (schema, all, messages = true) =>
  new Ajv2020({ strict: false, allErrors: all, messages, logger: false }).compile(schema);

if (mode === "filter") {
  const [inFile, outFile] = rest;
  const c = JSON.parse(fs.readFileSync(inFile, "utf8"));
  const kept = c.groups.filter((g) => {
    try {
      const v = compile(g.schema, false);
      return g.valid.every((x) => v(x) === true) && g.invalid.every((x) => v(x) === false);
    } catch (e) {
      return false;
    }
  });
  fs.writeFileSync(outFile, JSON.stringify({ groups: kept }));
  console.error(`ajv handles ${kept.length} of ${c.groups.length} groups`);
  process.exit(0);
}

const [serve, file] = rest;
if (serve !== "serve" || !file) {
  console.error("usage: node ajv_bench.js NODE_MODULES MODE serve CASE.json | filter IN.json OUT.json");
  process.exit(2);
}
// The instances of <set> of <groups>, checked to validate as the case file says.
function check(groups, set) {
  for (const { v, g } of groups) {
    for (const x of g[set]) {
      if (v(x) !== (set === "valid")) {
        console.error(`${path.basename(file)}: an instance of the ${set} set validated wrongly`);
        process.exit(1);
      }
    }
  }
}
const c = JSON.parse(fs.readFileSync(file, "utf8"));
const groups = (c.groups || [c]).map((g) => ({ v: compile(g.schema, mode.startsWith("all"), mode.endsWith("-text")), g }));
check(groups, "valid");
check(groups, "invalid");
console.log("ready");
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const [s, passes] = line.split(" ").map(Number);
  const set = s ? "invalid" : "valid";
  const t0 = process.hrtime.bigint();
  for (let rep = 0; rep < passes; rep++) for (const { v, g } of groups) for (const x of g[set]) v(x);
  console.log(String(process.hrtime.bigint() - t0));
});
