"""Post-import hooks: run a function right after a named module is imported (or now, if it
already is). The same mechanism as ``wrapt.register_post_import_hook``, in a few lines: wrapt
itself takes about 0.2 s to import (asyncio, importlib.metadata), the whole budget of
``import hf_greedtok``."""
from __future__ import annotations

import sys
import threading
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Callable, Optional, Sequence

Hook = Callable[[ModuleType], None]


def importing(name: str) -> bool:
    """Whether module ``name`` is being executed right now (in sys.modules, not yet complete)."""
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


class _HookedLoader:
    """Executes the module with the real loader, then runs the hooks waiting for it."""

    def __init__(self, loader, name: str) -> None:
        self.loader, self.name = loader, name

    def create_module(self, spec: ModuleSpec) -> Optional[ModuleType]:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # the module keeps the real loader: importlib.resources, inspect and pkgutil ask it
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self.loader
        if getattr(module.__spec__, "loader", None) is self:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        with _finder.lock:
            hooks = _finder.pending.pop(self.name, [])
        for hook in hooks:
            hook(module)


class _PostImportFinder:
    """A ``sys.meta_path`` finder that only wraps the loader of the modules hooks wait for.

    Hooks leave ``pending`` when their module has been executed, not when it is found:
    ``importlib.util.find_spec(name)`` (libraries asking whether a package is installed) finds
    without importing.
    """

    def __init__(self) -> None:
        self.pending: dict[str, list[Hook]] = {}
        self.lock = threading.Lock()
        self._finding = threading.local()

    def find_spec(self, name: str, path: Optional[Sequence[str]] = None, target=None) -> Optional[ModuleSpec]:
        with self.lock:
            if name not in self.pending:
                return None
        finding = self._finding.__dict__.setdefault("names", set())
        if name in finding:               # a finder below asked importlib again: let it
            return None
        finding.add(name)
        try:
            for finder in sys.meta_path:  # the spec the import would have found without us
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if finder is not self and find is not None else None
                if spec is not None:
                    break
            else:
                return None
        finally:
            finding.discard(name)
        if spec.loader is None or not hasattr(spec.loader, "exec_module") or isinstance(spec.loader, _HookedLoader):
            return spec                   # namespace package or legacy loader: never hooked
        spec.loader = _HookedLoader(spec.loader, name)
        return spec


_finder = _PostImportFinder()


def register_post_import_hook(hook: Hook, name: str) -> None:
    """Call ``hook(module)`` once module ``name`` has been executed by an import, or right away
    if it is already imported (not if it is half-way through its import right now). An
    exception of the hook propagates into that import."""
    module = sys.modules.get(name)
    if module is not None and not importing(name):
        hook(module)
        return
    with _finder.lock:
        _finder.pending.setdefault(name, []).append(hook)
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
