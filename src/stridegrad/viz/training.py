"""Pictures of training: a live loss plot, a decision boundary, a progress bar.

Pure matplotlib (plus tqdm for the bar). Each helper returns the figure or
axes it drew on, so tests can look at what was drawn without a notebook.

* :class:`LossPlot` collects one or more named series (``plot.update(loss)``)
  and, in a notebook, redraws one figure in place every ``every`` updates.
* :func:`plot_decision_boundary` colours the plane by a 2-D classifier's
  predicted class and scatters the data on top.
* :func:`progress` wraps an iterable in ``tqdm.auto`` (a widget in Jupyter, text
  in a terminal), or returns it unchanged when bars are switched off.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["LossPlot", "in_notebook", "plot_decision_boundary", "progress"]

#: Set to "0" to switch every progress bar off (e.g. when notebooks run in CI).
PROGRESS_ENV = "STRIDEGRAD_PROGRESS"

#: The plain text a notebook stores beside the bar widget: what a page that cannot draw
#: widgets shows instead of the bar (a saved notebook, one reopened without its kernel).
#: It says what happens rather than freezing the bar's first state, "0%".
BAR_TEXT = ("{desc}: a progress bar, drawn as a widget while the loop runs; where no widget "
            "can be drawn, the line printed when the loop ends says how far it got")


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where figures can be displayed and updated)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress(iterable: Iterable, total: int | None = None, desc: str | None = None,
             enabled: bool | None = None, **kwargs: Any) -> Iterable:
    """``iterable`` with a progress bar (``tqdm.auto``), or unchanged when disabled.

    ``enabled=None`` means on, unless the environment variable
    ``STRIDEGRAD_PROGRESS`` is ``"0"`` or tqdm is not installed. Extra keyword
    arguments go to tqdm (``leave``, ``unit``, ...). In a notebook the bar's plain
    text is :data:`BAR_TEXT`, and a line says how far the loop got when it ends.
    """
    if enabled is None:
        enabled = os.environ.get(PROGRESS_ENV, "1") != "0"
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    if not in_notebook():
        return tqdm(iterable, total=total, desc=desc, **kwargs)
    bar = _widget_bar(tqdm, iterable, total, desc, kwargs)
    return _FinalLine(bar, desc or "progress", kwargs.get("unit", "it"))


def _widget_bar(tqdm: type, iterable: Iterable, total: int | None, desc: str | None,
                kwargs: dict) -> Any:
    """A ``tqdm.notebook`` bar shown with :data:`BAR_TEXT` as its plain text (tqdm's
    own would be its first state, "0%", for good); another kind of bar as it is."""
    from tqdm.notebook import tqdm_notebook

    if not (isinstance(tqdm, type) and issubclass(tqdm, tqdm_notebook)) or kwargs.get("disable"):
        return tqdm(iterable, total=total, desc=desc, **kwargs)
    from IPython.display import display

    bar = tqdm(iterable, total=total, desc=desc, display=False, **kwargs)
    bundle = bar.container._repr_mimebundle_()
    bundle["text/plain"] = BAR_TEXT.format(desc=desc or "progress")
    display(bundle, raw=True)
    bar.displayed = True
    return bar


class _FinalLine:
    """A notebook bar that prints one plain line when the loop ends.

    Wherever widgets cannot render (a static page, a notebook reopened without
    its kernel), a reader sees the bar's plain text (:data:`BAR_TEXT`) and this
    line. It says how far the loop got, without timings, so it reads the same
    on every run. Everything else (``set_postfix``, ``n``, ``close``...) is the
    tqdm bar's.
    """

    def __init__(self, bar, desc: str, unit: str):
        self._bar, self._desc, self._unit = bar, desc, unit

    def __iter__(self):
        n = 0
        for item in self._bar:
            n += 1
            yield item
        total = getattr(self._bar, "total", None)
        print(f"{self._desc}: {n}{'' if total is None else f'/{total}'} {self._unit}s, done")

    def __len__(self):
        return len(self._bar)

    def __getattr__(self, name):
        return getattr(self._bar, name)


class LossPlot:
    """A loss curve that grows while you train.

    >>> plot = LossPlot(every=20)
    >>> for step in range(200):
    ...     loss = ...                      # one training step
    ...     plot.update(loss)               # redraws in a notebook every 20 updates
    >>> plot.update(0.5, name="test", step=200)   # a second series, at its own steps
    >>> plot.show()                         # the final picture

    Args:
        title, xlabel, ylabel: the axes' labels.
        every: redraw after this many updates of the first series (live mode only).
        live: redraw in place while training; default: only inside a notebook.
        logy: logarithmic loss axis.
        smooth: also draw an exponential moving average of the first series with
            this factor in (0, 1) (e.g. 0.9), useful for noisy minibatch losses.
    """

    def __init__(self, title: str = "training loss", xlabel: str = "step",
                 ylabel: str = "loss", every: int = 10, live: bool | None = None,
                 logy: bool = False, smooth: float | None = None,
                 figsize: tuple[float, float] = (6.0, 3.2)) -> None:
        import matplotlib.pyplot as plt

        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive int, got {every!r}")
        if smooth is not None and not 0.0 < smooth < 1.0:
            raise ValueError(f"smooth must be in (0, 1), got {smooth!r}")
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.every, self.logy, self.smooth = every, logy, smooth
        self.live = in_notebook() if live is None else bool(live)
        self.series: dict[str, tuple[list[float], list[float]]] = {}
        self.fig, self.ax = plt.subplots(figsize=figsize)
        plt.close(self.fig)  # shown on purpose (show/redraw), never by the inline backend
        self._handle = None
        self.draws = 0

    def update(self, value: Any, step: float | None = None, name: str = "loss") -> None:
        """Add one point to series ``name`` (a float, or a one-element Tensor/array).

        ``step`` defaults to the series' length so far.
        """
        value = float(value.item() if hasattr(value, "item") else value)
        steps, values = self.series.setdefault(name, ([], []))
        steps.append(float(len(steps) if step is None else step))
        values.append(value)
        first = next(iter(self.series))
        if self.live and name == first and len(values) % self.every == 0:
            self.redraw()

    def values(self, name: str = "loss") -> list[float]:
        """The values of a series so far."""
        return list(self.series[name][1]) if name in self.series else []

    def draw(self):
        """Draw every series on the axes; return the figure."""
        ax = self.ax
        ax.clear()
        for k, (name, (steps, values)) in enumerate(self.series.items()):
            style = "-" if len(values) > 30 else "o-"
            faded = self.smooth is not None and k == 0
            ax.plot(steps, values, style, ms=3, label=name, alpha=0.35 if faded else 1.0)
            if faded:
                ax.plot(steps, _ema(values, self.smooth), "-", color=ax.lines[-1].get_color(),
                        label=f"{name} (smoothed)")
        if self.logy and any(v > 0 for _, vs in self.series.values() for v in vs):
            ax.set_yscale("log")
        ax.set_title(self.title)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        if self.series:
            ax.legend(loc="upper right", fontsize=8)
        ax.grid(alpha=0.3)
        self.fig.tight_layout()
        self.draws += 1
        return self.fig

    def redraw(self) -> None:
        """Draw, and show the figure in place of its previous picture (notebooks)."""
        self.draw()
        from IPython.display import display

        if self._handle is None:
            self._handle = display(self.fig, display_id=True)
        else:
            self._handle.update(self.fig)

    def show(self):
        """The final picture: updated in place when live, else returned for the cell to show."""
        if self.live:
            self.redraw()
            return None
        return self.draw()


def _ema(values: list[float], factor: float) -> list[float]:
    out, avg = [], None
    for v in values:
        avg = v if avg is None else factor * avg + (1 - factor) * v
        out.append(avg)
    return out


def plot_decision_boundary(predict: Callable[[np.ndarray], Any], X: Any, y: Any, ax=None,
                           resolution: int = 200, padding: float = 0.5,
                           title: str | None = None, cmap: str = "coolwarm"):
    """Colour the plane by the class ``predict`` gives each point; scatter ``X`` on top.

    ``predict`` takes an ``(M, 2)`` float32 NumPy array of grid points and returns
    ``(M,)`` class labels or ``(M, C)`` scores (argmax is taken); NumPy arrays and
    Tensors both work. ``X (N, 2)`` and ``y (N,)`` are the data. Returns the axes.
    """
    import matplotlib.pyplot as plt

    X = np.asarray(X.numpy() if hasattr(X, "numpy") else X, dtype=np.float64)
    y = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary needs 2-D points X of shape (N, 2), got {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"labels y must have shape ({X.shape[0]},), got {y.shape}")
    if not isinstance(resolution, int) or resolution < 2:
        raise ValueError(f"resolution must be an int >= 2, got {resolution!r}")
    lo, hi = X.min(axis=0) - padding, X.max(axis=0) + padding
    xs = np.linspace(lo[0], hi[0], resolution)
    ys = np.linspace(lo[1], hi[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32)
    out = predict(grid)
    out = np.asarray(out.numpy() if hasattr(out, "numpy") else out)
    if out.ndim == 2:
        out = out.argmax(axis=1)
    if out.shape != (grid.shape[0],):
        raise ValueError(f"predict returned shape {out.shape} for {grid.shape[0]} points; "
                         "expected (M,) labels or (M, C) scores")
    zz = out.reshape(gx.shape)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4))
    classes = np.unique(np.concatenate([np.unique(y), np.unique(zz)]))
    levels = np.concatenate([classes - 0.5, [classes[-1] + 0.5]])
    ax.contourf(gx, gy, zz, levels=levels, cmap=cmap, alpha=0.3)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap=cmap, s=12, edgecolors="k", linewidths=0.3,
               vmin=classes[0], vmax=classes[-1])
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    if title:
        ax.set_title(title)
    return ax
