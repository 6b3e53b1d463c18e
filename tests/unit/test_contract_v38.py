"""Contract v3.8: precise on honest changes. Each rule from both sides of its line: what a careful
reviewer would not stop (passes now) and what still fails."""

from __future__ import annotations

import pytest

from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.observer_rules import parse_parent_files
from oracle_gate.judge.policy import DEFAULT_TESTS, Policy
from oracle_gate.judge.pysource import parse_tree
from oracle_gate.judge.rebinding import dynamic_rebinding_sites, modules_to_read, with_dynamic_rebinding
from oracle_gate.judge.test_dependencies import is_requirements_file, is_test_tool
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judge.version_bump import only_version_bump
from tests.support.factories import Edit, added, change_set, dedent, judge, modified, renamed

TEST_FILE = "tests/test_io.py"
PARENT = dedent(
    """
    import sys
    import unittest

    import pytest

    from pkg import io


    @pytest.mark.skipif(sys.platform == "win32", reason="no windows")
    def test_read():
        assert io.read()


    class TestWrite(unittest.TestCase):
        @unittest.skipIf(sys.version_info < (3, 12), "needs 3.12")
        def test_write(self):
            self.assertTrue(io.write())

        def test_flush(self):
            self.assertTrue(io.flush())


    def test_seek():
        if sys.platform == "darwin":
            pytest.skip("no seek on mac")
        assert io.seek()


    def test_tell():
        assert io.tell()
    """
)


def codes(v: Verdict) -> list[str]:
    return [str(c) for c in v.codes]


def judge_test_file(head: str, parent: str = PARENT, path: str = TEST_FILE, **kw: object) -> list[str]:
    return codes(judge(modified(path, parent.encode(), head.encode()), **kw))


def edited(old: str, new: str, text: str = PARENT) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def appended(code: str, text: str = PARENT) -> str:
    return text + "\n\n" + dedent(code)


SKIP_DECORATOR = appended(
    """
    def skip_if_missing(func):
        def wrapper(*args, **kwargs):
            if not io.speedups:
                raise unittest.SkipTest("no speedups")
            return func(*args, **kwargs)

        return wrapper
    """
)


# -- rule 1: skip markers, per test: not added ------------------------------------------------------

NOT_ADDED = {
    "skipif re-wrapped over three lines": edited(
        '@pytest.mark.skipif(sys.platform == "win32", reason="no windows")',
        '@pytest.mark.skipif(\n    sys.platform == "win32",\n    reason="no windows",\n)',
    ),
    "skipif's reason reworded": edited('reason="no windows"', 'reason="windows has no such file"'),
    "unittest.skipIf converted to pytest.mark.skipif": edited(
        '@unittest.skipIf(sys.version_info < (3, 12), "needs 3.12")',
        '@pytest.mark.skipif(sys.version_info < (3, 12), reason="needs 3.12")',
    ),
    "skipIf's condition given by keyword": edited(
        '@unittest.skipIf(sys.version_info < (3, 12), "needs 3.12")',
        '@unittest.skipIf(condition=sys.version_info < (3, 12), reason="needs 3.12")',
    ),
    "skipif moved below another decorator": edited(
        '@pytest.mark.skipif(sys.platform == "win32", reason="no windows")\ndef test_read():',
        '@pytest.mark.slow\n@pytest.mark.skipif(sys.platform == "win32", reason="win")\ndef test_read():',
    ),
    "imperative skip's message reworded and re-indented": edited(
        'pytest.skip("no seek on mac")',
        'pytest.skip(\n            "seek is not supported on macOS"\n        )',
    ),
    "a new test guarding itself with pytest.skip": appended(
        """
        def test_truncate():
            if not hasattr(io, "truncate"):
                pytest.skip("no truncate here")
            assert io.truncate()
        """
    ),
    "a new test with its own xfail decorator": appended(
        """
        @pytest.mark.xfail(reason="not written yet")
        def test_truncate():
            assert io.truncate()
        """
    ),
    "a new test method with skipTest": edited(
        "    def test_flush(self):",
        "    def test_sync(self):\n        self.skipTest('no sync')\n\n    def test_flush(self):",
    ),
    "a new test parametrized with a 'skip' string": appended(
        """
        @pytest.mark.parametrize("mode", ["skip", "xfail", "run"])
        def test_mode(mode):
            assert io.mode(mode)
        """
    ),
    "a new test class with a class-level marker": appended(
        """
        @pytest.mark.skipif(sys.platform == "win32", reason="posix only")
        class TestPosix:
            def test_fcntl(self):
                assert io.fcntl()
        """
    ),
    # simplejson 825100a: a new TestCase whose setUp skips where the type it tests is missing
    "a new test class whose setUp skips": appended(
        """
        class TestFrozen(unittest.TestCase):
            def setUp(self):
                try:
                    frozendict
                except NameError:
                    self.skipTest("frozendict not available")

            def test_frozen(self):
                assert io.write(frozendict())
        """
    ),
    "a new test class whose helper method skips": appended(
        """
        class TestThreads:
            def run_threads(self):
                if sys.platform == "emscripten":
                    pytest.skip("no threads")
                return io.threads()

            def test_threads(self):
                assert self.run_threads()
        """
    ),
    "a new test class whose setUpClass raises SkipTest": appended(
        """
        class TestMmap(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                raise unittest.SkipTest("no mmap")

            def test_mmap(self):
                assert io.mmap()
        """
    ),
    # pluggy e601df432: the module importorskip returned, used in a nested def, skips nothing more
    "a new test whose nested def uses the module importorskip returned": appended(
        """
        def test_conflict(monkeypatch):
            pkg_resources = pytest.importorskip("pkg_resources")

            def load():
                raise pkg_resources.VersionConflict("conflict")

            monkeypatch.setattr(io, "load", load)
            assert io.loads()
        """
    ),
    # attrs c7308a66ef, 26d8dd7957: reflection in a new test's own body runs for that test only
    "a new test that uses globals() and getattr itself, with its own skipif": appended(
        """
        @pytest.mark.skipif(sys.version_info < (3, 10), reason="3.10+")
        def test_annotations():
            names = [n for n in globals() if n.startswith("test_")]
            assert all(callable(getattr(io, n, print)) for n in names)
        """
    ),
}


