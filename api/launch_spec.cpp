// Launch-spec parsing and validation; see launch_spec.h for the format.
#include "api/launch_spec.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <bit>
#include <map>
#include <limits>
#include <set>

#include "base/error.h"
#include "base/files.h"
#include "base/float16.h"
#include "base/random.h"
#include "device/device_spec.h"
#include "sim/functional/tensor_map.h"

namespace kernsim::api {
namespace fs = std::filesystem;
using nlohmann::json;

const char* to_string(ScalarType t) {
  switch (t) {
    case ScalarType::I32: return "i32";
    case ScalarType::U32: return "u32";
    case ScalarType::I64: return "i64";
    case ScalarType::U64: return "u64";
    case ScalarType::F32: return "f32";
    case ScalarType::F64: return "f64";
  }
  return "?";
}

const char* to_string(ElemType t) {
  switch (t) {
    case ElemType::F32: return "f32";
    case ElemType::F16: return "f16";
    case ElemType::BF16: return "bf16";
    case ElemType::F64: return "f64";
    case ElemType::I32: return "i32";
    case ElemType::U32: return "u32";
    case ElemType::I64: return "i64";
    case ElemType::U8: return "u8";
  }
  return "?";
}

std::size_t size_of(ScalarType t) {
  return (t == ScalarType::I32 || t == ScalarType::U32 || t == ScalarType::F32) ? 4 : 8;
}

std::size_t size_of(ElemType t) {
  switch (t) {
    case ElemType::F16:
    case ElemType::BF16: return 2;
    case ElemType::F32:
    case ElemType::I32:
    case ElemType::U32: return 4;
    case ElemType::F64:
    case ElemType::I64: return 8;
    case ElemType::U8: return 1;
  }
  return 0;
}

void CompileSettings::add(const CompileSettings& more) {
  flags.insert(flags.end(), more.flags.begin(), more.flags.end());
  include_dirs.insert(include_dirs.end(), more.include_dirs.begin(), more.include_dirs.end());
  defines.insert(defines.end(), more.defines.begin(), more.defines.end());
  if (!more.std.empty()) std = more.std;
}

std::vector<std::string> clang_flags(const CompileSettings& c) {
  std::vector<std::string> out;
  for (const auto& d : c.include_dirs) {
    out.push_back("-I");
    out.push_back(d.string());
  }
  for (const auto& [name, value] : c.defines) out.push_back("-D" + name + (value ? "=" + *value : ""));
  if (!c.std.empty()) out.push_back("-std=" + c.std);
  out.insert(out.end(), c.flags.begin(), c.flags.end());
  return out;
}

void check_define_name(const std::string& name, const std::string& field) {
  bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  if (!ok) throw Error(ErrorKind::LaunchSpec, "`" + field + "`: `" + name + "` is not a macro name (letters, digits, _)");
}

void check_std(const std::string& s, const std::string& field) {
  static const std::set<std::string> known = {"c++11", "c++14", "c++17", "c++20", "c++23", "c++2c",
                                              "gnu++11", "gnu++14", "gnu++17", "gnu++20", "gnu++23", "gnu++2c"};
  if (!known.count(s)) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : " ") + k;
    throw Error(ErrorKind::LaunchSpec, "`" + field + "`: unknown language standard `" + s + "` (one of " + list + ")");
  }
}

void check_flag(const std::string& f, const std::string& field) {
  auto fail = [&](const std::string& why) { throw Error(ErrorKind::LaunchSpec, "`" + field + "`: `" + f + "`: " + why); };
  if (f.empty()) fail("an empty flag");
  if (f[0] != '-') fail("not a flag (flags start with `-`; the source is the spec's `source`)");
  // kernsim decides the output, the dependency file, the target and the language
  for (const char* own : {"-o", "-MF", "-MD", "-MMD", "-x", "-S", "-c", "-E"})
    if (f == own) fail("kernsim sets this itself");
  for (const char* own : {"--cuda-gpu-arch", "--offload-arch", "--cuda-path", "-march", "-mcpu", "-target", "--target"})
    if (f.rfind(own, 0) == 0) fail("kernsim sets the target from the device");
  if (f.rfind("-std=", 0) == 0) fail("give the standard as `std`");
}

namespace {

class SpecReader {
 public:
  explicit SpecReader(std::string origin) : origin_(std::move(origin)) {}

  // What a buffer reference (a pointer's or a tensor map's "buffer") may name: an argument index
  // below nargs, or the name of a spec-level buffer.
  void set_buffer_names(std::size_t nargs, std::map<std::string, std::size_t> names) {
    nargs_ = nargs;
    names_ = std::move(names);
  }
  std::size_t buffer_ref(const json& v, const std::string& field) const {
    if (v.is_string()) {
      auto it = names_.find(v.get<std::string>());
      if (it == names_.end()) fail(field, "no buffer named `" + v.get<std::string>() + "` in the spec's `buffers`");
      return it->second;
    }
    const std::int64_t b = integer(v, field);
    if (b < 0 || static_cast<std::size_t>(b) >= nargs_) fail(field, "argument index " + std::to_string(b) + " does not exist");
    return static_cast<std::size_t>(b);
  }

  [[noreturn]] void fail(const std::string& field, const std::string& msg) const {
    throw Error(ErrorKind::LaunchSpec, origin_ + ": " + (field.empty() ? "" : "`" + field + "`: ") + msg);
  }

