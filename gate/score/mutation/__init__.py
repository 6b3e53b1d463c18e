"""Diff mutation (SCORING.md 2.4): is a touched line checked by a live test, or only executed?"""
