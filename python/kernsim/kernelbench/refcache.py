"""What the reference-time models (``gemm``, ``tcgemm``, ``conv``, ``eager``) share: their kernels
compiled once per (source, part, device file), a cache key naming everything a simulated time
depends on, and the on-disk cache of those times.

Times are kept in ``~/.cache/kernsim/kernelbench/sgemm_times.json`` (``KERNSIM_CACHE_DIR`` moves
it), one entry per key; a key holds the device file's hash (or the part's name), the cache mode,
the model's label, the kernel source's hash and the problem, so a changed kernel or device file is
never answered from an old entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

_modules: dict = {}


def module(src: str, arch: str, device_file: str | None):
    """kernsim.compile(src) for this part, compiled once per process."""
    import kernsim
    key = (hashlib.sha256(src.encode()).hexdigest(), arch, device_file)
    if key not in _modules:
        _modules[key] = kernsim.compile(src, arch, device_file=device_file)
    return _modules[key]


def key(label: str, src: str, arch: str, device_file: str | None, cache: str, problem: dict) -> str:
    """The cache key of model ``label`` timing ``problem`` with kernel source ``src``."""
    dev_tag = hashlib.sha256(Path(device_file).read_bytes()).hexdigest()[:16] if device_file else arch
    src_tag = hashlib.sha256(src.encode()).hexdigest()[:12]
    return f"{dev_tag}|{cache}|{label} {src_tag}|" + " ".join(f"{k}{v}" for k, v in sorted(problem.items()))


def _cache_file() -> Path:
    root = Path(os.environ.get("KERNSIM_CACHE_DIR", Path.home() / ".cache" / "kernsim"))
    return root / "kernelbench" / "sgemm_times.json"


def load() -> dict:
    try:
        return json.loads(_cache_file().read_text())
    except (OSError, ValueError):
        return {}


def store(k: str, value: dict) -> None:
    f = _cache_file()
    f.parent.mkdir(parents=True, exist_ok=True)
    data = load()
    data[k] = value
    fd, tmp = tempfile.mkstemp(dir=f.parent, prefix=".sgemm_times.")
    with os.fdopen(fd, "w") as out:
        json.dump(data, out, indent=1, sort_keys=True)
    os.replace(tmp, f)


def cached(k: str, compute) -> dict:
    """The cached value of key ``k``, or compute() stored under it."""
    hit = load().get(k)
    if hit:
        return hit
    out = compute()
    store(k, out)
    return out


def fastest(times: dict) -> dict:
    """{"time_us", "config", "configs"} of the fastest of ``times`` (configuration → µs)."""
    best = min(times, key=times.get)
    return {"time_us": times[best], "config": best, "configs": times}


def run_spec(spec: dict, arch: str, device_file: str | None, cache: str, origin: str) -> dict:
    """One launch spec simulated in this process: the job's result dictionary."""
    from .. import _core
    job = {"spec_json": json.dumps(spec), "base_dir": "/", "origin": origin, "arch": arch,
           "device_file": device_file or "", "full": False, "keep_outputs": False, "max_instructions": 0,
           "wall_time_limit_s": 0.0, "cache": cache}
    return _core.run_jobs([job], 1)[0]


def gemm_spec(module_, kernel: str, bm: int, bn: int, block: int, elem: str, p: dict, middle: list,
              tail: list) -> dict:
    """A launch spec of a GEMM kernel taking (A, B, C, D or null, bias or null, M, N, K, *middle,
    strides of A, B, C, D, alpha, beta, *tail) for product ``p``, zero-filled buffers of ``elem``."""
    bsz, m, n, k = p["batch"], p["M"], p["N"], p["K"]

    def buf(count):
        return {"buffer": elem, "count": int(count), "init": "zeros"}

    null = {"type": "u64", "value": 0}
    args = [buf(bsz * m * k), buf(bsz * k * n), buf(bsz * m * n), buf(bsz * m * n) if p["d"] else null,
            buf(n) if p["bias"] else null, {"type": "i32", "value": m}, {"type": "i32", "value": n},
            {"type": "i32", "value": k}, *middle, {"type": "i64", "value": m * k}, {"type": "i64", "value": k * n},
            {"type": "i64", "value": m * n}, {"type": "i64", "value": m * n}, {"type": "f32", "value": 1.0},
            {"type": "f32", "value": 1.0}, *tail]
    return {"spec_version": 1, "source": module_.source, "kernel": module_.kernel(kernel).name,
            "grid": [-(-n // bn), -(-m // bm), bsz], "block": [block, 1, 1], "args": args}