  void only_keys(const json& obj, const std::string& where, const std::set<std::string>& allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!allowed.count(it.key())) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(where.empty() ? it.key() : where + "." + it.key(), "unknown key (allowed: " + list + ")");
      }
    }
  }

  std::string str(const json& obj, const std::string& key, const std::string& field) const {
    if (!obj.is_object() || !obj.contains(key)) fail(field, "missing");
    const json& v = obj.at(key);
    if (!v.is_string()) fail(field, "must be a string");
    return v.get<std::string>();
  }

  std::int64_t integer(const json& v, const std::string& field) const {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        fail(field, "integer too large");
      return v.get<std::int64_t>();
    }
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (std::floor(d) == d && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
      fail(field, "must be an integer, got " + v.dump());
    }
    fail(field, "must be an integer, got " + v.dump());
  }

  std::array<std::int64_t, 3> dims(const json& v, const std::string& field) const {
    std::array<std::int64_t, 3> d{1, 1, 1};
    if (v.is_number()) {
      d[0] = integer(v, field);
    } else if (v.is_array()) {
      if (v.empty() || v.size() > 3) fail(field, "must have 1 to 3 elements [x, y, z]");
      for (std::size_t i = 0; i < v.size(); ++i) d[i] = integer(v[i], field + "[" + std::to_string(i) + "]");
    } else {
      fail(field, "must be an array [x, y, z]");
    }
    for (int i = 0; i < 3; ++i)
      if (d[i] <= 0) fail(field, "every dimension must be positive, got " + std::to_string(d[i]));
    return d;
  }

  ScalarArg scalar(const json& a, const std::string& field) const {
    static const std::map<std::string, ScalarType> types = {
        {"i32", ScalarType::I32}, {"u32", ScalarType::U32}, {"i64", ScalarType::I64},
        {"u64", ScalarType::U64}, {"f32", ScalarType::F32}, {"f64", ScalarType::F64}};
    only_keys(a, field, {"type", "value", "name"});
    std::string t = str(a, "type", field + ".type");
    auto it = types.find(t);
    if (it == types.end()) fail(field + ".type", "unknown scalar type `" + t + "` (one of i32 u32 i64 u64 f32 f64)");
    if (!a.contains("value")) fail(field + ".value", "missing");
    const json& v = a.at("value");
    ScalarArg s;
    s.type = it->second;
    if (!v.is_number()) fail(field + ".value", "must be a number, got " + v.dump());
    switch (s.type) {
      case ScalarType::F32: {
        double d = v.get<double>();
        if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) fail(field + ".value", "out of range for f32");
        float f = static_cast<float>(d);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        s.bits = b;
        s.as_double = f;
        break;
      }
      case ScalarType::F64: {
        double d = v.get<double>();
        std::memcpy(&s.bits, &d, 8);
        s.as_double = d;
        break;
      }
      case ScalarType::I32:
      case ScalarType::I64: {
        std::int64_t x = integer(v, field + ".value");
        if (s.type == ScalarType::I32 && (x < INT32_MIN || x > INT32_MAX)) fail(field + ".value", "out of range for i32");
        s.bits = s.type == ScalarType::I32 ? static_cast<std::uint32_t>(static_cast<std::int32_t>(x)) : static_cast<std::uint64_t>(x);
        s.as_double = static_cast<double>(x);
        break;
      }
      case ScalarType::U32:
      case ScalarType::U64: {
        if (v.is_number_unsigned()) {
          std::uint64_t x = v.get<std::uint64_t>();
          if (s.type == ScalarType::U32 && x > UINT32_MAX) fail(field + ".value", "out of range for u32");
          s.bits = x;
          s.as_double = static_cast<double>(x);
        } else {
          std::int64_t x = integer(v, field + ".value");
          if (x < 0) fail(field + ".value", "must not be negative for " + std::string(to_string(s.type)));
          if (s.type == ScalarType::U32 && x > static_cast<std::int64_t>(UINT32_MAX)) fail(field + ".value", "out of range for u32");
          s.bits = static_cast<std::uint64_t>(x);
          s.as_double = static_cast<double>(x);
        }
        break;
      }
    }
    return s;
  }

  Init init(const json& a, const std::string& field, const fs::path& base_dir, ElemType type,
            std::int64_t count) const {
    Init in;
    if (!a.contains("init")) return in;  // zeros
    const json& v = a.at("init");
    if (!v.is_string()) fail(field, "must be a string (zeros, uniform, iota, randint:LO:HI, file:PATH)");
    std::string s = v.get<std::string>();
    in.text = s;
    if (s == "zeros") {
      in.kind = Init::Kind::Zeros;
    } else if (s == "uniform") {
      in.kind = Init::Kind::Uniform;
    } else if (s == "iota") {
      in.kind = Init::Kind::Iota;
    } else if (s.rfind("randint:", 0) == 0) {
      in.kind = Init::Kind::RandInt;
      std::string rest = s.substr(8);
      auto colon = rest.find(':');
      if (colon == std::string::npos) fail(field, "randint needs two bounds: randint:LO:HI");
      try {
        std::size_t p1 = 0, p2 = 0;
        in.lo = std::stoll(rest.substr(0, colon), &p1);
        in.hi = std::stoll(rest.substr(colon + 1), &p2);
        if (p1 != colon || p2 != rest.size() - colon - 1) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        fail(field, "bad randint bounds in `" + s + "` (want randint:LO:HI with integers)");
      }
      if (in.lo > in.hi) fail(field, "randint: LO (" + std::to_string(in.lo) + ") is greater than HI (" + std::to_string(in.hi) + ")");
      bool unsigned_type = type == ElemType::U32 || type == ElemType::U8;
      if (unsigned_type && in.lo < 0) fail(field, "randint: negative bound for unsigned buffer type " + std::string(to_string(type)));
      if (type == ElemType::U8 && in.hi > 255) fail(field, "randint: bound above 255 for u8 buffer");
    } else if (s.rfind("file:", 0) == 0) {
      in.kind = Init::Kind::File;
      std::string rel = s.substr(5);
      if (rel.empty()) fail(field, "file: needs a path");
      in.file = fs::path(rel).is_absolute() ? fs::path(rel) : base_dir / rel;
      std::error_code ec;
      if (!fs::exists(in.file, ec)) fail(field, "file not found: " + in.file.string());
      auto size = fs::file_size(in.file, ec);
      std::size_t need = static_cast<std::size_t>(count) * size_of(type);
      if (ec) fail(field, "cannot read size of " + in.file.string());
      if (size < need)
        fail(field, "file " + in.file.string() + " is too short: " + std::to_string(size) + " bytes, buffer needs " +
                        std::to_string(need) + " (" + std::to_string(count) + " x " + to_string(type) + ")");
      if (size > need)
        fail(field, "file " + in.file.string() + " has " + std::to_string(size) + " bytes but the buffer holds " +
                        std::to_string(need) + "; give the matching count");
    } else {
      fail(field, "unknown init `" + s + "` (zeros, uniform, iota, randint:LO:HI, file:PATH)");
    }
    return in;
  }

  std::vector<std::int64_t> ints(const json& obj, const char* key, const std::string& field) const {
    if (!obj.contains(key)) fail(field + "." + key, "missing");
    const json& v = obj.at(key);
    if (!v.is_array()) fail(field + "." + key, "must be an array of integers");
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(integer(v[i], field + "." + key + "[" + std::to_string(i) + "]"));
    return out;
  }

  std::string choice(const json& obj, const char* key, const std::string& field, std::initializer_list<const char*> names,
                     const char* dflt) const {
    if (!obj.contains(key)) return dflt;
    const std::string v = str(obj, key, field + "." + key);
    std::string all;
    for (const char* n : names) {
      if (v == n) return v;
      all += std::string(all.empty() ? "" : ", ") + n;
    }
    fail(field + "." + key, "`" + v + "` is not one of " + all);
  }

  TensorMapArg tensor_map(const json& outer, const std::string& f0, std::size_t self, bool member = false) const {
    if (member) only_keys(outer, f0, {"tensor_map", "name", "align"});
    else only_keys(outer, f0, {"tensor_map", "name"});
    const json& a = outer.at("tensor_map");
    const std::string field = f0 + ".tensor_map";
    if (!a.is_object()) fail(field, "must be an object");
    only_keys(a, field, {"buffer", "dtype", "dims", "strides_bytes", "box", "element_strides", "swizzle", "interleave", "l2_promotion", "oob_fill"});
    TensorMapArg t;
    if (!a.contains("buffer")) fail(field + ".buffer", "missing (the index of the buffer argument the map describes, or a buffer)");
    if (a.at("buffer").is_object()) {  // an inline buffer: the caller parses it into Arg::buffer
      if (member) fail(field + ".buffer", "a tensor map in a struct describes a buffer argument or a spec-level buffer (`buffers`), not an inline one");
      t.owns_buffer = true;
      t.buffer = self;
    } else {
      t.buffer = buffer_ref(a.at("buffer"), field + ".buffer");
    }
    t.dtype = str(a, "dtype", field + ".dtype");
    if (!sim::tmap_type(t.dtype)) fail(field + ".dtype", "unknown tensor-map type `" + t.dtype + "` (one of " + sim::tmap_type_names() + ")");
    t.dims = ints(a, "dims", field);
    const std::size_t rank = t.dims.size();
    if (rank < 1 || rank > 5) fail(field + ".dims", "rank " + std::to_string(rank) + " (1 to 5 dimensions)");
    t.strides_bytes = rank > 1 || a.contains("strides_bytes") ? ints(a, "strides_bytes", field) : std::vector<std::int64_t>{};
    if (t.strides_bytes.size() != rank - 1) fail(field + ".strides_bytes", "needs " + std::to_string(rank - 1) + " strides (of dims 1.." + std::to_string(rank - 1) + ") for rank " + std::to_string(rank));
    t.box = ints(a, "box", field);
    if (t.box.size() != rank) fail(field + ".box", "needs " + std::to_string(rank) + " extents, one per dimension");
    t.element_strides = a.contains("element_strides") ? ints(a, "element_strides", field) : std::vector<std::int64_t>(rank, 1);
    if (t.element_strides.size() != rank) fail(field + ".element_strides", "needs " + std::to_string(rank) + " strides, one per dimension");
    t.swizzle = choice(a, "swizzle", field, {"none", "32B", "64B", "128B"}, "none");
    t.interleave = choice(a, "interleave", field, {"none", "16B", "32B"}, "none");
    t.l2_promotion = choice(a, "l2_promotion", field, {"none", "64B", "128B", "256B"}, "none");
    t.oob_fill = choice(a, "oob_fill", field, {"zero", "nan_request_zero_fma"}, "zero");
    return t;
  }

  BufferArg buffer(const json& a, const std::string& field, const fs::path& base_dir) const {
    static const std::map<std::string, ElemType> types = {
        {"f32", ElemType::F32}, {"f16", ElemType::F16}, {"bf16", ElemType::BF16}, {"f64", ElemType::F64},
        {"i32", ElemType::I32}, {"u32", ElemType::U32}, {"i64", ElemType::I64}, {"u8", ElemType::U8}};
    only_keys(a, field, {"buffer", "count", "init", "name", "offset_bytes"});
    std::string t = str(a, "buffer", field + ".buffer");
    auto it = types.find(t);
    if (it == types.end()) fail(field + ".buffer", "unknown buffer type `" + t + "` (one of f32 f16 bf16 f64 i32 u32 i64 u8)");
    BufferArg b;
    b.type = it->second;
    if (!a.contains("count")) fail(field + ".count", "missing");
    b.count = integer(a.at("count"), field + ".count");
    if (b.count <= 0) fail(field + ".count", "must be positive, got " + std::to_string(b.count));
    if (static_cast<double>(b.count) * static_cast<double>(size_of(b.type)) > 64.0 * (1ull << 30))
      fail(field + ".count", "buffer larger than 64 GiB");
    b.init = init(a, field + ".init", base_dir, b.type, b.count);
    return b;
  }

  // {"struct": [...]} or {"bytes": "HEX"} (AggregateArg): the bytes with C layout.
  AggregateArg aggregate(const json& a, const std::string& field) const {
    AggregateArg g;
    if (a.contains("struct")) {
      only_keys(a, field, {"struct", "name"});
      g.align = member(a, field, g.bytes, g.desc, g.holes, 0);
    } else {
      only_keys(a, field, {"bytes", "align", "name"});
      g.align_given = a.contains("align");
      g.align = raw_bytes(a, field, g.bytes);
      g.desc = std::to_string(g.bytes.size()) + " bytes";
    }
    return g;
  }

  // The hex string of {"bytes": ..., "align": A} appended to `out` (at A); returns A (1 if not given).
  std::size_t raw_bytes(const json& a, const std::string& field, std::vector<std::uint8_t>& out) const {
    const std::string hex = str(a, "bytes", field + ".bytes");
    if (hex.empty() || hex.size() % 2) fail(field + ".bytes", "must be an even, non-zero number of hex digits (two per byte, first byte first)");
    std::size_t align = 1;
    if (a.contains("align")) {
      const std::int64_t v = integer(a.at("align"), field + ".align");
      if (v < 1 || v > 256 || (v & (v - 1))) fail(field + ".align", "must be a power of two from 1 to 256, got " + std::to_string(v));
      align = static_cast<std::size_t>(v);
    }
    out.resize((out.size() + align - 1) / align * align, 0);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      auto nib = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        fail(field + ".bytes", "`" + std::string(1, c) + "` is not a hex digit");
      };
      out.push_back(static_cast<std::uint8_t>(nib(hex[i]) * 16 + nib(hex[i + 1])));
    }
    return align;
  }

  // One struct member (or a whole struct) appended to `out` at its alignment; returns the alignment.
  std::size_t member(const json& m, const std::string& field, std::vector<std::uint8_t>& out, std::string& desc,
                     std::vector<AggregateHole>& holes, int depth) const {
    if (!m.is_object())
      fail(field, "a struct member is {\"type\": T, \"value\": V}, {\"struct\": [...]}, {\"bytes\": \"HEX\"}, {\"pointer\": ...} or {\"tensor_map\": ...}");
    if (depth > 16) fail(field, "structs nest deeper than 16 levels");
    if (m.contains("struct")) {
      if (depth > 0) only_keys(m, field, {"struct", "name"});
      const json& list = m.at("struct");
      if (!list.is_array() || list.empty()) fail(field + ".struct", "must be a non-empty array of members");
      std::vector<std::uint8_t> body;
      std::vector<AggregateHole> inner_holes;
      std::string inner;
      std::size_t align = 1;
      for (std::size_t i = 0; i < list.size(); ++i) {
        align = std::max(align, member(list[i], field + ".struct[" + std::to_string(i) + "]", body, inner, inner_holes, depth + 1));
        if (i + 1 < list.size()) inner += ", ";
      }
      body.resize((body.size() + align - 1) / align * align, 0);  // the struct's size: a multiple of its alignment
      out.resize((out.size() + align - 1) / align * align, 0);
      for (AggregateHole& h : inner_holes) {
        h.offset += out.size();
        holes.push_back(std::move(h));
      }
      out.insert(out.end(), body.begin(), body.end());
      desc += "struct {" + inner + "}";
      return align;
    }
    if (m.contains("bytes")) {
      only_keys(m, field, {"bytes", "align", "name"});
      const std::size_t before = out.size();
      const std::size_t align = raw_bytes(m, field, out);
      desc += std::to_string(out.size() - before) + " bytes";
      return align;
    }
    if (m.contains("pointer")) {  // 8 bytes aligned to 8, filled at launch
      only_keys(m, field, {"pointer", "offset_bytes", "name"});
      AggregateHole h;
      h.target = buffer_ref(m.at("pointer"), field + ".pointer");
      if (m.contains("offset_bytes")) h.offset_bytes = integer(m.at("offset_bytes"), field + ".offset_bytes");
      out.resize((out.size() + 7) / 8 * 8, 0);
      h.offset = out.size();
      h.field = field;
      out.resize(out.size() + 8, 0);
      holes.push_back(std::move(h));
      desc += "pointer";
      return 8;
    }
    if (m.contains("tensor_map")) {  // 128 bytes, aligned as CUDA 13's CUtensorMap (128) unless "align" says otherwise
      AggregateHole h;
      h.is_tensor_map = true;
      h.tensor_map = tensor_map(m, field, 0, true);
      std::size_t align = 128;
      if (m.contains("align")) {
        const std::int64_t v = integer(m.at("align"), field + ".align");
        if (v != 64 && v != 128) fail(field + ".align", "a CUtensorMap aligns to 64 (CUDA 12) or 128 bytes (CUDA 13), got " + std::to_string(v));
        align = static_cast<std::size_t>(v);
      }
      out.resize((out.size() + align - 1) / align * align, 0);
      h.offset = out.size();
      h.field = field + ".tensor_map";
      out.resize(out.size() + 128, 0);
      holes.push_back(std::move(h));
      desc += "CUtensorMap";
      return align;
    }
    only_keys(m, field, {"type", "value", "name"});
    struct Kind {
      int bytes, lanes, align;
      bool is_float, is_signed;
    };
    static const std::map<std::string, Kind> kinds = {
        {"i8", {1, 1, 1, false, true}},    {"u8", {1, 1, 1, false, false}},   {"i16", {2, 1, 2, false, true}},
        {"u16", {2, 1, 2, false, false}},  {"i32", {4, 1, 4, false, true}},   {"u32", {4, 1, 4, false, false}},
        {"i64", {8, 1, 8, false, true}},   {"u64", {8, 1, 8, false, false}},  {"f16", {2, 1, 2, true, true}},
        {"bf16", {2, 1, 2, true, true}},   {"f32", {4, 1, 4, true, true}},    {"f64", {8, 1, 8, true, true}},
        {"f16x2", {2, 2, 4, true, true}},  {"bf16x2", {2, 2, 4, true, true}}};
    const std::string t = str(m, "type", field + ".type");
    auto it = kinds.find(t);
    if (it == kinds.end()) fail(field + ".type", "unknown member type `" + t + "` (one of i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64 f16x2 bf16x2)");
    const Kind k = it->second;
    if (!m.contains("value")) fail(field + ".value", "missing");
    const json& v = m.at("value");
    std::vector<json> values;
    if (v.is_array()) {
      if (v.empty()) fail(field + ".value", "an empty array");
      values.assign(v.begin(), v.end());
    } else {
      values.push_back(v);
    }
    if (k.lanes > 1 && values.size() != static_cast<std::size_t>(k.lanes))
      fail(field + ".value", t + " takes " + std::to_string(k.lanes) + " numbers, got " + v.dump());
    out.resize((out.size() + k.align - 1) / k.align * k.align, 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string f = field + ".value" + (v.is_array() ? "[" + std::to_string(i) + "]" : "");
      const json& x = values[i];
      if (!x.is_number()) fail(f, "must be a number, got " + x.dump());
      std::uint64_t bits = 0;
      if (k.is_float) {
        const double d = x.get<double>();
        if (t == "f64") bits = std::bit_cast<std::uint64_t>(d);
        else if (t == "f32") bits = float_to_bits(static_cast<float>(d));
        else if (t == "f16" || t == "f16x2") bits = float_to_half(static_cast<float>(d));
        else bits = float_to_bf16(static_cast<float>(d));
      } else if (k.is_signed) {
        const std::int64_t n = integer(x, f);
        const std::int64_t lo = k.bytes == 8 ? INT64_MIN : -(std::int64_t{1} << (8 * k.bytes - 1));
        const std::int64_t hi = k.bytes == 8 ? INT64_MAX : (std::int64_t{1} << (8 * k.bytes - 1)) - 1;
        if (n < lo || n > hi) fail(f, std::to_string(n) + " is out of range for " + t);
        bits = static_cast<std::uint64_t>(n);
      } else {
        std::uint64_t n = 0;
        if (x.is_number_unsigned()) n = x.get<std::uint64_t>();
        else {
          const std::int64_t sn = integer(x, f);
          if (sn < 0) fail(f, "must not be negative for " + t);
          n = static_cast<std::uint64_t>(sn);
        }
        if (k.bytes < 8 && n >> (8 * k.bytes)) fail(f, std::to_string(n) + " is out of range for " + t);
        bits = n;
      }
      for (int b = 0; b < k.bytes; ++b) out.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
    }
    desc += t + (v.is_array() && k.lanes == 1 ? "[" + std::to_string(values.size()) + "]" : "");
    return static_cast<std::size_t>(k.align);
  }

  CompileSettings compile(const json& c, const fs::path& base_dir) const {
    if (!c.is_object()) fail("compile", "must be an object {\"flags\": [...], \"include_dirs\": [...], \"defines\": {...}, \"std\": \"c++20\"}");
    only_keys(c, "compile", {"flags", "include_dirs", "defines", "std"});
    CompileSettings out;
    auto strings = [&](const char* key) {
      std::vector<std::string> v;
      if (!c.contains(key)) return v;
      const std::string field = std::string("compile.") + key;
      const json& a = c.at(key);
      if (!a.is_array()) fail(field, "must be an array of strings");
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_string()) fail(field + "[" + std::to_string(i) + "]", "must be a string, got " + a[i].dump());
        v.push_back(a[i].get<std::string>());
      }
      return v;
    };
    try {
      out.flags = strings("flags");
      for (std::size_t i = 0; i < out.flags.size(); ++i) check_flag(out.flags[i], "compile.flags[" + std::to_string(i) + "]");
      const std::vector<std::string> dirs = strings("include_dirs");
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        const std::string field = "compile.include_dirs[" + std::to_string(i) + "]";
        if (dirs[i].empty()) fail(field, "must not be empty");
        fs::path d = fs::path(dirs[i]).is_absolute() ? fs::path(dirs[i]) : base_dir / dirs[i];
        std::error_code ec;
        if (!fs::is_directory(d, ec)) fail(field, "not a directory: " + d.string());
        out.include_dirs.push_back(fs::absolute(d).lexically_normal());
      }
      if (c.contains("defines")) {
        const json& d = c.at("defines");
        if (!d.is_object()) fail("compile.defines", "must be an object {\"NAME\": VALUE} (VALUE a string, a number or null)");
        for (auto it = d.begin(); it != d.end(); ++it) {
          const std::string field = "compile.defines." + it.key();
          check_define_name(it.key(), field);
          const json& v = it.value();
          if (v.is_null()) out.defines.push_back({it.key(), std::nullopt});
          else if (v.is_string()) out.defines.push_back({it.key(), v.get<std::string>()});
          else if (v.is_number()) out.defines.push_back({it.key(), v.dump()});
          else if (v.is_boolean()) out.defines.push_back({it.key(), v.get<bool>() ? "1" : "0"});
          else fail(field, "must be a string, a number, a boolean or null, got " + v.dump());
        }
      }
      if (c.contains("std")) {
        out.std = str(c, "std", "compile.std");
        check_std(out.std, "compile.std");
      }
    } catch (const Error& e) {
      if (std::string(e.what()).rfind(origin_, 0) == 0) throw;
      throw Error(ErrorKind::LaunchSpec, origin_ + ": " + e.what());
    }
    return out;
  }

 private:
  std::string origin_;
  std::size_t nargs_ = 0;
  std::map<std::string, std::size_t> names_;
};

}  // namespace

