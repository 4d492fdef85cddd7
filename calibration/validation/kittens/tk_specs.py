"""Launch specs for ThunderKittens' educational H100 GEMM levels (kernels/gemm/educational_h100).

Each level's kernel takes one struct by value, `matmul_globals {tile_gl A, B, C; int N;}`, where
`tile_gl = gl<bf16, 1, 1, -1, -1, st_bf<64, 64>>` (levels 4-8; st_bf<32, 32> in level 4). With
-DKITTENS_HOPPER and CUDA 13's cuda.h a `gl` is laid out as

    offset   0  bf16* raw_ptr
             8  compiled_dim<1> batch_internal   (an empty struct: 1 byte)
             9  compiled_dim<1> depth_internal
            16  runtime_dim rows_internal        (size_t)
            24  runtime_dim cols_internal
           128  descriptor_dict<sub_tile>: CUtensorMap tma_desc (128 bytes, alignas(128)), then an
                empty descriptor_dict<> (1 byte), so 256 bytes
    size 384, alignment 128

which is what clang's PTX says (`.param .align 128 .b8 [1280]` for the three of them and N). The
tensor map is the one TK's `create_tensor_map<st_bf<R, C>, 2>` builds on the host for a swizzled
tile (include/types/global/tma.cuh): five dimensions, the innermost a 128-byte swizzle span.
Levels 1-3 are plain CUDA kernels with pointer arguments.

Nothing of ThunderKittens is copied here: the layout above is read from the PTX parameter size and
the header's declarations, and the specs point at the user's checkout.
"""

# level: the launch as its matmul() makes it: threads, dynamic shared bytes, output rows x columns per block
LEVELS = {
    "01": {"plain": "f32", "block": [32, 32], "tile": 32},
    "02": {"plain": "bf16", "block": [32, 32], "tile": 32},
    "03": {"plain": "bf16", "block": [32, 32], "tile": 32},
    "04": {"tile": 32, "threads": 32, "smem": 100000, "grid_tile": (32, 32)},
    "05": {"tile": 64, "threads": 128, "smem": 100000, "grid_tile": (64, 64)},
    "06": {"tile": 64, "threads": 128, "smem": 100000, "grid_tile": (64, 64)},
    "07": {"tile": 64, "threads": 256, "smem": 100000, "grid_tile": (64, 64)},
    "08": {"tile": 64, "threads": 384, "smem": 200000, "grid_tile": (64 * 2, 64 * 4)},
}


def tile_map(buffer, n, tile):
    """The map create_tensor_map<st_bf<tile, tile>, axis 2> makes of an n x n bf16 matrix."""
    row_bytes = tile * 2
    swizzle = {32: "32B", 64: "64B", 128: "128B"}[min(row_bytes, 128)]
    span = min(row_bytes, 128) // 2  # elements per swizzle span
    return {"tensor_map": {
        "buffer": buffer, "dtype": "bf16",
        "dims": [span, n, (n + span - 1) // span, 1, 1],
        "strides_bytes": [n * 2, span * 2, n * n * 2, n * n * 2],
        "box": [span, tile, tile // span, 1, 1],
        "swizzle": swizzle}}


def gl(buffer, n, tile):
    return {"struct": [
        {"pointer": buffer},
        {"bytes": "00"}, {"bytes": "00"},                     # batch, depth: compile-time 1
        {"type": "u64", "value": n}, {"type": "u64", "value": n},
        {"struct": [tile_map(buffer, n, tile), {"bytes": "00"}]},
    ]}


def spec(level, source, n, init="uniform"):
    """The launch spec of `level` (a key of LEVELS) for an n x n x n GEMM."""
    lv = LEVELS[level]
    compile_ = {"include_dirs": ["include", "prototype", "kernels/gemm"], "defines": {"KITTENS_HOPPER": None,
                                                                                     "NDEBUG": None},
                "std": "c++20"}
    flops = 2 * n ** 3
    if "plain" in lv:
        t = lv["plain"]
        b = lv["block"]
        args = [{"buffer": t, "count": n * n, "init": init, "name": "A"},
                {"buffer": t, "count": n * n, "init": init, "name": "B"},
                {"buffer": t, "count": n * n, "init": "zeros", "name": "C"},
                {"type": "i32", "value": n}]
        if level == "03":
            args[3]["name"] = "N"
        return {"spec_version": 2, "source": source, "kernel": "kernel", "grid": [n // b[0], n // b[1]],
                "block": b, "args": args, "compile": compile_, "flops": flops,
                "id": f"tk_educational_h100_level_{level}_{n}", "family": "thunderkittens"}
    tile = lv["tile"]
    gy, gx = lv["grid_tile"]
    return {"spec_version": 2, "source": source, "kernel": "kernel",
            "grid": [n // gx, n // gy], "block": [lv["threads"]], "dynamic_shared_bytes": lv["smem"],
            "buffers": {"A": {"buffer": "bf16", "count": n * n, "init": init},
                        "B": {"buffer": "bf16", "count": n * n, "init": init},
                        "C": {"buffer": "bf16", "count": n * n, "init": "zeros"}},
            "args": [{"struct": [gl("A", n, tile), gl("B", n, tile), gl("C", n, tile),
                                 {"type": "i32", "value": n}]}],
            "compile": compile_, "flops": flops,
            "id": f"tk_educational_h100_level_{level}_{n}", "family": "thunderkittens"}
