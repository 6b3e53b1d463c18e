"""The trusted map store: a parent's map is the artifact of the map workflow's default-branch push run.

TRUST.md invariant 3 says the parent's map must come from a job that runs no head code and be kept
where no pull request can write. A pull request can run any workflow it likes under ``pull_request``
and upload any artifact from it, and it can write any manifest it likes, so nothing here takes the
artifact's word for where it came from. A map is used only when every one of these holds:

* **the run, as the API reports it** (not as the manifest says): a run of the configured workflow
  file, started by ``push``, on the default branch, for the parent SHA, in this repository (not a
  fork's head), concluded ``success``;
* **the artifact**: the configured name, not expired, a zip within the bounds of
  :mod:`oracle_gate.bot.jobs.artifacts` holding exactly one manifest and the one data file it names
  (plain file
  names, no directories, no links);
* **the manifest** (oracle_gate.maps.reader.manifest): bound to the parent, its data's sha256 matching, a
  whole map (not a shard); its ``producer`` trusted by
  :func:`oracle_gate.maps.reader.provenance.producer_problems` for this repository and default branch, and
  naming the same run, workflow file and SHA as the API.

A map passing all of them is kept in the state directory (written only after verification, moved
into place atomically) so later pull requests on the same parent do not download it again.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.bot.app.auth import installation_client
from oracle_gate.bot.jobs.artifacts import Refused, download, extract
from oracle_gate.errors import InputError
from oracle_gate.github.client import NotFound, NotPermitted, RetrySettings, github_call
from oracle_gate.maps.reader.data import open_map
from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest, read_manifest
from oracle_gate.maps.reader.provenance import producer_problems

MAX_RUNS = 20  # newest successful runs looked at for one SHA (reruns of the same commit)
_log = logging.getLogger("oracle_gate.bot")


@dataclass(frozen=True)
class MapLookup:
    """The parent's verified map (its manifest, the data beside it), or why there is none.

    ``waiting``: no run of the map workflow for this parent has succeeded yet (the pull request is
    judged again when one completes); otherwise ``why`` says what made a map unusable.
    """

    manifest: Path | None
    why: str = ""
    waiting: bool = False


@dataclass(frozen=True)
class StoreSettings:
    workflow: str  # .github/workflows/<file>, the map workflow's path in the repository
    artifact: str  # the artifact's name
    cache: Path  # verified maps: <cache>/<owner>/<name>/<parent>/


class ArtifactMapStore:
    """:class:`oracle_gate.bot.jobs.context.MapSource` reading maps from the Actions API
    (``actions: read``)."""

    def __init__(
        self,
        settings: StoreSettings,
        api_url: str,
        *,
        retry: RetrySettings | None = None,
        pacing: float | None = 0.25,
    ) -> None:
        self.settings = settings
        self.api_url = api_url.rstrip("/")
        self.retry = retry
        self.pacing = pacing
        # told of each API client it makes, so its requests count in the installation's rate limit
        self.track: Callable[[Any], None] | None = None
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def find(self, repo: str, parent: str, token: str) -> MapLookup:
        """The parent's map: kept, or downloaded and verified by one job while the other jobs that
        need the same map wait for it (one download per map, however many pull requests share it)."""
        cached = self._cached(repo, parent)
        if cached is not None:
            return MapLookup(cached)
        with self._lock_for(repo, parent):
            cached = self._cached(repo, parent)
            if cached is not None:
                return MapLookup(cached)
            return self._download(repo, parent, token)

    def _lock_for(self, repo: str, parent: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault((repo, parent), threading.Lock())

    def _download(self, repo: str, parent: str, token: str) -> MapLookup:
        client = installation_client(token, self.api_url, retry=self.retry, pacing=self.pacing)
        if self.track is not None:
            self.track(client)
        requester = client.requester
        try:
            default = self._default_branch(requester, repo)
            run, rejected = self._trusted_run(requester, repo, parent, default)
            if run is None:
                return self._no_run(parent, default, rejected)
            artifact = self._artifact(requester, repo, run)
            with tempfile.TemporaryDirectory(prefix="map-", dir=self._ensure_cache()) as tmp:
                extract(download(self.api_url, repo, artifact, token), Path(tmp))
                manifest = verify(Path(tmp), repo=repo, parent=parent, default=default, run=run, store=self)
                return MapLookup(self._keep(repo, parent, Path(tmp), manifest))
        except Refused as exc:
            _log.warning("map refused", extra={"repo": repo, "detail": str(exc)})
            return MapLookup(None, f"the map of {parent[:12]} is not used: {exc}")
        except (NotFound, NotPermitted) as exc:
            return MapLookup(None, f"the map store could not be read: {exc}")

    # -- the API's view of the run ------------------------------------------------------------------

    def _default_branch(self, requester: Any, repo: str) -> str:
        with github_call(f"read the repository {repo}"):
            _, data = requester.requestJsonAndCheck("GET", f"/repos/{repo}")
        branch = data.get("default_branch") if isinstance(data, dict) else None
        if not isinstance(branch, str) or not branch:
            raise Refused(f"GitHub named no default branch for {repo}")
        return branch

    def _trusted_run(
        self, requester: Any, repo: str, parent: str, default: str
    ) -> tuple[dict[str, Any] | None, list[str]]:
        """The newest run GitHub lists for the filters that passes :func:`run_problems` on its own
        fields (the filters are GitHub's; each field is checked again here), and why others failed."""
        workflow_file = self.settings.workflow.rsplit("/", 1)[-1]
        params = {"branch": default, "event": "push", "head_sha": parent, "status": "success"}
        with github_call(f"list the runs of {self.settings.workflow}"):
            _, data = requester.requestJsonAndCheck(
                "GET",
                f"/repos/{repo}/actions/workflows/{workflow_file}/runs",
                parameters={**params, "per_page": MAX_RUNS},
            )
        runs = data.get("workflow_runs") if isinstance(data, dict) else None
        rejected: list[str] = []
        for run in runs if isinstance(runs, list) else []:
            problems = run_problems(
                run, repo=repo, parent=parent, default=default, path=self.settings.workflow
            )
            if not problems:
                return run, rejected
            rejected.append(f"run {run.get('id')}: {'; '.join(problems)}")
        return None, rejected

    def _no_run(self, parent: str, default: str, rejected: list[str]) -> MapLookup:
        where = f"{self.settings.workflow} on {default} for {parent[:12]}"
        if rejected:
            return MapLookup(None, f"no trusted run of {where}: {' | '.join(rejected[:3])}")
        return MapLookup(
            None,
            f"no map yet: the map workflow {where} has no successful push run; "
            "the pull request is judged again when it completes",
            waiting=True,
        )

    def _artifact(self, requester: Any, repo: str, run: dict[str, Any]) -> dict[str, Any]:
        name = self.settings.artifact
        with github_call(f"list the artifacts of run {run['id']}"):
            _, data = requester.requestJsonAndCheck(
                "GET", f"/repos/{repo}/actions/runs/{run['id']}/artifacts", parameters={"name": name}
            )
        items = data.get("artifacts") if isinstance(data, dict) else None
        found = [a for a in items or [] if isinstance(a, dict) and a.get("name") == name]
        if not found:
            raise Refused(f"run {run['id']} uploaded no artifact named {name!r}")
        if len(found) > 1:
            raise Refused(f"run {run['id']} has {len(found)} artifacts named {name!r}; which one is the map?")
        if found[0].get("expired") is True:
            raise Refused(f"the artifact {name!r} of run {run['id']} has expired; re-run the map workflow")
        if not isinstance(found[0].get("id"), int):
            raise Refused("GitHub listed an artifact without an id")
        return found[0]

    # -- the cache of verified maps -----------------------------------------------------------------

    def _ensure_cache(self) -> Path:
        self.settings.cache.mkdir(parents=True, exist_ok=True)
        return self.settings.cache

    def _cache_dir(self, repo: str, parent: str) -> Path:
        return self.settings.cache.joinpath(*repo.split("/"), parent)

    def _cached(self, repo: str, parent: str) -> Path | None:
        """The kept map, marked used now (oracle_gate.bot.queue.housekeeping never prunes a map just used)."""
        found = sorted(self._cache_dir(repo, parent).glob("*" + MANIFEST_SUFFIX))
        if len(found) != 1:
            return None
        try:
            os.utime(found[0].parent)
        except OSError:
            return None  # pruned meanwhile: download and verify it again
        return found[0]

    def _keep(self, repo: str, parent: str, tmp: Path, manifest: Manifest) -> Path:
        """Move the verified files into the cache (atomically: a rename of the directory)."""
        final = self._cache_dir(repo, parent)
        final.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=final.parent))
        for path in (manifest.path, manifest.data):
            shutil.move(path, staged / path.name)
        try:
            staged.rename(final)
        except OSError:  # another worker kept the same map first
            shutil.rmtree(staged, ignore_errors=True)
        return final / manifest.path.name