LaunchSpec parse_launch_spec_text(const std::string& text, const fs::path& base_dir, const std::string& origin) {
  SpecReader r(origin);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(ErrorKind::LaunchSpec, origin + ":" + line_column(text, e.byte) + ": JSON syntax error: " + e.what());
  } catch (const json::exception& e) {  // a number beyond a double (`1e999`): found by fuzzing
    throw Error(ErrorKind::LaunchSpec, origin + ": JSON error: " + e.what());
  }
  if (!j.is_object()) r.fail("", "a launch spec must be a JSON object");
  r.only_keys(j, "", {"spec_version", "source", "kernel", "grid", "block", "dynamic_shared_bytes", "args", "id",
                      "family", "notes", "flops", "min_bytes", "seed", "compile", "cluster", "cluster_nonportable", "buffers"});
  LaunchSpec s;
  s.spec_version = 1;  // a spec without the key is a version-1 spec
  if (j.contains("spec_version")) {
    s.spec_version = static_cast<int>(r.integer(j.at("spec_version"), "spec_version"));
    if (s.spec_version < 1 || s.spec_version > kLaunchSpecVersion)
      r.fail("spec_version", "unsupported version " + std::to_string(s.spec_version) + " (this kernsim reads 1 to " +
                                 std::to_string(kLaunchSpecVersion) + ")");
  }
  for (const char* req : {"source", "kernel", "grid", "block", "args"})
    if (!j.contains(req)) r.fail(req, "missing required key");
  std::string src = r.str(j, "source", "source");
  if (src.empty()) r.fail("source", "must not be empty");
  s.source = fs::path(src).is_absolute() ? fs::path(src) : base_dir / src;
  s.kernel = r.str(j, "kernel", "kernel");
  if (s.kernel.empty()) r.fail("kernel", "must not be empty");
  s.grid = r.dims(j.at("grid"), "grid");
  s.block = r.dims(j.at("block"), "block");
  if (j.contains("cluster")) s.cluster = r.dims(j.at("cluster"), "cluster");
  if (j.contains("cluster_nonportable")) {
    if (!j.at("cluster_nonportable").is_boolean()) r.fail("cluster_nonportable", "must be true or false");
    s.cluster_nonportable = j.at("cluster_nonportable").get<bool>();
  }
  if (j.contains("dynamic_shared_bytes")) {
    s.dynamic_shared_bytes = r.integer(j.at("dynamic_shared_bytes"), "dynamic_shared_bytes");
    if (s.dynamic_shared_bytes < 0) r.fail("dynamic_shared_bytes", "must not be negative");
  }
  const json& args = j.at("args");
  if (!args.is_array()) r.fail("args", "must be an array");
  // spec-level buffers: argument indices after the parameters', in name order
  std::map<std::string, std::size_t> names;
  if (j.contains("buffers")) {
    if (s.spec_version < 2) r.fail("buffers", "needs \"spec_version\": 2");
    const json& b = j.at("buffers");
    if (!b.is_object() || b.empty()) r.fail("buffers", "must be a non-empty object {\"NAME\": {\"buffer\": T, \"count\": N, ...}}");
    for (auto it = b.begin(); it != b.end(); ++it) {
      const std::string& n = it.key();
      const bool ident = !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0])) &&
                         std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (!ident) r.fail("buffers." + n, "a buffer's name is a C identifier");
      if (n.size() > 3 && n.rfind("arg", 0) == 0 && std::all_of(n.begin() + 3, n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        r.fail("buffers." + n, "argN names the arguments' dumps (--dump-buffers); pick another name");
      names.emplace(n, args.size() + names.size());
    }
  }
  r.set_buffer_names(args.size() + names.size(), names);
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string field = "args[" + std::to_string(i) + "]";
    const json& a = args[i];
    if (!a.is_object()) r.fail(field, "must be an object: {\"type\":..,\"value\":..}, {\"buffer\":..,\"count\":..} or {\"struct\": [...]}");
    Arg arg;
    if (a.contains("tensor_map")) {
      if (s.spec_version < 2) r.fail(field, "a tensor_map argument needs \"spec_version\": 2");
      arg.is_tensor_map = true;
      arg.tensor_map = r.tensor_map(a, field, i);
      if (arg.tensor_map.owns_buffer) arg.buffer = r.buffer(a.at("tensor_map").at("buffer"), field + ".tensor_map.buffer", base_dir);
    } else if (a.contains("buffer")) {
      arg.is_buffer = true;
      arg.buffer = r.buffer(a, field, base_dir);
      if (a.contains("offset_bytes")) {
        if (s.spec_version < 2) r.fail(field + ".offset_bytes", "needs \"spec_version\": 2");
        arg.offset_bytes = r.integer(a.at("offset_bytes"), field + ".offset_bytes");
        if (arg.offset_bytes < 0 || static_cast<std::size_t>(arg.offset_bytes) > arg.buffer.bytes())
          r.fail(field + ".offset_bytes", "must lie within the buffer (0 to " + std::to_string(arg.buffer.bytes()) + " bytes)");
      }
    } else if (a.contains("pointer")) {
      if (s.spec_version < 2) r.fail(field, "a pointer argument needs \"spec_version\": 2");
      r.only_keys(a, field, {"pointer", "offset_bytes", "name"});
      arg.is_pointer = true;
      arg.pointer_to = r.buffer_ref(a.at("pointer"), field + ".pointer");
      if (a.contains("offset_bytes")) arg.offset_bytes = r.integer(a.at("offset_bytes"), field + ".offset_bytes");
    } else if (a.contains("struct") || a.contains("bytes")) {
      if (s.spec_version < 2) r.fail(field, std::string("a ") + (a.contains("struct") ? "struct" : "bytes") + " argument needs \"spec_version\": 2");
      arg.is_aggregate = true;
      arg.aggregate = r.aggregate(a, field);
    } else if (a.contains("type")) {
      arg.scalar = r.scalar(a, field);
    } else {
      r.fail(field, "needs `type` (a scalar), `buffer` (an array), `pointer`, `tensor_map`, `struct` or `bytes` (a value passed by value)");
    }
    s.args.push_back(arg);
  }
  for (const auto& [name, index] : names) {
    (void)index;  // names are in index order (both sorted by name)
    Arg arg;
    arg.is_buffer = true;
    arg.extra_name = name;
    const json& b = j.at("buffers").at(name);
    if (!b.is_object() || !b.contains("buffer")) r.fail("buffers." + name, "must be a buffer: {\"buffer\": T, \"count\": N, \"init\": I}");
    if (b.contains("offset_bytes")) r.fail("buffers." + name + ".offset_bytes", "a spec-level buffer has no offset (give it to the pointer)");
    arg.buffer = r.buffer(b, "buffers." + name, base_dir);
    s.args.push_back(arg);
  }
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    if (!s.args[i].is_aggregate) continue;
    for (const AggregateHole& h : s.args[i].aggregate.holes) {
      const std::size_t t = h.is_tensor_map ? h.tensor_map.buffer : h.target;
      if (!s.args[t].is_buffer) r.fail(h.field + (h.is_tensor_map ? ".buffer" : ".pointer"), s.arg_label(t) + " is not a buffer");
      if (!h.is_tensor_map && (h.offset_bytes < 0 || static_cast<std::size_t>(h.offset_bytes) > s.args[t].buffer.bytes()))
        r.fail(h.field + ".offset_bytes", "must lie within " + s.arg_label(t) + "'s buffer (0 to " + std::to_string(s.args[t].buffer.bytes()) + " bytes)");
    }
  }
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    const Arg& a = s.args[i];
    if (!a.is_pointer) continue;
    const std::string field = "args[" + std::to_string(i) + "].pointer";
    if (!s.args[a.pointer_to].is_buffer) r.fail(field, s.arg_label(a.pointer_to) + " is not a buffer");
    if (a.offset_bytes < 0 || static_cast<std::size_t>(a.offset_bytes) > s.args[a.pointer_to].buffer.bytes())
      r.fail("args[" + std::to_string(i) + "].offset_bytes", "must lie within argument " + std::to_string(a.pointer_to) + "'s buffer (0 to " +
                                                                 std::to_string(s.args[a.pointer_to].buffer.bytes()) + " bytes)");
  }
  for (std::size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].is_tensor_map && !s.args[s.args[i].tensor_map.buffer].has_buffer())
      r.fail("args[" + std::to_string(i) + "].tensor_map.buffer", "argument " + std::to_string(s.args[i].tensor_map.buffer) + " is not a buffer");
  for (const char* k : {"id", "family", "notes"})
    if (j.contains(k)) {
      std::string v = r.str(j, k, k);
      (std::string(k) == "id" ? s.id : std::string(k) == "family" ? s.family : s.notes) = v;
    }
  for (const char* k : {"flops", "min_bytes"})
    if (j.contains(k)) {
      const json& v = j.at(k);
      if (!v.is_number() || v.get<double>() < 0) r.fail(k, "must be a non-negative number");
      (std::string(k) == "flops" ? s.flops : s.min_bytes) = v.get<double>();
    }
  if (j.contains("seed")) {
    std::int64_t seed = r.integer(j.at("seed"), "seed");
    if (seed < 0) r.fail("seed", "must not be negative");
    s.seed = static_cast<std::uint64_t>(seed);
  }
  if (j.contains("compile")) s.compile = r.compile(j.at("compile"), base_dir);
  return s;
}

