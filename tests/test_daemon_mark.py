"""The `daemon` mark (tests/conftest.py): a test that uses a daemon fixture carries it,
and a test that starts a daemon or an engine without it fails, naming the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # a pytest run of its own: seconds

TESTS = '''
import subprocess, sys, pytest

LOOKS_LIKE_A_DAEMON = [sys.executable, "-c", "pass", "jacquetd", "serve"]

def test_unmarked_start():
    subprocess.run(LOOKS_LIKE_A_DAEMON, check=True)

@pytest.mark.daemon
def test_marked_start():
    subprocess.run(LOOKS_LIKE_A_DAEMON, check=True)

def test_another_program():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_a_daemon_fixture_marks(start_jacquetd, request):
    assert request.node.get_closest_marker("daemon") is not None
'''


def test_a_daemon_started_without_the_mark_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makeini("[pytest]\nmarkers =\n    daemon: d\n    slow: s\n")
    pytester.makepyfile(test_starts=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "0", "-rf")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*started without the `daemon` mark*jacquetd serve*",
                                 "FAILED test_starts.py::test_unmarked_start*"])
