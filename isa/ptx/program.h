// kernsim::isa::ptx::Program — a PTX module decoded once into flat, immutable descriptors.
//
// Every function's instructions live in one array (`insts`); branch targets and call targets
// are indices into it; reconvergence points (immediate post-dominators) are precomputed per
// branch. Operands are register references into per-warp banks, or into the program's constant
// rows: immediates are broadcast once at decode time into 32-lane rows, so the executor's hot
// loops read every source operand the same way. Nothing here changes after decode.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/unit.h"

namespace kernsim::isa::ptx {

enum class Ty : std::uint8_t {
  None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, F32, F64, Pred, TF32, E4M3, E5M2, E4M3x2, E5M2x2,
  F32x2,             // two f32 in a 64-bit register (PTX 8.6, sm_100a: add/sub/mul/fma .f32x2)
  E2M3, E3M2, E2M1,  // fp6 and fp4 (OCP MX) operands of tcgen05.mma .kind::f8f6f4 and the block-scaled kinds
};
int ty_bits(Ty t);
bool ty_is_float(Ty t);
bool ty_is_signed(Ty t);
const char* to_string(Ty t);

// How ptxas moves a wmma fragment between memory and registers (sm_90a SASS of
// tests/kernels/cuda/wmma_gemm.cu: four LDG.E per 16x16 f16 operand, four STG.E.64 per 16x16
// f32 accumulator): machine loads/stores in the mma.sync register layout, each covering 8
// strided lines (rows of a row-major fragment) x 4 lanes x this many contiguous bytes per lane.
// frag_kind is wmma.load/store's Inst::sub (0 a, 1 b, 2 c, 3 d).
inline int wmma_access_width(int frag_kind, Ty elem) { return frag_kind >= 2 && ty_bits(elem) == 32 ? 8 : 4; }

// Register banks. R32/R64/Pred are per-warp (per call frame); C32/C64 are the program's
// constant rows; S32/S64 hold the special registers of one warp.
enum class Bank : std::uint8_t { None, Pred, R32, R64, C32, C64, S32, S64 };

struct Reg {
  Bank bank = Bank::None;
  std::uint32_t idx = 0;
  bool operator==(const Reg&) const = default;
};

// The opcodes kernsim decodes, one per row of isa/ptx/ops.def (isa/ptx/ops.h: what each one is).
enum class Op : std::uint8_t {
#define KS_PTX(op, ...) op,
#include "isa/ptx/ops.def"
#undef KS_PTX
};
const char* to_string(Op op);

// SharedCluster: .shared::cluster, the shared memory of every CTA of the cluster (distributed
// shared memory); Shared is .shared / .shared::cta, the executing CTA's.
enum class Space : std::uint8_t { Generic, Global, Shared, Local, Param, Const, SharedCluster };
const char* to_string(Space s);

enum class Rnd : std::uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
enum class Cmp : std::uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : std::uint8_t { None, And, Or, Xor };

// Instruction flags.
enum : std::uint32_t {
  kFtz = 1u << 0, kSat = 1u << 1, kApprox = 1u << 2, kFull = 1u << 3, kWide = 1u << 4, kHi = 1u << 5,
  kLo = 1u << 6, kCarryOut = 1u << 7, kCarryIn = 1u << 8, kUni = 1u << 9, kRelu = 1u << 10, kNaN = 1u << 11,
  kShiftLeft = 1u << 12, kShiftClamp = 1u << 13, kSatFinite = 1u << 14, kReadsClock = 1u << 15,
  kTrans = 1u << 16, kXorsign = 1u << 17, kAbs = 1u << 18, kCvtaTo = 1u << 19, kBallot = 1u << 20,
  kArrive = 1u << 21, kAllowPartial = 1u << 22,
  kUniformAddress = 1u << 23,   // the address is the same for every lane (uniformity analysis)
  kWarpAggregated = 1u << 24,   // an atomic add ptxas performs once per warp (uniform address)
  kBypassL1 = 1u << 25,         // ld/st .cg/.cs/.cv/.volatile/scoped: served by L2, not cached in L1
  kFoldedModifier = 1u << 26,   // a float neg/abs that ptxas folds into its readers' operands: no machine instruction
  kRangeReduced = 1u << 27,     // sin/cos: ptxas puts an FMUL.RZ (x / 2 pi) ahead of the MUFU, in its dependency chain
  kClusterSpace = 1u << 28,     // the address (Inst::addr; for bulk copies the destination) is a .shared::cluster one
  kRelaxed = 1u << 29,          // .relaxed: no release fence (barrier.cluster.arrive.relaxed)
  kDenormGuarded = 1u << 30,    // ex2/lg2/rsqrt/sqrt/rcp.approx.f32 without .ftz: ptxas wraps the MUFU in FP32 range fixes
  kPopcInc = 1u << 31,          // a shared-memory add of 1 whose result is unread: ptxas's ATOMS.POPC.INC (one add of the lane count per word)
};

// wgmma.mma_async's immediate operands, in Inst::imm.
enum : std::uint32_t { kWgmmaNegA = 1u << 0, kWgmmaNegB = 1u << 1, kWgmmaTransA = 1u << 2, kWgmmaTransB = 1u << 3 };
// What an mbarrier, bulk or tensor copy instruction does beyond its opcode (Inst::sub bits;
// sim/functional/ptx_async.cpp).
enum : std::uint8_t {
  kMbarExpectTx = 1u << 0,    // mbarrier.arrive{_drop}.expect_tx
  kMbarNoComplete = 1u << 1,  // mbarrier.arrive.noComplete
  kMbarParity = 1u << 2,      // test_wait/try_wait .parity
  kMbarNoInc = 1u << 3,       // cp.async.mbarrier.arrive.noinc
  kMbarHint = 1u << 4,        // try_wait with a suspend-time hint
};
// tcgen05 (sim/functional/ptx_tcgen05.cpp). Inst::shape[0] is the .cta_group (1 or 2) of every
// tcgen05 instruction; tcgen05.mma: shape[1] the .kind (TcKind), shape[2] the block-scaled kinds'
// .scale_vec (1, 2 or 4 scales per row of A for one mma; .block32/.block16 resolved by kind, 0
// where the kind's default applies), Inst::sub kTc* bits; tcgen05.ld/st:
// shape[1] the TcShape, shape[2] the .num repeat, sub kTcPack (kTcRed* for tcgen05.ld.red, type its
// .f32/.u32/.s32, B32 otherwise), imm the immHalfSplitoff of .16x32bx2;
// tcgen05.commit: sub kTcMulticast, imm the mbarrier operand's byte offset; tcgen05.cp: shape[1] the
// TcCpShape, shape[2] the TcCpMulticast, shape[3] 6 or 4 for .b8x16.b6x16_p32/.b4x16_p64 (else 0); tcgen05.shift: sources the taddr base and offset.
enum class TcKind : std::uint8_t { F16, Tf32, F8f6f4, I8, Mxf8f6f4, Mxf4, Mxf4nvf4 };
enum class TcShape : std::uint8_t { S32x32b, S16x64b, S16x128b, S16x256b, S16x32bx2 };
enum class TcCpShape : std::uint8_t { S128x256b, S4x256b, S128x128b, S64x128b, S32x128b };
enum class TcCpMulticast : std::uint8_t { None, Warpx2_02_13, Warpx2_01_23, Warpx4 };
enum : std::uint8_t {
  kTcATmem = 1u << 0,      // tcgen05.mma: A is in tensor memory ([a-taddr]), else a shared-memory descriptor
  kTcScaleD = 1u << 1,     // tcgen05.mma: a scale-input-d operand follows enable-input-d
  kTcBlockScale = 1u << 2, // tcgen05.mma .block_scale: sources 8-11 are the scale-A and scale-B TMEM addresses
  kTcWs = 1u << 3,         // tcgen05.mma.ws: source 8, if present, is the zero-column mask descriptor
  kTcBReuse = 1u << 4,     // tcgen05.mma.ws .collector::bN::use/lastuse: B comes from a collector buffer
  kTcSparse = 1u << 5,     // tcgen05.mma.sp: sources 8-9 are the sparsity metadata's TMEM address (then the mask)
  kTcPack = 1u << 0,       // tcgen05.ld .pack::16b / tcgen05.st .unpack::16b
  kTcRedMin = 1u << 1,     // tcgen05.ld.red .min: the last destination is the minimum of the loaded values
  kTcRedMax = 1u << 2,     // tcgen05.ld.red .max
  kTcRedAbs = 1u << 3,     // tcgen05.ld.red .abs (.f32): the reduction of the absolute values
  kTcRedNaN = 1u << 4,     // tcgen05.ld.red .NaN (.f32): a NaN input makes the result NaN
  kTcMulticast = 1u << 0,  // tcgen05.commit .multicast::cluster: a ctaMask source follows the mbarrier
};
// The field tensormap.replace sets (Inst::sub), as the PTX ISA names them.
enum class TmapField : std::uint8_t { GlobalAddress, Rank, BoxDim, GlobalDim, GlobalStride, ElementStride, ElemType, InterleaveLayout,
                                      SwizzleMode, SwizzleAtomicity, FillMode };
// The direction of a bulk copy (Inst::type3 holds the reduction type; Inst::imm the AtomOp).
enum class BulkDir : std::uint8_t { GlobalToShared, SharedToGlobal, SharedToCluster };

// Operation variants kept in Inst::sub (meaning depends on op).
enum class AtomOp : std::uint8_t { Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class ShflMode : std::uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : std::uint8_t { All, Any, Uni, Ballot };
enum class BarKind : std::uint8_t { Sync, Arrive, RedPopc, RedAnd, RedOr };
enum class TestpKind : std::uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

// How an address operand finds its base.
enum class AddrBase : std::uint8_t {
  Reg,          // value of register `base` + offset
  Absolute,     // offset is the address (symbols of global/const/shared space, kernel params)
  FrameLocal,   // current frame's local base + offset (local depot symbols)
  FrameParam,   // current frame's per-lane param area + offset (.func formals, callseq .param)
};

struct Addr {
  AddrBase kind = AddrBase::Reg;
  Reg base;
  std::int64_t offset = 0;
};

struct Inst {
  Op op = Op::Nop;
  Ty type = Ty::None;   // the instruction type (destination type for cvt)
  Ty type2 = Ty::None;  // cvt source type; mma A/B type; wmma element type
  Ty type3 = Ty::None;  // mma C type
  Space space = Space::Generic;
  Rnd rnd = Rnd::None;
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  std::uint8_t sub = 0;       // AtomOp / ShflMode / VoteMode / BarKind / TestpKind / ...
  std::uint8_t vec = 1;       // vector width of ld/st/mov
  std::uint8_t ndst = 0, nsrc = 0;
  Unit unit = Unit::Nop;
  std::uint32_t flags = 0;
  std::uint32_t ops = 0;      // first operand in Program::regs: ndst destinations, then nsrc sources
  Reg guard;                  // Bank::None when unguarded
  bool guard_neg = false;
  Addr addr;                  // memory operand (ld/st/atom/cp.async/...)
  Addr addr2;                 // second memory operand (cp.async source)
  std::int32_t target = -1;   // branch target / called function
  std::int32_t reconv = -1;   // branch: immediate post-dominator instruction index (-1: function exit)
  std::array<std::int16_t, 4> shape{};  // mma/wmma m,n,k; ldmatrix num; misc small ints
  std::uint32_t imm = 0;      // lop3 truth table, prmt mode, misc
  std::uint32_t line = 0;     // PTX source line
  std::uint32_t func = 0;     // function this instruction belongs to
  std::uint8_t weight = 1;    // machine instructions this PTX instruction lowers to (estimate)
  std::uint8_t batch = 1;     // loads: iterations of its loop whose copies ptxas issues together (unrolling)
  std::uint16_t batch_slot = 0;  // loads with batch > 1: index of its per-warp batching state
};

struct ParamInfo {
  std::string name;
  int bytes = 0;
  int align = 0;
  bool is_pointer = false;   // .u64/.b64 (or .ptr) in a 64-bit module: may take a buffer
  bool is_aggregate = false; // .b8 name[N]: by-value struct
  std::string type;
  int offset = 0;            // in the kernel parameter buffer
  bool declared_ptr = false; // .ptr: the compiler says it is a pointer (clang and LLVM mark every pointer; nvcc none)
};

struct Symbol {
  std::string name;
  Space space = Space::Global;
  std::int64_t bytes = 0;
  int align = 1;
  std::uint64_t addr = 0;                 // global/const: absolute address; shared: offset
  std::vector<std::uint8_t> init;
  std::vector<std::pair<std::size_t, std::string>> init_symbols;
  bool is_extern = false;
};

struct Function {
  std::string name;           // as in the PTX (mangled)
  bool is_entry = false;
  std::uint32_t first = 0, end = 0;   // instruction range [first, end)
  std::uint32_t n32 = 0, n64 = 0, npred = 0;   // registers of one frame
  std::uint32_t local_bytes = 0;      // local depot of one frame, per thread
  std::uint32_t param_bytes = 0;      // per-lane param area of one frame (formals + callseq)
  std::vector<ParamInfo> params;      // entry: kernel params; func: formal params (offsets in frame param area)
  std::vector<ParamInfo> returns;     // func return params
  std::vector<std::uint32_t> callees; // functions called directly
  std::array<int, 3> reqntid{0, 0, 0}, maxntid{0, 0, 0};
  std::array<int, 3> reqnctapercluster{0, 0, 0};  // 0: not declared
  bool explicitcluster = false;
  int maxclusterrank = 0;
};

// A direct call: which function, and where arguments and results live in the caller's and
// callee's per-lane param areas (byte offsets and sizes).
struct CallSite {
  std::int32_t callee = -1;
  std::vector<std::array<std::int32_t, 3>> args;  // {caller offset, callee offset, bytes}
  std::vector<std::array<std::int32_t, 3>> rets;  // {caller offset, callee offset, bytes}
};

struct Program {
  std::string origin;
  std::string target;                 // sm_90a, ...
  std::string version;
  std::vector<Inst> insts;
  std::vector<Reg> regs;              // operand pool
  std::vector<Function> functions;    // functions[0] is the kernel
  std::vector<CallSite> calls;        // Inst::imm of a call indexes this
  std::vector<std::vector<std::uint32_t>> branch_tables;  // brx.idx targets; Inst::imm indexes this
  std::vector<Symbol> symbols;        // module statics: global, const, shared
  std::vector<std::uint32_t> c32;     // constant rows, 32 lanes each
  std::vector<std::uint64_t> c64;
  std::uint32_t nspecial32 = 0, nspecial64 = 0;
  std::vector<std::string> special_names32, special_names64;  // index -> "%tid.x"
  std::vector<std::string> lines;     // source text of each PTX line (1-based; lines[0] empty)
  std::vector<std::string> unsupported;       // Op::Unsupported: Inst::imm indexes this
  std::uint64_t static_shared_bytes = 0;      // .shared statics this kernel uses
  std::uint64_t dynamic_shared_offset = 0;    // where `extern .shared` arrays start
  std::uint16_t n_batch_slots = 0;            // loads with Inst::batch > 1
  bool wgmma_serialized = false;              // ptxas serialized the wgmmas (SassLoops::wgmma_serialized)

