"""The scoring run's sandbox (TRUST.md 13, issue 20): head's code runs where nothing of value is.

:func:`run_sandboxed` runs a command under bubblewrap (``bwrap``, Debian's ``bubblewrap``):

* a minimal read-only root (TRUST.md 15), never the host's ``/`` bound whole: the system's programs
  and libraries (``/usr`` and the ``/bin``, ``/lib*`` beside it), the few files of ``/etc`` the
  loader, Python and git read (:data:`ETC_ENTRIES`), the gate's own interpreter, environment and
  package, a new ``/proc`` and a minimal ``/dev``; no host ``/run``, ``/var/run``, ``/tmp``,
  ``/home``, ``/root``, ``/var`` or ``/sys``, so no host UNIX socket (docker.sock, a session bus, a
  database's) is there to connect to (an abstract one belongs to the host's network namespace,
  which the sandbox leaves); ``/tmp`` an empty tmpfs, the caller's ``hidden`` directories replaced
  by empty tmpfs mounts (the bot's state directory) and ``hidden`` files by ``/dev/null`` (the App's
  private key), then only the ``exposed`` paths bound back read-only (the repository and the
  parent's map it needs); the root itself remounted read-only at the end;
* one writable scratch directory, a tmpfs of at most ``disk_bytes``, where head is checked out
  (``git archive``, read-only on the repository) and the runs write;
* no network (``--unshare-net``: only a down loopback), its own PID namespace (no
  ``/proc/<ppid>/environ`` of the caller to read), IPC, UTS and cgroup namespaces, killed with its
  parent, every capability dropped (``--cap-drop ALL``: no ``CAP_SYS_PTRACE``); the scoring process
  inside makes itself non-dumpable (:func:`not_traceable`), so head's tests, its children, can
  neither ``ptrace`` it nor open its ``/proc/<pid>/mem`` to rewrite what it reports;
* an environment built from nothing (``--clearenv``): ``PATH``, ``HOME`` in the scratch, the
  locale; never a token, a key or a webhook secret;
* limits: CPU seconds and address space per process (``setrlimit``, inherited), file size, and a
  wall clock after which the whole namespace is killed.

Past a limit the score is ``unscored`` with a reason (:func:`score_in_sandbox`). Without ``bwrap``
it fails closed with one line (:class:`SandboxUnavailable`).

What it does not protect against: a kernel exploit from inside the namespaces; head's code reading
what the whole file system shows read-only (so keep secrets in the hidden paths, not elsewhere on
the machine); CPU limits are per process (a fork bomb is bounded by the wall clock and the PID
namespace's death, not by a total CPU budget).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.errors import GateError, RetryLater
from oracle_gate.judge.verdict import EXIT_STATUS, Outcome
from oracle_gate.review.settings import SETTINGS, default
from oracle_gate.score.decide import SCORE_KIND, ScoreCode

# Inside the sandbox, on its own empty /tmp: the only writable place (a sized tmpfs).
SCRATCH = "/tmp/oracle-gate-score"  # noqa: S108 - a path in the sandbox's private tmpfs
MAX_REPORT_BYTES = 32 * 1024 * 1024
#: The bot's settings (oracle_gate.review.settings, read by oracle_gate.bot.jobs.scoring): the switch,
#: "bwrap" to score pass_clean verdicts in this sandbox (unset: off), and the limits.
BOT_SETTING = "ORACLE_GATE_SCORE_SANDBOX"
#: Each limit's setting in the one table (its bounds and default are there) and its unit.
LIMIT_SETTINGS = {
    "cpu_seconds": ("score-cpu-seconds", 1),
    "memory_bytes": ("score-memory-mb", 1024**2),
    "disk_bytes": ("score-disk-mb", 1024**2),
    "wall_seconds": ("score-wall-seconds", 1),
}
LIMIT_NAMES = {"cpu": "cpu_seconds", "memory": "memory_bytes", "disk": "disk_bytes", "wall": "wall_seconds"}


class SandboxUnavailable(GateError):
    """bubblewrap is missing or cannot create its namespaces here."""


class Stopped(RetryLater):
    """The caller's ``stop`` said so (a newer head, a shutdown): the child was killed, nothing scored
    (the caller decides whether it is run again)."""


@dataclass(frozen=True)
class Limits:
    """Defaults from the one settings table (oracle_gate.review.settings, ``score-*``)."""

    cpu_seconds: int = int(default("score-cpu-seconds"))  # per process
    memory_bytes: int = int(default("score-memory-mb")) * 1024**2  # address space per process
    disk_bytes: int = int(default("score-disk-mb")) * 1024**2  # the scratch tmpfs, and the largest file
    wall_seconds: float = float(default("score-wall-seconds"))


@dataclass(frozen=True)
class Sandboxed:
    exit_status: int | None  # None: killed at the wall clock
    limit: str | None  # "cpu", "memory", "wall", "disk" when a limit ended it
    stdout: bytes
    stderr: str


def limits_from_environment(env: Mapping[str, str]) -> Limits:
    """The sandbox's limits from the bot's environment (each a whole number of seconds or MB;
    anything else is refused with one line naming the variable)."""
    values: dict[str, Any] = {}
    for field_name, (name, unit) in LIMIT_SETTINGS.items():
        setting = SETTINGS[name]
        raw = env.get(setting.variable, "").strip()
        if raw:
            values[field_name] = setting.whole(raw, setting.variable) * unit
    return Limits(**values)


def bwrap() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(
            "bwrap (bubblewrap) is not installed: the scoring run executes head's code and is never run "
            "unsandboxed (apt-get install bubblewrap)"
        )
    return found


def sandbox_argv(
    command: Sequence[str],
    *,
    hidden: Sequence[Path] = (),
    exposed: Sequence[Path] = (),
    disk_bytes: int,
    program: str = "bwrap",
) -> list[str]:
    """The ``bwrap`` command line (order matters: later mounts go on top of earlier ones)."""
    argv = [program, *minimal_root(), "--dev", "/dev", "--proc", "/proc"]
    argv += ["--tmpfs", "/tmp"]  # noqa: S108 - an empty private tmpfs, never the host's /tmp
    for path in the_gates_own_paths():
        argv += ["--ro-bind", str(path), str(path)]
    for path in hidden:
        if path.is_dir():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", "/dev/null", str(path)]
    for path in exposed:
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--size", str(disk_bytes), "--tmpfs", SCRATCH, "--chdir", SCRATCH]
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    for key, value in sandbox_env().items():
        argv += ["--setenv", key, value]
    argv += ["--remount-ro", "/"]  # the root's own tmpfs: every mount point is made by now
    return [*argv, "--", *command]


#: The system's programs and libraries, bound read-only (a merged-/usr link is made as a link).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of ``/etc`` the dynamic loader, Python, git and TLS read; nothing else of the host's ``/etc``.
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
    "ssl",
    "ca-certificates",
    "alternatives",
    "mime.types",
    "os-release",
)


def minimal_root() -> list[str]:
    """``bwrap`` arguments for the sandbox's read-only root (see the module's docstring)."""
    argv: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            argv += ["--ro-bind", name, name]
    for entry in ETC_ENTRIES:
        path = Path("/etc", entry)
        if path.exists():
            argv += ["--ro-bind", str(path), str(path)]
    return argv


def not_traceable() -> None:
    """Make this process non-dumpable (``PR_SET_DUMPABLE`` 0): without ``CAP_SYS_PTRACE``, which the
    sandbox drops, no other process of the same user may ``ptrace`` it or open its
    ``/proc/<pid>/mem``. A program it starts is dumpable again (``execve`` resets it), so head's
    tests run as usual. Quietly nothing where ``prctl`` is not there (not Linux)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        return


