#!/usr/bin/env python3
"""Scores BFCL result files with BFCL's own checker, from a local copy of its source.

usage: bfcl_reference.py BFCL_ROOT DATA_DIR RESULTS_DIR SCORE_DIR [CATEGORY...]

BFCL_ROOT is the folder that holds the `bfcl_eval` package (for example a checkout of
ShishirPatil/gorilla's berkeley-function-call-leaderboard placed under tests/bench/.scratch).
Nothing of BFCL is part of forge: this script only imports it. Third-party packages that the
AST checking path does not use (API SDKs, tqdm, filelock, ...) are replaced by inert stubs when
they are not installed. The checker code runs unchanged, through BFCL's per-category driver
`evaluate_task`, exactly as BFCL's `bfcl evaluate` does for one model and category.

RESULTS_DIR holds <model>/<group>/BFCL_v4_<category>_result.json; the model folder name selects
BFCL's model config (and so underscore_to_dot). Prints one JSON line with timings to stdout.
"""
import importlib.abc
import importlib.machinery
import os
import sys
import time
import types

T_START = time.perf_counter()


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub

    def __or__(cls, other):
        return _Stub()

    __ror__ = __and__ = __rand__ = __add__ = __radd__ = __or__


class _Stub(metaclass=_StubMeta):
    """Stands in for any object of a missing third-party package."""

    def __or__(self, other):
        return _Stub()

    __ror__ = __and__ = __rand__ = __add__ = __radd__ = __or__

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator: keep the function
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _Stub()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub


# Third-party packages BFCL imports somewhere; stubbed only when not installed.
STUBBED = {
    "anthropic", "bs4", "cohere", "datamodel_code_generator", "dotenv", "faiss", "filelock",
    "google", "html2text", "httpx", "mistralai", "numpy", "openai", "overrides", "pandas",
    "qwen_agent", "rank_bm25", "sentence_transformers", "serpapi", "tabulate", "tenacity", "tqdm",
    "transformers", "tree_sitter", "tree_sitter_java", "tree_sitter_javascript", "typer", "wandb",
    "writerai", "boto3", "botocore",
}


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        top = fullname.split(".")[0]
        if top not in STUBBED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


def main():
    out = sys.stdout
    sys.stdout = sys.stderr  # BFCL prints progress; keep stdout for the figures
    bfcl_root, data_dir, results_dir, score_dir = sys.argv[1:5]
    only = set(sys.argv[5:])
    sys.path.insert(0, bfcl_root)
    import importlib.util

    for name in sorted(STUBBED):
        try:
            if importlib.util.find_spec(name) is not None:
                STUBBED.discard(name)
        except (ImportError, ValueError):
            pass
    sys.meta_path.insert(0, _StubFinder())
    from pathlib import Path

    os.environ.setdefault("BFCL_PROJECT_ROOT", score_dir)
    import bfcl_eval.utils as utils
    from bfcl_eval.eval_checker import eval_runner

    utils.PROMPT_PATH = Path(data_dir)
    utils.POSSIBLE_ANSWER_PATH = Path(data_dir) / "possible_answer"
    t_imported = time.perf_counter()

    # time spent in the per-entry checks alone (decoding + checker), for reference
    per_entry = [0.0]

    def timed(fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                per_entry[0] += time.perf_counter() - t
        return wrapper

    eval_runner._evaluate_single_ast_entry = timed(eval_runner._evaluate_single_ast_entry)
    eval_runner._evaluate_single_relevance_entry = timed(eval_runner._evaluate_single_relevance_entry)

    entries = 0
    check_seconds = 0.0
    for model in sorted(os.listdir(results_dir)):
        model_dir = os.path.join(results_dir, model)
        handler = eval_runner.get_handler(model.replace("_", "/"))
        for group in sorted(os.listdir(model_dir)):
            for name in sorted(os.listdir(os.path.join(model_dir, group))):
                category = name[len("BFCL_v4_"):-len("_result.json")]
                if only and category not in only:
                    continue
                model_result = utils.load_file(os.path.join(model_dir, group, name))
                t0 = time.perf_counter()
                eval_runner.evaluate_task(category, Path(results_dir), Path(score_dir), model_result,
                                          model, handler, {})
                check_seconds += time.perf_counter() - t0
                entries += len(model_result)
    t_end = time.perf_counter()
    import json

    print(json.dumps({"entries": entries, "import_seconds": t_imported - T_START,
                      "evaluate_seconds": check_seconds, "entry_check_seconds": per_entry[0],
                      "total_seconds": t_end - T_START}), file=out)


if __name__ == "__main__":
    main()
