"""The scoring run (SCORING.md): head's tests run under the parent's rules, compared with the parent."""