@pytest.mark.parametrize("head", NOT_ADDED.values(), ids=NOT_ADDED.keys())
def test_markers_a_reviewer_would_not_stop(head: str) -> None:
    assert "skip_marker_added" not in judge_test_file(head)


def test_skip_unless_is_skipif_of_the_negation() -> None:
    parent = edited('@pytest.mark.skipif(sys.platform == "win32", reason="no windows")', "")
    parent = edited("def test_read():", '@unittest.skipUnless(io.ok, "io broken")\ndef test_read():', parent)
    head = edited(
        '@unittest.skipUnless(io.ok, "io broken")', '@pytest.mark.skipif(not io.ok, reason="x")', parent
    )
    assert "skip_marker_added" not in judge_test_file(head, parent)


def test_a_module_pytestmark_re_wrapped_is_carried_by_every_test() -> None:
    parent = PARENT + '\npytestmark = pytest.mark.skipif(sys.platform == "win32", reason="x")\n'
    head = (
        PARENT
        + '\npytestmark = [\n    pytest.mark.skipif(\n        sys.platform == "win32", reason="y"\n    )\n]\n'
    )
    assert "skip_marker_added" not in judge_test_file(head, parent)


def test_a_module_pytestmark_moved_onto_each_test() -> None:
    """A test carries the module's pytestmark: putting the same marker on it is not added."""
    parent = PARENT + '\npytestmark = pytest.mark.skipif(io.slow, reason="x")\n'
    head = parent.replace("def test_tell():", '@pytest.mark.skipif(io.slow, reason="x")\ndef test_tell():')
    assert "skip_marker_added" not in judge_test_file(head, parent)


def test_a_renamed_test_file_compares_with_its_old_self() -> None:
    head = NOT_ADDED["skipif re-wrapped over three lines"]
    v = judge(renamed(TEST_FILE, "tests/test_file_io.py", PARENT.encode(), head.encode()))
    assert "skip_marker_added" not in codes(v)


def test_a_new_test_file_may_carry_markers_on_its_tests() -> None:
    text = "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n"
    assert "skip_marker_added" not in codes(judge(added("tests/test_later.py", text.encode())))


# -- rule 1: skip markers, per test: still added ----------------------------------------------------