CompileSettings parse_compile_settings_text(const std::string& text, const fs::path& base_dir, const std::string& origin) {
  SpecReader r(origin);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(ErrorKind::LaunchSpec, origin + ":" + line_column(text, e.byte) + ": JSON syntax error: " + e.what());
  } catch (const json::exception& e) {  // a number beyond a double (`1e999`): found by fuzzing
    throw Error(ErrorKind::LaunchSpec, origin + ": JSON error: " + e.what());
  }
  return r.compile(j, base_dir);
}

LaunchSpec parse_launch_spec(const fs::path& file) {
  std::string text = read_file(file, "launch spec");
  fs::path base = file.has_parent_path() ? file.parent_path() : fs::path(".");
  LaunchSpec s = parse_launch_spec_text(text, base, file.string());
  s.spec_file = file;
  return s;
}

void validate_against_device(const LaunchSpec& s, const device::DeviceSpec& dev) {
  std::string origin = s.spec_file.empty() ? std::string("launch spec") : s.spec_file.string();
  auto fail = [&](const std::string& field, const std::string& msg) {
    throw Error(ErrorKind::LaunchSpec, origin + ": `" + field + "`: " + msg + " on " + dev.name);
  };
  const char* axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (s.block[i] > dev.limits.max_block_dim[i])
      fail("block", "block." + std::string(axis[i]) + " = " + std::to_string(s.block[i]) + " exceeds the limit " +
                        std::to_string(dev.limits.max_block_dim[i]));
    if (s.grid[i] > dev.limits.max_grid_dim[i])
      fail("grid", "grid." + std::string(axis[i]) + " = " + std::to_string(s.grid[i]) + " exceeds the limit " +
                       std::to_string(dev.limits.max_grid_dim[i]));
  }
  if (s.threads_per_block() > dev.limits.max_threads_per_block)
    fail("block", std::to_string(s.threads_per_block()) + " threads per block exceed the limit " +
                      std::to_string(dev.limits.max_threads_per_block));
  if (s.cluster[0] > 0 && dev.topology.max_cluster_ctas == 0)
    fail("cluster", "there are no thread-block clusters (an NVIDIA sm_90+ feature)");
  if (s.dynamic_shared_bytes > dev.limits.max_shared_per_block_bytes)
    fail("dynamic_shared_bytes", std::to_string(s.dynamic_shared_bytes) + " bytes exceed the per-block limit " +
                                     std::to_string(dev.limits.max_shared_per_block_bytes));
}

