"""scripts/model_domain.py (issue 25): the text it trains on, and the model files it writes.

The training itself needs torch and runs in a build venv; these tests cover the parts that
decide what memx later reads: the corpus filter and the model file writer.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from memx_cli.embed import StaticEncoder, bundled_model_path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """A module of scripts/ (which import their siblings, model_teachers and model_catalogs)."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPTS))


@pytest.fixture(scope="module")
def domain() -> ModuleType:
    return load_script("model_domain")


def test_rows_written_back_unchanged_are_the_bundled_bytes(domain: ModuleType, tmp_path: Path) -> None:
    bundled = bundled_model_path()
    domain.write_rows(tmp_path, domain.read_rows(bundled))
    assert (tmp_path / "model.safetensors").read_bytes() == (bundled / "model.safetensors").read_bytes()


def test_memx_reads_changed_rows_in_the_same_units(domain: ModuleType, tmp_path: Path) -> None:
    bundled = bundled_model_path()
    for name in domain.COPIED:
        shutil.copyfile(bundled / name, tmp_path / name)
    rows = domain.read_rows(bundled)
    token = StaticEncoder(bundled).tokenize(["formatter"])[0]
    rows[token] = rows[token] + 10.4  # in the file's units: rounded
    rows[token[0], 0] = 500.0  # past the int8 range: clipped to 127
    domain.write_rows(tmp_path, rows)
    ours = StaticEncoder(tmp_path)
    assert ours.dim == 256 and ours.model_id.startswith("path:")
    expected = np.clip(np.rint(rows[token]), -127, 127).mean(axis=0)
    got = ours.encode(["formatter"])[0]
    assert np.allclose(got, expected / np.linalg.norm(expected), atol=1e-6)
    # Texts that use none of the changed rows embed exactly as with the bundled model.
    assert np.array_equal(ours.encode(["where do the logs go"]), StaticEncoder(bundled).encode(["where do the logs go"]))


def test_corpus_keeps_prose_sentences_and_drops_code_links_and_trailers(domain: ModuleType) -> None:
    text = (
        "The cache is cleared when the lockfile changes. See https://example.org/docs for more.\n"
        "\n"
        "```\n"
        "pip install the package with all of its extras now\n"
        "```\n"
        "    indented code is skipped by the reader here too\n"
        "Signed-off-by: Some One <one@example.org>\n"
        "Too short.\n"
    )
    assert list(domain.clean_sentences(text)) == ["The cache is cleared when the lockfile changes."]


def test_commit_subjects_and_body_sentences_are_read_and_merges_left_out(domain: ModuleType, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m",
                    "Retry the upload when the server times out (#123)\n\n"
                    "The client gave up after one attempt. Now it tries three times with a pause."],
                   check=True)
    subprocess.run([*git, "checkout", "-q", "-b", "side"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "Document the retry count for the upload"],
                   check=True)
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "Bump the version of the tool"], check=True)
    subprocess.run([*git, "merge", "-q", "--no-ff", "-m", "Merge branch side into the main line", "side"],
                   check=True)
    texts = set(domain.git_texts(repo / ".git"))
    assert texts == {
        "Retry the upload when the server times out",
        "The client gave up after one attempt.",
        "Now it tries three times with a pause.",
        "Document the retry count for the upload",
        "Bump the version of the tool",
    }