ADDED = {
    "a changed condition": edited('sys.platform == "win32", reason', 'sys.platform == "linux", reason'),
    "a marker on an old test that had none": edited(
        "def test_tell():", '@pytest.mark.skipif(sys.platform == "win32", reason="x")\ndef test_tell():'
    ),
    "skip turned into xfail, same condition": edited(
        '@pytest.mark.skipif(sys.platform == "win32", reason="no windows")',
        '@pytest.mark.xfail(sys.platform == "win32", reason="no windows")',
    ),
    "an unconditional skip where the parent skipped on a condition": edited(
        "    if sys.platform", '    pytest.skip("always")\n    if sys.platform'
    ),
    "skipUnless turned into skipIf of the same condition (inverted)": edited(
        '@unittest.skipIf(sys.version_info < (3, 12), "needs 3.12")',
        '@unittest.skipUnless(sys.version_info < (3, 12), "needs 3.12")',
    ),
    "a second positional condition of skipif": edited(
        'sys.platform == "win32", reason', 'sys.platform == "win32", io.slow, reason'
    ),
    "a marker in a fixture": appended(
        """
        @pytest.fixture
        def handle():
            pytest.skip("no handles today")
        """
    ),
    "a marker in a helper": appended(
        """
        def open_or_skip():
            pytest.importorskip("fcntl")
        """
    ),
    "a module-level importorskip": edited(
        "from pkg import io", "from pkg import io\n\nfcntl = pytest.importorskip('fcntl')"
    ),
    "a module-level pytestmark over old tests": PARENT + "\npytestmark = pytest.mark.skip\n",
    "a class decorator over an old class": edited(
        "class TestWrite(unittest.TestCase):", '@unittest.skip("later")\nclass TestWrite(unittest.TestCase):'
    ),
    "a pytestmark in an old class's body": edited(
        "class TestWrite(unittest.TestCase):\n",
        "class TestWrite(unittest.TestCase):\n    pytestmark = pytest.mark.xfail\n",
    ),
    "a setUp that skips": edited(
        "    def test_flush(self):",
        "    def setUp(self):\n        self.skipTest('not today')\n\n    def test_flush(self):",
    ),
    "a new test that ends the run": appended(
        """
        def test_zzz():
            pytest.exit("enough")
        """
    ),
    "a new 'test' an old test calls": appended(
        """
        def test_guard():
            pytest.skip("guarded")
        """,
        edited("    assert io.tell()", "    test_guard()\n    assert io.tell()"),
    ),
    "a new test that marks an old one": appended(
        """
        def test_setup_marks():
            TestWrite.test_flush = unittest.skip("x")(TestWrite.test_flush)
        """
    ),
    "a new class an old class derives from": edited(
        "class TestWrite(unittest.TestCase):",
        "@unittest.skip('x')\nclass TestBase(unittest.TestCase):\n    pass\n\n\nclass TestWrite(TestBase):",
    ),
    "a 'skip' string in an old test": edited("    assert io.tell()", '    assert io.tell("skip")'),
    "a helper method of an old class that now skips": edited(
        "    def test_flush(self):",
        "    def ready(self):\n        pytest.skip('not ready')\n\n    def test_flush(self):",
    ),
    "a new class's setUp that ends the run": appended(
        """
        class TestEnd(unittest.TestCase):
            def setUp(self):
                pytest.exit("enough")

            def test_end(self):
                assert io.end()
        """
    ),
    "a new class whose setUp skips, an old class derives from": edited(
        "class TestWrite(unittest.TestCase):",
        "class TestBase(unittest.TestCase):\n    def setUp(self):\n        self.skipTest('x')\n\n"
        "    def test_base(self):\n        assert io.tell()\n\n\nclass TestWrite(TestBase):",
    ),
    "an autouse fixture method of a new class": appended(
        """
        class TestLocks:
            @pytest.fixture(autouse=True)
            def no_locks(self):
                pytest.skip("no locks")

            def test_lock(self):
                assert io.lock()
        """
    ),
    "a skip in a new class's body, which runs at import": appended(
        """
        class TestAtImport:
            pytest.skip("the whole file", allow_module_level=True)

            def test_import(self):
                assert io.tell()
        """
    ),
    "a new test run at import by a decorator, skipping the file": appended(
        """
        def run_now(test):
            test()
            return test


        @run_now
        def test_now():
            pytest.skip("the whole file", allow_module_level=True)
        """
    ),
    "a new class's method its body calls at import": appended(
        """
        class TestAtDefinition:
            def helper():
                raise unittest.SkipTest("the whole file")

            helper()

            def test_defined(self):
                assert io.tell()
        """
    ),
    "a new class's setUp a class decorator calls at import": appended(
        """
        def prepared(cls):
            cls.setUp(None)
            return cls


        @prepared
        class TestPrepared(unittest.TestCase):
            def setUp(self):
                raise unittest.SkipTest("the whole file")

            def test_prepared(self):
                assert io.tell()
        """
    ),
    "a new class's setUp that marks an old test": appended(
        """
        class TestMarks(unittest.TestCase):
            def setUp(self):
                TestWrite.test_flush = unittest.skip("x")(TestWrite.test_flush)

            def test_marks(self):
                assert io.tell()
        """
    ),
    "a new test that installs a skipping lambda on an old test": appended(
        """
        def test_installs():
            TestWrite.test_flush = lambda self: pytest.skip("x")
        """
    ),
    "a new class's setUpClass that installs a skipping setUp on an old class": appended(
        """
        class TestInstalls(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                def skipping(self):
                    self.skipTest("x")

                TestWrite.setUp = skipping

            def test_installs(self):
                assert io.tell()
        """
    ),
    "a new test's nested helper that skips": appended(
        """
        def test_fcntl():
            def need(module):
                pytest.importorskip(module)

            need("fcntl")
            assert io.fcntl()
        """
    ),
    "a marker in a new class's method decorator": appended(
        """
        class TestDecorated:
            @unittest.skip("helper")
            def helper(self):
                return io.tell()

            def test_helped(self):
                assert self.helper()
        """
    ),
    # red team hred35: a new class's method (or a new test) reached from old tests or at import
    "an old class's test that calls a new class's helper found among the subclasses": appended(
        """
        class TestNew(unittest.TestCase):
            def prep(self):
                self.skipTest("x")

            def test_new(self):
                assert io.tell()
        """,
        edited(
            "        self.assertTrue(io.flush())",
            "        for case in unittest.TestCase.__subclasses__():\n"
            "            getattr(case, 'prep', print)(self)\n"
            "        self.assertTrue(io.flush())",
        ),
    ),
    "a test base's __init_subclass__ that calls a new class's setUp at import": appended(
        """
        class TestBase(unittest.TestCase):
            def __init_subclass__(cls, **kw):
                super().__init_subclass__(**kw)
                cls.setUp(None)

            def test_base(self):
                assert io.tell()


        class TestNew(TestBase):
            def setUp(self):
                raise unittest.SkipTest("the whole file")

            def test_new(self):
                assert io.tell()
        """
    ),
    "a class decorator that calls each of a new class's methods at import": appended(
        """
        def prepared(cls):
            for method in list(vars(cls).values()):
                if callable(method):
                    method(None)
            return cls


        @prepared
        class TestNew(unittest.TestCase):
            def setUp(self):
                raise unittest.SkipTest("the whole file")

            def test_new(self):
                assert io.tell()
        """
    ),
    "a metaclass that calls each of a new class's methods at import": appended(
        """
        class Prepared(type):
            def __init__(cls, *args):
                super().__init__(*args)
                for method in list(cls.__dict__.values()):
                    if callable(method):
                        method(None)


        class TestNew(unittest.TestCase, metaclass=Prepared):
            def setUp(self):
                raise unittest.SkipTest("the whole file")

            def test_new(self):
                assert io.tell()
        """
    ),
    "an old class's test that finds a new class by a string": appended(
        """
        class TestNew(unittest.TestCase):
            def setUp(self):
                self.skipTest("x")

            def test_new(self):
                assert io.tell()
        """,
        edited(
            "        self.assertTrue(io.flush())",
            "        globals()['Test' + 'New'].setUp(self)\n        self.assertTrue(io.flush())",
        ),
    ),
    "a decorator that installs a new test under an old test's name": appended(
        """
        def replacing(test):
            global test_tell
            test_tell = test
            return test


        @replacing
        def test_new():
            pytest.skip("x")
        """
    ),
    "a class decorator that installs a new class under an old class's name": appended(
        """
        def replacing(cls):
            global TestWrite
            TestWrite = cls
            return cls


        @replacing
        class TestNew(unittest.TestCase):
            def test_flush(self):
                self.skipTest("x")
        """
    ),
    "a new class bound to an old class's name": appended(
        """
        class TestNew(unittest.TestCase):
            def test_flush(self):
                self.skipTest("x")


        TestWrite = TestNew
        """
    ),
    "an old test that runs a new test through the session's items": appended(
        """
        def test_zz_new():
            pytest.skip("x")
        """,
        edited(
            "def test_tell():\n    assert",
            "def test_tell(request):\n    request.session.items[-1].runtest()\n    assert",
        ),
    ),
    "a decorator of the file's own on a new class's helper, rebuilding an old class with it": appended(
        """
        def replacing(method):
            global TestWrite
            TestWrite = type("TestWrite", (unittest.TestCase,), {"test_flush": method})
            return method


        class TestNew(unittest.TestCase):
            @replacing
            def prep(self):
                self.skipTest("x")

            def test_new(self):
                assert io.tell()
        """
    ),
    "reflection in a new test's decorator, which runs at import": appended(
        """
        class TestNew(unittest.TestCase):
            def prep(self):
                raise unittest.SkipTest("the whole file")

            def test_new(self):
                assert io.tell()


        @pytest.mark.parametrize("x", [getattr(globals()["Test" + "New"], "pr" + "ep")(None)])
        def test_param(x):
            assert x
        """
    ),
    "a base's __init_subclass__ running a new class's helper that calls its skipping helper": appended(
        """
        class Prepared:
            def __init_subclass__(cls, **kw):
                super().__init_subclass__(**kw)
                cls.outer(cls)


        class TestNew(Prepared, unittest.TestCase):
            def outer(self):
                self.prep()

            @staticmethod
            def prep():
                raise unittest.SkipTest("the whole file")

            def test_new(self):
                assert io.tell()
        """
    ),
    "a new test that installs a method it looks up by a computed name on an old class": appended(
        """
        class TestNew(unittest.TestCase):
            def prep(self):
                self.skipTest("x")

            def test_aa_installs(self):
                setattr(TestWrite, "setUp", getattr(type(self), "pr" + "ep"))
        """
    ),
}