std::array<std::uint8_t, 128> encode_tensor_map(const LaunchSpec& spec, const TensorMapArg& t, const std::string& field, std::uint64_t address) {
  const std::string origin = spec.spec_file.empty() ? std::string("launch spec") : spec.spec_file.string();
  auto fail = [&](const std::string& msg) { throw Error(ErrorKind::LaunchSpec, origin + ": `" + field + "." + msg); };
  sim::TensorMap m;
  m.rank = static_cast<int>(t.dims.size());
  m.dtype = *sim::tmap_type(t.dtype);
  auto pick = [](const std::string& v, std::initializer_list<const char*> names) {
    int k = 0;
    for (const char* n : names) {
      if (v == n) return k;
      ++k;
    }
    return 0;
  };
  m.swizzle = static_cast<sim::TmapSwizzle>(pick(t.swizzle, {"none", "32B", "64B", "128B"}));
  m.interleave = static_cast<sim::TmapInterleave>(pick(t.interleave, {"none", "16B", "32B"}));
  m.promotion = static_cast<sim::TmapPromotion>(pick(t.l2_promotion, {"none", "64B", "128B", "256B"}));
  m.oob = static_cast<sim::TmapOobFill>(pick(t.oob_fill, {"zero", "nan_request_zero_fma"}));
  m.address = address;
  for (int d = 0; d < m.rank; ++d) {
    auto in_range = [&](std::int64_t v, const char* name) {
      if (v < 0 || v > (std::int64_t{1} << 42)) fail(std::string(name) + "[" + std::to_string(d) + "]`: " + std::to_string(v) + " is out of range");
      return static_cast<std::uint64_t>(v);
    };
    m.dims[d] = in_range(t.dims[d], "dims");
    m.box[d] = static_cast<std::uint32_t>(in_range(t.box[d], "box"));
    m.estride[d] = static_cast<std::uint32_t>(in_range(t.element_strides[d], "element_strides"));
    m.strides[d] = d == 0 ? static_cast<std::uint64_t>(m.elem_bytes()) : in_range(t.strides_bytes[d - 1], "strides_bytes");
  }
  const std::string why = sim::check_tensor_map(m);
  if (!why.empty()) {
    const std::size_t colon = why.find(':');
    fail(why.substr(0, colon) + "`" + why.substr(colon));
  }
  const std::size_t have = spec.args[t.buffer].buffer.bytes();
  if (m.extent_bytes() > have)
    fail("dims`: the tensor spans " + std::to_string(m.extent_bytes()) + " bytes, more than the " + std::to_string(have) + " of buffer " +
         spec.arg_label(t.buffer));
  return sim::encode(m);
}

