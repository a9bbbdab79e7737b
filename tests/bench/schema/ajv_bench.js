// Validations per second of ajv 8 (draft 2020-12, strict: false) on the benchmark cases, in the
// same output format as bench_schema.c. A case file holds a schema with "valid" and "invalid"
// instances, or "groups" of them (a mixed set). Instances are parsed once; the timed loop is
// validation only. In modes first and all the errors are objects without message text
// (messages: false), as forge's are records until rendered; first-text and all-text build each
// error's message (ajv's default), as forge renders its errors there. Both sets run in every mode,
// in the same order, so that V8 has seen the same instances before the invalid set is timed.
// usage: node ajv_bench.js NODE_MODULES first|all|first-text|all-text SECONDS CASE.json...
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

const [seconds, ...files] = rest;
// The instances of <set> of <groups>, checked to validate as the case file says; their count.
function check(file, groups, set) {
  let n = 0;
  for (const { v, g } of groups) {
    n += g[set].length;
    for (const x of g[set]) {
      if (v(x) !== (set === "valid")) {
        console.error(`${path.basename(file)}: an instance of the ${set} set validated wrongly`);
        process.exit(1);
      }
    }
  }
  return n;
}
if (seconds === "serve") {
  // one case file, run on request (as bench_schema's serve): "ready", then a line "SET PASSES"
  // (SET 0 valid, 1 invalid) answered with the nanoseconds that many passes over the set took
  const file = files[0];
  const c = JSON.parse(fs.readFileSync(file, "utf8"));
  const groups = (c.groups || [c]).map((g) => ({ v: compile(g.schema, mode.startsWith("all"), mode.endsWith("-text")), g }));
  check(file, groups, "valid");
  check(file, groups, "invalid");
  console.log("ready");
  require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
    const [s, passes] = line.split(" ").map(Number);
    const set = s ? "invalid" : "valid";
    const t0 = process.hrtime.bigint();
    for (let rep = 0; rep < passes; rep++) for (const { v, g } of groups) for (const x of g[set]) v(x);
    console.log(String(process.hrtime.bigint() - t0));
  });
  return;
}
for (const file of files) {
  const c = JSON.parse(fs.readFileSync(file, "utf8"));
  const text = mode.endsWith("-text");
  const groups = (c.groups || [c]).map((g) => ({ v: compile(g.schema, mode.startsWith("all"), text), g }));
  for (const set of ["valid", "invalid"]) {
    const n = check(file, groups, set);
    let done = 0;
    const limit = Number(seconds) * 1e9;
    const t0 = process.hrtime.bigint();
    let el;
    do {
      for (let rep = 0; rep < 200; rep++) {
        for (const { v, g } of groups) for (const x of g[set]) v(x);
        done += n;
      }
      el = Number(process.hrtime.bigint() - t0);
    } while (el < limit);
    console.log(JSON.stringify({ case: path.basename(file), set, per_sec: Math.round(done / (el / 1e9)) }));
  }
}