@pytest.mark.parametrize("head", ADDED.values(), ids=ADDED.keys())
def test_markers_that_still_fail(head: str) -> None:
    assert "skip_marker_added" in judge_test_file(head)


SLOW_SKIP = "    def setUp(self):\n        if io.slow:\n            self.skipTest('slow')\n\n"
SET_UP = edited("    def test_flush(self):", SLOW_SKIP + "    def test_flush(self):")


def test_a_new_test_under_the_file_s_unchanged_skip_decorator_is_not_added() -> None:
    # simplejson 31e85c0cb7: a decorator the parent defined the same way did the same to its tests
    head = appended("@skip_if_missing\ndef test_speedups():\n    assert io.speedups()\n", SKIP_DECORATOR)
    assert "skip_marker_added" not in judge_test_file(head, parent=SKIP_DECORATOR)


def test_a_new_test_under_a_changed_local_decorator_counts() -> None:
    # the decorator is handed the test at import: changed, it may bind it under an old test's name
    changed = edited(
        "\n    return wrapper",
        "\n    global test_tell\n    test_tell = wrapper\n    return wrapper",
        SKIP_DECORATOR,
    )
    head = appended("@skip_if_missing\ndef test_speedups():\n    assert io.speedups()\n", changed)
    assert head != appended(
        "@skip_if_missing\ndef test_speedups():\n    assert io.speedups()\n", SKIP_DECORATOR
    )
    assert "skip_marker_added" in judge_test_file(head, parent=SKIP_DECORATOR)


