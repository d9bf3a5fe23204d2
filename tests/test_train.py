"""Training end to end: the loop reduces loss and reaches the stated accuracy."""

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import cli
from stridegrad.train import TrainingError, train


@pytest.mark.parametrize("device", ["cpu", "python"])
def test_moons_training_reduces_the_loss(device, tmp_path):
    res = train("moons", device=device, epochs=4, out=tmp_path, progress=False, log=lambda s: None)
    assert res.losses[-1] < 0.6 * res.losses[0]
    assert res.test_accuracy > 0.85


def test_python_and_cpu_devices_train_the_same_model(tmp_path):
    quiet = dict(epochs=2, progress=False, log=lambda s: None)
    a = train("moons", device="cpu", out=tmp_path / "a", **quiet)
    b = train("moons", device="python", out=tmp_path / "b", **quiet)
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-4)


def test_digits_reaches_95_percent_from_the_cli(tmp_path, capsys):
    assert cli.main(["train", "digits", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert last.startswith("test accuracy: ")
    assert float(last.split(": ")[1]) >= 0.95
    assert "epoch  15  loss" in out
    assert (tmp_path / "loss.png").stat().st_size > 1000
    state = sg.load(tmp_path / "model.npz")
    assert state["0.weight"].shape == (128, 64)


def test_bad_options_are_clear_errors(tmp_path, capsys):
    with pytest.raises(TrainingError, match="epochs must be a positive int, got 0"):
        train("moons", epochs=0, out=tmp_path, progress=False)
    with pytest.raises(TrainingError, match="unknown dataset 'mnist'"):
        train("mnist", out=tmp_path)
    assert cli.main(["train", "moons", "--device", "tpu", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridegrad train: error: ") and "tpu" in err and "Traceback" not in err


def test_cnn_option_from_the_cli(tmp_path, capsys):
    """``--model cnn`` trains the conv net on digit images (one short epoch here; the
    full recipe's >= 98% is measured by running the command, not by a test)."""
    args = ["train", "digits", "--model", "cnn", "--epochs", "1", "--out", str(tmp_path),
            "--no-progress"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "CNN conv16-pool-conv32-pool-linear10" in out and "epoch   1  loss" in out
    assert float(out.strip().splitlines()[-1].split(": ")[1]) >= 0.5  # well above chance (0.1)
    state = sg.load(tmp_path / "model.npz")
    assert state["0.weight"].shape == (16, 1, 3, 3) and state["3.weight"].shape == (32, 16, 3, 3)
    assert state["7.weight"].shape == (10, 32 * 2 * 2)


def test_cnn_needs_an_image_dataset(tmp_path):
    with pytest.raises(TrainingError, match="--model cnn needs images; 'moons'"):
        train("moons", model="cnn", out=tmp_path, progress=False)
    with pytest.raises(TrainingError, match="unknown model 'rnn'"):
        train("digits", model="rnn", out=tmp_path, progress=False)
