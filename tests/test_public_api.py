"""`dir(perfweave)` and `dir(perfweave.widgets)` list the public API: no helper imports of the
modules (`Any`, `TYPE_CHECKING`, `annotations`, `importlib`) and every name once, also after
names were loaded (a loaded name is cached in the module's globals)."""

from __future__ import annotations

import perfweave
import perfweave.widgets

HELPERS = {"Any", "TYPE_CHECKING", "annotations", "importlib"}


def test_dir_perfweave_is_the_public_api() -> None:
    _ = perfweave.read, perfweave.Ensemble, perfweave.CalltreeExplorer  # cached in globals now
    names = dir(perfweave)
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert not HELPERS & set(names)
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    assert set(perfweave.__all__) <= set(names)
    for name in names:  # every listed name resolves
        getattr(perfweave, name)


def test_dir_widgets_is_the_public_api() -> None:
    _ = perfweave.widgets.replay
    names = dir(perfweave.widgets)
    assert names == sorted(set(perfweave.widgets.__all__))
    assert not HELPERS & set(names)