def test_an_old_class_setup_skip_re_wrapped_is_carried_by_its_tests() -> None:
    wrapped = "self.skipTest(\n                'too slow here'\n            )"
    head = SET_UP.replace("self.skipTest('slow')", wrapped)
    assert "skip_marker_added" not in judge_test_file(head, parent=SET_UP)


def test_an_old_class_setup_skip_no_longer_guarded_counts() -> None:
    head = SET_UP.replace("        if io.slow:\n            self.skipTest", "        self.skipTest")
    assert "skip_marker_added" in judge_test_file(head, parent=SET_UP)


def test_an_old_class_setup_skip_moved_into_a_helper_counts() -> None:
    head = SET_UP.replace(SLOW_SKIP, SLOW_SKIP.replace("setUp", "helper").replace("'slow'", "'slow!'"))
    assert head != SET_UP
    assert "skip_marker_added" in judge_test_file(head, parent=SET_UP)


RUN_TEST = appended(
    """
    class TestMissingSpeedups(unittest.TestCase):
        def runTest(self):
            if hasattr(sys, 'pypy_translation_info'):
                pass
            elif hasattr(self, 'skipTest'):
                self.skipTest('_speedups.so is missing!')
    """
)


def test_a_testcase_runtest_skip_re_quoted_is_carried() -> None:
    # simplejson 16f362c: black's quotes on an old TestCase whose one test is runTest
    head = RUN_TEST.replace("'pypy_translation_info'", '"pypy_translation_info"')
    head = head.replace(
        "self.skipTest('_speedups.so is missing!')", 'self.skipTest("_speedups.so is missing!")'
    )
    assert "skip_marker_added" not in judge_test_file(head, parent=RUN_TEST)


def test_a_skip_added_to_an_old_testcase_runtest_counts() -> None:
    head = RUN_TEST.replace("            pass\n", "            self.skipTest('pypy')\n")
    assert head != RUN_TEST
    assert "skip_marker_added" in judge_test_file(head, parent=RUN_TEST)


def test_runtest_beside_test_methods_is_a_member_not_a_test() -> None:
    # pytest collects runTest only when the TestCase has no test* method: in TestWrite it is a
    # method of an old class, not a new test that may carry its own skip
    head = edited(
        "    def test_flush(self):",
        "    def runTest(self):\n        self.skipTest('x')\n\n    def test_flush(self):",
    )
    assert "skip_marker_added" in judge_test_file(head)


def test_a_marker_on_a_test_function_outside_the_tests_globs_counts_as_before() -> None:
    """Tests live in the policy's ``tests`` files: a ``def test_x`` in a source file is a helper."""
    parent = b"def helper():\n    return 1\n"
    head = parent + b"\n\ndef test_x():\n    import pytest\n    pytest.skip('x')\n"
    assert "skip_marker_added" in codes(judge(modified("src/pkg/util.py", parent, head)))


def test_a_parent_that_does_not_parse_makes_every_marker_count() -> None:
    head = NOT_ADDED["skipif re-wrapped over three lines"]
    assert "skip_marker_added" in judge_test_file(head, PARENT + "\ndef broken(:\n")


def test_a_condition_too_deep_to_compare_counts_and_never_crashes() -> None:
    """A marker whose condition nests deeper than the comparison can walk: fail closed, no traceback."""
    deep = "@pytest.mark.skipif(" + "a+" * 1000 + "a, reason='x')\ndef test_a():\n    pass\n"
    parent = "import pytest\n\n\n" + deep
    head = parent.replace("reason='x'", "reason='y'")
    assert parse_tree(head.encode()) is not None  # parsed: the comparison itself meets the depth
    assert "skip_marker_added" in judge_test_file(head, parent)


