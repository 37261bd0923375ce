"""`import_within`: a module's future import runs inside a context manager (the CLI's
TensorFlow import inside `frozen_imports`)."""

import sys

import pytest

from imagine_tf.cli.import_context import import_within


def test_import_within_enters_the_context_around_the_import_only(tmp_path, monkeypatch):
    import contextlib

    (tmp_path / "within_module_for_test.py").write_text("import sys\nSEEN = list(sys.argv[:0])\n")
    (tmp_path / "failing_module_for_test.py").write_text("raise RuntimeError('broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    events = []

    @contextlib.contextmanager
    def context():
        events.append("enter")
        try:
            yield
        finally:
            events.append(("exit", "within_module_for_test" in sys.modules))

    import_within("within_module_for_test", context)
    assert events == []
    import within_module_for_test  # noqa: F401

    assert events == ["enter", ("exit", True)]
    import_within("within_module_for_test", context)  # imported already: nothing
    import_within("failing_module_for_test", context)
    with pytest.raises(RuntimeError, match="broken"):
        import failing_module_for_test  # noqa: F401
    assert events == ["enter", ("exit", True), "enter", ("exit", True)]
    for name in ("within_module_for_test", "failing_module_for_test"):
        sys.modules.pop(name, None)
