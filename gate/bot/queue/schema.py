"""The bot database's schema, its version (``PRAGMA user_version``) and the explicit steps between versions.

The version is recorded in the database itself, so a server started on an older database migrates it
one step at a time, each step in the same transaction as the new version number (a crash during a
migration leaves the old version, whole); and a server older than the database it is given (a
rollback of the deployment) refuses to start with one line instead of writing rows it does not
understand. Version 0 is every database written before the version was recorded: its tables are
created if missing, so version 0 is either empty or the pre-versioning schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from oracle_gate.errors import UsageError

_V1 = """
CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, event TEXT NOT NULL, received REAL NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery TEXT NOT NULL,
    key TEXT NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    detail TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state, id);
CREATE INDEX IF NOT EXISTS jobs_key ON jobs (key, state);
CREATE TABLE IF NOT EXISTS verdicts (
    repo TEXT NOT NULL, pr INTEGER NOT NULL, parent TEXT NOT NULL, head TEXT NOT NULL,
    verdict TEXT NOT NULL, check_run_id INTEGER, installation INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (repo, pr, parent, head)
);
CREATE TABLE IF NOT EXISTS explanations (
    token TEXT PRIMARY KEY, repo TEXT NOT NULL, pr INTEGER NOT NULL, head TEXT NOT NULL,
    body TEXT NOT NULL, at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS installations (id INTEGER PRIMARY KEY, state TEXT NOT NULL, at REAL NOT NULL);
"""


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _to_1(db: sqlite3.Connection) -> None:
    """The tables of the unversioned schema, and ``jobs.due`` (a retry's backoff), which its later
    releases added on start."""
    for statement in _V1.split(";"):
        if statement.strip():
            db.execute(statement)
    if "due" not in _columns(db, "jobs"):
        db.execute("ALTER TABLE jobs ADD COLUMN due REAL NOT NULL DEFAULT 0")


def _to_2(db: sqlite3.Connection) -> None:
    """``jobs.recoveries``: how often a crash left the job running (a start then queued it again)."""
    db.execute("ALTER TABLE jobs ADD COLUMN recoveries INTEGER NOT NULL DEFAULT 0")


def _to_3(db: sqlite3.Connection) -> None:
    """What the status page and ``/metrics`` read of a posted verdict
    (:mod:`oracle_gate.bot.jobs.trend`), noted
    when it was judged: ``seconds`` spent judging, ``triage`` (JSON list of the parent's freeze
    entries needing triage) and ``surface_share`` (frozen-only share of the map's measured lines).
    Verdicts recorded before this step have them NULL (unknown, shown as such).

    And ``posted``: one row per verdict posted, never replaced (``verdicts`` keeps the latest per pull
    request, parent and head, so a rerun or a map's arrival replaces a row): ``/metrics``' counters
    read it, so they never go down. It starts with the verdicts already kept."""
    for column in ("seconds REAL", "triage TEXT", "surface_share REAL"):
        db.execute(f"ALTER TABLE verdicts ADD COLUMN {column}")
    db.execute(
        "CREATE TABLE posted (at REAL NOT NULL, repo TEXT NOT NULL, verdict TEXT NOT NULL, seconds REAL)"
    )
    db.execute("INSERT INTO posted SELECT at, repo, verdict, NULL FROM verdicts")


def _to_4(db: sqlite3.Connection) -> None:
    """What retention needs (:mod:`oracle_gate.bot.queue.retention`): ``deliveries_pruned``, per event how
    many delivery ids were pruned (``/metrics``' deliveries counter adds them, so it never goes
    down), and ``jobs_age``, finished jobs found by age without reading their specs (a plan job's
    spec is its whole delivery)."""
    db.execute("CREATE TABLE deliveries_pruned (event TEXT PRIMARY KEY, count INTEGER NOT NULL)")
    db.execute("CREATE INDEX jobs_age ON jobs (state, updated)")


def _to_5(db: sqlite3.Connection) -> None:
    """``handover``: how far the workers moved the front's received deliveries into the queue, per
    file of them (:mod:`oracle_gate.bot.web.received`, :mod:`oracle_gate.bot.queue.handover`)."""
    db.execute("CREATE TABLE handover (token TEXT PRIMARY KEY, position INTEGER NOT NULL)")


def _to_6(db: sqlite3.Connection) -> None:
    """Issue 29. ``verdicts.required`` and ``posted.required``: 1 when the verdict was posted as the
    required check (an allowed base), 0 when under ``<name> (base: <branch>)``; the status page and
    ``/metrics`` count the two apart (NULL, a verdict recorded before: counted as required, as it was).
    ``verdicts.approved_by``: the logins (JSON list, lower case) of the approvals a verdict with
    ``oracle_change_approved`` rests on, so an access change judges it again (NULL: it rests on none)."""
    db.execute("ALTER TABLE verdicts ADD COLUMN required INTEGER")
    db.execute("ALTER TABLE verdicts ADD COLUMN approved_by TEXT")
    db.execute("ALTER TABLE posted ADD COLUMN required INTEGER")


def _to_7(db: sqlite3.Connection) -> None:
    """``base_changes``: per pull request, when its base branch last changed (contract v3.9.1), as the
    ``pull_request`` ``edited`` deliveries with ``changes.base`` said (GitHub's clock, UTC seconds);
    an approval submitted before it is stale. Kept beside the deliveries, which retention prunes."""
    db.execute(
        "CREATE TABLE base_changes (repo TEXT NOT NULL, pr INTEGER NOT NULL, at REAL NOT NULL, "
        "PRIMARY KEY (repo, pr))"
    )


#: Step ``i`` takes a database from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _to_1,
    _to_2,
    _to_3,
    _to_4,
    _to_5,
    _to_6,
    _to_7,
)
VERSION = len(MIGRATIONS)


def version_of(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, path: Path) -> int:
    """Bring the database to :data:`VERSION`, one transaction per step; the version it had.

    :class:`UsageError` (one line, naming the file) for a database a newer release wrote.
    ``db`` is in autocommit mode (``isolation_level=None``), so the transactions are the ones here.
    """
    found = version_of(db)
    if found > VERSION:
        raise UsageError(
            f"{path}: the database is at schema version {found}, newer than this release's {VERSION}; "
            "run the release that wrote it (or a newer one)"
        )
    for step in range(found, VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            if version_of(db) == step:  # another process may have migrated meanwhile
                MIGRATIONS[step](db)
                db.execute(f"PRAGMA user_version = {step + 1}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    return found
