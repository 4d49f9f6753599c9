"""Run a Jupyter server (``python -m perfweave.apps._quiet jupyterlab|voila ARGS``) without the
noise its own packages make at each other, so a person sees only what concerns them.

- voila, when imported (as a server extension in JupyterLab too), turns every DeprecationWarning
  raised through traitlets on for the whole process, so the terminal fills with deprecations
  that packages (notebook_shim, voila itself) raise about each other's use of traitlets and
  jupyter_server, none about a setting of ours. That one filter is taken out again: Python's
  own default (deprecations shown for ``__main__`` code only) applies.
- Voila logs at INFO that it adapts the kernel's message-protocol version to its own (a normal
  thing between ipykernel and jupyter_server releases) and warns that a notebook it is about to
  re-run is "not trusted" (trust concerns stored outputs, which Voila never shows). The console
  handler drops those records (:class:`KnownNoise`, set in ``voila_data/config/voila.json``).
  The same file sets jupyter_server's websocket ping timeout to its ping interval (30 s), the
  longest tornado accepts; jupyter_server's default, three intervals, makes tornado warn.

It also hands the server its token (see :mod:`perfweave.apps.serve`): taken out of the
environment (``JUPYTER_TOKEN``), so the kernels and terminals the server starts do not
inherit it, and given to the server as an option in this process's ``sys.argv`` only --
``/proc/PID/cmdline`` and ``ps`` show the arguments the process was started with, never
``sys.argv``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import runpy
import sys
import warnings

from perfweave.apps.serve import TOKEN_ENV

#: third-party log messages that need no action from the person running the app (prefixes)
KNOWN_LOG = ("Adapting from protocol version", "Notebook %s is not trusted")

#: each server's option for its token (which arrives in the environment, TOKEN_ENV)
TOKEN_OPTION = {"jupyterlab": "--IdentityProvider.token", "voila": "--Voila.token"}


class KnownNoise(logging.Filter):
    """Drops the log records of :data:`KNOWN_LOG`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(KNOWN_LOG)


def main(argv: list[str]) -> None:
    """Run server module ``argv[0]`` with arguments ``argv[1:]`` as ``python -m`` would."""
    with contextlib.suppress(ImportError):
        import voila  # noqa: F401  (imported first, so that its warning filter can be taken out)
    _drop_traitlets_deprecation_filter()
    module = argv[0]
    sys.argv = [module, *argv[1:], *_token_option(module)]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


def _token_option(module: str) -> list[str]:
    """The server's token option, the token taken out of the environment (none without one)."""
    if module not in TOKEN_OPTION or TOKEN_ENV not in os.environ:
        return []
    return [f"{TOKEN_OPTION[module]}={os.environ.pop(TOKEN_ENV)}"]


def _drop_traitlets_deprecation_filter() -> None:
    """Remove ``filterwarnings("default", category=DeprecationWarning, module="traitlets")``."""
    kept = [
        f
        for f in warnings.filters
        if not (
            f[0] == "default"
            and f[2] is DeprecationWarning
            and getattr(f[3], "pattern", f[3]) == "traitlets"
        )
    ]
    if len(kept) != len(warnings.filters):
        warnings.filters[:] = kept
        warnings._filters_mutated()  # what filterwarnings() itself calls after a change


if __name__ == "__main__":
    main(sys.argv[1:])
