"""The workers in a process of their own, beside the one that answers webhooks (issue #17).

Why: in one process the workers' Python (planning, PyGithub, rendering, the store's bookkeeping)
and the event loop that acknowledges deliveries take turns on one GIL. Each delivery's answer waits
for the loop's next turn after every socket read and write, and while jobs ran those waits made
the acknowledgement's p99 several times its p50 (bench/bot_throughput.py, at 100 deliveries/s:
p50 21 ms, p99 87 ms in one process). In a process of its own the front has a GIL of its own, and
the kernel, not the interpreter, shares the cores; the workers run at a lower priority
(:data:`NICENESS`), so a delivery's answer is what the kernel schedules first. Jobs, scoring and
judging children inherit that priority: they are background work whose pace the queue absorbs.

How the two processes talk:

* **The store.** The front records deliveries in a database only it writes
  (:mod:`oracle_gate.bot.web.received`); the workers move them into the jobs' database, which only
  they write (the front reads it for ``/healthz``, redelivery and the explanation pages).
* **Wake-ups.** A pipe: the front writes a byte when it recorded a new job, and a thread here wakes
  the pool for it (the pool also polls, so a byte lost to a full pipe costs at most a poll).
* **Stop.** End of file on that pipe: the front closed it (an orderly stop, after uvicorn answered
  every request it took) or died. The workers then stop as before: running jobs get the grace
  period, the rest are queued again.
* **Death.** The kernel kills this process with ``SIGKILL`` when the front dies
  (``PR_SET_PDEATHSIG``): ``kill -9`` of the server leaves no worker behind posting for a server
  that is gone; the next start recovers the jobs, as it did in one process.
* **/healthz.** The pool's figures (size, running, peak) in a few bytes of shared memory.

The front forks this process before it starts any thread (a fork copies only the calling thread,
and a lock another thread held would stay locked in the child for ever).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import mmap
import os
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

#: Added to the workers' niceness (0-19, higher is lower priority): the front's answers come first.
NICENESS = 10
_STATS = struct.Struct("=qqq")  # workers, running, peak
_PR_SET_PDEATHSIG = 1
_log = logging.getLogger("oracle_gate.bot")


class ParentLink:
    """The worker process's side: its wake-ups, its stop, its figures for ``/healthz``."""

    def __init__(self, wake_fd: int, stats: mmap.mmap) -> None:
        self._wake_fd = wake_fd
        self._stats = stats

    def publish(self, figures: dict[str, int]) -> None:
        """The pool's figures, for the front's ``/healthz``."""
        self._stats[: _STATS.size] = _STATS.pack(figures["workers"], figures["running"], figures["peak"])

    def follow(self, woken: Callable[[], None], stop: threading.Event, poll: float = 1.0) -> threading.Thread:
        """A daemon thread calling ``woken`` for every wake-up, and every ``poll`` seconds in case one
        was lost to a full pipe; at end of file it sets ``stop`` (and calls ``woken`` once more)."""

        def run() -> None:
            while True:
                ready, _, _ = select.select([self._wake_fd], [], [], poll)
                got = b"-"
                if ready:
                    try:
                        got = os.read(self._wake_fd, 4096)
                    except InterruptedError:
                        continue
                    except OSError:
                        got = b""
                woken()
                if not got:
                    stop.set()
                    return

        thread = threading.Thread(target=run, name="oracle-gate-front", daemon=True)
        thread.start()
        return thread


@dataclass
class WorkerProcess:
    """The front's side: the child's pid, the pipe's writing end, the shared figures."""

    pid: int
    _wake_fd: int
    _stats: mmap.mmap
    _exited: threading.Event = field(default_factory=threading.Event)
    _status: list[int] = field(default_factory=list)
    _closed: bool = False

    def wake(self) -> None:
        """Wake the workers (new jobs are in the store). Never blocks: a full pipe already wakes them."""
        with contextlib.suppress(BlockingIOError, BrokenPipeError, OSError):
            os.write(self._wake_fd, b"w")

    def stats(self) -> dict[str, int]:
        workers, running, peak = _STATS.unpack(self._stats[: _STATS.size])
        return {"workers": workers, "running": running, "peak": peak}

    def watch(self, on_exit: Callable[[int], None]) -> None:
        """Reap the child in a daemon thread; ``on_exit(exit code)`` when it ends (crashed or stopped)."""

        def run() -> None:
            _, status = os.waitpid(self.pid, 0)
            code = os.waitstatus_to_exitcode(status)
            self._status.append(code)
            self._exited.set()
            on_exit(code)

        threading.Thread(target=run, name="oracle-gate-reaper", daemon=True).start()

    @property
    def exit_code(self) -> int | None:
        return self._status[0] if self._status else None

    def stop(self, timeout: float) -> int | None:
        """Tell the workers to stop (end of file on their pipe) and wait up to ``timeout`` seconds;
        then kill them. Their exit code (negative: the signal that ended them), None if not reaped."""
        if not self._closed:
            self._closed = True
            os.close(self._wake_fd)
        if not self._exited.wait(timeout):
            _log.warning("workers did not stop in time", extra={"detail": f"killing pid {self.pid}"})
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._exited.wait(10)
        return self.exit_code


def fork_workers(size: int, run: Callable[[ParentLink], int]) -> WorkerProcess:
    """Fork the worker process of a pool of ``size``; in it, ``run(link)`` and its return value as the
    exit code (it never returns to the caller's code). Call before any thread starts."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    stats = mmap.mmap(-1, mmap.PAGESIZE)  # anonymous and shared: a fork shares it, not copies it
    stats[: _STATS.size] = _STATS.pack(size, 0, 0)  # what /healthz says before the pool starts
    front = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker process
        code = 70  # EX_SOFTWARE, if anything below raises
        try:
            os.close(wake_w)
            _die_with(front)
            os.nice(NICENESS)
            for sig in (signal.SIGINT, signal.SIGTERM):  # ^C or a stop sent to the group: the front
                signal.signal(sig, signal.SIG_IGN)  # stops the workers, in order, when it has answered
            code = run(ParentLink(wake_r, stats))
        except BaseException as exc:  # noqa: BLE001 - one line, never a traceback; the front sees the exit
            sys.stderr.write(f"oracle-gate serve: the worker process failed: {type(exc).__name__}: {exc}\n")
        finally:
            os._exit(code)
    os.close(wake_r)
    return WorkerProcess(pid, wake_w, stats)


def _die_with(front: int) -> None:
    """Have the kernel kill this process when the front dies; exit now if it already has."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != front:  # the front died before the request above took effect
        os._exit(1)
