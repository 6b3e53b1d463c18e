# Oracle Gate as a Docker container action.
# GitHub runs it as root with the workspace mounted at /github/workspace and
# made the working directory, so there is no USER and no WORKDIR here.
#
# The base image is pinned by digest (the multi-arch index of python:3.11-slim-bookworm; it was
# looked up, not pulled, on the machine that wrote this line; Dependabot's docker updates move it).
# A tag alone is whatever the registry serves today. The container test tier builds this file with
# only the digest removed, against a locally made stand-in (tests/support/container.py).

# Stage 1: the package as a wheel, built with the hash-pinned build backend.
# Nothing of this stage (sources, build/, egg-info) reaches the final image.
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b AS wheel

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY requirements/build.txt /src/requirements/build.txt
RUN python -m pip install --require-hashes -r /src/requirements/build.txt
COPY pyproject.toml README.md /src/
COPY gate /src/gate
COPY templates /src/templates
RUN python -m pip wheel --no-deps --no-build-isolation --wheel-dir /wheels /src

# Stage 2: the action.
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

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
COPY requirements/runtime.txt /tmp/runtime.txt
RUN python -m pip install --require-hashes -r /tmp/runtime.txt && rm /tmp/runtime.txt

COPY --from=wheel /wheels /tmp/wheels
RUN python -m pip install --no-deps --no-index /tmp/wheels/*.whl && rm -rf /tmp/wheels

# Only the installed package may run: `python /action/entrypoint.py` would put
# /action first on sys.path, and a copy of the sources there (which has no
# oracle_gate.templates: templates/ becomes oracle_gate.templates only in the wheel) would
# shadow the installed package. So /action holds entrypoint.py alone, and -P
# keeps the script's directory off sys.path altogether.
COPY entrypoint.py /action/entrypoint.py

ENTRYPOINT ["python", "-P", "/action/entrypoint.py"]
