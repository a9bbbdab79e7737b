// Validations per second of ajv 8 (draft 2020-12, strict: false) on the benchmark cases, in the
// same output format as bench_schema.c. Instances are parsed once; the timed loop is validation
// only. usage: node ajv_bench.js NODE_MODULES first|all SECONDS CASE.json...
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, mode, seconds, ...files] = process.argv.slice(2);
const Ajv2020 = require(path.join(modules, "ajv/dist/2020")).default;
for (const file of files) {
  const c = JSON.parse(fs.readFileSync(file, "utf8"));
  const ajv = new Ajv2020({ strict: false, allErrors: mode === "all" });
  const validate = ajv.compile(c.schema);
  for (const set of ["valid", "invalid"]) {
    const insts = c[set];
    for (const x of insts) {
      if (validate(x) !== (set === "valid")) {
        console.error(`${path.basename(file)}: an instance of the ${set} set validated wrongly`);
        process.exit(1);
      }
    }
    let done = 0;
    const limit = Number(seconds) * 1e9;
    const t0 = process.hrtime.bigint();
    let el;
    do {
      for (let rep = 0; rep < 200; rep++) {
        for (const x of insts) validate(x);
        done += insts.length;
      }
      el = Number(process.hrtime.bigint() - t0);
    } while (el < limit);
    console.log(JSON.stringify({ case: path.basename(file), set, per_sec: Math.round(done / (el / 1e9)) }));
  }
}
