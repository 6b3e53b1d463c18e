"""Documented API rules the OpenAPI subset is looser on, enforced like GitHub's 422s.

Each rule cites where it comes from (D = https://docs.github.com/en):

* check runs (D/rest/checks/runs): ``conclusion`` is required with
  ``status: completed`` or ``completed_at``; only GitHub sets ``stale``;
  at most 50 annotations per request; ``summary``/``text`` at most 65535
  bytes (UTF-8: a 78,664-byte summary of 65,535 characters was refused, issue #11);
  annotation ``title`` at most 255, ``message``/``raw_details``
  at most 64 KB; ``start_column``/``end_column`` only on a one-line annotation;
* ``per_page``: at most 100 (D/rest/using-the-rest-api/using-pagination-in-the-rest-api);
* issue comment ``body``: at most 65536 characters. Undocumented; GitHub answers
  422 "Body is too long (maximum is 65536 characters)" (widely reported);
* commit status ``description``: at most 140 characters. ASSUMED from GitHub's
  UI and error reports, not found on docs.github.com.

A rule returns GitHub's 422 ``errors`` entries; none means the request obeys it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_PER_PAGE = 100
MAX_ANNOTATIONS = 50
MAX_OUTPUT_TEXT = 65535
MAX_ANNOTATION_TITLE = 255
MAX_ANNOTATION_MESSAGE = 64 * 1024
MAX_COMMENT_BODY = 65536
MAX_STATUS_DESCRIPTION = 140

Problem = dict[str, Any]


def _problem(resource: str, field: str, message: str) -> Problem:
    return {"resource": resource, "field": field, "code": "custom", "message": message}


def per_page(query: dict[str, str]) -> list[Problem]:
    value = query.get("per_page", "")
    if value.isdigit() and int(value) > MAX_PER_PAGE:
        return [_problem("Query", "per_page", f"per_page is {value}; the maximum is {MAX_PER_PAGE}")]
    return []


def check_run(body: dict[str, Any]) -> list[Problem]:
    """Rules for ``checks/create`` and ``checks/update`` bodies."""
    problems: list[Problem] = []
    completing = body.get("status") == "completed" or "completed_at" in body
    if completing and "conclusion" not in body:
        problems.append(_problem("CheckRun", "conclusion", "conclusion is required when status is completed"))
    if body.get("conclusion") == "stale":
        problems.append(_problem("CheckRun", "conclusion", "only GitHub can set a conclusion of stale"))
    output = body.get("output") or {}
    for field in ("summary", "text"):
        if len((output.get(field) or "").encode()) > MAX_OUTPUT_TEXT:
            problems.append(
                _problem("CheckRun", f"output.{field}", f"{field} is longer than {MAX_OUTPUT_TEXT} bytes")
            )
    annotations = output.get("annotations") or []
    if len(annotations) > MAX_ANNOTATIONS:
        problems.append(
            _problem(
                "CheckRun", "output.annotations", f"{len(annotations)} annotations; at most 50 per request"
            )
        )
    for i, annotation in enumerate(annotations):
        problems += _annotation(i, annotation)
    return problems


def _annotation(i: int, a: dict[str, Any]) -> list[Problem]:
    where = f"output.annotations[{i}]"
    problems = []
    if len(a.get("title") or "") > MAX_ANNOTATION_TITLE:
        problems.append(_problem("CheckRun", f"{where}.title", "title is longer than 255 characters"))
    for field in ("message", "raw_details"):
        if len((a.get(field) or "").encode()) > MAX_ANNOTATION_MESSAGE:
            problems.append(_problem("CheckRun", f"{where}.{field}", f"{field} is larger than 64 KB"))
    if ("start_column" in a or "end_column" in a) and a.get("start_line") != a.get("end_line"):
        problems.append(
            _problem("CheckRun", f"{where}.start_column", "columns are only allowed on a one-line annotation")
        )
    start, end = a.get("start_line"), a.get("end_line")
    if isinstance(start, int) and isinstance(end, int) and (start < 1 or end < start):
        problems.append(_problem("CheckRun", f"{where}.start_line", f"bad line range {start}-{end}"))
    return problems


def issue_comment(body: dict[str, Any]) -> list[Problem]:
    if len(body.get("body") or "") > MAX_COMMENT_BODY:
        return [_problem("IssueComment", "body", "Body is too long (maximum is 65536 characters)")]
    return []


def commit_status(body: dict[str, Any]) -> list[Problem]:
    if len(body.get("description") or "") > MAX_STATUS_DESCRIPTION:
        return [_problem("Status", "description", "description is too long (maximum is 140 characters)")]
    return []


BODY_RULES: dict[str, Callable[[dict[str, Any]], list[Problem]]] = {
    "checks/create": check_run,
    "checks/update": check_run,
    "issues/create-comment": issue_comment,
    "issues/update-comment": issue_comment,
    "repos/create-commit-status": commit_status,
}


def problems(operation_id: str, query: dict[str, str], body: Any) -> list[Problem]:
    """Every rule this request breaks."""
    found = per_page(query)
    rule = BODY_RULES.get(operation_id)
    if rule is not None and isinstance(body, dict):
        found += rule(body)
    return found
