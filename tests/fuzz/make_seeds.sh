#!/usr/bin/env bash
# Regenerates the seed corpora in corpus/ from the project's own inputs (run from anywhere; the
# seeds are committed, so this is needed only when the inputs change):
#   ptx/           tests/data/kernels/*.ptx (each a complete module)
#   code_object/   tests/data/amd/*.s assembled as kernsim does (llvm-mc-22, ld.lld-22), gfx942
#   amdgcn_decode/ the .text of those code objects, after the processor byte (0: gfx942, 1: gfx950)
#   launch_spec/   examples/ and tests/data/specs/ launch specs
#   device_file/   tests/data/devices/*.yaml and small what-if files that inherit the built-in parts
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
c=$here/corpus
rm -rf "$c" && mkdir -p "$c"/{ptx,code_object,amdgcn_decode,launch_spec,device_file}
cp "$root"/tests/data/kernels/*.ptx "$c/ptx/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in isa_semantics unknown_inst; do
  llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj "$root/tests/data/amd/$s.s" -o "$tmp/$s.o"
  ld.lld-22 -shared --no-undefined "$tmp/$s.o" -o "$c/code_object/$s.hsaco"
  llvm-objcopy-22 -O binary --only-section=.text "$c/code_object/$s.hsaco" "$tmp/$s.text"
  { printf '\0'; cat "$tmp/$s.text"; } > "$c/amdgcn_decode/$s.gfx942"
done
cp "$root"/examples/saxpy/saxpy.json "$c/launch_spec/"
cp "$root"/tests/data/specs/*.json "$c/launch_spec/"
# a version-2 spec with tensor maps (one of the Hopper validation set's)
cp "$root"/calibration/validation/hopper/specs/tmm_tma_bf16_4096_128x256x64_w8s3.json "$c/launch_spec/"
cp "$root"/tests/data/devices/*.yaml "$c/device_file/"
for d in h200:sm mi300x:cu; do
  printf 'inherits: %s\nname: whatif\nl2:\n  bytes: {value: 1048576, source: "what-if", confidence: estimated}\n%s:\n  count: {value: 0, source: "what-if", confidence: estimated}\n' "${d%%:*}" "${d#*:}" > "$c/device_file/whatif_${d%%:*}.yaml"
done
du -sh "$c"/*
