"""stridegrad.viz.training: loss plot, decision boundary and progress bar, headless."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stridegrad as sg  # noqa: E402
from stridegrad.viz import training  # noqa: E402
from stridegrad.viz.training import LossPlot, plot_decision_boundary, progress  # noqa: E402


def test_loss_plot_collects_series_and_draws_them():
    plot = LossPlot(title="t", live=False)
    for v in [3.0, 2.0, 1.5]:
        plot.update(v)
    plot.update(sg.tensor(0.5), name="test", step=2)  # a Tensor value and its own step
    assert plot.values() == [3.0, 2.0, 1.5]
    assert plot.series["loss"][0] == [0.0, 1.0, 2.0]
    assert plot.series["test"] == ([2.0], [0.5])
    fig = plot.show()  # not live: the figure is returned for the cell to show
    assert fig is plot.fig
    lines = plot.ax.get_lines()
    assert [list(l.get_ydata()) for l in lines] == [[3.0, 2.0, 1.5], [0.5]]
    assert plot.ax.get_title() == "t"
    assert [t.get_text() for t in plot.ax.get_legend().get_texts()] == ["loss", "test"]


def test_loss_plot_smoothing_and_log_scale():
    plot = LossPlot(live=False, smooth=0.5, logy=True)
    for v in [4.0, 2.0, 2.0]:
        plot.update(v)
    plot.draw()
    raw, smooth = plot.ax.get_lines()
    assert list(smooth.get_ydata()) == [4.0, 3.0, 2.5]
    assert raw.get_alpha() == pytest.approx(0.35)
    assert plot.ax.get_yscale() == "log"


def test_live_plot_redraws_every_n_updates(monkeypatch):
    shown = []

    class Handle:
        def update(self, fig):
            shown.append(("update", fig))

    def display(fig, display_id=False):
        shown.append(("display", fig))
        return Handle()

    import IPython.display

    monkeypatch.setattr(IPython.display, "display", display)
    plot = LossPlot(every=3, live=True)
    for k in range(7):
        plot.update(float(k))
    assert [kind for kind, _ in shown] == ["display", "update"]  # after updates 3 and 6
    plot.update(1.0, name="other")  # a second series never triggers a redraw
    assert len(shown) == 2
    assert plot.show() is None
    assert [kind for kind, _ in shown] == ["display", "update", "update"]
    assert plot.draws == 3


def test_loss_plot_rejects_bad_options():
    with pytest.raises(ValueError, match="every"):
        LossPlot(every=0)
    with pytest.raises(ValueError, match="smooth"):
        LossPlot(smooth=1.5)


def test_not_live_outside_a_notebook():
    assert training.in_notebook() is False
    assert LossPlot().live is False


def test_decision_boundary_colours_the_plane_by_class():
    X = np.array([[-1.0, 0.0], [1.0, 0.0], [-2.0, 1.0], [2.0, -1.0]], dtype=np.float32)
    y = np.array([0, 1, 0, 1])
    seen = []

    def predict(points):  # class 1 right of x = 0, as scores (M, 2)
        seen.append(points.shape)
        right = (points[:, 0] > 0).astype(np.float32)
        return np.stack([1 - right, right], axis=1)

    ax = plot_decision_boundary(predict, X, y, resolution=50, padding=0.5, title="b")
    assert seen == [(2500, 2)]
    assert ax.get_title() == "b"
    assert ax.get_xlim() == pytest.approx((-2.5, 2.5))
    assert len(ax.collections) >= 2  # filled contours and the scatter
    scatter = ax.collections[-1]
    np.testing.assert_allclose(scatter.get_offsets(), X)
    np.testing.assert_array_equal(scatter.get_array(), y)
    plt.close(ax.figure)


def test_decision_boundary_accepts_tensors_and_labels(tmp_path):
    Xm, ym = sg.data.make_moons(n=40, seed=0)
    fig, ax = plt.subplots()

    def predict(points):
        return sg.tensor((points[:, 1] < 0.25).astype(np.int64))  # (M,) labels as a Tensor

    assert plot_decision_boundary(predict, sg.tensor(Xm), ym, ax=ax, resolution=20) is ax
    fig.savefig(tmp_path / "b.png")
    plt.close(fig)


@pytest.mark.parametrize("X, y, message", [
    (np.zeros((4, 3)), np.zeros(4), "shape \\(N, 2\\)"),
    (np.zeros((4, 2)), np.zeros(3), "labels y must have shape \\(4,\\)"),
])
def test_decision_boundary_names_bad_shapes(X, y, message):
    with pytest.raises(ValueError, match=message):
        plot_decision_boundary(lambda p: np.zeros(len(p)), X, y)


def test_decision_boundary_rejects_a_wrong_prediction_shape():
    with pytest.raises(ValueError, match="predict returned shape"):
        plot_decision_boundary(lambda p: np.zeros(3), np.zeros((4, 2)), np.zeros(4), resolution=5)


def test_progress_wraps_or_passes_through(monkeypatch):
    data = [1, 2, 3]
    assert progress(data, enabled=False) is data
    monkeypatch.setenv(training.PROGRESS_ENV, "0")
    assert progress(data) is data
    monkeypatch.delenv(training.PROGRESS_ENV)
    bar = progress(data, desc="x", disable=True)  # tqdm object, silenced for the test
    assert list(bar) == data
    assert bar is not data


def test_a_notebook_bar_ends_with_a_plain_line(monkeypatch, capsys):
    """A stored notebook keeps the bar's first text ("0%"); the loop's end is said in words."""
    monkeypatch.setattr(training, "in_notebook", lambda: True)
    bar = progress(range(4), desc="epochs", unit="epoch", disable=True)
    assert len(bar) == 4 and bar.total == 4  # still the tqdm bar underneath
    assert list(bar) == [0, 1, 2, 3]
    assert capsys.readouterr().out == "epochs: 4/4 epochs, done\n"


def test_a_notebook_bar_stores_words_not_its_first_state(monkeypatch):
    """Where a page cannot draw the widget it shows the bar's plain text: what the bar
    is and where to look, not tqdm's frozen "0%"."""
    import IPython.display
    from tqdm.notebook import tqdm_notebook

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
    bar = training._widget_bar(tqdm_notebook, range(3), None, "epochs", {"unit": "epoch"})
    assert list(bar) == [0, 1, 2]
    [bundle] = shown
    assert bundle["text/plain"] == training.BAR_TEXT.format(desc="epochs")
    assert "0%" not in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the bar itself, as before
