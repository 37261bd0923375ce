"""What `pip install` puts in site-packages: every package of imagine_tf, and the server as
`imagine_tf_serving` (no generic top-level `serving`), checked on a wheel built from a copy."""

import configparser
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def declared_packages() -> list[str]:
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    return setup["options"]["packages"].split()


def test_setup_cfg_names_every_package_and_maps_the_server():
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "imagine_tf").rglob("__init__.py")
    }
    assert set(declared_packages()) == folders | {"imagine_tf_serving"}


@pytest.mark.timeout(300)
def test_the_wheel_holds_imagine_tf_serving_and_no_top_level_serving(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("imagine_tf", "serving"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(tmp_path / "wheels"), str(source)],
        check=True,
        timeout=240,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "wheels").glob("imagine_tf-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if "/" in name}
    assert "serving" not in top_level and "imagine_tf_serving" in top_level
    assert "imagine_tf_serving/server.py" in names and "imagine_tf_serving/__main__.py" in names
    assert any(name.startswith("imagine_tf/reward/or_weights/") for name in names)
    assert {f"{p.replace('.', '/')}/__init__.py" for p in declared_packages()} <= set(names)
