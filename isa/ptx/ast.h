// kernsim::isa::ptx — the syntax tree of a PTX module, as written.
//
// The parser turns PTX text (from clang 22, nvcc 13 or Triton; ISA 7.x-8.8) into these plain
// structures; decode.h then turns them into executable descriptors, once. Nothing here knows
// what an instruction means: opcodes are kept as their dotted parts ("ld", "global", "v4", "f32").
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kernsim::isa::ptx {

// Bytes of one element of a PTX fundamental type (b8..b128, u/s/f 8..64, pred = 1).
int type_bytes(const std::string& type);

namespace ast {

struct Operand {
  enum class Kind { Reg, Imm, F32Imm, F64Imm, Vec, Addr, Symbol, Sink };
  Kind kind = Kind::Imm;
  std::string name;        // Reg / Symbol; Addr: base register or symbol ("" for absolute)
  bool negate = false;     // `!%p` predicate source
  std::int64_t ival = 0;   // Imm value; Addr offset
  std::uint64_t fbits = 0; // F32Imm / F64Imm bit pattern
  std::vector<Operand> elems;  // Vec
};

struct Instr {
  std::string opcode;               // full dotted text, e.g. "ld.global.v4.f32"
  std::vector<std::string> parts;   // {"ld", "global", "v4", "f32"}
  std::string guard;                // predicate register, "" if none
  bool guard_negated = false;
  std::vector<Operand> operands;
  int line = 0;
  // the source position of the last `.loc FILE LINE COL` before it in its function (debug line
  // info: clang -gline-tables-only, Triton); 0 when none came before it or the `.loc` says 0
  int src_file = 0, src_line = 0;
};


// A variable or parameter declaration: `.reg .b32 %r<8>`, `.shared .align 4 .b8 tile[1024]`,
// `.param .u64 .ptr .align 1 name`.
struct Decl {
  std::string space;        // reg, param, shared, local, global, const
  std::string type;         // b8, u32, f32, pred, ...
  std::string name;
  int align = 0;
  std::int64_t array = -1;  // -1 scalar; 0 for `name[]` (extern, unsized)
  std::int64_t range = -1;  // `%r<8>` -> 8 registers named %r0..%r7
  int vector = 1;           // .v2/.v4
  bool is_extern = false;
  bool is_ptr = false;
  std::vector<std::uint8_t> init;  // initialiser bytes (globals/consts), little-endian
  std::vector<std::pair<std::size_t, std::string>> init_symbols;  // (byte offset, symbol) address initialisers
  int line = 0;

  std::int64_t element_bytes() const;
  std::int64_t total_bytes() const;
};

struct Statement {
  enum class Kind { Label, Instr, Decl, ScopeBegin, ScopeEnd };
  Kind kind = Kind::Instr;
  std::string label;
  Instr instr;
  Decl decl;
  int line = 0;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool has_body = false;
  std::vector<Decl> returns;  // .func return parameters
  std::vector<Decl> params;
  std::vector<Statement> body;  // labels, instructions, declarations and { } scopes, in order
  std::optional<std::array<int, 3>> maxntid, reqntid;
  std::optional<std::array<int, 3>> reqnctapercluster;  // .reqnctapercluster (clang: __cluster_dims__)
  bool explicitcluster = false;                         // .explicitcluster
  int maxclusterrank = 0;                               // .maxclusterrank N (0: none)
  int line = 0;
};

struct Module {
  std::string version;
  std::string target;
  int address_size = 64;
  std::vector<Decl> globals;  // module-scope .global/.shared/.const
  std::vector<Function> functions;
  std::map<int, std::string> files;  // `.file N "path"`: N -> path (quotes removed)
};

}  // namespace ast
}  // namespace kernsim::isa::ptx