  const Reg& dst(const Inst& in, int i) const { return regs[in.ops + i]; }
  const Reg& src(const Inst& in, int i) const { return regs[in.ops + in.ndst + i]; }
  int find_function(const std::string& name) const;
  std::string describe(const Inst& in) const;   // "line 42: ld.global.b32 %r5, [%rd10]"
};

// Address windows of the simulated generic address space.
inline constexpr std::uint64_t kGlobalBase = 0x0000700000000000ull;   // buffers and statics
inline constexpr std::uint64_t kSharedWindow = 0x00007d0000000000ull; // generic view of shared
inline constexpr std::uint64_t kLocalWindow = 0x00007c0000000000ull;  // generic view of local
inline constexpr std::uint64_t kParamWindow = 0x00007b0000000000ull;  // generic view of kernel params
inline constexpr std::uint64_t kWindowSize = 0x0000010000000000ull;
// A .shared::cluster address (and its generic view, kSharedWindow + it) names CTA rank r of the
// cluster as (r + 1) x kClusterRankStride + the shared::cta offset; an address below the stride
// is the executing CTA's own (the shared::cta window lies inside the shared::cluster window).
inline constexpr std::uint64_t kClusterRankStride = 0x0000000001000000ull;  // 16 MiB, above any CTA's shared memory

}  // namespace kernsim::isa::ptx