def test_forbid_skip_markers_false_still_turns_everything_off() -> None:
    head = ADDED["a changed condition"]
    assert "skip_marker_added" not in judge_test_file(head, policy=Policy(forbid_skip_markers=False))


# -- rule 2: no v3.2 inside ignored files ----------------------------------------------------------

CONF = dedent(
    """
    project = "pkg"


    def setup(app):
        return {}
    """
)
CONF_EXEC = CONF.replace(
    'project = "pkg"\n', 'project = "pkg"\nfor line in open("../pkg/__init__.py"):\n    exec(line)\n'
)
IGNORE_DOCS = Policy(ignore=("docs/**",))
TESTS = GlobSet(DEFAULT_TESTS)
INDEX = ModuleIndex(frozenset({"docs/conf.py", "pkg/__init__.py", "pkg/io.py"}))


def conf_change(path: str = "docs/conf.py") -> Edit:
    return modified(path, CONF.encode(), CONF_EXEC.encode())


def test_exec_in_an_ignored_docs_conf_is_not_dynamic_rebinding() -> None:
    changes = change_set(conf_change())
    assert dynamic_rebinding_sites(changes, TESTS, INDEX, IGNORE_DOCS.ignored()) == []
    assert "dynamic_rebinding" not in codes(judge(conf_change(), policy=IGNORE_DOCS))


def test_exec_in_docs_conf_without_ignore_is_still_dynamic_rebinding() -> None:
    assert "dynamic_rebinding" in codes(judge(conf_change()))


def test_exec_in_a_file_the_ignore_does_not_match_is_still_dynamic_rebinding() -> None:
    assert "dynamic_rebinding" in codes(judge(conf_change("pkg/conf.py"), policy=IGNORE_DOCS))


def test_an_ignored_file_touches_no_definition_elsewhere() -> None:
    """Rules 1-2 are lifted too: ``io.read = f`` in an ignored file touches nothing of pkg/io.py."""
    io_py = b"def read():\n    return 1\n"
    head = CONF.replace('project = "pkg"\n', 'project = "pkg"\nfrom pkg import io\nio.read = print\n')
    changes = change_set(modified("docs/conf.py", CONF.encode(), head.encode()))
    parents = parse_parent_files(changes)
    assert modules_to_read(changes, TESTS, INDEX, IGNORE_DOCS.ignored()) == []
    kept = with_dynamic_rebinding(changes, TESTS, INDEX, {}, parents, ignored=IGNORE_DOCS.ignored())
    assert kept.rebound == ()
    touched = with_dynamic_rebinding(changes, TESTS, INDEX, {"pkg/io.py": io_py}, parents)
    assert [r.path for r in touched.rebound] == ["pkg/io.py"]


def test_an_ignored_file_is_still_protected_and_still_runner_configuration() -> None:
    """``ignore`` lifts v3.2 only: a skip marker, a conftest.py, a protected path there still fail."""
    v = judge(
        modified("docs/conftest.py", b"X = 1\n", b"X = 2\n"),
        modified(
            "docs/helpers.py", b"X = 1\n", b"import pytest\npytest.skip('x', allow_module_level=True)\n"
        ),
        policy=Policy(ignore=("docs/**",), protected=("docs/frozen/**",)),
    )
    assert set(codes(v)) >= {"runner_config_changed", "skip_marker_added"}


# -- rule 3: version bumps in setup.py -------------------------------------------------------------

SETUP = dedent(
    """
    from setuptools import setup

    VERSION = "3.19.1"

    setup(
        name="pkg",
        version=VERSION,
        install_requires=["requests"],
    )
    """
)
SETUP_KEYWORD = 'from setuptools import setup\n\nsetup(name="pkg", version="1.4.0", packages=["pkg"])\n'
BUMPS = {
    "a module-level VERSION": (SETUP, SETUP.replace('"3.19.1"', '"3.19.2"')),
    "a version= keyword": (SETUP_KEYWORD, SETUP_KEYWORD.replace("1.4.0", "1.5.0.dev0")),
    "a version= keyword, re-wrapped": (
        SETUP_KEYWORD,
        "from setuptools import setup\n\nsetup(\n    name='pkg',\n    version='1.5',\n"
        "    packages=['pkg'],\n)\n",
    ),
    "__version__ and version together": (
        '__version__ = version = "1.0"\n' + SETUP_KEYWORD,
        '__version__ = version = "1.1"\n' + SETUP_KEYWORD.replace("1.4.0", "1.1"),
    ),
    "an annotated __version__": ('__version__: str = "1.0"\n', '__version__: str = "2.0"\n'),
}


