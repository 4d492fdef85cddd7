// The launch spec: one JSON file per kernel launch — kernsim's public, versioned input format.
//
//   {"spec_version": 1, "source": "kernels/saxpy.cu", "kernel": "saxpy",
//    "grid": [4096,1,1], "block": [256,1,1], "dynamic_shared_bytes": 0,
//    "args": [ {"type": "u64", "value": 1048576}, {"type": "f32", "value": 2.0},
//              {"buffer": "f32", "count": 1048576, "init": "uniform"}, ... ],
//    "id": "...", "family": "...", "notes": "...", "flops": 2097152, "min_bytes": 12582912,
//    "seed": 0,
//    "compile": {"flags": ["-ffast-math"], "include_dirs": ["include"], "defines": {"TILE": 32},
//                "std": "c++20"}}
//
// parse_launch_spec() checks everything that can be checked without the kernel or the device:
// JSON syntax (with line and column), unknown keys, types, sizes, init strings, files. The
// checks against the device (grid/block/shared limits) and against the kernel's parameter list
// are separate functions because they need those objects. Every error names the field, in the
// form `args[2].init`.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kernsim::device { class DeviceSpec; }

namespace kernsim::api {

// Version 2 adds tensor-map parameters ({"tensor_map": {...}}), pointers into buffers, buffer
// offsets and by-value structs ({"struct": [...]}, {"bytes": "..."}); a version-1 spec means what it did.
inline constexpr int kLaunchSpecVersion = 2;

enum class ScalarType { I32, U32, I64, U64, F32, F64 };
enum class ElemType { F32, F16, BF16, F64, I32, U32, I64, U8 };

const char* to_string(ScalarType t);
const char* to_string(ElemType t);
std::size_t size_of(ScalarType t);
std::size_t size_of(ElemType t);

struct Init {
  // Host: bytes given in memory by a program that embeds kernsim (the Python package); never
  // produced by parsing a spec file.
  enum class Kind { Zeros, Uniform, Iota, RandInt, File, Host };
  Kind kind = Kind::Zeros;
  std::int64_t lo = 0, hi = 0;          // RandInt: inclusive range
  std::filesystem::path file;           // File: resolved path
  std::string text;                     // as written, for messages
  std::shared_ptr<const std::vector<std::uint8_t>> host;  // Host: exactly count elements
};

struct ScalarArg {
  ScalarType type = ScalarType::I32;
  std::uint64_t bits = 0;  // little-endian bit pattern of the value in its type
  double as_double = 0;    // for reports
};

struct BufferArg {
  ElemType type = ElemType::F32;
  std::int64_t count = 0;
  Init init;
  std::size_t bytes() const { return static_cast<std::size_t>(count) * size_of(type); }
};

// {"tensor_map": {"buffer": K, "dtype": "bf16", "dims": [...], "strides_bytes": [...], "box": [...],
// "element_strides": [...], "swizzle": "128B", "interleave": "none", "l2_promotion": "256B",
// "oob_fill": "zero"}}: the 128-byte map of buffer argument K that cuTensorMapEncodeTiled would
// make (dims innermost first). The names are checked here; the driver's numeric rules at launch,
// when the buffer's address is known (sim/functional/tensor_map.h).
struct TensorMapArg {
  std::size_t buffer = 0;   // the described buffer's argument index (its own for an inline buffer)
  bool owns_buffer = false; // "buffer": {"buffer": T, "count": N, ...}: a buffer no other parameter takes (Triton's host-side descriptors)
  std::string dtype;
  std::vector<std::int64_t> dims, strides_bytes, box, element_strides;
  std::string swizzle = "none", interleave = "none", l2_promotion = "none", oob_fill = "zero";
};

// {"struct": [MEMBER, ...]} or {"bytes": "HEX", "align": A} (spec_version 2): a parameter passed
// by value whose bytes the spec gives — a C struct laid out with C alignment (each member at a
// multiple of its alignment, the size a multiple of the largest), or raw bytes. A MEMBER is
// {"type": T, "value": V} (T one of i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64, V a number,
// or an array of numbers for a C array; f16x2 and bf16x2 take two numbers and align to 4 as
// __half2 does), a nested {"struct": [...]}, or {"bytes": "HEX", "align": A}. The size and
// alignment are checked against the kernel's parameter at launch (.param .align A .b8 name[N]).
// A hole in a struct's bytes that the launch fills when the buffers have addresses: a pointer
// member ({"pointer": J or "NAME", "offset_bytes": K}: the address K bytes into that buffer) or a
// tensor-map member ({"tensor_map": {...}}: the 128 bytes cuTensorMapEncodeTiled would write), as
// the kernel-argument structs of ThunderKittens (`gl`) and CUTLASS hold them.
struct AggregateHole {
  std::size_t offset = 0;      // byte offset in AggregateArg::bytes
  bool is_tensor_map = false;
  std::size_t target = 0;      // pointer: the buffer's argument index (spec-level buffers included)
  std::int64_t offset_bytes = 0;
  TensorMapArg tensor_map;     // its `buffer` is an argument index too
  std::string field;           // `args[0].struct[2]`, for messages
};

struct AggregateArg {
  std::vector<std::uint8_t> bytes;
  std::vector<AggregateHole> holes;
  std::size_t align = 1;
  bool align_given = true;  // false for {"bytes": ...} without "align": the alignment is not checked
  std::string desc;         // "struct {f16x2, i32}" / "8 bytes", for messages
};

struct Arg {
  bool is_buffer = false;
  bool is_tensor_map = false;
  // {"pointer": J, "offset_bytes": K} (spec_version 2): a pointer K bytes into the buffer of
  // argument J, which the launch allocates once (two parameters that alias one tensor, an in-place
  // kernel, a view into a larger allocation).
  bool is_pointer = false;
  std::size_t pointer_to = 0;
  // the byte offset of the passed address within its buffer: a buffer argument's own
  // ("offset_bytes" next to "buffer"), or a pointer's into argument `pointer_to`'s buffer
  std::int64_t offset_bytes = 0;
  bool is_aggregate = false;  // {"struct": ...} or {"bytes": ...}
  ScalarArg scalar;
  BufferArg buffer;
  TensorMapArg tensor_map;
  AggregateArg aggregate;
  // whether the launch allocates a device buffer for it (Arg::buffer): a buffer argument, or a
  // tensor map with an inline buffer
  bool has_buffer() const { return is_buffer || (is_tensor_map && tensor_map.owns_buffer); }
  // a spec-level buffer ("buffers": {"NAME": {...}}): allocated and initialised like a buffer
  // argument, passed to no parameter, reached through pointer and tensor-map members of structs.
  // Such entries follow the parameters' in LaunchSpec::args.
  std::string extra_name;
  bool is_extra() const { return !extra_name.empty(); }
  // whether the parameter receives a device address (a buffer or a pointer into one)
  bool passes_address() const { return is_buffer || is_pointer; }
};

// How the source is compiled beyond kernsim's defaults: the spec's `compile` object, to which the
// CLI's -I/-D/--std/--flag and Python's flags=/include_dirs= add. Every setting is part of the
// compile-cache key (frontends/compile.h), through clang_flags().
struct CompileSettings {
  std::vector<std::string> flags;                  // passed to clang as written, after kernsim's own
  std::vector<std::filesystem::path> include_dirs; // absolute (the spec's resolved against the spec file)
  std::vector<std::pair<std::string, std::optional<std::string>>> defines;  // NAME, or NAME=VALUE
  std::string std;                                 // "c++20"; empty: the frontend's (c++17)

