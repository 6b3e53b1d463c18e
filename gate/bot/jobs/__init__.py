"""What one job does: judge a pull request or merge group, score a verdict, and what they need
(mirrors, the trusted map store, artifacts)."""
