"""Runs a callback once a module is imported, without importing it (standard library only).

`call_after_import(name, callback)` calls ``callback()`` at once when module ``name`` is already
imported, and otherwise right after its import completes: a one-shot `sys.meta_path` finder
finds the module through the other finders and wraps its loader. `import_within(name, context)`
runs the module's future import inside ``with context():`` (entered once the module is found). `import imagine_tf` uses it to
register its TFDS datasets and its Gymnasium environments without importing TFDS or Gymnasium
(each costs far more than `import imagine_tf` itself). A module that cannot be found is not
imported, and its callback never runs.
"""

from __future__ import annotations

import sys
from typing import Callable, ContextManager


def call_after_import(name: str, callback: Callable[[], None]) -> None:
    """Calls ``callback()`` now if module ``name`` is imported, else right after its import."""
    if sys.modules.get(name) is not None:
        callback()
        return
    pending = (f for f in sys.meta_path if isinstance(f, _AfterImport))
    if not any(f.name == name and f.callback is callback for f in pending):
        sys.meta_path.insert(0, _AfterImport(name, callback))


class _OneShotFinder:
    """A `sys.meta_path` finder for one module: finds it through the other finders, wraps its
    loader (`wrap`) and leaves `sys.meta_path`. (Plain classes: `importlib.abc` costs 8 ms.)"""

    def __init__(self, name: str):
        self.name = name

    def wrap(self, loader):
        raise NotImplementedError

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = _find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = self.wrap(spec.loader)
        return spec


def _find_spec(fullname, path, target):
    """The module's spec from the finders of `sys.meta_path` (None: not found)."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec(fullname, path, target) if find_spec else None
        if spec is not None:
            return spec
    return None


class _AfterImport(_OneShotFinder):
    """Has the module's loader call ``callback`` after executing it."""

    def __init__(self, name: str, callback: Callable[[], None]):
        super().__init__(name)
        self.callback = callback

    def wrap(self, loader):
        return _ThenCall(loader, self.callback)


class _ThenCall:
    """Wraps a module's loader; the module keeps the original loader."""

    def __init__(self, loader, callback: Callable[[], None]):
        self._loader = loader
        self._callback = callback

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__spec__.loader = module.__loader__ = self._loader
        self._loader.exec_module(module)
        self._callback()


def import_within(name: str, context: Callable[[], ContextManager]) -> None:
    """Module ``name``'s import, if it happens later, runs inside ``with context():`` (entered
    when the module is found, before it is created; left when it has executed or failed).
    Nothing happens if ``name`` is imported already."""
    if sys.modules.get(name) is None:
        sys.meta_path.insert(0, _Within(name, context))


class _Within(_OneShotFinder):
    """Enters ``context`` once the module is found; its loader leaves it."""

    def __init__(self, name: str, context: Callable[[], ContextManager]):
        super().__init__(name)
        self.context = context

    def wrap(self, loader):
        return _InContext(loader, self.context())


class _InContext:
    """Wraps a module's loader: creates and executes the module within an entered context."""

    def __init__(self, loader, context: ContextManager):
        self._loader, self._context = loader, context
        context.__enter__()

    def create_module(self, spec):
        try:
            return self._loader.create_module(spec)
        except BaseException:
            self._context.__exit__(*sys.exc_info())
            raise

    def exec_module(self, module) -> None:
        module.__spec__.loader = module.__loader__ = self._loader
        try:
            self._loader.exec_module(module)
        except BaseException:
            if not self._context.__exit__(*sys.exc_info()):
                raise
        else:
            self._context.__exit__(None, None, None)
