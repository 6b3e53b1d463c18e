"""Everything both front doors (the Action and the bot) say to GitHub: the PyGithub client, the
publisher that posts given content, the rendering of that content, and the values they share.

Importing the package loads nothing: the command line reads ``oracle_gate.github.defaults`` at start
without PyGithub or jinja2.
"""