  bool empty() const { return flags.empty() && include_dirs.empty() && defines.empty() && std.empty(); }
  // `more` after this: its flags, directories and defines come later, its std (if any) wins.
  void add(const CompileSettings& more);
};

// The clang driver arguments of `c`: -I DIR..., -DNAME[=VALUE]..., -std=..., then the flags.
std::vector<std::string> clang_flags(const CompileSettings& c);

// Checks one setting (used by the spec parser, the CLI and Python); throws Error(LaunchSpec)
// naming `field`: an identifier for a define's name, a known standard, a flag that does not take
// over what kernsim decides (the output, the target, the language).
void check_define_name(const std::string& name, const std::string& field);
void check_std(const std::string& std, const std::string& field);
void check_flag(const std::string& flag, const std::string& field);

struct LaunchSpec {
  int spec_version = kLaunchSpecVersion;
  std::filesystem::path spec_file;   // where it was read from (empty for in-memory specs)
  std::filesystem::path source;      // resolved relative to the spec file
  std::string kernel;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::int64_t dynamic_shared_bytes = 0;
  // thread-block clusters (NVIDIA sm_90+): CTAs per cluster; {0,0,0} when the spec gives none
  // (the kernel's .reqnctapercluster, else clusters of one)
  std::array<std::int64_t, 3> cluster{0, 0, 0};
  bool cluster_nonportable = false;  // allows clusters above topology.max_cluster_ctas
  std::vector<Arg> args;
  std::string id, family, notes;
  std::optional<double> flops, min_bytes;
  std::uint64_t seed = 0;
  CompileSettings compile;

