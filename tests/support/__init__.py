"""Helpers shared by the test tiers: real git repositories, real coverage runs, the CLI."""
