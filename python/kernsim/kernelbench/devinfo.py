"""The numbers of a part that the evaluator needs (CUDA device properties, speed-of-light peaks),
read from the device file itself (calibration/devices/*.yaml, `inherits` resolved): never a
second copy of a hardware number."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import yaml

from .. import _core
from ..core import device_info


def _devices_dir() -> Path:
    for base in (os.environ.get("KERNSIM_DATA_DIR"), _core.source_dir(),
                 str(Path(__file__).resolve().parents[1] / "data")):
        if base and (Path(base) / "calibration" / "devices").is_dir():
            return Path(base) / "calibration" / "devices"
    raise FileNotFoundError("kernsim: no calibration/devices directory (set KERNSIM_DATA_DIR)")


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) and "value" not in v else v
    return out


def _load(path: Path) -> dict:
    d = yaml.safe_load(path.read_text())
    parent = d.get("inherits")
    if parent:
        p = Path(parent) if str(parent).endswith(".yaml") else _devices_dir() / f"{parent}.yaml"
        if not p.is_absolute():
            p = path.parent / p if (path.parent / p).exists() else p
        d = _merge(_load(p), {k: v for k, v in d.items() if k != "inherits"})
    return d


def _v(d: dict, *keys, default=None):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d.get("value", default) if isinstance(d, dict) else d


@functools.lru_cache(maxsize=None)
def device_numbers(arch: str = "h200", device_file: str | None = None) -> dict:
    info = device_info(arch, device_file)
    path = Path(device_file) if device_file else _devices_dir() / f"{info['name']}.yaml"
    d = _load(path)
    unit = "sm" if "sm" in d else "cu"
    target = info["isa_target"]
    if target.startswith("sm_"):
        cc = int(target[3:].rstrip("af"))
        major, minor = cc // 10, cc % 10
    else:  # gfx942 -> 9.4
        major, minor = int(target[3]), int(target[4]) if len(target) > 4 else 0
    n = _v(d, unit, "count")
    core_mhz = _v(d, "clocks", "core_mhz")
    tensor_mhz = _v(d, "clocks", "tensor_mhz", default=core_mhz)
    subs, lanes = _v(d, unit, "sub_partitions"), _v(d, unit, "lanes_per_sub")
    fp32_issue = _v(d, "pipes", "fp32", "issue_cycles", default=1) or 1
    out = {
        "name": info["name"], "description": info["description"], "vendor": info["vendor"], "target": target,
        "major": major, "minor": minor, "sm_count": n, "warp_size": _v(d, unit, "warp_size"),
        "core_mhz": core_mhz, "tensor_mhz": tensor_mhz,
        "max_threads_per_block": _v(d, "limits", "max_threads_per_block"),
        "max_block_dim": _v(d, "limits", "max_block_dim"), "max_grid_dim": _v(d, "limits", "max_grid_dim"),
        "shared_per_block_optin": _v(d, "limits", "max_shared_per_block_bytes"),
        "shared_per_sm": _v(d, "shared", "bytes_per_unit"), "max_threads_per_sm": _v(d, unit, "max_threads"),
        "max_blocks_per_sm": _v(d, unit, "max_blocks"), "registers_per_sm": _v(d, unit, "registers"),
        "l2_bytes": _v(d, "l2", "bytes"), "dram_bytes": _v(d, "dram", "bytes"),
        "hbm_gbps": _v(d, "dram", "bandwidth_gbps"), "launch_overhead_us": _v(d, "launch", "overhead_us"),
        "file": str(path),
    }
    # peaks for the speed-of-light bound: FMA = 2 FLOP per lane per issue
    out["fp32_flops"] = (n * subs * lanes * 2 / fp32_issue * core_mhz * 1e6) if (n and subs and lanes and core_mhz) else None
    f16 = _v(d, unit, "wgmma_flops_per_cycle_f16")
    tf32 = _v(d, unit, "wgmma_flops_per_cycle_tf32")
    out["tensor_f16_flops"] = f16 * n * tensor_mhz * 1e6 if f16 else None
    out["tensor_tf32_flops"] = tf32 * n * tensor_mhz * 1e6 if tf32 else None
    return out


def cuda_props(dv: dict) -> dict:
    """The values the CUDA runtime stand-in answers cudaGetDeviceProperties/cudaDeviceGetAttribute
    with (keys of kernsim_rt.cpp's ks_get_prop)."""
    bd = dv.get("max_block_dim") or [0, 0, 0]
    gd = dv.get("max_grid_dim") or [0, 0, 0]
    regs = dv.get("registers_per_sm") or 0
    if dv["vendor"] == "amd":
        regs = 0  # VGPRs per lane on AMD: not a cudaDeviceProp figure
    p = {"sm_count": dv["sm_count"], "warp_size": dv["warp_size"], "max_threads_per_block": dv["max_threads_per_block"],
         "max_block_x": bd[0], "max_block_y": bd[1], "max_block_z": bd[2], "max_grid_x": gd[0], "max_grid_y": gd[1],
         "max_grid_z": gd[2], "shared_per_block": min(49152, dv["shared_per_block_optin"] or 49152),
         "shared_per_block_optin": dv["shared_per_block_optin"], "shared_per_sm": dv["shared_per_sm"],
         "max_threads_per_sm": dv["max_threads_per_sm"], "max_blocks_per_sm": dv["max_blocks_per_sm"],
         "regs_per_block": regs, "l2_bytes": dv["l2_bytes"], "total_global_mem": dv["dram_bytes"],
         "major": dv["major"], "minor": dv["minor"], "clock_khz": int((dv["core_mhz"] or 0) * 1000)}
    return {k: int(v) for k, v in p.items() if v is not None}
