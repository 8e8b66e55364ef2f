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
    def run_script(self, events, consumer_rc):
        with tempfile.TemporaryDirectory() as folder:
            bep = os.path.join(folder, "bep.json")
            with open(bep, "w", encoding="utf-8") as out:
                out.write("\n".join(json.dumps(event) for event in events) + "\n")
            rc_path = os.path.join(folder, "consumer.rc")
            if consumer_rc is not None:
                with open(rc_path, "w", encoding="utf-8") as out:
                    out.write(f"{consumer_rc}\n")
            result = subprocess.run([sys.executable, SCRIPT, bep, rc_path],
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


if __name__ == "__main__":
    unittest.main()
