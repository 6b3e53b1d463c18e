# Oracle Gate as a Docker container action.
# GitHub runs it as root with the workspace mounted at /github/workspace and
# made the working directory, so there is no USER and no WORKDIR here.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# git reads the parent and head blobs; Debian's security updates move its
# version, so it follows the base image's release rather than a pin that would
# stop building when the archive drops it.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# Runtime dependencies from the lock, every file checked against its hash.
COPY requirements/runtime.txt /action/requirements/runtime.txt
RUN python -m pip install --require-hashes -r /action/requirements/runtime.txt

COPY pyproject.toml README.md entrypoint.py /action/
COPY gate /action/gate
COPY templates /action/templates
RUN python -m pip install --no-deps /action

ENTRYPOINT ["python", "/action/entrypoint.py"]
