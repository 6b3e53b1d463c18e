"""The shipped judging workflows restore the parent's map by a key a pull request's own run can save
in its scope; the cache model (:mod:`tests.support.caches`) shows that entry reaches a restore only
under ``pull_request``, never under the events the judging workflows run on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from tests.support.caches import CacheStore, cache_key, restore_key_templates, scope_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
JUDGING = ["oracle-gate.yml", "oracle-gate-fork-safe-publish.yml"]
PARENT = "a" * 40
PARENT_SHA_EXPRESSIONS = (
    "steps.parent.outputs.sha",
    "steps.commits.outputs.parent",
    "needs.map.outputs.parent",
)
PR = 2


def load(name: str) -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load((EXAMPLES / name).read_text())
    return doc


def triggers(doc: dict[Any, Any]) -> dict[str, Any]:
    on = doc.get(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return {str(k): v for k, v in on.items()} if isinstance(on, dict) else dict.fromkeys([str(on)])


def restore_key(name: str) -> str:
    """The judging workflow's restore key, for the parent ``PARENT`` (one key, however many restores:
    the primary's map job looks it up, its judging job restores it)."""
    keys = {
        cache_key(template, dict.fromkeys(PARENT_SHA_EXPRESSIONS, PARENT))
        for template in restore_key_templates(load(name))
    }
    (key,) = keys
    assert PARENT in key, key  # the key is the parent's SHA, the one a PR's run can guess
    return key


def scope_for(event: str, spec: Any) -> str:
    branches = spec.get("branches") if isinstance(spec, dict) else None
    ref = f"refs/heads/{branches[0]}" if branches else None
    return scope_of(event, default_branch="main", pr_number=PR, ref=ref)


def poisoned(key: str) -> CacheStore[str]:
    """The PR's own pull_request run saved the parent's key in its scope."""
    store: CacheStore[str] = CacheStore()
    assert store.save(scope_of("pull_request", default_branch="main", pr_number=PR), key, "forged by the PR")
    return store


@pytest.mark.parametrize("name", JUDGING)
def test_a_pr_scope_entry_reaches_the_judging_restore_only_under_pull_request(name: str) -> None:
    key = restore_key(name)
    store = poisoned(key)
    events = triggers(load(name))
    assert "pull_request" not in events
    for event, spec in events.items():
        assert store.restore(scope_for(event, spec), key) is None, event
    # The model is not blind: the same restore under pull_request returns the PR's entry.
    assert store.restore(scope_for("pull_request", None), key) == "forged by the PR"


@pytest.mark.parametrize("name", JUDGING)
def test_with_a_default_branch_entry_the_judging_events_get_it_and_pull_request_gets_its_own(
    name: str,
) -> None:
    key = restore_key(name)
    store = poisoned(key)
    assert store.save("refs/heads/main", key, "built by a default-branch push run")
    for event, spec in triggers(load(name)).items():
        assert store.restore(scope_for(event, spec), key) == "built by a default-branch push run", event
    assert store.restore(scope_for("pull_request", None), key) == "forged by the PR"  # own scope first


def test_the_model_follows_the_shared_facts() -> None:
    store: CacheStore[str] = CacheStore()
    assert store.restore_order("refs/pull/2/merge") == ["refs/pull/2/merge", "refs/heads/main"]
    assert store.restore_order("refs/heads/main") == ["refs/heads/main"]
    assert store.save("refs/pull/2/merge", "k", "first")
    assert not store.save("refs/pull/2/merge", "k", "second")  # a saved key is not overwritten
    assert store.restore("refs/pull/3/merge", "k") is None  # another PR's scope is not searched
    assert scope_of("workflow_run", default_branch="main") == "refs/heads/main"
    with pytest.raises(ValueError, match="no cache scope"):
        scope_of("pull_request_review", default_branch="main")


def test_the_previous_map_for_drift_is_restored_only_by_the_push_job() -> None:
    """The primary example's map job restores the previous default-branch map (``map --previous``)
    only in its push-only job: a push to main restores from main's scope alone, which no pull
    request's run can write."""
    doc = load("oracle-gate.yml")
    (template,) = restore_key_templates(doc, push_jobs=True)
    assert template == "oracle-gate-map-${{ github.event.before }}"
    key = template.replace("${{ github.event.before }}", PARENT)
    store = poisoned(key)
    assert store.restore(scope_of("push", default_branch="main", ref="refs/heads/main"), key) is None
