"""The GitHub Action: configuration and events in, a verdict published on the pull request."""