bool has_struct_holes(const LaunchSpec& spec) {
  return std::any_of(spec.args.begin(), spec.args.end(), [](const Arg& a) { return a.is_aggregate && !a.aggregate.holes.empty(); });
}

void fill_struct_holes(LaunchSpec& spec, const std::vector<std::uint64_t>& addr) {
  for (Arg& a : spec.args) {
    if (!a.is_aggregate) continue;
    for (const AggregateHole& h : a.aggregate.holes) {
      std::uint8_t* at = a.aggregate.bytes.data() + h.offset;
      if (h.is_tensor_map) {
        const Arg& b = spec.args[h.tensor_map.buffer];
        const auto bytes = encode_tensor_map(spec, h.tensor_map, h.field, addr[h.tensor_map.buffer] + static_cast<std::uint64_t>(b.offset_bytes));
        std::memcpy(at, bytes.data(), bytes.size());
      } else {
        const std::uint64_t p = addr[h.target] + static_cast<std::uint64_t>(h.offset_bytes);
        std::memcpy(at, &p, 8);
      }
    }
  }
}

std::vector<std::uint8_t> make_initial_bytes(const LaunchSpec& s, std::size_t arg_index) {
  std::vector<std::uint8_t> out(s.args.at(arg_index).buffer.bytes());
  fill_initial_bytes(s, arg_index, 0, out.size(), out.data());
  return out;
}

