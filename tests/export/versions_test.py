"""`export.versions`: the integer versions of a model base path, and a new one claimed whole."""

import os

import pytest

from imagine_tf.export.versions import claim_version, next_version, versions


def test_versions_are_the_integer_directories_and_a_claimed_one_is_new(tmp_path):
    base = tmp_path / "reward"
    assert versions(base) == [] and next_version(base) == 1
    for name in ("1", "3", "notes", ".partial-4"):
        (base / name).mkdir(parents=True)
    (base / "7").write_text("a file, not a version")
    assert versions(base) == [1, 3] and next_version(base) == 4
    final, temporary = claim_version(base)
    assert final == base / "4" and temporary == base / ".partial-4"
    assert not temporary.exists()  # a left-over partial write is cleared
    temporary.mkdir()
    os.replace(temporary, final)
    assert versions(base) == [1, 3, 4]
    with pytest.raises(
        ValueError, match="versions are immutable; omit --version to export version 5"
    ):
        claim_version(base, 3)
