"""Everything both front doors (the Action and the bot) say to GitHub: the PyGithub client
(``client``), one repository's pull requests, checks and comments (``pulls``, ``checks``,
``comments``, built once by ``repository.connect`` over one write budget, ``writes``), the rendering
of what is posted (``content``), and the values they share (``values``).

Importing the package loads nothing: the command line reads ``oracle_gate.github.defaults`` at start
without PyGithub or jinja2.
"""
