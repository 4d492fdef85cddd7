// Kernel lookup by name and C++ demangling.
#include "frontends/module.h"

#include <cxxabi.h>

#include <cstdlib>

#include "base/error.h"

namespace kernsim::frontends {

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* s = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !s) return mangled;
  std::string out(s);
  std::free(s);
  return out;
}

namespace {
// The demangled name without its parameter list and return type, as Python's Kernel.short_name:
// "void ns::kern<float>(float*, int)" -> "ns::kern<float>".
std::string short_name(const std::string& d) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == '<') ++depth;
    else if (d[i] == '>') --depth;
    else if (d[i] == ' ' && depth == 0) start = i + 1;  // after a return type
    else if (d[i] == '(' && depth == 0) return d.substr(start, i - start);
  }
  return d;
}
// "void ns::kern<float>(float*, int)" -> "void ns::kern<float>" (what a spec may also name)
std::string strip_params(const std::string& d) {
  const std::string s = short_name(d);
  const std::size_t at = d.find(s);
  return d.substr(0, at + s.size());
}
std::string remove_spaces(std::string s) {
  std::string o;
  for (char c : s)
    if (c != ' ') o += c;
  return o;
}
}  // namespace

const KernelInfo& DeviceModule::find_kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  std::vector<const KernelInfo*> hits;
  const std::string want = remove_spaces(name);
  for (const auto& k : kernels)
    if (remove_spaces(k.demangled) == want) return k;
  // a unique short name ("scale<float>"), else a unique name without template arguments ("scale"
  // for the one instance scale<float>): the rules of Python's Module.kernel()
  for (const auto& k : kernels)
    if (remove_spaces(short_name(k.demangled)) == want || remove_spaces(strip_params(k.demangled)) == want) hits.push_back(&k);
  if (hits.empty())
    for (const auto& k : kernels) {
      const std::string s = short_name(k.demangled);
      if (remove_spaces(s.substr(0, s.find('<'))) == want) hits.push_back(&k);
    }
  if (hits.size() == 1) return *hits[0];
  std::string list;
  for (const auto& k : kernels) list += "\n  " + k.demangled + (k.demangled != k.name ? "   [" + k.name + "]" : "");
  if (hits.size() > 1)
    throw Error(ErrorKind::LaunchSpec, "`kernel`: `" + name + "` matches " + std::to_string(hits.size()) +
                                           " kernels in " + origin.string() + "; use the full signature or mangled name:" + list);
  throw Error(ErrorKind::LaunchSpec, "`kernel`: no kernel `" + name + "` in " + origin.string() +
                                         (kernels.empty() ? " (it defines no kernels)" : "; it defines:" + list));
}

}  // namespace kernsim::frontends
