"""Whether the Action may use a ``coverage-file``: TRUST.md invariant 3, at the reader's edge.

A map the pull request can feed is a verdict the pull request writes. The Action therefore takes a
``coverage-file`` only when

* neither the file named, nor its manifest, nor the manifest's ``data`` resolves (real path, symlinks
  followed) inside the repository directory: that directory may be the change's checkout, and a
  comparison of bytes with a committed file is defeated by checkout filters (``eol=crlf``);
* it has a manifest (``oracle-gate map``), whose ``data`` resolves inside the manifest's own directory;
* the manifest's producer, and the producer of every map a combined map was made from, is a default-branch
  ``push``/``schedule``/``workflow_dispatch`` run of this repository or this very run
  (:func:`oracle_gate.maps.reader.provenance.producer_problems`). A map restored from a cache a pull request's
  run wrote records that pull request's run as its producer, so the cache scope hole closes here too.

The data's digest and the parent it is bound to are checked by the core (``binding_problems``).
Every refusal is a :class:`~oracle_gate.judge.problems.Problem`: the verdict is ``oracle_incomplete`` and the
reason says why.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.errors import InputError
from oracle_gate.judge.problems import Problem
from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest, locate
from oracle_gate.maps.reader.provenance import PRODUCER_KEY, Producer, producer_problems


@dataclass(frozen=True)
class TrustedSource:
    """What a trusted map's producer must match."""

    repository: str
    default_branch: str | None  # None: the event did not say; no producer can then be trusted
    run_id: str | None  # this run (GITHUB_RUN_ID): a map built earlier in the same job is trusted
    refused_run_id: str | None = None  # this run, when its own maps are not trusted (see below)


#: Events whose workflow file is the pull request's own (its merge commit's): a map built earlier in
#: such a run was built by a job the pull request may have rewritten.
PR_WORKFLOW_EVENTS = frozenset({"pull_request"})


def same_run_map_trusted(event_name: str, *, trust_same_run_map: bool) -> bool:
    """Whether a map built earlier in this run may be trusted by its run id: not under an event that
    runs the pull request's own workflow, unless the ``trust-same-run-map`` input says the
    contributors are trusted."""
    return trust_same_run_map or event_name not in PR_WORKFLOW_EVENTS


def trusted_source(
    repository: str, default_branch: str | None, run_id: str | None, *, same_run_trusted: bool
) -> TrustedSource:
    """What a map's producer must match for this run (``default_branch``: the event's, None when it
    names none)."""
    if same_run_trusted:
        return TrustedSource(repository, default_branch, run_id)
    return TrustedSource(repository, default_branch, None, refused_run_id=run_id)


def map_trust_problems(coverage: Path, *, repo_dir: Path, source: TrustedSource) -> list[Problem]:
    """Why the map ``coverage`` names is not one the Action may judge with (empty when it is)."""
    named = str(coverage)
    inside = _inside_checkout(coverage, repo_dir) + _inside_checkout(
        coverage.with_name(coverage.name + MANIFEST_SUFFIX), repo_dir
    )
    if inside:
        return inside
    try:
        data, manifest = locate(coverage)
    except InputError as exc:
        return [Problem(exc.source, exc.problem)]
    if manifest is None:
        return [
            Problem(
                named,
                "the map has no manifest from 'oracle-gate map', so nothing ties it to the run that "
                "built it; the Action only uses a map whose producer it can check",
            )
        ]
    return [
        *_inside_checkout(data, repo_dir),
        *_data_beside_manifest(manifest),
        *_producer_problems(manifest, source),
    ]


def _inside_checkout(path: Path, repo_dir: Path) -> list[Problem]:
    """A map that resolves into the repository directory may be a file of the change itself."""
    if not os.path.lexists(path):
        return []
    real, repo = Path(os.path.realpath(path)), Path(os.path.realpath(repo_dir))
    if real != repo and not real.is_relative_to(repo):
        return []
    return [
        Problem(
            str(path),
            "the map lies inside the repository's checkout, which may be the pull request's own "
            "files; keep the map outside it (see docs/action.md, 'Where the map comes from')",
        )
    ]


def _data_beside_manifest(manifest: Manifest) -> list[Problem]:
    directory = Path(os.path.realpath(manifest.path.parent))
    data = Path(os.path.realpath(manifest.data))
    if data.is_relative_to(directory) and data != directory:
        return []
    return [
        Problem(
            str(manifest.path),
            f"the manifest's data {manifest.data} resolves outside "
            "the manifest's directory; a manifest may only name data beside it",
        )
    ]


def _built_in_run(producer: Producer | None, source: TrustedSource) -> bool:
    return (
        producer is not None
        and producer.run_id == source.refused_run_id
        and producer.repository == source.repository
    )


def _producer_problems(manifest: Manifest, source: TrustedSource) -> list[Problem]:
    where = str(manifest.path)
    if source.default_branch is None:
        return [Problem(where, "the event names no default branch, so no map producer can be trusted")]
    if source.refused_run_id is not None and _built_in_run(manifest.producer, source):
        return [
            Problem(
                where,
                "the map was built earlier in this run, whose workflow under 'pull_request' is the pull "
                "request's own; only with the input trust-same-run-map: true (trusted contributors "
                "only) is such a map used",
            )
        ]
    producers: list[tuple[str, Producer | None]] = [("map manifest", manifest.producer)]
    combined = manifest.extra.get("combined")
    if isinstance(combined, list):
        for number, part in enumerate(combined, 1):
            doc = part.get(PRODUCER_KEY) if isinstance(part, Mapping) else None
            producers.append((f"combined map part {number}", Producer.from_document(doc)))
    return [
        Problem(where, text)
        for label, producer in producers
        for text in producer_problems(
            producer,
            repository=source.repository,
            default_branch=source.default_branch,
            current_run_id=source.run_id,
            source=label,
        )
    ]
