"""No function of the package, the server or the client is longer than 60 lines (checked on the
source, like the import rules: nothing is imported or executed)."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = ["imagine_tf", "serving", "client/imagine_tf_client"]
MAX_LINES = 60


def source_files(folder: str) -> list[pathlib.Path]:
    """The Python files of a folder, generated protobuf modules (``_protos``) excluded."""
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "_protos" not in p.parts)


def long_functions(path: pathlib.Path) -> list[str]:
    """``name (n lines)`` for each function of a file longer than MAX_LINES, the ``def`` line to
    the last line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_LINES:
                found.append(f"{node.name} ({length} lines)")
    return found


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_function_is_longer_than_60_lines(folder):
    files = source_files(folder)
    assert files, folder
    bad = {str(path.relative_to(ROOT)): names for path in files if (names := long_functions(path))}
    assert not bad, f"functions over {MAX_LINES} lines: {bad}"
