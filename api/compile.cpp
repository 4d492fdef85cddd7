// `kernsim compile` and `kernsim list` through the device's target; see compile.h.
#include "api/compile.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "api/target.h"
#include "base/error.h"

namespace kernsim::api {

CompiledSource compile_source(const std::filesystem::path& source, const device::DeviceSpec& dev, CompileOutput what,
                              const CompileSettings& settings) {
  const Target& t = target_for(dev);
  const frontends::DeviceModule m = t.compile(source, dev.isa_target, settings);
  CompiledSource c;
  c.target = m.target;
  c.producer = m.producer;
  c.bytes = what == CompileOutput::Object ? t.object(m) : t.disassembly(m);
  return c;
}

std::string kernel_listing(const std::filesystem::path& source, const device::DeviceSpec& dev,
                           const CompileSettings& settings) {
  const Target& t = target_for(dev);
  const frontends::DeviceModule m = t.compile(source, dev.isa_target, settings);
  std::string text = t.listing(m);
  // a CUDA source ported to an AMD part: where it assumes 32-lane warps (docs/cuda_on_amd.md)
  if (!m.port.empty()) text += "port: CUDA compiled as HIP for a 64-lane wave (docs/cuda_on_amd.md)\n";
  for (const auto& w : m.warnings) text += "warning " + w.name + " " + w.file + ":" + std::to_string(w.line) + ": " + w.code + "\n";
  return text;
}

namespace {

// "k(float const*, unsigned long)" -> {"float const*", "unsigned long"}; empty without a list.
std::vector<std::string> signature_types(const std::string& d) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < d.size() && open == std::string::npos; ++i) {
    if (d[i] == '<') ++depth;
    else if (d[i] == '>') --depth;
    else if (d[i] == '(' && depth == 0) open = i;
  }
  if (open == std::string::npos || d.empty() || d.back() != ')') return out;
  std::string cur;
  depth = 0;
  for (std::size_t i = open + 1; i + 1 < d.size(); ++i) {
    const char c = d[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur.substr(cur.find_first_not_of(' ')));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (cur.find_first_not_of(' ') != std::string::npos) out.push_back(cur.substr(cur.find_first_not_of(' ')));
  return out;
}

bool has_word(const std::string& s, const char* w) {
  const std::string word = w;
  for (std::size_t p = s.find(word); p != std::string::npos; p = s.find(word, p + 1)) {
    const bool left = p == 0 || !(std::isalnum(static_cast<unsigned char>(s[p - 1])) || s[p - 1] == '_');
    const std::size_t e = p + word.size();
    const bool right = e >= s.size() || !(std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_');
    if (left && right) return true;
  }
  return false;
}

// The buffer type of a C pointee type ("float const*" -> f32); "" when it has no buffer type.
std::string buffer_type_of(const std::string& t) {
  if (has_word(t, "double")) return "f64";
  if (has_word(t, "float") || has_word(t, "float4") || has_word(t, "float2")) return "f32";
  if (has_word(t, "__half") || has_word(t, "half") || has_word(t, "__half2")) return "f16";
  if (t.find("bfloat16") != std::string::npos) return "bf16";
  if (has_word(t, "char") || has_word(t, "int8_t") || has_word(t, "uint8_t") || has_word(t, "bool")) return "u8";
  if (has_word(t, "long") || has_word(t, "int64_t") || has_word(t, "uint64_t") || has_word(t, "size_t")) return "i64";
  if (has_word(t, "unsigned") || has_word(t, "uint32_t")) return "u32";
  if (has_word(t, "int") || has_word(t, "int32_t")) return "i32";
  return "";
}

}  // namespace

std::string starter_spec(const std::filesystem::path& source, const device::DeviceSpec& dev, const std::string& kernel,
                         const std::array<std::int64_t, 3>& grid, const std::array<std::int64_t, 3>& block,
                         const CompileSettings& settings, const std::string& source_in_spec) {
  using json = nlohmann::ordered_json;
  const Target& t = target_for(dev);
  const frontends::DeviceModule m = t.compile(source, dev.isa_target, settings);
  const frontends::KernelInfo& ki = m.find_kernel(kernel);
  const std::vector<KernelDesc> descs = t.describe(m);
  const KernelDesc* kd = nullptr;
  for (const auto& d : descs)
    if (d.name == ki.name) kd = &d;
  if (!kd) throw Error(ErrorKind::Internal, "kernel `" + ki.name + "` was found but not described");
  const std::vector<std::string> sig = signature_types(ki.demangled);
  const bool typed = sig.size() == kd->params.size();
  json args = json::array();
  bool untyped_buffer = false;
  for (std::size_t i = 0; i < kd->params.size(); ++i) {
    const ParamDesc& p = kd->params[i];
    const std::string ctype = typed ? sig[i] : "";
    json a;
    if (p.is_pointer && (!typed || ctype.find('*') != std::string::npos)) {
      std::string bt = typed ? buffer_type_of(ctype.substr(0, ctype.rfind('*'))) : "";
      if (bt.empty()) {
        bt = "f32";
        untyped_buffer = true;
      }
      a = {{"buffer", bt}, {"count", 1024}, {"init", "uniform"}};
    } else if (p.is_aggregate || (p.bytes != 4 && p.bytes != 8) || (typed && buffer_type_of(ctype).empty())) {
      // a struct (on AMD a by-value struct of 4 or 8 bytes looks like a scalar: the signature tells)
      a = {{"bytes", std::string(2 * static_cast<std::size_t>(p.bytes), '0')}};
      if (p.align > 0) a["align"] = p.align;
    } else {
      const bool fp = p.type == "f32" || p.type == "f64" || (typed && (has_word(ctype, "float") || has_word(ctype, "double")));
      const bool sgn = (!p.type.empty() && p.type[0] == 's') || (typed && !has_word(ctype, "unsigned") && !has_word(ctype, "size_t") &&
                                            (has_word(ctype, "int") || has_word(ctype, "long") || has_word(ctype, "short")));
      const std::string ty = fp ? (p.bytes == 8 ? "f64" : "f32") : std::string(sgn ? "i" : "u") + (p.bytes == 8 ? "64" : "32");
      a = {{"type", ty}, {"value", fp ? json(1.0) : json(0)}};
    }
    // PTX names parameters `<kernel>_param_<i>`: argN says the same
    const bool generated = p.name.empty() || p.name.find("_param_") != std::string::npos;
    std::string name = generated ? "arg" + std::to_string(i) : p.name;
    if (typed) name += " (" + ctype + ")";
    a["name"] = name;
    args.push_back(a);
  }
  std::string notes = "starter spec from `kernsim spec`: every buffer count (1024), init and scalar value is a placeholder; set them to "
                      "the launch's sizes (docs/launch_spec.md)";
  if (untyped_buffer) notes += "; the kernel's signature does not say what its pointers point to (extern \"C\"): the buffers are f32";
  json j = {{"spec_version", kLaunchSpecVersion},
            {"source", source_in_spec.empty() ? source.string() : source_in_spec},
            {"kernel", kernel},
            {"grid", grid},
            {"block", block},
            {"dynamic_shared_bytes", 0},
            {"args", args},
            {"notes", notes}};
  if (!settings.empty()) {
    json c = json::object();
    if (!settings.flags.empty()) c["flags"] = settings.flags;
    if (!settings.include_dirs.empty()) {
      c["include_dirs"] = json::array();
      for (const auto& d : settings.include_dirs) c["include_dirs"].push_back(d.string());
    }
    if (!settings.defines.empty()) {
      c["defines"] = json::object();
      for (const auto& [n, v] : settings.defines) c["defines"][n] = v ? json(*v) : json(nullptr);
    }
    if (!settings.std.empty()) c["std"] = settings.std;
    j["compile"] = c;
  }
  // one line per argument, so that a person edits the spec as a list
  std::string out = "{\n";
  for (auto it = j.begin(); it != j.end(); ++it) {
    out += (it == j.begin() ? " " : ",\n ") + json(it.key()).dump() + ": ";
    if (it.key() != "args") {
      out += it.value().dump();
      continue;
    }
    out += "[";
    for (std::size_t i = 0; i < it.value().size(); ++i) out += std::string(i ? ",\n  " : "\n  ") + it.value()[i].dump();
    out += "\n ]";
  }
  return out + "\n}\n";
}

}  // namespace kernsim::api
