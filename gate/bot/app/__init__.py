"""The App itself: its settings, identity, manifest, rate-limit awareness, logs, and ``oracle-gate serve``."""