@pytest.mark.parametrize(("old", "new"), BUMPS.values(), ids=BUMPS.keys())
def test_a_version_bump_of_setup_py_is_not_runner_config(old: str, new: str) -> None:
    assert only_version_bump(old.encode(), new.encode())
    assert codes(judge(modified("setup.py", old.encode(), new.encode()))) == ["live_surface_covers_diff"]


EDITS = {
    "a bump and a new dependency": (
        SETUP,
        SETUP.replace('"3.19.1"', '"3.20"').replace('["requests"]', '["requests", "x"]'),
    ),
    "another string changed": (SETUP, SETUP.replace('"pkg"', '"pkg2"')),
    "a computed version": (SETUP_KEYWORD, SETUP_KEYWORD.replace('"1.4.0"', 'open("VERSION").read()')),
    "a version that is not a string": (SETUP_KEYWORD, SETUP_KEYWORD.replace('"1.4.0"', "1.5")),
    "a version assigned inside a function": (
        'def v():\n    version = "1"\n    return version\n',
        'def v():\n    version = "2"\n    return version\n',
    ),
    "another name assigned": ('RELEASE = "1"\n', 'RELEASE = "2"\n'),
    "a side that does not parse": (SETUP, SETUP.replace('"3.19.1"', '"3.19.2"') + "setup(\n"),
}


@pytest.mark.parametrize(("old", "new"), EDITS.values(), ids=EDITS.keys())
def test_other_edits_of_setup_py_are_still_runner_config(old: str, new: str) -> None:
    assert not only_version_bump(old.encode(), new.encode())
    assert "runner_config_changed" in codes(judge(modified("setup.py", old.encode(), new.encode())))


@pytest.mark.parametrize(
    "edit",
    [
        added("setup.py", SETUP.encode()),
        renamed("setup.py", "build/setup.py", SETUP.encode(), SETUP.replace("3.19.1", "3.19.2").encode()),
    ],
    ids=["added", "renamed with a bump"],
)
def test_a_setup_py_added_or_moved_is_still_runner_config(edit: Edit) -> None:
    assert "runner_config_changed" in codes(judge(edit))


def test_a_version_bump_elsewhere_than_setup_py_is_judged_as_before() -> None:
    """Rule 3 is about setup.py: a noxfile.py bumping a VERSION is still a runner file edited."""
    assert "runner_config_changed" in codes(
        judge(modified("noxfile.py", b'VERSION = "1"\n', b'VERSION = "2"\n'))
    )


# -- rule 4: test tools in any requirements file, setup.cfg test extras ----------------------------


@pytest.mark.parametrize(
    ("path", "counts"),
    [
        ("requirements.txt", True),
        ("tests/requirements.txt", True),
        ("docs/requirements.txt", True),
        ("requirements/base.txt", True),
        ("requirements/docs.in", True),
        ("constraints.txt", True),
        ("Requirements.TXT", True),
        ("requirements/README.md", True),  # under a requirements directory, whatever its name
        ("setup.cfg", False),
        ("notes/requirement.txt", False),
        ("requirements.md", False),
    ],
)
def test_requirements_files_by_name(path: str, counts: bool) -> None:
    assert is_requirements_file(path) is counts


@pytest.mark.parametrize(
    ("name", "tool"),
    [
        ("pytest", True),
        ("PyTest", True),
        ("pytest-randomly", True),
        ("pytest_cov", True),
        ("Pytest.Mock", True),
        ("coverage", True),
        ("covdefaults", False),
        ("pytestarch", False),
        ("sphinx", False),
    ],
)
def test_test_tools_by_normalized_name(name: str, tool: bool) -> None:
    assert is_test_tool(name) is tool


STOPPING_REQUIREMENTS = {
    "requirements.txt gains a plugin": (
        "requirements.txt",
        "requests==2.32\n",
        "requests==2.32\npytest-randomly==3.15\n",
    ),
    "tests/requirements.txt gains xdist": (
        "tests/requirements.txt",
        "pytest==8.3\n",
        "pytest==8.3\npytest-xdist\n",
    ),
    "requirements/base.txt bumps coverage": (
        "requirements/base.txt",
        "coverage==7.5\n",
        "coverage[toml]==7.6\n",
    ),
    "docs/requirements.txt gains pytest_cov": ("docs/requirements.txt", "sphinx\n", "sphinx\npytest_cov\n"),
    "pytest removed": ("requirements.txt", "pytest\nrequests\n", "requests\n"),
    "a marker of pytest changed": ("requirements.txt", "pytest\n", 'pytest; python_version < "3.13"\n'),
    "an include added": ("requirements.txt", "requests\n", "requests\n-r extra.txt\n"),
    "a local directory of a plugin": ("requirements.txt", "requests\n", "requests\n./vendor/pytest-foo\n"),
    "a URL of unknown name": (
        "requirements.txt",
        "requests\n",
        "requests\nhttps://x.test/archive/main.zip\n",
    ),
    "a URL naming a plugin": (
        "requirements.txt",
        "requests\n",
        "requests\ngit+https://x.test/p.git#egg=pytest-foo\n",
    ),
    "a wheel of a plugin": (
        "requirements.txt",
        "requests\n",
        "requests\nhttps://x.test/pytest_foo-1.0-py3-none-any.whl\n",
    ),
    "not UTF-8": ("requirements.txt", "pytest\n", "pytest\n\udcff\n"),
}


