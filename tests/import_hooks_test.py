"""`call_after_import`: a callback right after a module's import, or at once if imported."""

import sys

import pytest

from imagine_tf.import_hooks import call_after_import, import_within


def test_a_callback_runs_once_right_after_the_import(tmp_path, monkeypatch):
    (tmp_path / "hooked_module_for_test.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []

    def callback():
        calls.append(sys.modules["hooked_module_for_test"].VALUE)

    call_after_import("hooked_module_for_test", callback)
    call_after_import("hooked_module_for_test", callback)  # the same pending hook: kept once
    assert calls == []
    import hooked_module_for_test  # noqa: F401

    assert calls == [1]
    call_after_import("hooked_module_for_test", callback)  # imported: runs at once
    assert calls == [1, 1]
    del sys.modules["hooked_module_for_test"]


def test_a_module_that_is_not_there_is_not_imported_and_its_callback_never_runs():
    calls = []
    call_after_import("no_such_module_for_this_test", lambda: calls.append(1))
    with pytest.raises(ModuleNotFoundError):
        import no_such_module_for_this_test  # noqa: F401
    assert calls == [] and "no_such_module_for_this_test" not in sys.modules


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
