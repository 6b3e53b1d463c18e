"""Judging in a child process under a memory limit (TRUST.md invariant 8: a limit reached is a verdict).

The pull request decides how big its change is, and judging holds several copies of what it changed
(about 9 times the changed bytes: 4 files of 15 MiB cost 568 MiB). In the server's own process that
is every job's memory and the webhook endpoint's too; the kernel's answer to running out is to kill
the whole server, and the job then crashes it again on every start. So each judgement runs in a
child process (forked from a small fork server that has imported the judging code, so a job does
not pay for imports) whose address space is capped with ``RLIMIT_AS``. Past the cap the child gets
``MemoryError`` (or dies): the verdict is ``unscored`` with ``oracle_incomplete`` saying so -- never a
pass, never a crash of the server. ``limit_bytes`` 0 judges in-process, unbounded.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import select
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import forkserver
from multiprocessing.context import BaseContext
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.bot.app.clock import SYSTEM
from oracle_gate.git import Git
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judge.withheld import not_read
from oracle_gate.judgement.core import judge_facts
from oracle_gate.judgement.ports import Facts

MIB = 1024 * 1024
DEFAULT_LIMIT_MIB = 1024
_contexts: list[BaseContext] = []  # the fork server's context, once made
_context_guard = threading.Lock()


def judge(facts: Facts, limit_bytes: int, limit_seconds: float = 0.0) -> Verdict:
    """The judgement of ``facts`` (:func:`oracle_gate.judgement.core.judge_facts`) in a child process
    limited to ``limit_bytes`` of address space and ``limit_seconds`` of wall clock (0: that limit is
    off; both off: judged in this process)."""
    if limit_bytes <= 0 and limit_seconds <= 0:
        return judge_facts(facts, Git(facts.repo))
    with ProcessPoolExecutor(
        1, mp_context=_fork_server(), initializer=_limit, initargs=(limit_bytes, os.getpid())
    ) as pool:
        future = pool.submit(_judge_in_child, facts)
        try:
            return future.result(timeout=limit_seconds if limit_seconds > 0 else None)
        except TimeoutError:
            _kill_children(pool)
            why = f"judging ran past the job's {limit_seconds:g} s of wall clock"
            return limit_reached(facts, why, "ORACLE_GATE_JOB_SECONDS")
        except MemoryError:
            why = f"judging needed more than the job's {limit_bytes // MIB} MiB"
            return limit_reached(facts, why, MEMORY_SETTING)
        except BrokenProcessPool:
            why = f"the judging process died (the job's memory limit is {limit_bytes // MIB} MiB)"
            return limit_reached(facts, why, MEMORY_SETTING)


MEMORY_SETTING = "ORACLE_GATE_JOB_MEMORY_MB"


def limit_reached(facts: Facts, why: str, setting: str) -> Verdict:
    """The verdict when a limit stopped the judgement: the core's ``unscored``, naming the limit and
    its setting (never a pass)."""
    missing = facts.parent_map.missing if facts.parent_map.usable is None else None
    detail = f"{why} ({setting}): nothing was judged"
    return not_read(facts.parent, facts.merge, detail, __version__, map_missing=missing)


def _kill_children(pool: ProcessPoolExecutor) -> None:
    """End the judging process that ran past its wall clock (the pool would otherwise wait for it)."""
    for process in list((pool._processes or {}).values()):
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _fork_server() -> BaseContext:
    """The fork server's context (started on first use; forking a multi-threaded server directly is
    unsafe, and spawning a fresh interpreter per job costs its imports every time)."""
    with _context_guard:
        if not _contexts:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["oracle_gate.judgement.core", "oracle_gate.bot.jobs.bounded"])
            _contexts.append(context)
        return _contexts[0]


def start_fork_server() -> None:
    """Start the fork server now (at the server's start), so the first job does not wait for it."""
    _fork_server()
    forkserver.ensure_running()


def _limit(limit_bytes: int, owner: int) -> None:
    if limit_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    die_with(owner)


def die_with(owner: int) -> None:
    """Exit when process ``owner`` (the job's, which waits for this judgement) dies.

    The fork server, not the job's process, is this process's parent, so the kernel's parent-death
    signal would wait for the fork server; and the fork server lives as long as any process it
    forked does (each holds its liveness pipe), while this one waits for work from a job's process
    that is gone. After a ``kill -9`` of the server both stayed, for ever. So this process watches
    its owner itself (a pidfd, polled once a second where the kernel has none)."""
    try:
        watched = os.pidfd_open(owner)
    except ProcessLookupError:
        os._exit(1)
    except OSError:
        watched = -1

    def watch() -> None:
        if watched >= 0:
            select.select([watched], [], [])
        else:
            while _alive(owner):
                SYSTEM.sleep(1.0)  # in the judging child: real time, whatever the server uses
        os._exit(1)

    threading.Thread(target=watch, name="oracle-gate-owner", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _judge_in_child(facts: Facts) -> Verdict:
    return judge_facts(facts, Git(Path(facts.repo)))
