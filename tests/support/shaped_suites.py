"""Small projects shaped like real suites, for comparing per-test line sets between collectors.

Each suite is a mapping {relative path: source}; together they exercise classes, parametrization,
fixtures with setup and teardown at several scopes, decorators, multi-line statements, generators,
threads, doctests, and a src layout with pytest's ``pythonpath``.
"""

from __future__ import annotations

from pathlib import Path

SHAPES = '''\
"""Shapes.

>>> Square(2).area()
4
"""

import functools
import threading


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        return result

    return wrapper


class Square:
    def __init__(self, side):
        self.side = side

    @logged
    def area(self):
        return self.side * self.side

    @property
    def perimeter(self):
        return (
            self.side
            + self.side
            + self.side
            + self.side
        )


def evens(limit):
    for n in range(limit):
        if n % 2 == 0:
            yield n


def total(values,
          start=0):
    acc = start
    for v in values:
        acc += v
    return acc


def in_thread(x):
    out = []

    def work():
        out.append(x * 3)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    return out[0]


def classify(n):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    return "positive"
'''

CONFTEST = """\
import pytest

from shapes import Square


@pytest.fixture(scope="module")
def unit():
    square = Square(1)
    yield square
    square.side = None


@pytest.fixture
def big():
    square = Square(10)
    yield square
    del square
"""

TEST_SHAPES = """\
import pytest

from shapes import Square, classify, evens, in_thread, total


class TestSquare:
    def test_area(self, unit):
        assert unit.area() == 1

    def test_perimeter(self, big):
        assert big.perimeter == 40


@pytest.mark.parametrize("n, kind", [(-1, "negative"), (0, "zero"), (5, "positive")])
def test_classify(n, kind):
    assert classify(n) == kind


def test_generator():
    assert list(evens(7)) == [0, 2, 4, 6]


def test_multiline_call():
    assert total(
        [1, 2,
         3],
        start=10,
    ) == 16


def test_thread():
    assert in_thread(4) == 12
"""

INI = "[pytest]\naddopts = --doctest-modules\npythonpath = src\ntestpaths = src tests\n"

SUITES: dict[str, dict[str, str]] = {
    "flat": {"shapes.py": SHAPES, "tests/conftest.py": CONFTEST, "tests/test_shapes.py": TEST_SHAPES},
    "src-doctests": {
        "pytest.ini": INI,
        "src/shapes.py": SHAPES,
        "tests/conftest.py": CONFTEST,
        "tests/test_shapes.py": TEST_SHAPES,
    },
}


def write_suite(root: Path, name: str) -> Path:
    for rel, text in SUITES[name].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
