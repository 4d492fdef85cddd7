"""Error bands (issue 17 item 4): calibration/validation/error_bands.py learns them from validation
residuals; kernsim's report carries them (api/error_band.cpp). Expected values are worked out by
hand from the residuals given here, never taken from kernsim's output."""

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "calibration" / "validation"))
import error_bands  # noqa: E402


def _validate(rows):
    return {"arch": "testpart", "tier": "detailed",
            "launches": [{"id": f"l{i}", "bottleneck": cls, "measured_us": meas, "predicted_us": pred}
                         for i, (cls, meas, pred) in enumerate(rows)]}


def test_quantile_interpolates_between_order_statistics():
    xs = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert error_bands.quantile(xs, 0.0) == 1.0
    assert error_bands.quantile(xs, 1.0) == 5.0
    assert error_bands.quantile(xs, 0.5) == 3.0
    assert error_bands.quantile(xs, 0.1) == pytest.approx(1.4)  # 0.1 * 4 = 0.4 of the way from 1 to 2


def test_bands_are_per_class_and_small_classes_use_the_pooled_ratios():
    # dram: ratios 1.0 .. 1.9 (10 launches); latency: 2 launches at ratio 3 (below min_class)
    rows = [("dram", 10.0 + i, 10.0) for i in range(10)] + [("latency", 30.0, 10.0), ("latency", 60.0, 20.0)]
    b = error_bands.bands(error_bands.residuals(_validate(rows)), 0.1, 0.9, 10)
    assert b["dram"]["n"] == 10 and not b["dram"]["pooled"]
    assert b["dram"]["lo"] == pytest.approx(1.09) and b["dram"]["hi"] == pytest.approx(1.81)
    assert b["latency"]["pooled"] and b["latency"]["n"] == 2
    assert b["latency"]["lo"] == b["all"]["lo"] and b["latency"]["hi"] == b["all"]["hi"]
    assert b["all"]["n"] == 12


def test_leave_one_out_coverage_counts_a_launch_against_a_band_learned_without_it():
    # every ratio equal: each launch lies on the band learned from the others -> all inside
    rows = [("dram", 12.0, 10.0)] * 12
    cv = error_bands.cross_validate(error_bands.residuals(_validate(rows)), 0.1, 0.9, 10)
    assert cv["coverage"]["all"] == {"n": 12, "inside": 12, "fraction": 1.0}
    # one outlier at ratio 5 among ratios 1.0: learned without it the band is [1, 1], so it is out;
    # every other launch is inside its band (learned with the outlier it stretches upwards only)
    rows = [("dram", 10.0, 10.0)] * 11 + [("dram", 50.0, 10.0)]
    cv = error_bands.cross_validate(error_bands.residuals(_validate(rows)), 0.1, 0.9, 10)
    assert cv["coverage"]["dram"]["inside"] == 11 and [m["id"] for m in cv["misses"]] == ["l11"]


def test_script_writes_the_band_file_with_provenance(tmp_path):
    rows = [("dram", 10.0 + i, 10.0) for i in range(12)]
    v = tmp_path / "v.json"
    v.write_text(json.dumps(_validate(rows)))
    out = tmp_path / "bands.json"
    assert error_bands.main([str(v), "--measured-csv", str(v), "--out", str(out), "--command", "kernsim validate X"]) == 0
    d = json.loads(out.read_text())
    t = d["tiers"]["detailed"]
    assert d["part"] == "testpart" and t["quantiles"] == [0.1, 0.9]
    assert t["provenance"]["confidence"] == "measured" and t["provenance"]["command"] == "kernsim validate X"
    assert t["provenance"]["launches"] == 12 and "coverage" in t["cross_validation"]


@pytest.fixture
def data_dir_with_bands(tmp_path, monkeypatch):
    """A data directory (KERNSIM_DATA_DIR) with the real device files and a hand-written band file
    for h200: detailed tier, class "dram" [0.5, 2.0], everything else [0.25, 4.0]."""
    # the source tree's data, linked, except calibration/error_bands
    for e in ROOT.iterdir():
        if e.name not in ("calibration", "build", ".git"):
            os.symlink(e, tmp_path / e.name)
    (tmp_path / "calibration").mkdir()
    for e in (ROOT / "calibration").iterdir():
        if e.name != "error_bands":
            os.symlink(e, tmp_path / "calibration" / e.name)
    bands = tmp_path / "calibration" / "error_bands"
    bands.mkdir()
    (bands / "h200.json").write_text(json.dumps({"part": "h200", "tiers": {"detailed": {"quantiles": [0.1, 0.9], "classes": {
        "dram": {"n": 30, "lo": 0.5, "hi": 2.0, "pooled": False},
        "all": {"n": 100, "lo": 0.25, "hi": 4.0, "pooled": True}}}}}))
    monkeypatch.setenv("KERNSIM_DATA_DIR", str(tmp_path))
    return tmp_path


COPY = r'''
extern "C" __global__ void copy4(const float4* a, float4* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}'''


def test_report_carries_the_band_of_its_class(data_dir_with_bands):
    import numpy as np

    import kernsim
    k = kernsim.compile(COPY, "h200")["copy4"]
    n = 1 << 22
    r = kernsim.launch(k, n // 256, 256, [np.zeros(4 * n, np.float32), np.zeros(4 * n, np.float32), kernsim.i32(n)])
    cls = r.report["bottleneck"]
    lo, hi = (0.5, 2.0) if cls == "dram" else (0.25, 4.0)
    assert r.report["error_band"] == pytest.approx([r.time_us * lo, r.time_us * hi])
    assert r.error_band == r.report["error_band"]
    assert r.report["error_band_source"]["class"] == cls
    assert r.report["error_band_source"]["pooled"] == (cls != "dram")


def test_a_part_without_residuals_gets_no_band_and_says_why(data_dir_with_bands):
    import numpy as np

    import kernsim
    k = kernsim.compile(COPY, "b200")["copy4"]
    r = kernsim.launch(k, 4, 256, [np.zeros(4096, np.float32), np.zeros(4096, np.float32), kernsim.i32(1024)])
    assert r.report["error_band"] is None
    assert "b200" in r.report["error_band_source"]["why"]


def test_shipped_band_files_were_learned_by_the_script():
    for f in sorted((ROOT / "calibration" / "error_bands").glob("*.json")):
        d = json.loads(f.read_text())
        assert d["part"] == f.stem
        for tier, t in d["tiers"].items():
            assert t["provenance"]["confidence"] == "measured" and t["provenance"]["measured"], (f, tier)
            (ROOT / t["provenance"]["measured"]).resolve(strict=True)
            for cls, c in t["classes"].items():
                assert 0 < c["lo"] <= c["hi"] and c["n"] >= 0, (f, tier, cls)


def test_kernelbench_launches_carry_their_bands_and_the_forward_their_sum(data_dir_with_bands):
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    from kernsim.kernelbench import evaluate
    d = ROOT / "tests" / "python" / "data" / "kernelbench"
    r = evaluate(str(d / "relu_ref.py"), str(d / "relu_triton_ok.py"), trials=1, time_limit_s=900)
    assert r["correct"], r["error"]
    (la,) = r["launches"]
    # the hand-written file: [0.5, 2.0] for dram-bound launches, [0.25, 4.0] for any other class
    ratio = la["error_band"][1] / la["error_band"][0]
    assert ratio == pytest.approx(4.0) or ratio == pytest.approx(16.0)
    assert la["error_band"][0] == pytest.approx(la["time_us"] * (0.5 if ratio == pytest.approx(4.0) else 0.25))
    assert r["runtime_error_band_us"] == pytest.approx(la["error_band"])
