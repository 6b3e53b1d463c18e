"""The judging core: values in, a :class:`~oracle_gate.judge.verdict.Verdict` out.

Pure: nothing here runs git, opens a file or talks to GitHub; it imports nothing of the package
but :mod:`oracle_gate.errors` (a test enforces it). The read side (:mod:`oracle_gate.check`)
gathers the values.
"""
