"""Durable state in SQLite (standard library): deliveries seen, the job queue, the last verdicts.

* **Idempotence.** A delivery id is recorded in the same transaction as its jobs, so a redelivery
  (same ``X-GitHub-Delivery``) adds nothing, and a crash between the two cannot record one without
  the other.
* **Jobs.** ``queued -> running -> done | failed | superseded``. A queued job whose key (one pull
  request) gets a newer job is superseded at once; a key never has two running jobs
  (:meth:`Store.claim` skips busy keys), so the jobs of one pull request run in order. Jobs left
  ``running`` by a crash are queued again by :meth:`Store.recover` when the server starts.
* **Verdicts.** The last verdict per (repository, pull request, parent, head), and which pull
  requests wait for a parent's map.

One connection, guarded by a lock (calls are short); WAL so readers do not block the writer.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gate.bot.events import Job

SCHEMA = """
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
"""
SCHEMA_EXPLANATIONS = """
CREATE TABLE IF NOT EXISTS explanations (
    token TEXT PRIMARY KEY, repo TEXT NOT NULL, pr INTEGER NOT NULL, head TEXT NOT NULL,
    body TEXT NOT NULL, at REAL NOT NULL
);
"""
SCHEMA_INSTALLATIONS = """
CREATE TABLE IF NOT EXISTS installations (id INTEGER PRIMARY KEY, state TEXT NOT NULL, at REAL NOT NULL);
"""
QUEUED, RUNNING, DONE, FAILED, SUPERSEDED = "queued", "running", "done", "failed", "superseded"
NO_MAP = "no_map"  # the verdict value recorded when a pull request waits for its parent's map
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class ClaimedJob:
    id: int
    delivery: str
    job: Job
    attempts: int


class Store:
    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        """``clock`` decides when a delayed retry is due (tests pass their own)."""
        self._clock = clock
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            self._db.executescript(SCHEMA_EXPLANATIONS)
            self._db.executescript(SCHEMA_INSTALLATIONS)
            self._add_due_column()

    def _add_due_column(self) -> None:
        """``jobs.due``: not claimed before this time (a retry's backoff); added to older databases."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}
        if "due" not in columns:
            self._db.execute("ALTER TABLE jobs ADD COLUMN due REAL NOT NULL DEFAULT 0")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- deliveries and enqueueing -------------------------------------------------------------

    def accept(
        self, delivery: str, event: str, jobs: Iterable[Job], installation: tuple[int, str] | None = None
    ) -> bool:
        """Record the delivery and queue its jobs (and an installation's new state); False (nothing
        done) when it was seen before."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                try:
                    self._db.execute("INSERT INTO deliveries VALUES (?, ?, ?)", (delivery, event, now))
                except sqlite3.IntegrityError:
                    self._db.execute("ROLLBACK")
                    return False
                for job in jobs:
                    self._enqueue(delivery, job, now)
                if installation is not None:
                    self._record_installation(*installation, now)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

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
        with self._lock:
            self._db.execute(
                "INSERT INTO explanations VALUES (?, ?, ?, ?, ?, ?)",
                (token, repo, pr, head, body, self._clock()),
            )
        return token

    def prune_explanations(self, max_age: float, max_count: int, now: float) -> int:
        """Forget explanations older than ``max_age`` seconds or beyond the ``max_count`` newest
        (their pages then answer 404); how many."""
        with self._lock:
            cur = self._db.execute(
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

    def enqueue(self, delivery: str, jobs: Iterable[Job]) -> None:
        """Queue follow-up jobs a running job found (no delivery record: it is not a delivery)."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            for job in jobs:
                self._enqueue(delivery, job, now)
            self._db.execute("COMMIT")

    def _enqueue(self, delivery: str, job: Job, now: float) -> None:
        """A newer job for a key supersedes the queued ones (a newer head makes them pointless)."""
        self._db.execute(
            "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE key = ? AND state = ? AND spec = ?",
            (SUPERSEDED, "the same job was queued again", now, job.key, QUEUED, job.to_json()),
        )
        if job.kind == "judge":
            self._db.execute(
                "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE key = ? AND state = ? "
                "AND json_extract(spec, '$.kind') = 'judge'",
                (SUPERSEDED, f"superseded by a newer event ({delivery})", now, job.key, QUEUED),
            )
        self._db.execute(
            "INSERT INTO jobs (delivery, key, spec, state, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
            (delivery, job.key, job.to_json(), QUEUED, now, now),
        )

    # -- the queue -----------------------------------------------------------------------------

    def claim(self) -> ClaimedJob | None:
        """The oldest queued job whose key has no running job, now marked running."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute(
                "SELECT id, delivery, spec, attempts FROM jobs AS j WHERE state = ? AND due <= ? "
                "AND NOT EXISTS (SELECT 1 FROM jobs AS r WHERE r.key = j.key AND r.state = ?) "
                "ORDER BY id LIMIT 1",
                (QUEUED, self._clock(), RUNNING),
            ).fetchone()
            if row is None:
                self._db.execute("COMMIT")
                return None
            self._db.execute(
                "UPDATE jobs SET state = ?, attempts = attempts + 1, updated = ? WHERE id = ?",
                (RUNNING, time.time(), row[0]),
            )
            self._db.execute("COMMIT")
        return ClaimedJob(row[0], row[1], Job.from_json(row[2]), row[3] + 1)

    def finish(self, job_id: int, state: str, detail: str = "") -> None:
        with self._lock:
            self._db.execute(
                "UPDATE jobs SET state = ?, detail = ?, updated = ? WHERE id = ?",
                (state, detail[:1000], time.time(), job_id),
            )

    def requeue(self, job_id: int, detail: str, delay: float = 0.0) -> None:
        """Back to the queue (a shutdown interrupted it, or a transient failure), not claimed for
        ``delay`` seconds; failed after :data:`MAX_ATTEMPTS` attempts so a job that always crashes
        cannot loop forever."""
        with self._lock:
            self._db.execute(
                "UPDATE jobs SET state = CASE WHEN attempts >= ? THEN ? ELSE ? END, detail = ?, updated = ?, "
                "due = ? WHERE id = ?",
                (MAX_ATTEMPTS, FAILED, QUEUED, detail[:1000], time.time(), self._clock() + delay, job_id),
            )

    def next_due(self) -> float | None:
        """When the earliest queued job becomes claimable (by the store's clock); None: none queued."""
        with self._lock:
            row = self._db.execute("SELECT MIN(due) FROM jobs WHERE state = ?", (QUEUED,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def recover(self) -> int:
        """Queue again the jobs a crash left running; how many."""
        with self._lock:
            cur = self._db.execute(
                "UPDATE jobs SET state = ?, detail = 'interrupted; retried on start', updated = ? "
                "WHERE state = ?",
                (QUEUED, time.time(), RUNNING),
            )
            return cur.rowcount

    def is_newest(self, job_id: int, key: str) -> bool:
        """No judge job for ``key`` was queued after this one (else posting it would be stale)."""
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM jobs WHERE key = ? AND id > ? AND state = ? "
                "AND json_extract(spec, '$.kind') = 'judge' LIMIT 1",
                (key, job_id, QUEUED),
            ).fetchone()
        return row is None

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
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
        self, job: Job, parent: str, head: str, verdict: str, check_run_id: int | None
    ) -> None:
        if job.pr is None:
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (job.repo, job.pr, parent, head, verdict, check_run_id, job.installation, time.time()),
            )

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

    def _latest(self, repo: str) -> list[tuple[int, int, str, str]]:
        """(pr, installation, parent, verdict) of each pull request's last judgement in ``repo``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT pr, installation, parent, verdict FROM verdicts AS v WHERE repo = ? AND at = "
                "(SELECT MAX(at) FROM verdicts WHERE repo = v.repo AND pr = v.pr) ORDER BY pr",
                (repo,),
            ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]