def run_problems(run: Any, *, repo: str, parent: str, default: str, path: str) -> list[str]:
    """Why the API's own record of a run does not make it the map workflow's default-branch push run."""
    if not isinstance(run, dict):
        return ["not a run"]
    problems = []
    run_path = str(run.get("path") or "").split("@", 1)[0]
    if run_path != path:
        problems.append(f"is of the workflow {run_path or '(none)'!r}, not {path!r}")
    if run.get("event") != "push":
        problems.append(f"was started by {run.get('event')!r}, not by a push")
    if run.get("head_branch") != default:
        problems.append(f"ran on {run.get('head_branch')!r}, not on the default branch {default!r}")
    if run.get("head_sha") != parent:
        problems.append(f"ran on {run.get('head_sha')!r}, not on the parent")
    if run.get("conclusion") != "success":
        problems.append(f"concluded {run.get('conclusion')!r}, not success")
    for holder in ("repository", "head_repository"):
        name = (run.get(holder) or {}).get("full_name") if isinstance(run.get(holder), dict) else None
        if name != repo:
            problems.append(f"its {holder} is {name!r}, not {repo!r}")
    if not isinstance(run.get("id"), int):
        problems.append("has no id")
    return problems


def verify(
    folder: Path, *, repo: str, parent: str, default: str, run: dict[str, Any], store: ArtifactMapStore
) -> Manifest:
    """The manifest, when it binds its data to the parent and its producer is the run the API named."""
    manifests = sorted(folder.glob("*" + MANIFEST_SUFFIX))
    if len(manifests) != 1:
        raise Refused(f"the artifact holds {len(manifests)} map manifest(s), not one")
    try:
        manifest = read_manifest(manifests[0])
        if manifest.data.parent.resolve() != folder.resolve() or not manifest.data.is_file():
            raise Refused(f"the manifest names {manifest.data.name!r}, which the artifact does not hold")
        _, digest = open_map(manifest.data)
    except InputError as exc:
        raise Refused(f"{exc.problem}") from exc
    problems = manifest_problems(manifest, digest=digest, parent=parent)
    problems += producer_mismatch(manifest, repo=repo, default=default, run=run, path=store.settings.workflow)
    if problems:
        raise Refused("; ".join(problems))
    return manifest


def manifest_problems(manifest: Manifest, *, digest: str, parent: str) -> list[str]:
    problems = []
    if manifest.sha != parent:
        problems.append(f"the manifest binds the map to {manifest.sha!r}, not to the parent")
    if manifest.data_sha256 != digest:
        problems.append("the data file's sha256 does not match the manifest's")
    if manifest.shard is not None:
        problems.append("the map is one shard, not the combined map")
    return problems


def producer_mismatch(
    manifest: Manifest, *, repo: str, default: str, run: dict[str, Any], path: str
) -> list[str]:
    """The manifest's producer, trusted by the shared rule and naming the very run the API listed."""
    producer = manifest.producer
    problems = producer_problems(producer, repository=repo, default_branch=default)
    if producer is None:
        return problems
    if producer.run_id != str(run["id"]):
        problems.append(f"the manifest's producer is run {producer.run_id!r}, not run {run['id']}")
    if producer.sha != run["head_sha"]:
        problems.append(f"the manifest's producer ran on {producer.sha!r}, not on the parent")
    if producer.workflow_path != path:
        problems.append(f"the manifest's producer is the workflow {producer.workflow_path!r}, not {path!r}")
    return problems
