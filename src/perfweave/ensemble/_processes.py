"""How reader processes are started, so that they never re-run the user's script.

A process started fresh (``spawn``, ``forkserver``) imports the ``__main__`` module again
before it runs anything: a script that calls :meth:`Ensemble.from_files` outside an
``if __name__ == "__main__":`` guard would start reading again in every reader process
(multiprocessing refuses that with a ``RuntimeError`` per process). Most analysis scripts
have no guard, so the method is chosen to avoid that:

1. ``fork`` (Linux and other POSIX systems but macOS) while this process runs no other
   Python thread: the reader processes are copies of this one and import nothing. Forking
   a process with threads may deadlock the copy (a lock held by another thread stays held),
   which is why a notebook kernel (it has threads) does not get ``fork``.
2. otherwise ``forkserver`` (``spawn`` where there is no forkserver) when importing
   ``__main__`` again is harmless: ``python -c``, an interactive session, ``python -m
   pkg`` (multiprocessing does not re-run a ``__main__`` module), a notebook kernel, a
   console script, or a script whose running call is under the ``__main__`` guard.
3. otherwise none: the files are read in this process, and the caller says why.
"""

from __future__ import annotations

import ast
import multiprocessing as mp
import sys
import threading
import tokenize
from types import FrameType, ModuleType


def start_method() -> tuple[str | None, str]:
    """The start method for reader processes, or ``(None, why)`` when none is safe."""
    if mp.current_process().daemon:
        return None, "this is a daemonic process, which may not start processes"
    methods = mp.get_all_start_methods()
    if "fork" in methods and sys.platform != "darwin" and threading.active_count() == 1:
        return "fork", ""
    script = unguarded_main()
    if script is not None:
        return None, (
            f"this process runs other threads, and new reader processes would run "
            f"{script} again, whose call is not under 'if __name__ == \"__main__\":' "
            "(add the guard to read on all cores)"
        )
    return ("forkserver" if "forkserver" in methods else "spawn"), ""


def unguarded_main() -> str | None:
    """The ``__main__`` script a freshly started process would run unguarded, or None.

    None when a fresh process imports nothing of ``__main__`` (``python -c``, a REPL,
    ``python -m pkg``) or when the ``__main__`` code running now is under an
    ``if __name__ == "__main__":`` guard (so importing it again defines, and runs nothing).
    """
    main = sys.modules.get("__main__")
    if main is None:
        return None
    name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    if name is not None and (name == "__main__" or name.endswith(".__main__")):
        return None  # multiprocessing does not run a package's __main__ again
    if name is None and path is None:
        return None  # python -c, a REPL: nothing to run again
    label = str(path or name)
    frame = _module_frame(main)
    if frame is None or path is None:
        return label  # cannot tell where the script is: assume the worst
    try:
        with tokenize.open(path) as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return label
    return None if _under_main_guard(tree, frame.f_lineno) else label


def _module_frame(main: ModuleType) -> FrameType | None:
    """The frame running ``main``'s top-level code, on any thread's stack."""
    for top in sys._current_frames().values():
        frame: FrameType | None = top
        while frame is not None:
            if frame.f_code.co_name == "<module>" and frame.f_globals is vars(main):
                return frame
            frame = frame.f_back
    return None


def _under_main_guard(tree: ast.Module, line: int) -> bool:
    """Whether ``line`` lies in the body of a top-level ``if __name__ == "__main__":``."""
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and _is_main_test(stmt.test) and stmt.body:
            first, last = stmt.body[0].lineno, stmt.body[-1].end_lineno or stmt.lineno
            if first <= line <= last:
                return True
    return False


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]
