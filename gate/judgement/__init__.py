"""The one judgement behind both front doors (TRUST.md invariant 11).

The sequence "pull request (or merge group) -> fresh test merge -> approvals -> the parent's map ->
judge -> post" is walked here once (:mod:`oracle_gate.judgement.sequence`), over ports
(:mod:`oracle_gate.judgement.ports`) each door implements: the Action with its checkout and its
token, the bot with its mirror, its map store and its bounded child process. Only this room reads
the repository for a verdict (:mod:`oracle_gate.judgement.core` is its one importer of
:mod:`oracle_gate.check` among the doors' rooms); the doors build ports and hand out results.
"""
