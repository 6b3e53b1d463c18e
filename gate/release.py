"""What the release workflow (``.github/workflows/release.yml``) does to the repository's files.

Two steps of a release, kept here so they are tested rather than written as shell in YAML:

* ``pin-image``: on the release commit, ``action.yml`` runs the image the workflow pushed, by
  digest (``image: docker://ghcr.io/OWNER/NAME@sha256:...``), so a runner pulls the reviewed,
  attested image instead of building the Dockerfile in every job. Only the ``runs.image`` line
  changes; anything but a GHCR reference with a full SHA-256 digest is refused, since a tag could
  be moved after the release was reviewed.
* ``notes``: the GitHub release's text is the version's section of ``CHANGELOG.md`` (Keep a
  Changelog); a version with no section, or an empty one, is an error rather than an empty release.
* ``check-dist``: before anything is published, the tag is the installed package's version, and
  ``dist/`` holds exactly one sdist and one wheel of that name and version whose metadata say so
  and whose wheel carries every module, template and workflow of the source tree (a subpackage
  missing from pyproject's list would otherwise ship a wheel that fails on import).

Usage: ``python -m oracle_gate.release pin-image --action action.yml --image REF``,
``python -m oracle_gate.release notes --changelog CHANGELOG.md --version X.Y.Z`` and
``python -m oracle_gate.release check-dist --dist dist --tag vX.Y.Z``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tarfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from oracle_gate.errors import UsageError

IMAGE_REF = re.compile(r"ghcr\.io/[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._/-]*@sha256:[0-9a-f]{64}")
RUNS_IMAGE = re.compile(r"^(?P<indent>[ \t]+)image:[ \t]*(?P<value>\S.*?)[ \t]*$", re.MULTILINE)
VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.+-]+)?")
DISTRIBUTION = "pr-oracle-gate"
#: source folder -> where its files are in the wheel, and which files (pyproject's package-dir/data)
SHIPPED = (
    ("gate", "oracle_gate", "**/*.py"),
    ("gate/adopt/workflows", "oracle_gate/adopt/workflows", "*.yml"),
    ("templates", "oracle_gate/templates", "*.j2"),
)


def pin_image(action_yml: str, image: str) -> str:
    """``action_yml`` with its one ``runs.image`` replaced by ``docker://IMAGE``."""
    if not IMAGE_REF.fullmatch(image):
        raise UsageError(f"--image must be ghcr.io/OWNER/NAME@sha256:<64 hex digits>, got {image!r}")
    runs = re.search(r"^runs:[ \t]*$", action_yml, re.MULTILINE)
    if runs is None:
        raise UsageError("action.yml: no top-level 'runs:' section")
    section = action_yml[runs.end() :]
    following = re.search(r"^\S", section, re.MULTILINE)
    body = section[: following.start()] if following else section
    images = list(RUNS_IMAGE.finditer(body))
    if len(images) != 1:
        raise UsageError(f"action.yml: 'runs:' must have exactly one 'image:' line, found {len(images)}")
    (found,) = images
    if found["value"].strip("'\"") not in ("Dockerfile", f"docker://{image}"):
        raise UsageError(f"action.yml: runs.image is {found['value']!r}, expected 'Dockerfile'")
    new_body = body[: found.start()] + f"{found['indent']}image: docker://{image}" + body[found.end() :]
    return action_yml[: runs.end()] + new_body + section[len(body) :]


def release_notes(changelog: str, version: str) -> str:
    """The body of the ``## [VERSION]`` section of a Keep a Changelog file."""
    if not VERSION.fullmatch(version):
        raise UsageError(f"--version must be a version like 1.2.3 (no leading v), got {version!r}")
    heading = re.compile(rf"^## \[{re.escape(version)}\][^\n]*\n", re.MULTILINE)
    found = heading.search(changelog)
    if found is None:
        raise UsageError(f"CHANGELOG.md has no section '## [{version}]': write it before tagging")
    rest = changelog[found.end() :]
    end = re.search(r"^## |^\[[^\]]+\]: ", rest, re.MULTILINE)
    body = (rest[: end.start()] if end else rest).strip()
    if not body:
        raise UsageError(f"CHANGELOG.md's section '## [{version}]' is empty")
    return body + "\n"


