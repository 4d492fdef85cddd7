#!/usr/bin/env bash
# One device call (issue 17 item 1, the short streaming launches, < 60 s of GPU time): the start of
# a streaming launch on a cold L2 (calibration/microbenchmarks/cuda/stream_startup.cu): event times
# of one-float4-per-thread reads and copies of 1-256 MiB behind a read flush with the buffer's pages
# cold, touched (translations warm) and warm (no flush); per-CTA %globaltimer timelines of the cold
# reads (bandwidth of the first microseconds); one thread's dependent loads to new 2 MiB pages,
# new lines of visited pages and one page (translation-miss cost). Writes OUT/smi.txt,
# OUT/stream_startup.jsonl, OUT/stream_startup.sass.
# Usage on the GPU machine: bash calibration/validation/device/s7_stream_startup.sh OUTDIR
#   (or through s6_session.sh OUT 90 stream_startup, which finds s7_ scripts too)
set -u
OUT=${1:?output directory}
mkdir -p "$OUT"
. "$(dirname "$0")/mb_common.sh"
mb_smi "$OUT"
cat "$OUT/smi.txt"
MB_EXT=jsonl mb_run stream_startup 120 "$OUT"
grep -v timeline "$OUT/stream_startup.jsonl"
grep timeline "$OUT/stream_startup.jsonl" | cut -c1-400
mb_smi "$OUT"
