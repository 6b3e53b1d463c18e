"""The GitHub App manifest (D/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
POST it from a form to https://github.com/settings/apps/new and GitHub creates the App in one step."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from oracle_gate.errors import UsageError
from oracle_gate.github.defaults import APP_EVENTS, APP_PERMISSIONS

# The App's permissions and events are defined once, in oracle_gate.github.defaults: the manifest
# asks for them and `oracle-gate doctor` checks an installed App has them.
PERMISSIONS = APP_PERMISSIONS
EVENTS = APP_EVENTS


def app_manifest(hook_url: str, *, name: str = "Oracle Gate", url: str = "https://github.com") -> str:
    if urlsplit(hook_url).scheme not in ("http", "https") or not urlsplit(hook_url).netloc:
        raise UsageError(f"the webhook URL must be an http(s) URL, got {hook_url!r}")
    manifest = {
        "name": name,
        "url": url,
        "hook_attributes": {"url": hook_url, "active": True},
        "public": False,
        "default_permissions": PERMISSIONS,
        "default_events": EVENTS,
    }
    return json.dumps(manifest, indent=2) + "\n"
