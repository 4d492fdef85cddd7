"""kernsim.TensorMap: a TMA tile load through a map passed from Python, checked against numpy's
box of the tensor with zero fill past its edges and the 128B swizzle of shared memory."""

import numpy as np
import pytest

import kernsim
from conftest import ROOT

TMA_PTX = ROOT / "tests" / "data" / "kernels" / "tma.ptx"


def swizzle_128b(box_bytes: np.ndarray) -> np.ndarray:
    """The shared-memory bytes of a dense box after the 128B swizzle (the CUDA guide: the 16-byte
    chunk index, address bits 4-6, XOR address bits 7-9)."""
    out = np.empty_like(box_bytes)
    for chunk in range(box_bytes.size // 16):
        lin = chunk * 16
        phys = lin ^ (((lin >> 7) & 7) << 4)
        out[phys:phys + 16] = box_bytes[lin:lin + 16]
    return out


def test_tensor_map_from_python_loads_the_swizzled_box():
    m = kernsim.compile(str(TMA_PTX), "h200")
    k = m["tma_2d"]
    rng = np.random.default_rng(1)
    src = rng.standard_normal((20, 40)).astype(np.float32)  # 20 rows of 40: dims [40, 20] innermost first
    out = np.zeros(256, np.uint32)
    dst = np.zeros((20, 40), np.float32)
    acc = np.arange(800, dtype=np.float32).reshape(20, 40)
    maps = [kernsim.TensorMap(buffer=b, dtype="f32", dims=[40, 20], strides_bytes=[160], box=[32, 8], swizzle="128B")
            for b in (3, 5, 6)]
    r = kernsim.launch(k, grid=1, block=32, args=maps + [src, out, dst, acc, 20, 16, 16, 14, 1024], full=True)
    box = np.zeros((8, 32), np.float32)
    box[:4, :20] = src[16:20, 20:40]  # rows 16..23 and columns 20..51 of a 20 x 40 tensor
    want = swizzle_128b(box.reshape(-1).view(np.uint8))
    np.testing.assert_array_equal(r.outputs[4].view(np.uint8), want)
    stored = np.zeros((20, 40), np.float32)
    stored[14:20, 16:40] = box[:6, :24]  # the box stored back at (16, 14), clipped at the edges
    np.testing.assert_array_equal(r.outputs[5], stored)
    np.testing.assert_array_equal(r.outputs[6], acc + stored)


def test_a_bad_tensor_map_names_its_field():
    m = kernsim.compile(str(TMA_PTX), "h200")
    bad = kernsim.TensorMap(buffer=3, dtype="f32", dims=[40, 20], strides_bytes=[160], box=[300, 8])
    good = kernsim.TensorMap(buffer=3, dtype="f32", dims=[40, 20], strides_bytes=[160], box=[32, 8])
    arrays = [np.zeros(800, np.float32), np.zeros(256, np.uint32), np.zeros(800, np.float32), np.zeros(800, np.float32)]
    with pytest.raises(kernsim.LaunchSpecError) as e:
        kernsim.launch(m["tma_2d"], grid=1, block=32, args=[bad, good, good] + arrays + [0, 0, 0, 0, 1024], full=True)
    assert "args[0].tensor_map.box[0]" in str(e.value)
