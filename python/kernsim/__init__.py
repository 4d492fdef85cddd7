"""kernsim — predict how long a GPU kernel takes on a real part, without that GPU.

    import kernsim, numpy as np
    m = kernsim.compile(open("saxpy.cu").read(), arch="h200")
    x = np.ones(1 << 20, np.float32); y = np.zeros_like(x)
    r = kernsim.launch(m["saxpy"], grid=4096, block=256, args=[x.size, 2.0, x, y], full=True)
    r.time_us, r.report["bottleneck"], r.outputs[3]

compile / launch / run_spec drive the same C++ library as the `kernsim` CLI; score and
score_many are the RL reward (docs/python.md); kernsim.distributed runs batches on Ray;
compile_triton brings @triton.jit kernels in through Triton's own compiler.
"""

from __future__ import annotations

import os as _os


def _data_dir_fallback() -> None:
    # The C++ library finds the device files in the source tree it was built from; when that
    # tree is gone (a wheel installed elsewhere), use the copy shipped inside the package.
    if _os.environ.get("KERNSIM_DATA_DIR"):
        return
    from . import _core
    if not _os.path.isdir(_os.path.join(_core.source_dir(), "calibration", "devices")):
        packaged = _os.path.join(_os.path.dirname(__file__), "data")
        if _os.path.isdir(_os.path.join(packaged, "calibration", "devices")):
            _os.environ["KERNSIM_DATA_DIR"] = packaged


_data_dir_fallback()

from . import _core  # noqa: E402
from .core import (DEFAULT_ARCH, BufferAt, Kernel, LaunchResult, Module, Param, Pointer, TensorMap, compile, compile_many,  # noqa: E402
                   device_info, devices, infer_lang, launch, launch_many, run_spec)
from .errors import (CompileError, DeviceFileError, InternalError, KernelFaultError, KernsimError,  # noqa: E402
                     KernsimIOError, LaunchSpecError, NotImplementedStageError, ParseError, UnsupportedError,
                     UsageError)
from .scoring import DEFAULT_TOLERANCE, KernelSpec, compare, evaluate, reward, score, score_many  # noqa: E402
from .triton_frontend import compile_triton  # noqa: E402
from .types import Scalar, f32, f64, i32, i64, u32, u64  # noqa: E402

__version__ = _core.version()

__all__ = [
    "compile", "compile_many", "infer_lang", "launch", "launch_many", "run_spec", "device_info", "devices", "Module", "Kernel",
    "Param", "LaunchResult", "TensorMap", "Pointer", "BufferAt", "score", "score_many", "reward", "compare", "evaluate", "KernelSpec",
    "DEFAULT_TOLERANCE", "compile_triton", "Scalar", "i32", "u32", "i64", "u64", "f32", "f64", "KernsimError",
    "UsageError", "DeviceFileError", "LaunchSpecError", "KernsimIOError", "CompileError", "ParseError",
    "UnsupportedError", "NotImplementedStageError", "KernelFaultError", "InternalError", "DEFAULT_ARCH",
]
