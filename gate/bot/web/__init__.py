"""The front process's web side: the webhook endpoint, its signature check, the status page and
``/metrics``."""
