"""The only place that runs ``git``.

Everything the gate learns about the repository comes through :class:`Git`:
revisions, blobs of the parent and head trees, ancestry and the tree-level
change list. The line-level diff is computed here too, but from blob bytes in
an empty sandbox directory, so neither ``.gitattributes`` (in either commit or
on disk), textconv, external diff drivers nor the user's diff configuration can
change or hide what it reports.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_gate.errors import GitError, NotARepository, UnknownRevision

if TYPE_CHECKING:  # imported where the change list is parsed: map reads no change list
    from oracle_gate.judge.changes import RawChange

HEX = re.compile(r"[0-9a-fA-F]+")

# Options that pin git's line alignment to its defaults (Myers with the indent
# heuristic) whatever the user's configuration says, and that keep every text
# change visible as text.
DIFF_OPTIONS = (
    "--no-index",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--text",
    "--no-renames",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--unified=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


@dataclass(frozen=True)
class GitObject:
    kind: str  # blob, tree, commit, tag
    data: bytes


def _clean_environment() -> dict[str, str]:
    """The caller's environment without variables that redirect or reconfigure git."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0")
    return env


class Git:
    """Runs git commands against one repository.

    ``trust_owner`` adds the repository to ``safe.directory`` for the gate's own
    commands only (on the command line, never in a config file), for a workspace
    owned by another user as in a Docker action.
    """

    def __init__(self, repo: Path | str, *, trust_owner: bool = False) -> None:
        self.repo = Path(repo).resolve()
        self._prefix = ["git"]
        if trust_owner:
            self._prefix += ["-c", f"safe.directory={self.repo}"]
        self._prefix += ["-C", str(self.repo)]
        self._env = _clean_environment()
        # What git already answered, asked once per instance (``map`` asked each twice): that this is
        # a repository, the full SHAs it resolved as commits (immutable), its common git directory.
        self._is_repository = False
        self._commits: set[str] = set()
        self._common_dir: Path | None = None

    def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        ok_codes: Iterable[int] = (0,),
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git <args>``; ``extra_env`` is added to this one command's environment only
        (how :meth:`fetch` hands a credential to git without argv or a config file)."""
        env = {**self._env, **extra_env} if extra_env else self._env
        try:
            proc = subprocess.run(
                [*self._prefix, *args], input=stdin, capture_output=True, env=env, check=False
            )
        except OSError as exc:  # git itself is missing
            raise GitError(f"cannot run git: {exc}") from exc
        if proc.returncode not in tuple(ok_codes):
            message = _first_line(proc.stderr) or f"exit status {proc.returncode}"
            if "not a git repository" in message:
                raise NotARepository(f"{self.repo}: not a git repository")
            if "dubious ownership" in message:
                raise NotARepository(
                    f"{self.repo}: git refuses a repository owned by another user (dubious ownership)"
                )
            raise GitError(f"git {args[0]} failed in {self.repo}: {message}")
        return proc

    def check_repository(self) -> None:
        if self._is_repository:
            return
        if not self.repo.is_dir():
            raise NotARepository(f"{self.repo}: no such directory")
        self.run(["rev-parse", "--git-dir"])
        self._is_repository = True

    def commit(self, rev: str) -> str:
        """The full SHA of the commit ``rev`` names, or :class:`UnknownRevision`."""
        if not rev or rev.startswith("-"):
            raise UnknownRevision(f"{rev!r} is not a revision")
        if rev in self._commits:  # a full SHA git already resolved as a commit here: it names itself
            return rev
        proc = self.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            ok_codes=(0, 1, 128),
        )
        sha = proc.stdout.decode().strip()
        if proc.returncode != 0 or not sha:
            raise UnknownRevision(f"{self.repo}: unknown revision {rev!r} (not a commit here)")
        self._commits.add(sha)
        return sha

    def commits_with_prefix(self, prefix: str) -> list[str]:
        """Every commit whose id starts with the hex ``prefix`` (no ref lookup)."""
        if len(prefix) < 4 or not HEX.fullmatch(prefix):
            return []
        proc = self.run(["rev-parse", f"--disambiguate={prefix.lower()}"], ok_codes=(0, 1, 128))
        candidates = proc.stdout.decode().split()
        if not candidates:
            return []
        kinds = self.run(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            stdin="".join(f"{c}\n" for c in candidates).encode(),
        )
        return [line.split()[0] for line in kinds.stdout.decode().splitlines() if line.endswith(" commit")]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True when ``ancestor`` is ``descendant`` or one of its ancestors."""
        proc = self.run(["merge-base", "--is-ancestor", ancestor, descendant], ok_codes=(0, 1))
        return proc.returncode == 0

    def changes(self, parent: str, head: str) -> list[RawChange]:
        """File-level changes from ``parent`` to ``head``, renames detected (``-M``)."""
        proc = self.run(["diff-tree", "-r", "-z", "-M", "--no-abbrev", "--raw", parent, head])
        return parse_raw_changes(proc.stdout)

    def read(self, specs: Sequence[str]) -> list[GitObject | None]:
        """Objects named by ``specs`` (``REV:PATH`` or object ids); None where absent."""
        if not specs:
            return []
        payload = b"".join(s.encode("utf-8", "surrogateescape") + b"\0" for s in specs)
        out = self.run(["cat-file", "--batch", "-z"], stdin=payload).stdout
        return list(_parse_batch(out, specs))

    def read_blob(self, rev: str, path: str) -> bytes | None:
        """The bytes of ``path`` in ``rev`` when it is a blob (file or symlink)."""
        return self.read_blobs(rev, [path])[path]

    def read_blobs(self, rev: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """:meth:`read_blob` for many paths in one batch: path -> bytes (None where not a blob)."""
        objects = self.read([f"{rev}:{p}" for p in paths])
        return {
            p: (o.data if o is not None and o.kind == "blob" else None)
            for p, o in zip(paths, objects, strict=True)
        }

    def sizes(self, specs: Sequence[str]) -> list[int | None]:
        """The byte size of each object ``specs`` names (None where absent), without reading it."""
        if not specs:
            return []
        payload = b"".join(s.encode("utf-8", "surrogateescape") + b"\0" for s in specs)
        out = self.run(["cat-file", "--batch-check=%(objectsize)", "-z"], stdin=payload).stdout
        answers = out.decode("utf-8", "surrogateescape").split("\n")[: len(specs)]
        return [int(a) if a.isdigit() else None for a in answers]

    def count_lines(self, sha: str, chunk: int = 1 << 20) -> int:
        """Lines of blob ``sha`` as git counts them, streamed: memory stays at one chunk."""
        try:
            proc = subprocess.Popen(
                [*self._prefix, "cat-file", "blob", sha],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._env,
            )
        except OSError as exc:
            raise GitError(f"cannot run git: {exc}") from exc
        newlines, last = 0, b"\n"
        with proc:
            if proc.stdout is None:  # never: PIPE was requested
                raise GitError("git cat-file gave no output stream")
            while block := proc.stdout.read(chunk):
                newlines += block.count(b"\n")
                last = block[-1:]
        if proc.returncode != 0:
            raise GitError(f"git cat-file blob {sha} failed in {self.repo}")
        return newlines + (0 if last == b"\n" else 1)

    def list_directory(self, rev: str, directory: str) -> dict[str, tuple[str, str]]:
        """Entries of one directory of ``rev``'s tree (not recursive): full path -> (mode, object id)."""
        spec = [f"{directory}/"] if directory else []
        out = self.run(["--literal-pathspecs", "ls-tree", "-z", "--full-tree", rev, "--", *spec]).stdout
        entries: dict[str, tuple[str, str]] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, _kind, sha = meta.decode().split(" ")
            entries[name.decode("utf-8", "surrogateescape")] = (mode, sha)
        return entries

    def files_ending(self, rev: str, suffix: str) -> list[str]:
        """Every path of ``rev``'s tree (recursive) whose name ends in ``suffix`` (v3.2: ``.py``)."""
        out = self.run(["ls-tree", "-r", "-z", "--name-only", "--full-tree", rev]).stdout
        names = (p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)
        return [p for p in names if p.endswith(suffix)]

    def existing_files(self, rev: str, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` that name a blob in ``rev``'s tree."""
        wanted = sorted(set(paths))
        if not wanted:
            return set()
        payload = b"".join(f"{rev}:{p}".encode("utf-8", "surrogateescape") + b"\0" for p in wanted)
        out = self.run(["cat-file", "--batch-check=%(objecttype)", "-z"], stdin=payload).stdout
        answers = out.decode("utf-8", "surrogateescape").split("\n")
        return {p for p, a in zip(wanted, answers, strict=False) if a == "blob"}

    # -- fetching what the Action judges (see oracle_gate.action.run) -------------------------------

    def has_commit(self, rev: str) -> bool:
        """Whether ``rev`` names a commit whose object is here (a shallow commit hides its parents)."""
        if not rev or rev.startswith("-"):
            return False
        proc = self.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            ok_codes=(0, 1, 128),
        )
        return proc.returncode == 0

    def is_shallow(self) -> bool:
        """Whether the clone is shallow (``actions/checkout`` fetches one commit by default)."""
        return self.run(["rev-parse", "--is-shallow-repository"]).stdout.strip() == b"true"

    def remote_url(self, name: str) -> str | None:
        """The fetch URL of remote ``name`` (``url.<base>.insteadOf`` applied), None without one."""
        proc = self.run(["remote", "get-url", name], ok_codes=(0, 2, 128))
        url = proc.stdout.decode("utf-8", "replace").strip()
        return url if proc.returncode == 0 and url else None

    def has_config(self, key: str) -> bool:
        """Whether ``key`` has a value in any scope git reads here; the value itself is not returned,
        so a persisted credential (``http.<url>.extraheader``) is detected without being read out."""
        return bool(self.run(["config", "--get-all", key], ok_codes=(0, 1)).stdout.strip())

    def fetch(
        self,
        source: str,
        refspecs: Sequence[str],
        *,
        unshallow: bool = False,
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        """Fetch ``refspecs`` from ``source`` (a remote name or URL): objects and refs only.

        Nothing is checked out and no hook of the fetched commits can run (fetch runs none); tags,
        submodules, FETCH_HEAD and automatic gc are off. ``unshallow`` completes a shallow clone's
        history, which the freeze manifest's ``bound_sha`` check needs. A credential goes in
        ``extra_env`` (``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``), never in
        ``source`` or on the command line.
        """
        args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head"]
        args += ["--no-auto-gc", *(["--unshallow"] if unshallow else []), "--end-of-options", source]
        try:
            self.run([*args, *refspecs], extra_env=extra_env)
        finally:
            self.restore_ownership()

    def add_worktree(self, path: Path, commit: str) -> None:
        """Check ``commit`` out, detached, into a new worktree at ``path`` (which must not exist).

        The user's own working tree, index and HEAD are not touched.
        """
        try:
            self.run(["worktree", "add", "--detach", "--quiet", "--", str(path), commit])
        finally:
            self.restore_ownership()

    def remove_worktree(self, path: Path) -> None:
        """Remove the worktree at ``path`` and its administrative files, even if it is dirty. Only
        when ``remove`` failed (its directory already gone) is the leftover entry pruned."""
        proc = self.run(["worktree", "remove", "--force", "--force", "--", str(path)], ok_codes=(0, 128))
        if proc.returncode != 0:
            self.run(["worktree", "prune"])
        self.restore_ownership()

    def restore_ownership(self) -> None:
        """Give back to the repository's owner what this process (root) created under its git dir.

        In the Docker action the gate runs as root in a repository owned by the runner's user; the
        objects, refs, packs and logs a fetch writes would be root's, and a later ``git commit`` or
        ``git gc`` of that user fails on them (../shared/spec/TRUST.md invariant 10). Only entries
        not already the owner's are changed, symbolic links themselves never followed.
        """
        if os.geteuid() != 0:
            return
        if self._common_dir is None:
            proc = self.run(["rev-parse", "--git-common-dir"], ok_codes=(0, 128))
            if proc.returncode != 0:
                return
            self._common_dir = self.repo / os.fsdecode(proc.stdout.strip())
        restore_ownership(self._common_dir)

    @contextmanager
    def worktree(self, commit: str, parent_dir: Path) -> Iterator[Path]:
        """A temporary detached worktree of ``commit`` under ``parent_dir``, removed on exit."""
        path = parent_dir / "worktree"
        self.add_worktree(path, commit)
        try:
            yield path
        finally:
            self.remove_worktree(path)


def restore_ownership(git_dir: Path) -> None:
    """Chown everything under ``git_dir`` not owned by ``git_dir``'s owner to that owner."""
    owner = git_dir.lstat()
    if owner.st_uid == os.geteuid():
        return
    for dirpath, dirnames, filenames in os.walk(git_dir):
        for name in [*dirnames, *filenames]:
            entry = os.path.join(dirpath, name)
            stat = os.lstat(entry)
            if (stat.st_uid, stat.st_gid) != (owner.st_uid, owner.st_gid):
                os.lchown(entry, owner.st_uid, owner.st_gid)


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return ""


def parse_raw_changes(out: bytes) -> list[RawChange]:
    """Parse ``git diff-tree -z --raw`` output."""
    from oracle_gate.judge.changes import RawChange

    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[RawChange] = []
    i = 0
    while i < len(fields) and fields[i]:
        meta = fields[i].lstrip(":").split(" ")
        old_mode, new_mode, old_sha, new_sha, status = meta[0], meta[1], meta[2], meta[3], meta[4][0]
        paths = fields[i + 1 : i + (3 if status in "RC" else 2)]
        i += 1 + len(paths)
        old_path = paths[0] if status != "A" else None
        new_path = paths[-1] if status != "D" else None
        changes.append(
            RawChange(
                status,
                old_path,
                new_path,
                old_mode,
                new_mode,
                None if set(old_sha) == {"0"} else old_sha,
                None if set(new_sha) == {"0"} else new_sha,
            )
        )
    return changes


def _parse_batch(out: bytes, specs: Sequence[str]) -> Iterable[GitObject | None]:
    pos = 0
    for spec in specs:
        raw = spec.encode("utf-8", "surrogateescape")
        for tail in (b" missing\n", b" ambiguous\n"):
            if out.startswith(raw + tail, pos):
                pos += len(raw) + len(tail)
                break
        else:
            end = out.index(b"\n", pos)
            _, kind, size = out[pos:end].decode().split(" ")
            start = end + 1
            yield GitObject(kind, out[start : start + int(size)])
            pos = start + int(size) + 1
            continue
        yield None


def diff_blob_pairs(pairs: Sequence[tuple[bytes, bytes]]) -> str:
    """One unified diff (``-U0``) of every ``(old, new)`` pair, in git's alignment.

    Pair ``i`` appears under the name ``a/<i>`` / ``b/<i>``. The bytes are written
    to an empty directory outside any repository and compared with
    ``git diff --no-index`` with system and global configuration switched off,
    so no attribute, driver or setting can alter the result.
    """
    if not pairs:
        return ""
    with tempfile.TemporaryDirectory(prefix="oracle-gate-diff-") as tmp:
        root = Path(tmp)
        for side in ("a", "b"):
            (root / side).mkdir()
        for i, (old, new) in enumerate(pairs):
            (root / "a" / str(i)).write_bytes(old)
            (root / "b" / str(i)).write_bytes(new)
        env = _clean_environment()
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            HOME=tmp,
            XDG_CONFIG_HOME=tmp,  # no user-level attributes file ($XDG_CONFIG_HOME/git/attributes)
            GIT_CEILING_DIRECTORIES=str(root.parent),
            GIT_ATTR_NOSYSTEM="1",
        )
        try:
            proc = subprocess.run(
                ["git", "diff", *DIFF_OPTIONS, "a", "b"], cwd=root, env=env, capture_output=True, check=False
            )
        except OSError as exc:
            raise GitError(f"cannot run git: {exc}") from exc
        if proc.returncode not in (0, 1):
            raise GitError(f"git diff failed: {_first_line(proc.stderr)}")
        return proc.stdout.decode("utf-8", "surrogateescape")


def credential_environment(key: str, token: str) -> dict[str, str]:
    """Git's ``GIT_CONFIG_*`` environment setting ``key`` to a basic ``AUTHORIZATION`` header for
    ``x-access-token:TOKEN`` (what actions/checkout persists), for one git command."""
    from base64 import b64encode  # only a fetch needs it: not imported by ``map`` (issue 19)

    basic = b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": key,
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
    }
