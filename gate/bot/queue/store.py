"""Durable state in SQLite (standard library): deliveries seen, the job queue, the last verdicts.

* **Idempotence.** A delivery id is recorded in the same transaction as its jobs, so a redelivery
  (same ``X-GitHub-Delivery``) adds nothing, and a crash between the two cannot record one without
  the other.
* **Jobs.** ``queued -> running -> done | failed | superseded``. A queued job whose key (one pull
  request) gets a newer job is superseded at once; a key never has two running jobs
  (:meth:`Store.claim` skips busy keys), so the jobs of one pull request run in order. Jobs left
  ``running`` by a crash are queued again by :meth:`Store.recover` when the server starts, which
  counts it in the job's ``recoveries`` (:mod:`oracle_gate.bot.queue.recovery` ends a job recovered
  too often).
* **Transactions.** Every change is one transaction (``BEGIN IMMEDIATE``: SQLite's write lock at
  once), so a job is never claimed twice, even by two processes sharing the file.
* **Schema.** Versioned and migrated explicitly on open (:mod:`oracle_gate.bot.queue.schema`).
* **Verdicts.** The last verdict per (repository, pull request, parent, head), and which pull
  requests wait for a parent's map.

One connection, guarded by a lock (calls are short); WAL so readers do not block the writer.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.queue import schema
from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.bot.web.received import Row
from oracle_gate.errors import UsageError


class JobState(StrEnum):
    """Where a job is; stored as its value (a ``StrEnum`` compares equal to the text in the database)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SUPERSEDED = "superseded"


QUEUED, RUNNING, DONE, FAILED, SUPERSEDED = (
    JobState.QUEUED,
    JobState.RUNNING,
    JobState.DONE,
    JobState.FAILED,
    JobState.SUPERSEDED,
)
NO_MAP = "no_map"  # the verdict value recorded when a pull request waits for its parent's map
MAX_ATTEMPTS = 3
#: The key of every delivery's plan job (:data:`oracle_gate.bot.queue.planning.PLAN_KEY`, which imports this
#: module): counted by key, an indexed column, rather than by reading each job's spec, a whole
#: delivery's JSON for these.
PLAN_KEY = "!plan"
#: A verdict posted as the required check (NULL: recorded before ``required`` was, counted as required).
REQUIRED = "COALESCE(required, 1) = 1"
_log = logging.getLogger("oracle_gate.bot")
#: What a failing database raises (the hand-over logs it and tries again).
DatabaseError = sqlite3.Error


@dataclass(frozen=True)
class ClaimedJob:
    id: int
    delivery: str
    job: Job
    attempts: int
    #: how many starts found this job left running by a crash and queued it again
    recoveries: int = 0


@dataclass(frozen=True)
class JobKinds:
    """Which jobs a pool claims: those of ``kind`` (``only``), or all the others."""

    kind: str
    only: bool = True