  // the kernel's parameters: args without the spec-level buffers that follow them
  std::size_t num_params() const {
    std::size_t n = 0;
    for (const Arg& a : args) n += a.is_extra() ? 0 : 1;
    return n;
  }
  // `args[3]`, or `buffers.A` for a spec-level buffer, for messages
  std::string arg_label(std::size_t i) const {
    return args.at(i).is_extra() ? "buffers." + args[i].extra_name : "args[" + std::to_string(i) + "]";
  }
  std::int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  std::int64_t num_blocks() const { return grid[0] * grid[1] * grid[2]; }
};

LaunchSpec parse_launch_spec(const std::filesystem::path& file);
// A `compile` object alone (what the Python package sends with a compile), checked as in a spec.
CompileSettings parse_compile_settings_text(const std::string& json_text, const std::filesystem::path& base_dir,
                                            const std::string& origin);
// `base_dir` resolves relative `source` and `file:` paths; `origin` names the text in errors.
LaunchSpec parse_launch_spec_text(const std::string& json_text, const std::filesystem::path& base_dir,
                                  const std::string& origin);

// Grid, block and shared-memory limits of the part.
void validate_against_device(const LaunchSpec& spec, const device::DeviceSpec& dev);

// The tensor map `t` (whose `buffer` is an argument index) over its buffer at `address`, checked as
// cuTensorMapEncodeTiled checks it and against the buffer's size; errors name `field`.
std::array<std::uint8_t, 128> encode_tensor_map(const LaunchSpec& spec, const TensorMapArg& t, const std::string& field,
                                                std::uint64_t address);
// Fills the pointer and tensor-map members of `spec`'s struct arguments from the buffers'
// addresses (`addr[i]`: where argument i's buffer was allocated, 0 for no buffer).
void fill_struct_holes(LaunchSpec& spec, const std::vector<std::uint64_t>& addr);
bool has_struct_holes(const LaunchSpec& spec);

// Fills a buffer argument's initial bytes (deterministic in spec.seed and the argument index).
std::vector<std::uint8_t> make_initial_bytes(const LaunchSpec& spec, std::size_t arg_index);
// Bytes [offset, offset + n) of the same (whole elements), written to dst: what a lazily filled
// buffer (the fast tier) reads when an access first reaches a page.
void fill_initial_bytes(const LaunchSpec& spec, std::size_t arg_index, std::uint64_t offset, std::uint64_t n, std::uint8_t* dst);

}  // namespace kernsim::api
