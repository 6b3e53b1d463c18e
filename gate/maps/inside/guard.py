"""Is the measuring machinery still the map's own? Checked at every test boundary.

The tests a map measures run in the measuring process, and one of them may be written to blind it: a
test module that, at collection time, registers its own ``LINE`` callback under the collector's tool
id drops every later test's lines while the map still lists those tests as run (and a frozen-only
change then scores ``pass_clean``). So at every boundary (each collected module, each test phase, the
end) the collector checks that

* its ``sys.monitoring`` tool id still belongs to it and its global events are still ``PY_START``;
* its callbacks are still the ones it registered: ``register_callback`` returns the previous callback,
  which is compared by identity (and the line callback's code and the list it appends to are its own);
* no trace function other than the one it started with (or coverage.py's) was installed;

and, between boundaries, the module-level functions of ``sys.monitoring`` that could switch it off
(``set_local_events``, ``set_events``, ``register_callback``, ``free_tool_id``, ``use_tool_id``, and
``clear_tool_id`` where it exists) are wrapped: a call naming the collector's tool id from anyone but
the collector is refused and recorded. On the coverage.py path the plugin checks instead that the
trace function is still coverage.py's tracer.

Any difference makes the map fail closed, naming the test (or the module being collected) that was
running. This raises the bar, it is no sandbox: code in the measured process can in principle patch
the gate's own modules; the freeze and the trust rules (``../shared/spec/TRUST.md``) are what keep
such code out of the parent that is measured.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

GUARDED = (
    "set_local_events",
    "set_events",
    "register_callback",
    "free_tool_id",
    "use_tool_id",
    "clear_tool_id",
)


class MonitoringGuard:
    """Wraps ``sys.monitoring``'s mutating functions so that calls naming ``tool`` are refused and
    recorded; the collector itself calls the unwrapped functions (:meth:`original`)."""

    def __init__(self, mon: Any, tool: int) -> None:
        self.mon = mon
        self.tool = tool
        self.originals: dict[str, Callable[..., Any]] = {
            name: getattr(mon, name) for name in GUARDED if hasattr(mon, name)
        }
        self.violations: list[str] = []

    def install(self) -> None:
        for name, function in self.originals.items():
            setattr(self.mon, name, self._wrap(name, function))

    def uninstall(self) -> None:
        for name, function in self.originals.items():
            setattr(self.mon, name, function)

    def original(self, name: str) -> Callable[..., Any]:
        return self.originals[name]

    def _wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        guard = self

        def guarded(*args: Any, **kwargs: Any) -> Any:
            if (args[0] if args else kwargs.get("tool_id")) == guard.tool:
                guard.violations.append(f"sys.monitoring.{name}() was called on its tool id {guard.tool}")
                raise ValueError(f"sys.monitoring tool id {guard.tool} is in use by oracle-gate's map")
            return function(*args, **kwargs)

        guarded.__name__ = name
        guarded.__qualname__ = name
        return guarded


def sysmon_problem(
    mon: Any, register: Callable[..., object], tool: int, tool_name: str, callbacks: Mapping[int, object]
) -> str | None:
    """What changed in the collector's ``sys.monitoring`` registration, or None. Its global events
    are ``PY_START`` alone; ``register`` is the unwrapped ``register_callback``."""
    owner = mon.get_tool(tool)
    if owner != tool_name:
        return f"its sys.monitoring tool id {tool} now belongs to {owner!r}"
    if mon.get_events(tool) != mon.events.PY_START:
        return f"its sys.monitoring events were changed (to {mon.get_events(tool)})"
    for event, callback in callbacks.items():
        previous = register(tool, event, callback)  # puts ours back; the map fails anyway
        if previous is not callback:
            replaced = callable_name(previous)
            return f"its sys.monitoring callback for event {event} was replaced (by {replaced})"
    return None


def trace_problem(expected: object) -> str | None:
    """The collector's path: a trace function other than the one at the start, ``None`` and
    coverage.py's, or None. ``sys.settrace`` does not blind ``sys.monitoring``, but a trace function
    can make the interpreter jump over lines (``frame.f_lineno``) unseen by the test's own code;
    coverage.py's tracer may legitimately come and go (pytest-cov beside the collector, ``no_cover``)."""
    current = sys.gettrace()
    if current is expected or current is None or _is_coverage_tracer(current):
        return None
    return f"a trace function was installed (sys.settrace: {callable_name(current)})"


def _is_coverage_tracer(value: object) -> bool:
    owner = getattr(value, "__self__", value)  # PyTracer installs a bound method
    return type(owner).__module__.split(".")[0] == "coverage"


def coverage_tracer_problem(cov: Any) -> str | None:
    """On the coverage.py path: the trace function is not one of coverage.py's tracers, or None."""
    current = sys.gettrace()
    tracers = getattr(getattr(cov, "_collector", None), "tracers", None)
    if current is None:
        pass
    elif isinstance(tracers, list):  # CTracer: the tracer itself; PyTracer: its bound method
        if any(current is t or getattr(t, "_cached_bound_method_trace", None) == current for t in tracers):
            return None
    elif type(current).__module__.startswith("coverage"):
        return None
    return f"coverage.py's trace function was replaced (sys.settrace: {callable_name(current)})"


def callable_name(value: object) -> str:
    if value is None:
        return "None"
    return str(getattr(value, "__qualname__", None) or type(value).__qualname__)
