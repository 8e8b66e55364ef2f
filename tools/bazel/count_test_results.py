#!/usr/bin/env python3
"""Counts test outcomes over several Bazel runs and standalone checks.

Usage: count_test_results.py [--bazel [NAME=]BEP_JSON]... [--check NAME=RC_FILE]...

--bazel   the build events (--build_event_json_file) of one `bazel test` run. With
          NAME (a sanitizer config, say), its labels are reported as "NAME //a:t",
          so the same test under two configs counts twice.
--check   a check outside Bazel (the consumer workspace, a fuzz target) that left its
          exit status in RC_FILE; it passed when the file holds 0.

Prints the failed and skipped tests, then one line `N passed, N failed` (with
`, N skipped` when some were). Exits 1 when any test failed, was not built or did not
run, or when any named result is missing: a run that never happened is a failure,
not a smaller total.

A Bazel test is counted from Bazel's own events: its testSummary status when it ran,
SKIPPED when Bazel aborted it as incompatible (e.g. CUDA targets without CUDA), and
failed in every other case (a test that did not build did not pass).
"""

import argparse
import json
import sys

PASSING = {"PASSED", "FLAKY"}


def read_events(path):
    """Yields the build events of a --build_event_json_file, one JSON object per line."""
    with open(path, encoding="utf-8") as events:
        for number, line in enumerate(events, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path}:{number}: not a build event: {error}")


def classify_bazel_tests(path):
    """Returns {label: "passed" | "failed: <why>" | "skipped"} for every test target."""
    tests = set()
    summaries = {}
    aborted = {}
    for event in read_events(path):
        event_id = event.get("id", {})
        if "targetConfigured" in event_id and "testSize" in event.get("configured", {}):
            tests.add(event_id["targetConfigured"]["label"])
        elif "testSummary" in event_id:
            summaries[event_id["testSummary"]["label"]] = event["testSummary"]["overallStatus"]
        elif "targetCompleted" in event_id and "aborted" in event:
            aborted[event_id["targetCompleted"]["label"]] = event["aborted"].get("reason", "UNKNOWN")
    outcomes = {}
    for label in sorted(tests):
        if label in summaries:
            status = summaries[label]
            outcomes[label] = "passed" if status in PASSING else f"failed: {status}"
        elif aborted.get(label) == "SKIPPED":
            outcomes[label] = "skipped"
        elif label in aborted:
            outcomes[label] = f"failed: not built ({aborted[label]})"
        else:
            outcomes[label] = "failed: not built or not run"
    return outcomes


def check_outcome(path):
    """Reads the exit status a check left in `path`."""
    try:
        with open(path, encoding="utf-8") as status:
            code = status.read().strip()
    except FileNotFoundError:
        return "failed: did not run"
    return "passed" if code == "0" else f"failed: exit status {code}"


def split_named(value, need_name):
    name, sep, path = value.partition("=")
    if not sep:
        if need_name:
            raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {value!r}")
        return "", value
    return name, path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bazel", action="append", default=[],
                        type=lambda v: split_named(v, need_name=False))
    parser.add_argument("--check", action="append", default=[],
                        type=lambda v: split_named(v, need_name=True))
    args = parser.parse_args(argv[1:])
    if not args.bazel and not args.check:
        parser.error("nothing to count: give at least one --bazel or --check")

    outcomes = {}
    for name, path in args.bazel:
        prefix = f"{name} " if name else ""
        try:
            run = classify_bazel_tests(path)
        except FileNotFoundError:
            print(f"no Bazel build events at {path}: bazel test did not run", file=sys.stderr)
            run = {"bazel test": "failed: no results"}
        for label, outcome in run.items():
            outcomes[prefix + label] = outcome
    for name, path in args.check:
        outcomes[name] = check_outcome(path)

    passed = sum(1 for outcome in outcomes.values() if outcome == "passed")
    skipped = sorted(label for label, outcome in outcomes.items() if outcome == "skipped")
    failed = sorted(label for label, outcome in outcomes.items() if outcome.startswith("failed"))
    for label in skipped:
        print(f"SKIPPED {label}")
    for label in failed:
        print(f"FAILED  {label} ({outcomes[label][len('failed: '):]})")
    line = f"{passed} passed, {len(failed)} failed"
    if skipped:
        line += f", {len(skipped)} skipped"
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
