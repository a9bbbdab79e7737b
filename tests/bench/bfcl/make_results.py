#!/usr/bin/env python3
"""Writes synthetic BFCL result files for every question of the 13 AST and relevance categories.

usage: make_results.py DATA_DIR OUT_DIR [SEED]

For each question of DATA_DIR/BFCL_v4_<category>.json one result line is built from its possible
answer: about half are accepted answers (values picked among the accepted ones, optional
parameters sometimes left out, strings re-cased), the rest carry one mutation (wrong name,
missing or extra parameter, wrong type or value, wrong number of calls, undecodable output...).
Results are written for two model settings, as BFCL lays them out:
OUT_DIR/<model>/<group>/BFCL_v4_<category>_result.json, with gpt-4o-2024-11-20-FC
(underscore_to_dot) and firefunction-v2-FC (dots kept). Deterministic for a given SEED.
"""
import json
import os
import random
import sys

CATEGORIES = [
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "irrelevance", "live_irrelevance", "live_relevance",
]
MODELS = {"gpt-4o-2024-11-20-FC": True, "firefunction-v2-FC": False}


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def literal(value, lang):
    """A Java/JavaScript literal for an accepted value (answers hold the literals as strings)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def pick(values, rnd):
    real = [v for v in values if v != ""]
    if not real:
        return None
    return rnd.choice(real)


def recase(value, rnd):
    if isinstance(value, str) and rnd.random() < 0.3:
        return rnd.choice([value.upper(), value.lower(), value.replace(" ", ""), value + "."])
    return value


def accepted_call(answer, lang, rnd):
    args = {}
    for param, values in answer.items():
        if "" in values and rnd.random() < 0.3:
            continue
        v = pick(values, rnd)
        if v is None:
            continue
        if lang != "python":
            v = literal(v, lang)
        else:
            v = recase(v, rnd)
        args[param] = v
    keys = list(args)
    rnd.shuffle(keys)
    return {k: args[k] for k in keys}


def mutate_value(v, rnd):
    kinds = ["str", "int", "float", "bool", "list", "dict", "null", "change"]
    k = rnd.choice(kinds)
    if k == "str":
        return json.dumps(v) if not isinstance(v, str) else v + " extra"
    if k == "int":
        return 42 if not isinstance(v, int) or isinstance(v, bool) else v + 1
    if k == "float":
        return float(v) if isinstance(v, int) and not isinstance(v, bool) else 2.5
    if k == "bool":
        return not v if isinstance(v, bool) else True
    if k == "list":
        if isinstance(v, list):
            return list(reversed(v)) if rnd.random() < 0.5 else v + v[:1]
        return [v]
    if k == "dict":
        if isinstance(v, dict) and v:
            d = dict(v)
            d[rnd.choice(list(d))] = "zzz" if rnd.random() < 0.5 else 7
            if rnd.random() < 0.3:
                d["unexpected_key"] = 1
            return d
        return {"k": v}
    if k == "null":
        return None
    if isinstance(v, str):
        return v[::-1]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v * 2 + 1
    return "changed"


def spell(name, u2d):
    return name.replace(".", "_") if u2d else name


def ast_result(question, answer, category, u2d, rnd):
    lang = "java" if "java" in category and "javascript" not in category else (
        "javascript" if "javascript" in category else "python")
    calls = []
    for call in answer["ground_truth"]:
        name, params = next(iter(call.items()))
        calls.append([spell(name, u2d), accepted_call(params, lang, rnd)])
    if rnd.random() < 0.5:
        mutation = rnd.choice([
            "name", "drop", "extra", "value", "value", "value", "count", "dup", "empty_list",
            "empty_str", "text", "bad_json", "not_object", "multi_key", "args_obj", "result_obj",
            "reorder", "none_item", "other_func",
        ])
        c = rnd.randrange(len(calls)) if calls else 0
        if mutation == "name" and calls:
            calls[c][0] = rnd.choice([calls[c][0] + "_v2", calls[c][0].upper(), calls[c][0][:-1],
                                      spell(calls[c][0].replace("_", "."), not u2d)])
        elif mutation == "drop" and calls and calls[c][1]:
            del calls[c][1][rnd.choice(list(calls[c][1]))]
        elif mutation == "extra" and calls:
            props = question["function"][0]["parameters"].get("properties", {})
            calls[c][1][rnd.choice(list(props) + ["verbose"]) if props else "verbose"] = "x"
        elif mutation == "value" and calls and calls[c][1]:
            k = rnd.choice(list(calls[c][1]))
            calls[c][1][k] = mutate_value(calls[c][1][k], rnd)
        elif mutation == "count" and calls:
            del calls[c]
        elif mutation == "dup" and calls:
            calls.append([calls[c][0], dict(calls[c][1])])
        elif mutation == "reorder":
            calls.reverse()
        elif mutation == "other_func" and calls:
            calls[c][0] = spell(rnd.choice(question["function"])["name"], u2d)
        elif mutation == "empty_list":
            return []
        elif mutation == "empty_str":
            return ""
        elif mutation == "text":
            return rnd.choice(["I cannot help with that.", "[func(a=1)]", "{\"a\": 1}"])
        elif mutation == "bad_json" and calls:
            return [{calls[c][0]: json.dumps(calls[c][1])[:-1]}]
        elif mutation == "not_object" and calls:
            return [{calls[c][0]: rnd.choice(["[]", "null", "5", "\"x\"", "[1, 2]"])}]
        elif mutation == "multi_key" and calls:
            return [{n: json.dumps(a), "extra_tool": "{}"} for n, a in calls]
        elif mutation == "args_obj" and calls:
            return [{n: a} for n, a in calls]
        elif mutation == "result_obj" and calls:
            return {calls[c][0]: json.dumps(calls[c][1])}
        elif mutation == "none_item":
            return ["text"] + [{n: json.dumps(a)} for n, a in calls]
    if rnd.random() < 0.5:
        rnd.shuffle(calls)
    return [{n: json.dumps(a, ensure_ascii=rnd.random() < 0.5)} for n, a in calls]


def relevance_result(question, u2d, rnd):
    funcs = question["function"]
    f = rnd.choice(funcs) if funcs else {"name": "f", "parameters": {"properties": {}}}
    args = {p: "x" for p in f.get("parameters", {}).get("required", [])}
    kind = rnd.choice(["none", "text", "one", "two", "empty_args", "bad", "obj", "not_object"])
    if kind == "none":
        return rnd.choice(["", []])
    if kind == "text":
        return "There is no suitable function."
    if kind == "one":
        return [{spell(f["name"], u2d): json.dumps(args)}]
    if kind == "two":
        return [{spell(f["name"], u2d): json.dumps(args)}, {spell(f["name"], u2d): "{}"}]
    if kind == "empty_args":
        return [{spell(f["name"], u2d): "{}"}]
    if kind == "bad":
        return [{spell(f["name"], u2d): "{\"a\": "}]
    if kind == "obj":
        return [{}]
    return [{spell(f["name"], u2d): "[]"}]


def main():
    data, out = sys.argv[1], sys.argv[2]
    seed = sys.argv[3] if len(sys.argv) > 3 else "forge-bfcl-bench"
    total = 0
    for model, u2d in MODELS.items():
        rnd = random.Random(f"{seed}:{model}")
        for category in CATEGORIES:
            group = "live" if category.startswith("live") else "non_live"
            questions = load(os.path.join(data, f"BFCL_v4_{category}.json"))
            answers = None
            if "relevance" not in category:
                answers = load(os.path.join(data, "possible_answer", f"BFCL_v4_{category}.json"))
            folder = os.path.join(out, model, group)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"BFCL_v4_{category}_result.json"), "w", encoding="utf-8") as f:
                for i, q in enumerate(questions):
                    if answers is None:
                        result = relevance_result(q, u2d, rnd)
                    else:
                        result = ast_result(q, answers[i], category, u2d, rnd)
                    f.write(json.dumps({"id": q["id"], "result": result}, ensure_ascii=False) + "\n")
                    total += 1
    print(total)


if __name__ == "__main__":
    main()
