// kernsim::cost::Listing — the text of a kernel's instructions, indexed by PC, as the views print
// them. The api layer builds it from the decoded program (isa::ptx::Program, isa::amdgcn::Program),
// so the views stay free of ISA types: a PcView labels its rows with it and a TraceView names its
// issue slices by the instructions' mnemonics. A view given no listing prints PCs only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernsim::cost {

struct InstText {
  std::string text;                    // as the ISA spells it: "ld.global.f32 %f1, [%rd4];"
  std::string op;                      // its mnemonic: "ld.global.f32" (see op_of)
  std::uint32_t line = 0;              // source line (PTX line); 0 when the ISA has none
  std::optional<std::uint64_t> addr;   // code address (AMDGCN)
  std::string file;                    // the high-level source from debug line info (PTX `.loc`); "" when none
  std::uint32_t source_line = 0;       // its line in `file`; 0 when unknown
};

using Listing = std::vector<InstText>;

// The mnemonic of an instruction's text: its first word after an optional predicate guard
// ("@%p1 bra $L__BB0_2;" -> "bra"; "v_add_f32 v1, v2, v3" -> "v_add_f32"); trailing ';' dropped.
inline std::string op_of(std::string_view text) {
  auto skip_space = [&](std::size_t i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i;
  };
  auto word_end = [&](std::size_t i) {
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != ';') ++i;
    return i;
  };
  std::size_t b = skip_space(0);
  if (b < text.size() && text[b] == '@') b = skip_space(word_end(b));
  return std::string(text.substr(b, word_end(b) - b));
}

}  // namespace kernsim::cost
