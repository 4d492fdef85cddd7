#include "isa/unit.h"

namespace kernsim::isa {

const char* to_string(Unit u) {
  switch (u) {
    case Unit::IntAlu: return "int_alu";
    case Unit::IntMul: return "int_mul";
    case Unit::Fp32: return "fp32";
    case Unit::Fp16: return "fp16";
    case Unit::Fp64: return "fp64";
    case Unit::Sfu: return "sfu";
    case Unit::Convert: return "convert";
    case Unit::Branch: return "branch";
    case Unit::TensorF16: return "tensor_f16";
    case Unit::TensorTf32: return "tensor_tf32";
    case Unit::TensorI8: return "tensor_i8";
    case Unit::TensorFp8: return "tensor_fp8";
    case Unit::TensorF64: return "tensor_f64";
    case Unit::Scalar: return "scalar";
    case Unit::Mem: return "mem";
    case Unit::Sync: return "sync";
    case Unit::Nop: return "nop";
    case Unit::kCount: break;
  }
  return "?";
}

}  // namespace kernsim::isa
