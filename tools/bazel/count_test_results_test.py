"""Tests count_test_results.py on build events shaped like Bazel 4.2's."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "count_test_results.py")


def configured(label, test=True):
    payload = {"targetKind": "cc_test rule", "testSize": "SMALL"} if test else {"targetKind": "cc_library rule"}
    return {"id": {"targetConfigured": {"label": label}}, "configured": payload}


def summary(label, status):
    return {"id": {"testSummary": {"label": label}}, "testSummary": {"overallStatus": status}}


def aborted(label, reason):
    return {"id": {"targetCompleted": {"label": label}}, "aborted": {"reason": reason}}


class CountTestResultsTest(unittest.TestCase):
    def run_script(self, events, consumer_rc, more_runs=None, missing_runs=()):
        """Runs the script on `events` (unnamed run) plus named runs
        {name: events}, a consumer check, and named runs whose files are absent."""
        with tempfile.TemporaryDirectory() as folder:
            args = []
            for name, run_events in [("", events)] + sorted((more_runs or {}).items()):
                bep = os.path.join(folder, f"bep{name}.json")
                with open(bep, "w", encoding="utf-8") as out:
                    out.write("\n".join(json.dumps(event) for event in run_events) + "\n")
                args += ["--bazel", f"{name}={bep}" if name else bep]
            for name in missing_runs:
                args += ["--bazel", f"{name}={os.path.join(folder, name + '.absent')}"]
            rc_path = os.path.join(folder, "consumer.rc")
            if consumer_rc is not None:
                with open(rc_path, "w", encoding="utf-8") as out:
                    out.write(f"{consumer_rc}\n")
            args += ["--check", f"tests/consumer/run.sh={rc_path}"]
            result = subprocess.run([sys.executable, SCRIPT] + args,
                                    capture_output=True, text=True, check=False)
        return result.returncode, result.stdout.strip().splitlines()

    def test_counts_passed_flaky_skipped_and_consumer(self):
        code, lines = self.run_script([
            configured("//a:t1"), summary("//a:t1", "PASSED"),
            configured("//a:t2"), summary("//a:t2", "FLAKY"),
            configured("//a:cuda"), aborted("//a:cuda", "SKIPPED"),
            configured("//a:lib", test=False), aborted("//a:lib", "SKIPPED"),
        ], consumer_rc=0)
        self.assertEqual(code, 0)
        self.assertEqual(lines[-1], "3 passed, 0 failed, 1 skipped")
        self.assertIn("SKIPPED //a:cuda", lines)

    def test_failed_unbuilt_and_consumer_failures_fail(self):
        code, lines = self.run_script([
            configured("//a:ok"), summary("//a:ok", "PASSED"),
            configured("//a:bad"), summary("//a:bad", "FAILED"),
            configured("//a:timeout"), summary("//a:timeout", "TIMEOUT"),
            configured("//a:unbuilt"), aborted("//a:unbuilt", "ANALYSIS_FAILURE"),
            configured("//a:never_ran"),
        ], consumer_rc=2)
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "1 passed, 5 failed")
        self.assertIn("FAILED  //a:unbuilt (not built (ANALYSIS_FAILURE))", lines)
        self.assertIn("FAILED  tests/consumer/run.sh (exit status 2)", lines)

    def test_missing_consumer_result_counts_as_failed(self):
        code, lines = self.run_script([configured("//a:ok"), summary("//a:ok", "PASSED")],
                                      consumer_rc=None)
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "1 passed, 1 failed")

    def test_named_runs_count_each_test_once_per_run(self):
        code, lines = self.run_script(
            [configured("//a:t"), summary("//a:t", "PASSED")], consumer_rc=0,
            more_runs={"asan": [configured("//a:t"), summary("//a:t", "FAILED")],
                       "tsan": [configured("//a:t"), summary("//a:t", "PASSED")]})
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "3 passed, 1 failed")
        self.assertIn("FAILED  asan //a:t (FAILED)", lines)

    def test_a_named_run_that_never_ran_fails(self):
        code, lines = self.run_script([configured("//a:t"), summary("//a:t", "PASSED")],
                                      consumer_rc=0, missing_runs=["ubsan"])
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "2 passed, 1 failed")
        self.assertIn("FAILED  ubsan bazel test (no results)", lines)

    def test_nothing_to_count_is_an_error(self):
        result = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("nothing to count", result.stderr)


if __name__ == "__main__":
    unittest.main()
