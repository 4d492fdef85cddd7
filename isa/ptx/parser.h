// PTX text -> ptx::Module. Errors are Error(Parse) naming the origin, line and the token.
#pragma once

#include <string>
#include <string_view>

#include "isa/ptx/ast.h"

namespace kernsim::isa::ptx {

ast::Module parse_module(std::string_view text, const std::string& origin);

}  // namespace kernsim::isa::ptx