class Store:
    def __init__(self, path: Path, clock: Clock = SYSTEM) -> None:
        """``clock`` (the server's one clock; tests pass their own) dates every row and decides when a
        delayed retry is due. The schema is
        migrated to :data:`oracle_gate.bot.queue.schema.VERSION` (:class:`UsageError` for a newer
        database)."""
        self.clock = clock
        self._path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        try:
            with self._lock:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self.migrated_from = schema.migrate(self._db, path)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise UsageError(f"{path}: not a usable database: {exc}") from exc
        except BaseException:
            self._db.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction under the lock: every statement in it lands, or none does.
        ``BEGIN IMMEDIATE`` takes SQLite's write lock at once, so two processes sharing the file
        cannot both read the same queued row and then both claim it."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:  # SQLite may have rolled back itself (disk full, I/O error)
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def defer_checkpoints(self) -> Path:
        """No checkpoint on this connection's commits (:mod:`oracle_gate.bot.queue.checkpoints` makes them on
        a connection of its own); the database's path for it."""
        with self._lock:
            self._db.execute("PRAGMA wal_autocheckpoint = 0")
        return self._path

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the store's write transaction (nothing written): what a slow commit does to the
        others (tests), without handing out the connection."""
        with self._transaction():
            yield

    def checkpointer(self, *also: Path) -> Checkpointer:
        """Connections of their own to this database and to ``also``
        (:mod:`oracle_gate.bot.queue.checkpoints`)."""
        return Checkpointer((self._path, *also))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- deliveries and enqueueing -------------------------------------------------------------

    def accept(
        self, delivery: str, event: str, jobs: Iterable[Job], installation: tuple[int, str] | None = None
    ) -> bool:
        """Record the delivery and queue its jobs (and an installation's new state); False (nothing
        done) when it was seen before."""
        now = self.clock.now()
        with self._transaction() as db:
            inserted = db.execute(
                "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", (delivery, event, now)
            ).rowcount
            if not inserted:
                return False
            for job in jobs:
                self._enqueue(delivery, job, now)
            if installation is not None:
                self._record_installation(*installation, now)
        return True

    def receive(self, deliveries: Sequence[tuple[str, str, Job]]) -> list[bool]:
        """Record each delivery with its one job, all in one transaction (the webhook's path: see
        :mod:`oracle_gate.bot.web.inbox`); for each, whether it was new (False: seen before, nothing done).

        Unlike :meth:`accept`, a delivery's job supersedes nothing: it is the delivery's own plan job,
        new by construction (its delivery id is), and comparing it with the queued ones would read
        every queued delivery's body on the path that must answer at once."""
        now = self.clock.now()
        new: list[bool] = []
        with self._transaction() as db:
            for delivery, event, job in deliveries:
                inserted = db.execute(
                    "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", (delivery, event, now)
                ).rowcount
                if inserted:
                    db.execute(
                        "INSERT INTO jobs (delivery, key, spec, state, created, updated) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (delivery, job.key, job.to_json(), QUEUED, now, now),
                    )
                new.append(bool(inserted))
        return new

    def taken(self, token: str) -> int:
        """How far the workers moved the received deliveries of the file ``token`` names (0: not yet)."""
        with self._lock:
            row = self._db.execute("SELECT position FROM handover WHERE token = ?", (token,)).fetchone()
        return 0 if row is None else int(row[0])

    def take(self, token: str, rows: Sequence[Row]) -> int:
        """Queue received deliveries (id, delivery, event, key, spec, received at) of the file ``token``
        names as plan jobs, and how far that got, in one transaction; how many were new (a delivery
        id taken before is skipped: a redelivery, or the same rows of a file made again)."""
        if not rows:
            return 0
        now = self.clock.now()
        new = 0
        with self._transaction() as db:
            for _, delivery, event, key, spec, at in rows:
                if db.execute(
                    "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", (delivery, event, at)
                ).rowcount:
                    db.execute(
                        "INSERT INTO jobs (delivery, key, spec, state, created, updated) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (delivery, key, spec, QUEUED, now, now),
                    )
                    new += 1
            db.execute("DELETE FROM handover WHERE token != ?", (token,))  # an older file's position
            db.execute("INSERT OR REPLACE INTO handover VALUES (?, ?)", (token, max(r[0] for r in rows)))
        return new

    def _record_installation(self, ident: int, state: str, now: float) -> None:
        """The installation's state; a removed or suspended one's queued jobs fail (no token will come)."""
        self._db.execute("INSERT OR REPLACE INTO installations VALUES (?, ?, ?)", (ident, state, now))
        if state != "active":
            self._db.execute(
                "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE state = ? "
                "AND json_extract(spec, '$.installation') = ?",
                (FAILED, f"the installation was {state}", now, QUEUED, ident),
            )

    def installations(self) -> dict[str, str]:
        """Each installation the bot was told of: its id (as text) and state."""
        with self._lock:
            rows = self._db.execute("SELECT id, state FROM installations ORDER BY id").fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def save_explanation(self, repo: str, pr: int, head: str, body: str) -> str:
        """Keep a verdict's explanation under a new unguessable token (its page's address)."""
        token = secrets.token_urlsafe(24)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO explanations VALUES (?, ?, ?, ?, ?, ?)",
                (token, repo, pr, head, body, self.clock.now()),
            )
        return token

    def prune_explanations(self, max_age: float, max_count: int, now: float) -> int:
        """Forget explanations older than ``max_age`` seconds or beyond the ``max_count`` newest
        (their pages then answer 404); how many."""
        with self._transaction() as db:
            cur = db.execute(
                "DELETE FROM explanations WHERE at < ? OR token NOT IN "
                "(SELECT token FROM explanations ORDER BY at DESC LIMIT ?)",
                (now - max_age, max_count),
            )
            return cur.rowcount

    def explanation(self, token: str) -> tuple[str, int, str, str] | None:
        """(repo, pull request, head, markdown) kept under ``token``."""
        with self._lock:
            row = self._db.execute(
                "SELECT repo, pr, head, body FROM explanations WHERE token = ?", (token,)
            ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]), str(row[2]), str(row[3]))

    def seen(self, delivery: str) -> bool:
        """Whether this delivery id was received (whatever came of it)."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM deliveries WHERE id = ?", (delivery,)).fetchone()
        return row is not None

    def enqueue(self, delivery: str, jobs: Iterable[Job], installation: tuple[int, str] | None = None) -> int:
        """Queue follow-up jobs a running job found (no delivery record: it is not a delivery), and
        an installation's new state a planned delivery told (in the same transaction); how many
        jobs were queued (a review's judgement may be taken by one already queued)."""
        now = self.clock.now()
        queued = 0
        with self._transaction():
            for job in jobs:
                queued += self._enqueue(delivery, job, now)
            if installation is not None:
                self._record_installation(*installation, now)
        return queued

    def _enqueue(self, delivery: str, job: Job, now: float) -> bool:
        """A newer job for a key supersedes the queued ones (a newer head makes them pointless).

        A review's judgement (``job.coalesce`` set) is the other way round: a judgement of that
        pull request already queued reads the reviews when it runs, after this review, so it takes
        this one and nothing is queued (False); else it is queued to run ``coalesce`` seconds from
        now, and every review until then is taken by it. So a pull request's reviews are read at
        most once per interval for reviews, however many come (TRUST.md 8)."""
        spec = job.to_json()
        if job.kind == "judge" and job.coalesce is not None:
            return self._enqueue_coalesced(delivery, job, spec, now)
        self._db.execute(
            "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE key = ? AND state = ? AND spec = ?",
            (SUPERSEDED, "the same job was queued again", now, job.key, QUEUED, spec),
        )
        if job.kind == "judge":
            self._db.execute(
                "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE key = ? AND state = ? "
                "AND json_extract(spec, '$.kind') = 'judge'",
                (SUPERSEDED, f"superseded by a newer event ({delivery})", now, job.key, QUEUED),
            )
        self._db.execute(
            "INSERT INTO jobs (delivery, key, spec, state, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
            (delivery, job.key, spec, QUEUED, now, now),
        )
        return True

    def _enqueue_coalesced(self, delivery: str, job: Job, spec: str, now: float) -> bool:
        waiting = self._db.execute(
            "SELECT 1 FROM jobs WHERE key = ? AND state = ? "
            "AND json_extract(spec, '$.kind') = 'judge' LIMIT 1",
            (job.key, QUEUED),
        ).fetchone()
        if waiting is not None:
            return False
        self._db.execute(
            "INSERT INTO jobs (delivery, key, spec, state, created, updated, due) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (delivery, job.key, spec, QUEUED, now, now, self.clock.now() + (job.coalesce or 0.0)),
        )
        return True

    # -- the queue -----------------------------------------------------------------------------

    def claim(self, kinds: JobKinds | None = None) -> ClaimedJob | None:
        """The oldest queued job whose key has no running job, now marked running; with ``kinds``,
        only a job of those kinds (``only``) or of any other kind (``not only``): the judging workers
        never take a score, the score pool takes nothing else."""
        kind = None if kinds is None else kinds.kind
        only = 1 if kinds is None or kinds.only else 0
        with self._transaction() as db:
            row = db.execute(
                "SELECT id, delivery, spec, attempts, recoveries FROM jobs AS j WHERE state = ? "
                "AND due <= ? AND (? IS NULL OR (json_extract(j.spec, '$.kind') IS ?) = ?) "
                "AND NOT EXISTS (SELECT 1 FROM jobs AS r WHERE r.key = j.key AND r.state = ?) "
                "ORDER BY id LIMIT 1",
                (QUEUED, self.clock.now(), kind, kind, only, RUNNING),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE jobs SET state = ?, attempts = attempts + 1, updated = ? WHERE id = ? AND state = ?",
                (RUNNING, self.clock.now(), row[0], QUEUED),
            )
        return ClaimedJob(row[0], row[1], Job.from_json(row[2]), row[3] + 1, row[4])

    def finish(self, job_id: int, state: str, detail: str = "") -> None:
        """The end of a running job (``state`` one of :class:`JobState`'s final states)."""
        final = JobState(state)
        with self._transaction() as db:
            db.execute(
                "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE id = ?",
                (final, detail[:1000], self.clock.now(), job_id),
            )

    def requeue(self, job_id: int, detail: str, delay: float = 0.0) -> None:
        """Back to the queue (a shutdown interrupted it, or a transient failure), not claimed for
        ``delay`` seconds; failed after :data:`MAX_ATTEMPTS` attempts so a job that always crashes
        cannot loop forever."""
        with self._transaction() as db:
            db.execute(
                "UPDATE jobs SET state = CASE WHEN attempts >= ? THEN ? ELSE ? END, detail = ?, updated = ?, "
                "due = ? WHERE id = ?",
                (
                    MAX_ATTEMPTS,
                    FAILED,
                    QUEUED,
                    detail[:1000],
                    self.clock.now(),
                    self.clock.now() + delay,
                    job_id,
                ),
            )

    def next_due(self) -> float | None:
        """When the earliest queued job becomes claimable (by the store's clock); None: none queued."""
        with self._lock:
            row = self._db.execute("SELECT MIN(due) FROM jobs WHERE state = ?", (QUEUED,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def recover(self) -> int:
        """Queue again the jobs a crash left running, counting it in their ``recoveries``; how many.

        A job that crashes the process itself (memory, a native crash) would otherwise run again on
        every start for ever; the worker ends one recovered more often than the bot's limit with a
        failure check instead (:mod:`oracle_gate.bot.queue.recovery`)."""
        with self._transaction() as db:
            cur = db.execute(
                "UPDATE jobs SET state = ?, detail = 'interrupted; retried on start', updated = ?, "
                "recoveries = recoveries + 1 WHERE state = ?",
                (QUEUED, self.clock.now(), RUNNING),
            )
            return cur.rowcount

    def is_newest(self, job_id: int, key: str) -> bool:
        """No judge job for ``key`` due now was queued after this one (else posting it would be
        stale). A review's judgement waiting for its time does not count: this one read the reviews
        after the check it replaces did, so it posts, and the waiting one posts again after it (a
        review every few seconds must not keep every judgement from posting)."""
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM jobs WHERE key = ? AND id > ? AND state = ? AND due <= ? "
                "AND json_extract(spec, '$.kind') = 'judge' LIMIT 1",
                (key, job_id, QUEUED, self.clock.now()),
            ).fetchone()
        return row is None

    def counts(self) -> dict[str, int]:
        """Jobs per state; a delivery's plan job once planned is not counted (its jobs are)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT state, COUNT(*) FROM jobs WHERE NOT (state = ? AND key = ?) GROUP BY state",
                (DONE, PLAN_KEY),
            ).fetchall()
        return dict(rows)

    def jobs(self) -> list[tuple[int, str, str, Job, str]]:
        """Every job: id, delivery, state, spec, detail (for tests and operators)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, delivery, state, spec, detail FROM jobs ORDER BY id"
            ).fetchall()
        return [(r[0], r[1], r[2], Job.from_json(r[3]), r[4] or "") for r in rows]

    # -- verdicts ------------------------------------------------------------------------------

    def record_verdict(
        self,
        job: Job,
        parent: str,
        head: str,
        verdict: str,
        check_run_id: int | None,
        *,
        noted: Mapping[str, object] | None = None,
        required: bool = True,
        approved_by: Sequence[str] | None = None,
    ) -> None:
        """The latest verdict per (repository, pull request, parent, head), and one more row in
        ``posted`` (never replaced: /metrics counts it). ``noted``: the trend's columns (``seconds``,
        ``triage``, ``surface_share``; see :mod:`oracle_gate.bot.jobs.trend`), NULL when not given.
        ``required``: posted as the required check (an allowed base), else under another name.
        ``approved_by``: the approvers the verdict rests on (``oracle_change_approved``), or None."""
        if job.pr is None:
            return
        extra = dict(noted or {})
        trend = tuple(extra.get(k) for k in ("seconds", "triage", "surface_share"))
        approvers = None if approved_by is None else json.dumps(sorted({a.casefold() for a in approved_by}))
        now = self.clock.now()
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO verdicts (repo, pr, parent, head, verdict, check_run_id, "
                "installation, at, seconds, triage, surface_share, required, approved_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    job.repo,
                    job.pr,
                    parent,
                    head,
                    verdict,
                    check_run_id,
                    job.installation,
                    now,
                    *trend,
                    int(required),
                    approvers,
                ),
            )
            db.execute(
                "INSERT INTO posted (at, repo, verdict, seconds, required) VALUES (?, ?, ?, ?, ?)",
                (now, job.repo, verdict, trend[0], int(required)),
            )

    def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return [tuple(row) for row in self._db.execute(sql, params).fetchall()]

    # -- what the status page and /metrics read (oracle_gate.bot.jobs.trend, oracle_gate.bot.web.metrics)

    def repositories(self) -> list[str]:
        """Every repository with a recorded verdict."""
        return [str(r[0]) for r in self._rows("SELECT DISTINCT repo FROM verdicts ORDER BY repo")]

    def known_share(self, repo: str, parent: str) -> float | None:
        """A surface share already noted for a verdict on this parent."""
        rows = self._rows(
            "SELECT surface_share FROM verdicts WHERE repo = ? AND parent = ? "
            "AND surface_share IS NOT NULL LIMIT 1",
            (repo, parent),
        )
        return float(rows[0][0]) if rows else None

    def verdict_times(self, repo: str) -> list[tuple[float, str, bool]]:
        """(at, verdict, required) of every verdict recorded in ``repo``, oldest first."""
        rows = self._rows(f"SELECT at, verdict, {REQUIRED} FROM verdicts WHERE repo = ? ORDER BY at", (repo,))  # noqa: S608 - a constant
        return [(float(at), str(v), bool(required)) for at, v, required in rows]

    def map_shares(self, repo: str, limit: int = 10) -> list[tuple[str, float | None, float]]:
        """(parent, surface share, last verdict at) of the parents last judged with a map, newest first."""
        rows = self._rows(
            "SELECT parent, surface_share, MAX(at) FROM verdicts WHERE repo = ? AND verdict != ? "  # noqa: S608
            f"AND {REQUIRED} GROUP BY parent ORDER BY MAX(at) DESC LIMIT ?",
            (repo, NO_MAP, limit),
        )
        return [(str(p), None if s is None else float(s), float(at)) for p, s, at in rows]

    def last_triage(self, repo: str) -> tuple[str, str] | None:
        """(parent, triage JSON) of the newest required verdict that noted its triage."""
        rows = self._rows(
            "SELECT parent, triage FROM verdicts WHERE repo = ? AND triage IS NOT NULL "  # noqa: S608
            f"AND {REQUIRED} ORDER BY at DESC LIMIT 1",
            (repo,),
        )
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    def deliveries_per_event(self) -> dict[str, int]:
        """Deliveries received per event, the pruned ids (``deliveries_pruned``) included."""
        rows = self._rows(
            "SELECT event, SUM(n) FROM (SELECT event, COUNT(*) AS n FROM deliveries GROUP BY event "
            "UNION ALL SELECT event, count FROM deliveries_pruned) GROUP BY event"
        )
        return {str(e): int(n) for e, n in rows}

    def posted_counts(self) -> list[tuple[str, bool, int]]:
        """(verdict, required, how many) of every verdict ever posted."""
        rows = self._rows(f"SELECT verdict, {REQUIRED}, COUNT(*) FROM posted GROUP BY verdict, {REQUIRED}")  # noqa: S608 - a constant
        return [(str(v), bool(required), int(n)) for v, required, n in rows]

    def judging_seconds(self, bounds: Sequence[float]) -> tuple[list[int], int, float]:
        """Of the posted verdicts that noted how long judging took: how many took at most each of
        ``bounds`` seconds, how many in all, and their sum."""
        sums = ", ".join(f"COALESCE(SUM(seconds <= {float(b)!r}), 0)" for b in bounds)
        row = self._rows(
            f"SELECT {sums}, COUNT(seconds), COALESCE(SUM(seconds), 0) FROM posted WHERE seconds IS NOT NULL"  # noqa: S608 - numbers
        )[0]
        return [int(n) for n in row[:-2]], int(row[-2]), float(row[-1])

    # -- scores (oracle_gate.bot.jobs.scoring) ------------------------------------------------------

    def is_pending(self, job: Job) -> bool:
        """The very same job is queued or running."""
        return bool(
            self._rows(
                "SELECT 1 FROM jobs WHERE key = ? AND spec = ? AND state IN (?, ?) LIMIT 1",
                (job.key, job.to_json(), QUEUED, RUNNING),
            )
        )

    def other_queued_after(self, job_id: int, job: Job) -> bool:
        """Another job of ``job``'s key (not the same job again) was queued after ``job_id``."""
        return bool(
            self._rows(
                "SELECT 1 FROM jobs WHERE key = ? AND id > ? AND state = ? AND spec != ? LIMIT 1",
                (job.key, job_id, QUEUED, job.to_json()),
            )
        )

    # -- retention (oracle_gate.bot.queue.retention) ---------------------------------------------

    def prune_finished_jobs(self, before: float, limit: int) -> int:
        """Remove at most ``limit`` finished jobs last changed before ``before``, in one transaction."""
        with self._transaction() as db:
            return int(
                db.execute(
                    "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state IN (?, ?, ?) "
                    "AND updated < ? LIMIT ?)",
                    (DONE, FAILED, SUPERSEDED, before, limit),
                ).rowcount
            )

    def prune_delivery_ids(self, before: float, limit: int) -> int:
        """Forget at most ``limit`` delivery ids received before ``before`` whose jobs are all finished
        (or pruned), counting them per event in ``deliveries_pruned``, in one transaction."""
        with self._transaction() as db:
            rows = db.execute(
                "SELECT id, event FROM deliveries WHERE received < ? AND id NOT IN "
                "(SELECT delivery FROM jobs WHERE state IN (?, ?)) LIMIT ?",
                (before, QUEUED, RUNNING, limit),
            ).fetchall()
            for event, count in Counter(str(r[1]) for r in rows).items():
                db.execute(
                    "INSERT INTO deliveries_pruned VALUES (?, ?) "
                    "ON CONFLICT (event) DO UPDATE SET count = count + excluded.count",
                    (event, count),
                )
            db.executemany("DELETE FROM deliveries WHERE id = ?", [(r[0],) for r in rows])
        return len(rows)

    # -- base changes (contract v3.9.1) ------------------------------------------------------------

    def note_base_change(self, repo: str, pr: int, at: datetime) -> None:
        """A delivery said the pull request's base branch changed at ``at``: keep the latest."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO base_changes (repo, pr, at) VALUES (?, ?, ?) "
                "ON CONFLICT (repo, pr) DO UPDATE SET at = max(at, excluded.at)",
                (repo, pr, at.timestamp()),
            )

    def base_changed_at(self, repo: str, pr: int) -> datetime | None:
        """When a delivery last said the pull request's base branch changed (None: none did)."""
        with self._lock:
            row = self._db.execute(
                "SELECT at FROM base_changes WHERE repo = ? AND pr = ?", (repo, pr)
            ).fetchone()
        return datetime.fromtimestamp(row[0], UTC) if row else None

    def last_verdict(self, repo: str, pr: int) -> tuple[str, str, str] | None:
        """(parent, head, verdict) of the pull request's last judgement."""
        with self._lock:
            row = self._db.execute(
                "SELECT parent, head, verdict FROM verdicts WHERE repo = ? AND pr = ? "
                "ORDER BY at DESC LIMIT 1",
                (repo, pr),
            ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def pulls_judged_on_other_parent(self, repo: str, parent: str) -> list[tuple[int, int]]:
        """(pr, installation) of pull requests whose last judgement used a parent other than ``parent``."""
        return [(pr, inst) for pr, inst, p, _ in self._latest(repo) if p != parent]

    def pulls_waiting_for_map(self, repo: str, parent: str) -> list[tuple[int, int]]:
        """(pr, installation) of pull requests whose last judgement found no map of ``parent``."""
        return [(pr, inst) for pr, inst, p, v in self._latest(repo) if p == parent and v == NO_MAP]

    def pulls_resting_on_approvals(
        self, installation: int, repo: str | None, login: str | None
    ) -> list[tuple[str, int]]:
        """(repo, pr) of the pull requests of ``installation`` (in ``repo`` when given) whose last
        judgement rests on approvals (``oracle_change_approved``), by ``login`` when given."""
        with self._lock:
            rows = self._db.execute(
                "SELECT repo, pr, approved_by FROM verdicts AS v WHERE installation = ? "
                "AND (? IS NULL OR repo = ?) AND at = "
                "(SELECT MAX(at) FROM verdicts WHERE repo = v.repo AND pr = v.pr) "
                "AND approved_by IS NOT NULL ORDER BY repo, pr",
                (installation, repo, repo),
            ).fetchall()
        wanted = None if login is None else login.casefold()
        return [(str(r[0]), int(r[1])) for r in rows if wanted is None or wanted in _logins(str(r[2]))]

    def forget_approvals(self, repo: str, pr: int) -> None:
        """The pull request is closed: no access change needs to judge it again."""
        with self._transaction() as db:
            db.execute("UPDATE verdicts SET approved_by = NULL WHERE repo = ? AND pr = ?", (repo, pr))

    def recent_pulls(self, repo: str, limit: int = 50) -> list[tuple[int, str, str, float, bool]]:
        """(pr, verdict, head, at, required) of each pull request's latest judgement in ``repo``,
        newest first, at most ``limit`` (the status page's per-pull-request list: bounded work)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT pr, verdict, head, at, required FROM verdicts AS v WHERE repo = ? AND at = "
                "(SELECT MAX(at) FROM verdicts WHERE repo = v.repo AND pr = v.pr) "
                "ORDER BY at DESC, pr DESC LIMIT ?",
                (repo, limit),
            ).fetchall()
        return [(int(r[0]), str(r[1]), str(r[2]), float(r[3]), r[4] is None or bool(r[4])) for r in rows]

    def _latest(self, repo: str) -> list[tuple[int, int, str, str]]:
        """(pr, installation, parent, verdict) of each pull request's last judgement in ``repo``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT pr, installation, parent, verdict FROM verdicts AS v WHERE repo = ? AND at = "
                "(SELECT MAX(at) FROM verdicts WHERE repo = v.repo AND pr = v.pr) ORDER BY pr",
                (repo,),
            ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]


def _logins(text: str) -> list[str]:
    """The logins of a verdict's ``approved_by`` (a JSON list; anything else: none)."""
    try:
        found = json.loads(text)
    except ValueError:
        return []
    return [str(x) for x in found] if isinstance(found, list) else []


class Checkpointer:
    """Passive checkpoints of databases' write-ahead logs, on connections of its own (their writers
    do not checkpoint on commit: :meth:`Store.defer_checkpoints`)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._dbs = [sqlite3.connect(path, timeout=30) for path in paths]

    def checkpoint(self) -> list[tuple[int, int] | None]:
        """One passive checkpoint of each: (frames in the WAL, frames copied into the database), or
        None where it failed (logged: that WAL grows until the next one succeeds)."""
        done: list[tuple[int, int] | None] = []
        for db in self._dbs:
            try:
                done.append(checkpoint(db))
            except sqlite3.Error:
                _log.exception("checkpoint failed")
                done.append(None)
        return done

    def close(self) -> None:
        for db in self._dbs:
            db.close()


def checkpoint(db: sqlite3.Connection) -> tuple[int, int]:
    """One passive checkpoint: (frames in the WAL, frames copied into the database)."""
    _, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(frames), int(copied)
