"""The judgement of a pull request, behind both front doors (the Action and the bot).

One set of rules, so the two doors cannot drift apart (TRUST.md invariant 11): the command grammar
and who may command (:mod:`.commands`), which bases get the required check (:mod:`.bases`), when a
test merge is fresh enough to judge (:mod:`.freshness`), and every setting with its one default
(:mod:`.settings`). The front doors parse their input into these values, call these rules, and post
what comes out through :mod:`oracle_gate.github`.
"""