@pytest.mark.parametrize(
    ("path", "old", "new"), STOPPING_REQUIREMENTS.values(), ids=STOPPING_REQUIREMENTS.keys()
)
def test_test_tools_in_any_requirements_file_are_runner_config(path: str, old: str, new: str) -> None:
    v = judge(modified(path, old.encode(), new.encode("utf-8", "surrogateescape")))
    assert (v.verdict, codes(v)[0]) == ("fail", "runner_config_changed")


HONEST_REQUIREMENTS = {
    "a runtime dependency added": ("requirements.txt", "requests==2.31\n", "requests==2.32\nidna\n"),
    "docs dependencies bumped": ("docs/requirements.txt", "sphinx==7\n", "sphinx==8\nfuro\n"),
    "comments and order around pytest": (
        "requirements.txt",
        "pytest==8\nrequests\n",
        "# tests\nrequests\npytest == 8\n",
    ),
    "the project itself installed with an extra": ("docs-requirements.txt", "-e .[docs]\n", "sphinx\n"),
    "an index option changed": ("requirements/base.txt", "--index-url https://a.test\nidna\n", "idna\n"),
}


@pytest.mark.parametrize(("path", "old", "new"), HONEST_REQUIREMENTS.values(), ids=HONEST_REQUIREMENTS.keys())
def test_other_requirements_are_not_runner_config(path: str, old: str, new: str) -> None:
    assert "runner_config_changed" not in codes(judge(modified(path, old.encode(), new.encode())))


SETUP_CFG = dedent(
    """
    [metadata]
    name = pkg

    [options.extras_require]
    tests =
        pytest
        hypothesis
    docs =
        sphinx
    """
)


@pytest.mark.parametrize(
    "new",
    [
        SETUP_CFG.replace("    hypothesis\n", "    hypothesis\n    pytest-randomly\n"),
        SETUP_CFG.replace("tests =\n    pytest\n    hypothesis\n", ""),
        SETUP_CFG.replace("docs =", "Testing =\n    pytest-xdist\ndocs ="),
        SETUP_CFG + "dev =\n    tox\n",
    ],
    ids=["a plugin in tests", "tests removed", "a Testing extra added", "a dev extra added"],
)
def test_setup_cfg_test_extras_are_runner_config(new: str) -> None:
    v = judge(modified("setup.cfg", SETUP_CFG.encode(), new.encode()))
    assert (v.verdict, codes(v)[0]) == ("fail", "runner_config_changed")
    assert "[options.extras_require]" in v.reasons[0].detail


@pytest.mark.parametrize(
    "new",
    [
        SETUP_CFG.replace("    sphinx\n", "    sphinx\n    furo\n"),
        SETUP_CFG.replace("    pytest\n    hypothesis\n", "    hypothesis  # property tests\n    pytest\n"),
        SETUP_CFG.replace("name = pkg", "name = pkg\nversion = 2.0"),
    ],
    ids=["a docs extra", "the tests extra reordered, commented", "metadata"],
)
def test_other_setup_cfg_edits_are_not_runner_config(new: str) -> None:
    assert "runner_config_changed" not in codes(
        judge(modified("setup.cfg", SETUP_CFG.encode(), new.encode()))
    )


# -- importorskip's result: the module it imported ----------------------------------------------------

IMPORTING_PARENT = dedent(
    """
    import pytest


    def test_entry_points(monkeypatch):
        pkg_resources = pytest.importorskip("pkg_resources")
        monkeypatch.setattr(pkg_resources, 'iter_entry_points', lambda name: iter([]))
    """
)


def test_a_line_that_uses_the_module_importorskip_returned_adds_no_marker() -> None:
    """pluggy 6587ed0d0 (black's quotes on the setattr line), an honest commit the sweep stopped."""
    head = IMPORTING_PARENT.replace("'iter_entry_points'", '"iter_entry_points"')
    assert judge_test_file(head, parent=IMPORTING_PARENT) == ["live_surface_covers_diff"]


def test_an_importorskip_added_to_that_test_still_counts() -> None:
    head = IMPORTING_PARENT.replace(
        '    pkg_resources = pytest.importorskip("pkg_resources")\n',
        '    pkg_resources = pytest.importorskip("pkg_resources")\n'
        '    other = pytest.importorskip("other")\n',
    )
    assert "skip_marker_added" in judge_test_file(head, parent=IMPORTING_PARENT)
