"""End-to-end checks of `forge schema validate`: exact output and exit codes."""
import os
import subprocess
import tempfile
import sys

FORGE, HERE = sys.argv[1], os.path.dirname(os.path.realpath(__file__))
ABS = f"file://{HERE}/tool.schema.json#"  # the schema file's URI, in absoluteKeywordLocation
failures = 0


def run(args, want_rc, want_out=None, want_err=None):
    global failures
    p = subprocess.run([FORGE, "schema", "validate"] + args, cwd=HERE, capture_output=True, text=True)
    ok = p.returncode == want_rc
    if want_out is not None and p.stdout != want_out:
        ok = False
    if want_err is not None and want_err not in p.stderr:
        ok = False
    if not ok:
        failures += 1
        print(f"FAIL {args}\n  rc {p.returncode} (want {want_rc})\n  stdout {p.stdout!r}\n  want   {want_out!r}\n"
              f"  stderr {p.stderr!r}\n  want   {want_err!r}")


run(["tool.schema.json", "valid.json"], 0, "valid.json: valid\n")
run(["tool.schema.json", "valid.json", "invalid.json"], 1,
    "valid.json: valid\ninvalid.json: invalid\n"
    "  /city: string has 0 characters, fewer than the minimum 1 (at /properties/city/minLength)\n")
run(["--all-errors", "tool.schema.json", "invalid.json"], 1,
    "invalid.json: invalid\n"
    "  /city: string has 0 characters, fewer than the minimum 1 (at /properties/city/minLength)\n"
    "  /days: 30 is greater than the maximum 14 (at /properties/days/maximum)\n"
    "  (root): property 'wind' is not allowed (at /additionalProperties)\n")
run(["--json", "tool.schema.json", "invalid.json"], 1,
    '{"instance":"invalid.json","valid":false,"errors":[{"instanceLocation":"/city","keywordLocation":'
    f'"/properties/city/minLength","absoluteKeywordLocation":"{ABS}/properties/city/minLength",'
    '"error":"string has 0 characters, fewer than the minimum 1"}]}\n')
run(["--jsonl", "calls.jsonl", "tool.schema.json"], 2,
    '{"line":1,"valid":true,"errors":[]}\n'
    '{"line":2,"valid":false,"errors":[{"instanceLocation":"/days","keywordLocation":"/properties/days/type",'
    f'"absoluteKeywordLocation":"{ABS}/properties/days/type",'
    '"error":"expected integer, got string"}]}\n',
    "calls.jsonl:4:")
run(["--coerce", "--jsonl", "calls.jsonl", "tool.schema.json"], 2,
    '{"line":1,"valid":true,"errors":[],"coercions":[],"coerced":{"city":"Oslo"}}\n'
    '{"line":2,"valid":true,"errors":[],"coercions":[{"path":"/days","from":"2","to":2,'
    '"rule":"string-to-integer"}],"coerced":{"city":"Rome","days":2}}\n')
# anyOf over a chain of 40 $refs: 2^40 evaluations for 5; the step budget ends it
run(["--schema-steps", "1000", "exponential.schema.json", "five.json"], 2, "",
    "forge: schema validate: five.json: schema evaluation limit exceeded: more than 1000 steps "
    "validating one instance; raise it with --schema-steps N\n")
# past 4096 steps the verdicts of anyOf branches are memoised: the same schema is linear then
run(["exponential.schema.json", "five.json"], 1, "five.json: invalid\n"
    "  (root): value matches none of the 2 anyOf schemas (at /$ref/anyOf)\n")
# with a $dynamicRef in the schema nothing is memoised (verdicts depend on the dynamic scope)
run(["exponential-dynamic.schema.json", "five.json"], 2, "",
    "forge: schema validate: five.json: schema evaluation limit exceeded: more than 10000000 "
    "steps validating one instance; raise it with --schema-steps N\n")
run(["--schema-steps", "0", "exponential.schema.json", "five.json"], 2, "",
    "forge: schema validate: --schema-steps takes a whole number from 1 to 1000000000000, not '0'\n")
