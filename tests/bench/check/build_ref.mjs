// Transpiles agent-eval-harness's tool-use sources (TypeScript) to ES modules with the
// TypeScript compiler's transpileModule: types are erased, the code is unchanged.
// usage: node build_ref.mjs TYPESCRIPT_DIR SRC_DIR OUT_DIR
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [tsDir, src, out] = process.argv.slice(2);
const ts = createRequire(path.resolve(tsDir, "x.js"))("typescript");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "package.json"), '{"type": "module"}\n');
for (const f of ["validator.ts", "schema-checker.ts", "result-verifier.ts"]) {
  const r = ts.transpileModule(readFileSync(path.join(src, f), "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(path.join(out, f.replace(/\.ts$/, ".js")), r.outputText);
}
