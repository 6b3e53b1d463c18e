"""Contract v2's Python structure (oracle_gate.judge.pyscope, oracle_gate.judge.observer_rules) from
plain values."""

from __future__ import annotations

import pytest

from oracle_gate.judge.changes import FileChange, FileStatus
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.observer_rules import edited_tests, inner_touched, observers_of_touched
from oracle_gate.judge.pyscope import MAX_PARSE_BYTES, PythonFile, parse_python, rebound_lines
from tests.support.factories import change_set, dedent, modified

SOURCE = dedent(
    '''
    import os


    @decorate
    @twice
    def top(x):
        """Doc."""

        def inner():
            return x

        return inner()


    class TestGroup:
        def test_y(self):
            assert True

        async def test_z(self):
            pass
    '''
).encode()


def parsed(source: bytes = SOURCE) -> PythonFile:
    result = parse_python(source)
    assert result is not None
    return result


def test_a_function_span_runs_from_its_first_decorator_to_its_last_line() -> None:
    top = next(f for f in parsed().functions if f.name == "top")
    assert (top.start, top.end, top.classes) == (4, 12, ())


def test_the_innermost_function_holds_a_line() -> None:
    f = parsed()
    inner, outer = f.innermost_function(10), f.innermost_function(8)
    assert (inner.name if inner else None, outer.name if outer else None) == ("inner", "top")
    assert f.innermost_function(1) is None


def test_a_test_id_names_its_function_inside_its_classes_without_parameters() -> None:
    f = parsed()
    assert [s.name for s in f.test_functions("t.py::TestGroup::test_y[1-a]")] == ["test_y"]
    assert [s.name for s in f.test_functions("t.py::TestGroup::test_z")] == ["test_z"]
    assert f.test_functions("t.py::test_y") == []  # not at module level
    assert f.test_functions("t.py::inner") == []  # nested in a function: no test id names it


@pytest.mark.parametrize(
    "source",
    [
        b"def broken(:\n",
        b"x = 1\0\n",
        b"x = " + b"(" * 200_000 + b")" * 200_000 + b"\n",  # too deep for the parser
        b"#" * (MAX_PARSE_BYTES + 1),
    ],
    ids=["syntax", "null-byte", "deep", "oversized"],
)
def test_what_cannot_be_parsed_within_bounds_gives_no_structure(source: bytes) -> None:
    assert parse_python(source) is None


@pytest.mark.parametrize(
    "statement",
    [
        "top = 1",
        "top: int = 1",
        "top += 1",
        "import top",
        "import os as top",
        "from os import path as top",
        "def top():\n    pass",
        "class top:\n    pass",
        "for top in range(2):\n    pass",
        "with open('x') as (a, top):\n    pass",
        "if True:\n    top = 2",
    ],
)
def test_every_kind_of_module_level_binding_rebinds_a_parent_definition(statement: str) -> None:
    head = parsed(SOURCE + b"\n\n" + statement.encode() + b"\n")
    added = range(SOURCE.count(b"\n") + 1, SOURCE.count(b"\n") + 10)
    assert rebound_lines(parsed(), head, added) == set(range(4, 13))


def test_a_binding_not_wholly_added_is_no_rebinding() -> None:
    head = parsed(SOURCE.replace(b"def top(x):", b"def top(x=1):"))
    assert rebound_lines(parsed(), head, [6]) == set()


def change(removed: set[int], insertions: tuple[tuple[int, int], ...]) -> FileChange:
    return FileChange(
        FileStatus.MODIFIED,
        "t.py",
        "t.py",
        "100644",
        "100644",
        removed=frozenset(removed),
        insertions=insertions,
    )


def test_inner_touched_lines_are_removed_lines_and_insertions_inside_one_function() -> None:
    f = parsed()
    assert inner_touched(change({1}, ((16, 17), (13, 14))), f) == {1, 16, 17}


def test_a_line_with_no_observer_inherits_its_functions_observers() -> None:
    seen = observers_of_touched({"m.py": [8, 1]}, {"m.py": {10: frozenset({"t::a"})}}, {"m.py": parsed()})
    assert seen.by_line == {"m.py": {8: frozenset({"t::a"})}}
    assert seen.inherited == {"m.py": {8}}


def test_a_test_is_edited_by_its_own_body_by_a_helper_or_by_its_file_going() -> None:
    test_src = dedent(
        """
        def test_a():
            assert 1

        def test_b():
            assert 2
        """
    ).encode()
    changes = change_set(
        modified("tests/test_t.py", test_src, test_src.replace(b"assert 1", b"pass")),
        modified("tests/helper.py", b"def h():\n    return 1\n", b"def h():\n    return 2\n"),
    )
    parents = {"tests/test_t.py": parsed(test_src), "tests/helper.py": parsed(b"def h():\n    return 1\n")}
    observers = {"tests/helper.py": {2: frozenset({"tests/test_x.py::test_h"})}}
    ids = ["tests/test_t.py::test_a", "tests/test_t.py::test_b", "tests/test_x.py::test_h"]
    edited = edited_tests(ids, changes, parents, observers, GlobSet(["tests/**"]))
    assert edited == {
        "tests/test_t.py::test_a": "this change edits its own function",
        "tests/test_x.py::test_h": "this change edits a test helper or fixture it runs",
    }
