"""Training end to end: the loop reduces loss and reaches the stated accuracy."""

from pathlib import Path

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


def test_the_cnn_and_the_mlp_keep_their_own_results(tmp_path, monkeypatch):
    """By default each model writes into its own folder: the CNN's run does not
    overwrite the MLP's model.npz (runs/digits and runs/digits-cnn)."""
    monkeypatch.chdir(tmp_path)
    quiet = dict(epochs=1, progress=False, log=lambda s: None)
    assert train("moons", **quiet).out == tmp_path.joinpath("runs", "moons").relative_to(tmp_path)
    assert train("digits", model="cnn", **quiet).out == Path("runs", "digits-cnn")
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["digits-cnn", "moons"]


def test_an_output_folder_that_cannot_be_written_fails_before_training(tmp_path):
    logs = []
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(TrainingError, match=f"cannot write the results into {blocker}/out"):
        train("moons", out=blocker / "out", progress=False, log=logs.append)
    assert logs == []  # nothing trained, not even the first line


def test_a_diverging_loss_is_said_once_with_the_learning_rate(tmp_path):
    logs = []
    train("moons", epochs=3, lr=1e6, optimizer="sgd", out=tmp_path, progress=False,
          log=logs.append)
    warnings = [line for line in logs if line.startswith("warning:")]
    assert len(warnings) == 1 and "lr=1000000.0 is probably too large" in warnings[0]
    calm = []
    train("moons", epochs=2, out=tmp_path, progress=False, log=calm.append)
    assert not any(line.startswith("warning:") for line in calm)


def test_no_progress_bar_in_a_log_file(tmp_path, capsys):
    """stderr is not a terminal here (pytest captures it), as in `train ... 2> log`:
    the epoch lines, and no tqdm bar with its carriage returns."""
    train("moons", epochs=1, out=tmp_path, progress=True)
    captured = capsys.readouterr()
    assert "\r" not in captured.err and "epoch   1  loss" in captured.out
    assert "test accuracy" in captured.out.splitlines()[1]