# a lookahead is matched by PCRE2, at every start position: \w*\d over 40 KB of letters would
# take some 15 s; the time limit of one match ends it
with tempfile.TemporaryDirectory() as tmp:
    long_json = os.path.join(tmp, "long.json")
    with open(long_json, "w") as f:
        f.write('"' + "a" * 40000 + '!"')
    run(["lookahead.schema.json", long_json], 2, "",
        f"forge: schema validate: {long_json}: a pattern ran past the 1000 ms time limit of one "
        "match (catastrophic backtracking?); simplify the pattern or raise --regex-timeout\n")
    run(["--regex-timeout", "100", "lookahead.schema.json", long_json], 2, "",
        f"forge: schema validate: {long_json}: a pattern ran past the 100 ms time limit of one "
        "match (catastrophic backtracking?); simplify the pattern or raise --regex-timeout\n")
    # the same in a member's name, tested against patternProperties (and additionalProperties)
    long_name = os.path.join(tmp, "long-name.json")
    with open(long_name, "w") as f:
        f.write('{"' + "a" * 40000 + '!": 1}')
    run(["--regex-timeout", "100", "lookahead-names.schema.json", long_name], 2, "",
        f"forge: schema validate: {long_name}: a pattern ran past the 100 ms time limit of one "
        "match (catastrophic backtracking?); simplify the pattern or raise --regex-timeout\n")
    # the example of docs/schema.md: a password rule written with lookaheads, on 40 KB
    example = os.path.join(HERE, "..", "..", "..", "evals", "schemas", "signup.schema.json")
    long_pw = os.path.join(tmp, "long-password.json")
    with open(long_pw, "w") as f:
        f.write('{"username": "ada_l", "password": "' + "a" * 40000 + '"}')
    run(["--regex-timeout", "100", example, long_pw], 2, "",
        f"forge: schema validate: {long_pw}: a pattern ran past the 100 ms time limit of one "
        "match (catastrophic backtracking?); simplify the pattern or raise --regex-timeout\n")
    good_pw = os.path.join(tmp, "password.json")
    with open(good_pw, "w") as f:
        f.write('{"username": "ada_l", "password": "correct Horse 9 battery"}')
    run([example, good_pw], 0, f"{good_pw}: valid\n")
run(["lookahead.schema.json", "valid-lookahead.json"], 0, "valid-lookahead.json: valid\n")
run(["--regex-timeout", "-1", "lookahead.schema.json", "five.json"], 2, "",
    "forge: schema validate: --regex-timeout takes a whole number from 0 to 86400000, not '-1'\n")
run(["tool.schema.json", "broken.json"], 2, "", "broken.json:4:2:")
run(["broken.json", "valid.json"], 2, "", "broken.json:4:2:")
run(["--draft", "5", "tool.schema.json", "valid.json"], 2, "", "--draft takes 4, 6, 7, 2019-09 or 2020-12")
run(["--bogus", "tool.schema.json", "valid.json"], 2, "", "unknown option '--bogus'")
run(["tool.schema.json"], 2, "", "expected SCHEMA INSTANCE")
run(["tool.schema.json", "missing.json"], 2, "", "missing.json")
# relative references of a schema without $id resolve to files beside it
run(["uses-sibling.schema.json", "kelvin.json"], 1,
    "kelvin.json: invalid\n  /unit: value must be one of [\"celsius\",\"fahrenheit\"] (at /properties/unit/$ref/enum)\n")
run(["--json", "uses-sibling.schema.json", "kelvin.json"], 1,
    '{"instance":"kelvin.json","valid":false,"errors":[{"instanceLocation":"/unit","keywordLocation":'
    f'"/properties/unit/$ref/enum","absoluteKeywordLocation":"file://{HERE}/units.json#/$defs/unit/enum",'
    '"error":"value must be one of [\\"celsius\\",\\"fahrenheit\\"]"}]}\n')
# --jsonl: verdicts and errors come out in the order of the lines (the verdicts are written in
# blocks, and before each error)
p = subprocess.run([FORGE, "schema", "validate", "--jsonl", "calls.jsonl", "tool.schema.json"], cwd=HERE,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
if [x[:10] for x in p.stdout.splitlines()] != ['{"line":1,', '{"line":2,', "forge: cal"]:
    failures += 1
    print(f"FAIL --jsonl order: {p.stdout!r}")

# --jsonl - from a pipe: each line's verdict comes out when the line arrives, not when a block
# has (or the input has ended)
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
from live import exchange  # noqa: E402
p = subprocess.Popen([FORGE, "schema", "validate", "--jsonl", "-", "tool.schema.json"], cwd=HERE,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
seen = [exchange(p, line).decode()[:30]
        for line in ('{"city": "Oslo"}', '{"city": ""}', '{"city": "Rome", "days": 3}')]
out, err = p.communicate(b"", timeout=60)
if seen != ['{"line":1,"valid":true,"errors', '{"line":2,"valid":false,"error', '{"line":3,"valid":true,"errors'] \
        or p.returncode != 1:
    failures += 1
    print(f"FAIL --jsonl - live: {seen!r} rc {p.returncode} {err!r}")

sys.exit(1 if failures else 0)
