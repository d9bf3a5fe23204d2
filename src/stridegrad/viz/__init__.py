"""Pictures and widgets for the lessons: matplotlib and ipywidgets only.

=========================  ============================================================
name                       what it shows
=========================  ============================================================
``stride_explorer``        pick a view of a small array; see which storage cells it
                           touches, and in what order (episode 02)
``broadcast_explorer``     pick two shapes; see the aligned dims and the result shape
                           or the exact error (episode 04)
``draw_graph``             a computation graph of ``Value``s or ``Tensor``s with data
                           and gradients on each node (episodes 06-08)
``LossPlot``               a loss curve that redraws in place while training (09)
``plot_decision_boundary`` a 2-D classifier's predicted class over the plane (09)
``progress``               a tqdm progress bar that can be switched off (09)
``draw_ir``                the graph IR that ``sg.compile`` captured (11)
=========================  ============================================================

Nothing below ``stridegrad.viz`` imports it; widgets are built by functions that
return widget objects, so tests can drive them without a browser.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "stride_explorer": "stridegrad.viz.strides",
    "storage_picture": "stridegrad.viz.strides",
    "broadcast_explorer": "stridegrad.viz.broadcasting",
    "draw_graph": "stridegrad.viz.graph",
    "LossPlot": "stridegrad.viz.training",
    "plot_decision_boundary": "stridegrad.viz.training",
    "progress": "stridegrad.viz.training",
    "draw_ir": "stridegrad.viz.ir",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    try:
        module = importlib.import_module(_EXPORTS[name])
    except KeyError:
        raise AttributeError(f"module 'stridegrad.viz' has no attribute {name!r}") from None
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