PR_SET_DUMPABLE = 4


def the_gates_own_paths() -> list[Path]:
    """The interpreter, its environment and the gate's own package, bound read-only at their paths.

    The sandbox's root holds only the system's directories: a gate in a virtual environment (under
    ``/opt``, ``/root``, the host's ``/tmp``, an editable install's checkout) would not be there,
    and the child could not even start Python. These are the gate's code, never a secret or the
    state directory (hidden afterwards when it lies beneath one of them).
    """
    import importlib.util

    import oracle_gate

    candidates = {
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(os.path.realpath(sys.executable)).parent.parent,
        Path(oracle_gate.__file__).resolve().parent,
    }
    templates = importlib.util.find_spec("oracle_gate.templates")  # templates/, mapped in by package-dir
    if templates is not None and templates.origin:
        candidates.add(Path(templates.origin).resolve().parent)
    system = [Path(d) for d in SYSTEM_DIRS]
    found = sorted(c for c in candidates if c.exists() and c != Path("/") and not _under_any(c, system))
    return [c for c in found if not any(c != o and c.is_relative_to(o) for o in found)]


def _under_any(path: Path, roots: Sequence[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def sandbox_env() -> dict[str, str]:
    """Everything the child's environment holds: nothing inherited but the ``PATH``."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }


def _limit(limits: Limits) -> Any:
    def apply() -> None:
        # SIGXCPU at the soft limit (named "cpu" afterwards), SIGKILL a little later at the hard one.
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.disk_bytes, limits.disk_bytes))

    return apply


def run_sandboxed(
    command: Sequence[str],
    limits: Limits,
    *,
    hidden: Sequence[Path] = (),
    exposed: Sequence[Path] = (),
    stop: Callable[[], bool] | None = None,
) -> Sandboxed:
    """Run ``command`` in the sandbox; its output captured (bounded), the limit that ended it named.

    ``stop`` is asked about once a second; when it says so the child is killed and :class:`Stopped`
    raised (the bot: the pull request has a newer head, or the server is stopping)."""
    argv = sandbox_argv(
        command, hidden=hidden, exposed=exposed, disk_bytes=limits.disk_bytes, program=bwrap()
    )
    proc = subprocess.Popen(
        argv,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit(limits),  # noqa: PLW1509 - setrlimit must run in the child, before exec
        start_new_session=True,
    )
    deadline = time.monotonic() + limits.wall_seconds
    while True:
        try:
            out, err = proc.communicate(timeout=max(0.0, min(1.0, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            stopping = stop is not None and stop()
            if stopping or time.monotonic() >= deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                if stopping:
                    raise Stopped("the scoring run was stopped") from None
                return Sandboxed(None, "wall", out[:MAX_REPORT_BYTES], _tail(err))
    status = proc.returncode
    return Sandboxed(status, limit_of(status, _tail(err)), out[:MAX_REPORT_BYTES], _tail(err))


def _tail(err: bytes) -> str:
    return err[-4000:].decode("utf-8", "replace")


def limit_of(status: int, stderr: str) -> str | None:
    """Which limit ended the child, from bwrap's exit status (128 + signal) and its last words."""
    signals = {status, -status, status - 128}
    if signal.SIGXCPU in signals:
        return "cpu"
    disk_words = ("No space left on device", "File too large")
    if signal.SIGXFSZ in signals or any(word in stderr for word in disk_words):
        return "disk"
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr:
        return "memory"
    if status != 0 and signal.SIGKILL in signals:
        return "memory"  # killed without our asking: the kernel's answer to memory
    return None


def check_sandbox() -> None:
    """Fail closed, with one line, when the sandbox cannot be made here."""
    probe = run_sandboxed(["true"], Limits(wall_seconds=30))
    if probe.exit_status != 0:
        raise SandboxUnavailable(f"bwrap cannot create the sandbox here: {probe.stderr.strip()[:200]}")


def inner_wall_seconds(wall_seconds: float) -> float:
    """The score command's own wall clock inside the sandbox: up to 30 s (half of a short limit)
    before the sandbox's, so the run reports its limit itself before the namespace is killed."""
    return max(wall_seconds - min(30.0, wall_seconds / 2), 1.0)


def score_in_sandbox(
    repo: Path,
    base: str,
    head: str,
    coverage: Path,
    *,
    state_dir: Path | None = None,
    hidden: Sequence[Path] = (),
    limits: Limits = Limits(),
    python: str = sys.executable,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """``oracle-gate score`` in the sandbox; its score.json, or an ``unscored`` stand-in naming why.

    ``repo`` and ``coverage`` are exposed read-only even when they lie in ``state_dir``; ``base`` and
    ``head`` must be full SHAs the caller resolved. The caller still checks the report against what
    it knows (:func:`oracle_gate.score.verify.check_report`): this only keeps head's code away from secrets.
    """
    tree = f"{SCRATCH}/head"
    repo, coverage = repo.resolve(), coverage.resolve()  # the child starts in the scratch directory
    script = 'set -e; mkdir "$1"; git -C "$2" archive --format=tar "$3" | tar -x -C "$1"; shift 3; exec "$@"'
    command = ["sh", "-c", script, "sh", tree, str(repo), head, python, "-m", "oracle_gate", "score"]
    command += ["--repo", str(repo), "--base", base, "--head", head, "--coverage", str(coverage)]
    command += ["--tree", tree, "--format", "json", "--score-json", f"{SCRATCH}/score.json"]
    command += ["--wall-seconds", str(inner_wall_seconds(limits.wall_seconds))]
    hide = [*([state_dir] if state_dir else []), *hidden]
    started = time.monotonic()
    done = run_sandboxed(command, limits, hidden=hide, exposed=[repo, coverage.parent], stop=stop)
    seconds = round(time.monotonic() - started, 3)
    if done.limit is not None:
        setting = SETTINGS[LIMIT_SETTINGS[LIMIT_NAMES[done.limit]][0]].variable
        return stand_in(f"the scoring run passed its {done.limit} limit ({setting}) and was stopped", seconds)
    try:
        doc = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return stand_in(
            f"the scoring run wrote no report (exit {done.exit_status}): {done.stderr[-300:]}", seconds
        )
    if not isinstance(doc, dict) or doc.get("kind") != SCORE_KIND:
        return stand_in("the scoring run's output is not a score report", seconds)
    if done.exit_status != _exit_status_of(doc.get("score")):
        # Head's code shares the sandbox with the scoring process: it can write a report into that
        # process's standard output (/proc/PID/fd/1) and stop it before it writes its own. Only a
        # run that ended as its own report says it did is believed.
        return stand_in(
            f"the scoring run exited {done.exit_status}, which is not what its report says "
            f"({str(doc.get('score'))[:40]!r}): its output was not its own",
            seconds,
        )
    return doc


def _exit_status_of(score: object) -> int | None:
    try:
        return int(EXIT_STATUS[Outcome(str(score))])
    except ValueError:
        return None


def stand_in(detail: str, seconds: float) -> dict[str, Any]:
    """An ``unscored`` report for a run that ended without one (a limit, a crash)."""
    code = ScoreCode.SCORING_INCOMPLETE.value
    return {
        "kind": SCORE_KIND,
        "score": Outcome.UNSCORED.value,
        "reasons": [{"code": code, "detail": detail, "tests": [], "outcome": Outcome.UNSCORED.value}],
        "runs": [],
        "seconds": {"total": seconds},
    }
