"""`jacquetd train` is the command line of the bots' trainer (a tiny run, real training)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]


def test_jacquetd_train_writes_weights_curve_and_its_command(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "jacquetd", "train", "--variant", "jacquet-be", "--games", "20",
         "--seed", "1", "--out", str(out), "--eval-every", "10", "--eval-games", "4", "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "jacquet-be.npz").exists() and (out / "curve.svg").exists()
    meta = json.loads((out / "jacquet-be.json").read_text())
    assert "20" in json.dumps(meta) and "jacquet-be" in json.dumps(meta)
