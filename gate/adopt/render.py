"""The files ``oracle-gate init`` writes, rendered; ``doctor`` renders them again to compare.

The workflow templates (``gate/adopt/workflows/``) are the example workflows with a few ``@@NAME@@``
tokens; ``examples/`` is what they render to with the examples' values, and a test keeps the two
the same (``python -m oracle_gate.adopt.render EXAMPLES_DIR`` rewrites the examples).

Each written file starts with a header line naming the gate's version, the setup and the SHA-256 of
the body below it. A file whose header is ours and whose body still has that digest is ours to
rewrite; anything else (no header, or a body someone edited) is the maintainer's, and ``init``
leaves it alone unless told ``--force``.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.adopt.detect import Detected, install_line

#: The review workflows re-judge a pull request when a review changes (contract v3.5, ``[approvals]``);
#: the bot listens to reviews itself.
REVIEW_WORKFLOWS = ("oracle-gate-review.yml", "oracle-gate-review-judge.yml")
SETUPS: dict[str, tuple[str, ...]] = {
    "primary": ("oracle-gate.yml", "oracle-gate-commands.yml", *REVIEW_WORKFLOWS),
    "fork-safe": (
        "oracle-gate-fork-safe.yml",
        "oracle-gate-fork-safe-publish.yml",
        "oracle-gate-sharded-map.yml",
        *REVIEW_WORKFLOWS,
    ),
    "bot": ("oracle-gate-map.yml",),
}
WORKFLOWS = ".github/workflows"
POLICY = "oracle-gate.toml"
DEPENDABOT = ".github/dependabot.yml"
PLACEHOLDER = "0" * 40
HEADER = re.compile(
    r"# oracle-gate init (?P<version>\S+) setup=(?P<setup>[a-z-]+)(?: app-slug=(?P<slug>[a-z0-9-]+))?"
    r"(?: map-repeat=(?P<repeat>[1-9][0-9]?))? sha256=(?P<digest>[0-9a-f]{64})\n"
)
#: ``map --repeat`` in the map workflows (contract v3.4): the parent's tests run twice, so what a
#: flaky live test observed by accident is recorded as unstable and never makes a line live. It
#: doubles the map's cost; ``init --map-repeat 1`` for suites too long for that (README, "Set it up").
DEFAULT_MAP_REPEAT = 2
MAX_MAP_REPEAT = 20  # map's own limit (oracle_gate.maps.repeat.MAX_REPEAT; adopt does not import maps)


@dataclass(frozen=True)
class Values:
    branch: str
    python: str
    install: str  # from the workspace root
    install_repo: str  # with the checkout at repo/
    ref: str  # the gate's commit to pin, or PLACEHOLDER
    map_repeat: int = DEFAULT_MAP_REPEAT  # ``oracle-gate map --repeat`` in the map workflows


def values_for(detected: Detected, ref: str | None, map_repeat: int = DEFAULT_MAP_REPEAT) -> Values:
    return Values(
        detected.default_branch,
        detected.python,
        install_line(detected),
        install_line(detected, "repo/"),
        ref or PLACEHOLDER,
        map_repeat,
    )


def render_workflow(name: str, values: Values) -> str:
    """The body of workflow ``name`` (no header)."""
    text = resources.files("oracle_gate.adopt").joinpath("workflows", name).read_text(encoding="utf-8")
    if values.ref == PLACEHOLDER:
        uses_ref = f"{PLACEHOLDER} # placeholder: the full SHA of the release you reviewed"
        env_ref = f"{PLACEHOLDER} # placeholder: the release commit you reviewed"
    else:
        uses_ref = env_ref = f"{values.ref} # pinned by oracle-gate init {__version__}"
    for token, value in (
        ("@@USES_REF@@", uses_ref),
        ("@@ENV_REF@@", env_ref),
        ("@@BRANCH@@", values.branch),
        ("@@PYTHON@@", values.python),
        ("@@INSTALL_REPO@@", values.install_repo),
        ("@@INSTALL@@", values.install),
        ("@@MAP_REPEAT@@", str(values.map_repeat)),
    ):
        text = text.replace(token, value)
    return text


def render_policy() -> str:
    """``oracle-gate.toml`` with every key at its default, spelled out (oracle_gate.judge.policy)."""
    from oracle_gate.judge.policy import Policy

    policy = Policy()

    def strings(values: tuple[str, ...]) -> str:
        return "[" + ", ".join(f'"{v}"' for v in values) + "]"

    return (
        "# Oracle Gate's policy: which paths are the oracle. The gate reads this file from the PARENT\n"
        "# commit, and it is always protected itself (as is .github/workflows/**): a pull request that\n"
        "# edits it fails. Every key below is at its default; see the gate's docs/contract.md.\n"
        f"protected = {strings(policy.protected)}\n"
        f'freeze = "{policy.freeze}"\n'
        f'fixture_lock = "{policy.fixture_lock}"\n'
        f"ignore = {strings(policy.ignore)}\n"
        f"tests = {strings(policy.tests)}\n"
        f"forbid_skip_markers = {str(policy.forbid_skip_markers).lower()}\n"
        f"protect_runner_config = {str(policy.protect_runner_config).lower()}\n"
        f'edited_observers = "{policy.edited_observers}"\n'
        "\n"
        "# Approved oracle changes (contract v3.5). Without this table no review can lift a reason of\n"
        "# an oracle edit: a person must make the change. With it, an oracle edit counts as approved\n"
        "# once `count` of the people named in `oracle` (logins, or org/team slugs; never the author;\n"
        "# holding write access when judged) approve the pull request's current head. The review\n"
        "# workflows init wrote (oracle-gate-review.yml, oracle-gate-review-judge.yml) judge again\n"
        "# after each review; `oracle-gate doctor` reports this table missing while they are installed.\n"
        "# [approvals]\n"
        '# oracle = ["your-login", "your-org/oracle-owners"]\n'
        "# count = 1\n"
    )


def render_dependabot() -> str:
    """Dependabot for the actions the workflows pin by full SHA (written only where none exists)."""
    return (
        "# Dependabot moves the actions Oracle Gate's workflows pin by full SHA to their new releases\n"
        "# (each update is a pull request, judged like any other; a release is taken once a week old).\n"
        "version: 2\n"
        "updates:\n"
        "  - package-ecosystem: github-actions\n"
        "    directory: /\n"
        "    schedule:\n"
        "      interval: weekly\n"
        "    cooldown:\n"
        "      default-days: 7\n"
    )


def with_header(body: str, setup: str, app_slug: str | None, map_repeat: int | None = None) -> str:
    """``body`` under our header; ``map_repeat`` is recorded so that ``doctor`` renders the same."""
    digest = hashlib.sha256(body.encode()).hexdigest()
    slug = f" app-slug={app_slug}" if app_slug else ""
    repeat = f" map-repeat={map_repeat}" if map_repeat is not None else ""
    return f"# oracle-gate init {__version__} setup={setup}{slug}{repeat} sha256={digest}\n{body}"


@dataclass(frozen=True)
class Header:
    version: str
    setup: str
    app_slug: str | None
    intact: bool  # the body below still has the digest the header names
    map_repeat: int | None = None  # ``init --map-repeat``; None in a header written before it


def read_header(text: str) -> Header | None:
    """The header of a file ``init`` wrote, None for any other file."""
    found = HEADER.match(text)
    if found is None:
        return None
    body = text[found.end() :]
    intact = hashlib.sha256(body.encode()).hexdigest() == found["digest"]
    repeat = int(found["repeat"]) if found["repeat"] else None
    return Header(found["version"], found["setup"], found["slug"], intact, repeat)


def strip_header(text: str) -> str:
    found = HEADER.match(text)
    return text[found.end() :] if found else text


EXAMPLE_VALUES = Values(
    branch="main",
    python="3.12",
    install="python -m pip install -r requirements-test.txt",
    install_repo="python -m pip install -r repo/requirements-test.txt",
    ref=PLACEHOLDER,
)


def write_examples(directory: Path) -> None:
    for names in SETUPS.values():
        for name in names:
            (directory / name).write_text(render_workflow(name, EXAMPLE_VALUES), encoding="utf-8")


if __name__ == "__main__":
    write_examples(Path(sys.argv[1]))