void fill_initial_bytes(const LaunchSpec& s, std::size_t arg_index, std::uint64_t offset, std::uint64_t nbytes, std::uint8_t* dst) {
  const BufferArg& b = s.args.at(arg_index).buffer;
  const std::size_t esize = size_of(b.type);
  if (offset % esize || nbytes % esize || offset + nbytes > b.bytes())
    throw Error(ErrorKind::Internal, "kernsim bug: initial bytes [" + std::to_string(offset) + ", +" + std::to_string(nbytes) +
                                         ") of args[" + std::to_string(arg_index) + "] are not whole elements of the buffer");
  const std::size_t first = static_cast<std::size_t>(offset / esize), n = static_cast<std::size_t>(nbytes / esize);
  std::uint8_t* const out = dst - offset;  // element i at out + i * esize
  if (b.init.kind == Init::Kind::Zeros) std::memset(dst, 0, nbytes);
  // each element's value from its index, written as the buffer's type (the type chosen once per
  // range, not per element: a lazily filled buffer pays this for every page its sample touches)
  auto fill = [&](auto value) {  // value(i) -> {double, int64, integral}
    auto each = [&](auto put) {
      for (std::size_t i = first; i < first + n; ++i) {
        const auto [v, iv, integral] = value(i);
        put(out + i * esize, v, iv, integral);
      }
    };
    switch (b.type) {
      case ElemType::F32: each([](std::uint8_t* p, double v, std::int64_t, bool) { float f = static_cast<float>(v); std::memcpy(p, &f, 4); }); break;
      case ElemType::F64: each([](std::uint8_t* p, double v, std::int64_t, bool) { std::memcpy(p, &v, 8); }); break;
      case ElemType::F16: each([](std::uint8_t* p, double v, std::int64_t, bool) { std::uint16_t h = float_to_half(static_cast<float>(v)); std::memcpy(p, &h, 2); }); break;
      case ElemType::BF16: each([](std::uint8_t* p, double v, std::int64_t, bool) { std::uint16_t h = float_to_bf16(static_cast<float>(v)); std::memcpy(p, &h, 2); }); break;
      case ElemType::I32: each([](std::uint8_t* p, double v, std::int64_t iv, bool integral) { std::int32_t x = static_cast<std::int32_t>(integral ? iv : static_cast<std::int64_t>(v)); std::memcpy(p, &x, 4); }); break;
      case ElemType::U32: each([](std::uint8_t* p, double v, std::int64_t iv, bool integral) { std::uint32_t x = static_cast<std::uint32_t>(integral ? iv : static_cast<std::int64_t>(v)); std::memcpy(p, &x, 4); }); break;
      case ElemType::I64: each([](std::uint8_t* p, double v, std::int64_t iv, bool integral) { std::int64_t x = integral ? iv : static_cast<std::int64_t>(v); std::memcpy(p, &x, 8); }); break;
      case ElemType::U8: each([](std::uint8_t* p, double v, std::int64_t iv, bool integral) { *p = static_cast<std::uint8_t>(integral ? iv : static_cast<std::int64_t>(v)); }); break;
    }
  };
  struct Val { double v; std::int64_t iv; bool integral; };
  switch (b.init.kind) {
    case Init::Kind::Zeros: break;
    case Init::Kind::Uniform: {
      bool integral = !(b.type == ElemType::F32 || b.type == ElemType::F64 || b.type == ElemType::F16 || b.type == ElemType::BF16);
      if (integral) {
        // Integers: uniform over the small range [-1, 1) rounds to {-1, 0}; use full 8-bit range
        // for u8 and [-128,127] for other ints so data-dependent kernels see variety.
        const bool unsigned_ = b.type == ElemType::U8 || b.type == ElemType::U32;
        fill([&](std::size_t i) {
          const std::uint64_t r = counter_random(s.seed, arg_index, i);
          return Val{0, unsigned_ ? static_cast<std::int64_t>(r & 0xff) : static_cast<std::int64_t>(r & 0xff) - 128, true};
        });
      } else {
        fill([&](std::size_t i) { return Val{counter_uniform(s.seed, arg_index, i), 0, false}; });
      }
      break;
    }
    case Init::Kind::Iota:
      fill([](std::size_t i) { return Val{static_cast<double>(i), static_cast<std::int64_t>(i), true}; });
      break;
    case Init::Kind::RandInt: {
      std::uint64_t span = static_cast<std::uint64_t>(b.init.hi - b.init.lo) + 1;
      fill([&](std::size_t i) {
        const std::uint64_t r = counter_random(s.seed, arg_index, i);
        const std::int64_t v = b.init.lo + static_cast<std::int64_t>(span == 0 ? r : r % span);
        return Val{static_cast<double>(v), v, true};
      });
      break;
    }
    case Init::Kind::File: {
      std::string bytes = read_file_range(b.init.file, offset, nbytes, "buffer init file");
      if (bytes.size() != nbytes)
        throw Error(ErrorKind::LaunchSpec, "`args[" + std::to_string(arg_index) + "].init`: file " + b.init.file.string() +
                                               " changed size since the spec was read");
      std::memcpy(dst, bytes.data(), nbytes);
      break;
    }
    case Init::Kind::Host: {
      if (!b.init.host || b.init.host->size() != b.bytes())
        throw Error(ErrorKind::LaunchSpec, "`args[" + std::to_string(arg_index) + "]`: the host data has " +
                                               std::to_string(b.init.host ? b.init.host->size() : 0) + " bytes but the buffer holds " +
                                               std::to_string(b.bytes()) + " (" + std::to_string(b.count) + " x " + to_string(b.type) + ")");
      std::memcpy(dst, b.init.host->data() + offset, nbytes);
      break;
    }
  }
}

}  // namespace kernsim::api
