// DeviceSpec -> device-file YAML; see writer.h.
#include "device/writer.h"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <vector>

#include "device/loader.h"

namespace kernsim::device {

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream ss(key);
  std::string p;
  while (std::getline(ss, p, '.')) parts.push_back(p);
  return parts;
}

std::string leaf_text(const DeviceSpec& d, const std::string& key) {
  const Provenance& p = d.provenance_of(key);
  std::string s = "{value: " + value_as_yaml(d, key) + ", source: " + yaml_quote(p.source) + ", confidence: " +
                  to_string(p.confidence);
  if (p.residual) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, *p.residual);
    s += ", residual: " + std::string(buf, r.ptr);
  }
  if (!p.note.empty()) s += ", note: " + yaml_quote(p.note);
  return s + "}";
}

}  // namespace

std::string to_device_yaml(const DeviceSpec& d, const std::string& header) {
  std::ostringstream o;
  if (!header.empty()) {
    std::stringstream hs(header);
    std::string line;
    while (std::getline(hs, line)) o << (line.empty() ? "#" : "# " + line) << "\n";
  }
  o << "kernsim_device: 1\n";
  o << "name: " << yaml_quote(d.name) << "\n";
  o << "vendor: " << to_string(d.vendor) << "\n";
  if (!d.description.empty()) o << "description: " << yaml_quote(d.description) << "\n";
  if (!d.sources.empty()) {
    o << "\nsources:\n";
    for (const auto& [k, v] : d.sources) o << "  " << k << ": " << yaml_quote(v) << "\n";
  }
  // The schema's order groups keys by section; open and close mapping levels as the dotted
  // prefixes change.
  std::vector<std::string> open;
  for (const auto& row : device_schema()) {
    if (!d.provenance.count(row.key) || !is_schema_key(d, row.key)) continue;
    std::vector<std::string> parts = split_key(row.key);
    std::size_t common = 0;
    while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common]) ++common;
    open.resize(common);
    for (std::size_t i = common; i + 1 < parts.size(); ++i) {
      if (i == 0) o << "\n";
      o << std::string(2 * i, ' ') << parts[i] << ":\n";
      open.push_back(parts[i]);
    }
    o << std::string(2 * (parts.size() - 1), ' ') << parts.back() << ": " << leaf_text(d, row.key) << "\n";
  }
  return o.str();
}

}  // namespace kernsim::device
