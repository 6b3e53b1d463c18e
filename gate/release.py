"""What the release workflow (``.github/workflows/release.yml``) does to the repository's files.

Two steps of a release, kept here so they are tested rather than written as shell in YAML:

* ``pin-image``: on the release commit, ``action.yml`` runs the image the workflow pushed, by
  digest (``image: docker://ghcr.io/OWNER/NAME@sha256:...``), so a runner pulls the reviewed,
  attested image instead of building the Dockerfile in every job. Only the ``runs.image`` line
  changes; anything but a GHCR reference with a full SHA-256 digest is refused, since a tag could
  be moved after the release was reviewed.
* ``notes``: the GitHub release's text is the version's section of ``CHANGELOG.md`` (Keep a
  Changelog); a version with no section, or an empty one, is an error rather than an empty release.

Usage: ``python -m oracle_gate.release pin-image --action action.yml --image REF`` and
``python -m oracle_gate.release notes --changelog CHANGELOG.md --version X.Y.Z``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from oracle_gate.errors import UsageError

IMAGE_REF = re.compile(r"ghcr\.io/[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._/-]*@sha256:[0-9a-f]{64}")
RUNS_IMAGE = re.compile(r"^(?P<indent>[ \t]+)image:[ \t]*(?P<value>\S.*?)[ \t]*$", re.MULTILINE)
VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.+-]+)?")


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m oracle_gate.release")
    sub = parser.add_subparsers(dest="step", required=True)
    pin = sub.add_parser("pin-image", help="make action.yml run the pushed image by digest")
    pin.add_argument("--action", type=Path, required=True)
    pin.add_argument("--image", required=True, help="ghcr.io/OWNER/NAME@sha256:...")
    notes = sub.add_parser("notes", help="print the version's CHANGELOG.md section")
    notes.add_argument("--changelog", type=Path, required=True)
    notes.add_argument("--version", required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.step == "pin-image":
            args.action.write_text(pin_image(args.action.read_text(encoding="utf-8"), args.image))
        else:
            sys.stdout.write(release_notes(args.changelog.read_text(encoding="utf-8"), args.version))
    except (UsageError, OSError) as exc:
        print(f"oracle_gate.release: error: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