def _metadata(text: str) -> dict[str, str]:
    """The first value of each header of a core metadata file (METADATA, PKG-INFO)."""
    head = text.split("\n\n", 1)[0]
    fields: dict[str, str] = {}
    for line in head.splitlines():
        key, sep, value = line.partition(": ")
        if sep and not line[0].isspace():
            fields.setdefault(key, value.strip())
    return fields


def check_dist(dist: Path, tag: str, version: str, source: Path) -> list[str]:
    """What is wrong with ``dist/`` for release ``tag`` of the installed ``version`` (empty: nothing)."""
    if tag != f"v{version}":
        return [f"the tag is {tag} but the installed {DISTRIBUTION} is version {version}"]
    stem = f"{DISTRIBUTION.replace('-', '_')}-{version}"
    files = sorted(p.name for p in dist.iterdir() if p.name != "SHA256SUMS")
    expected = [f"{stem}-py3-none-any.whl", f"{stem}.tar.gz"]
    if files != expected:
        return [f"{dist}: holds {files}, expected exactly {expected}"]
    problems = []
    with zipfile.ZipFile(dist / expected[0]) as wheel:
        names = set(wheel.namelist())
        meta = _metadata(wheel.read(f"{stem}.dist-info/METADATA").decode("utf-8"))
    with tarfile.open(dist / expected[1]) as sdist:
        member = sdist.extractfile(f"{stem}/PKG-INFO")
        pkg_info = _metadata(member.read().decode("utf-8")) if member else {}
    for where, fields in (("wheel METADATA", meta), ("sdist PKG-INFO", pkg_info)):
        found = (fields.get("Name"), fields.get("Version"))
        if found != (DISTRIBUTION, version):
            problems.append(f"{where}: Name/Version {found}, expected {(DISTRIBUTION, version)}")
    for folder, target, pattern in SHIPPED:
        for path in sorted((source / folder).glob(pattern)):
            if "__pycache__" in path.parts:
                continue
            inside = f"{target}/{path.relative_to(source / folder).as_posix()}"
            if inside not in names:
                problems.append(f"the wheel lacks {inside} (from {path.relative_to(source).as_posix()})")
    return problems


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m oracle_gate.release")
    sub = parser.add_subparsers(dest="step", required=True)
    pin = sub.add_parser("pin-image", help="make action.yml run the pushed image by digest")
    pin.add_argument("--action", type=Path, required=True)
    pin.add_argument("--image", required=True, help="ghcr.io/OWNER/NAME@sha256:...")
    notes = sub.add_parser("notes", help="print the version's CHANGELOG.md section")
    notes.add_argument("--changelog", type=Path, required=True)
    notes.add_argument("--version", required=True)
    check = sub.add_parser("check-dist", help="the tag is the version; dist/ holds that sdist and wheel")
    check.add_argument("--dist", type=Path, required=True)
    check.add_argument("--tag", required=True, help="vX.Y.Z")
    check.add_argument("--source", type=Path, default=Path("."), help="the source tree (default: .)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.step == "pin-image":
            args.action.write_text(pin_image(args.action.read_text(encoding="utf-8"), args.image))
        elif args.step == "check-dist":
            from importlib.metadata import version

            problems = check_dist(args.dist, args.tag, version(DISTRIBUTION), args.source)
            for problem in problems:
                print(f"oracle_gate.release: error: {problem}", file=sys.stderr)
            if problems:
                return 1
            print(f"dist/ is release {args.tag} of {DISTRIBUTION}: one sdist, one complete wheel")
        else:
            sys.stdout.write(release_notes(args.changelog.read_text(encoding="utf-8"), args.version))
    except (UsageError, OSError, KeyError, ImportError, zipfile.BadZipFile, tarfile.TarError) as exc:
        print(f"oracle_gate.release: error: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
