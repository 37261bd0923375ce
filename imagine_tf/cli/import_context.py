"""Runs a module's future import inside a context manager (standard library only).

`import_within(name, context)`: when module ``name`` is imported later, its creation and
execution run inside ``with context():`` (entered once the module is found, left when it has
executed or failed). `imagine-tf`'s ``main()`` runs TensorFlow's import inside
`imagine_tf.cli.common.frozen_imports` this way: the import happens in whichever command needs
it, and only there. A one-shot `sys.meta_path` finder finds the module through the other
finders, wraps its loader and leaves `sys.meta_path`.
"""

from __future__ import annotations

import sys
from typing import Callable, ContextManager


def import_within(name: str, context: Callable[[], ContextManager]) -> None:
    """Module ``name``'s import, if it happens later, runs inside ``with context():`` (entered
    when the module is found, before it is created; left when it has executed or failed).
    Nothing happens if ``name`` is imported already."""
    if sys.modules.get(name) is None:
        sys.meta_path.insert(0, _Within(name, context))


class _Within:
    """A `sys.meta_path` finder for one module: finds it through the other finders, leaves
    `sys.meta_path`, and has its loader run inside ``context``. (A plain class: `importlib.abc`
    costs 8 ms.)"""

    def __init__(self, name: str, context: Callable[[], ContextManager]):
        self.name, self.context = name, context

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = _find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _InContext(spec.loader, self.context())
        return spec


def _find_spec(fullname, path, target):
    """The module's spec from the finders of `sys.meta_path` (None: not found)."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec(fullname, path, target) if find_spec else None
        if spec is not None:
            return spec
    return None


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
