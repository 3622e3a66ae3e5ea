#!/bin/bash
# Probe: at untabled TN calls of 12, 13 and 15 tokens (llm-tune's (N, K) pairs), dispatch's pick
# (small_m_swap_tile: a 16-token swap-AB tile) against every TN decode kernel and cublaslt-best,
# interleaved in one process per accumulation; f16 at 12 and 15 tokens only.
set -u
o=/tmp/op; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for acc in f32 f16; do
  suite=scratch/ab/m12-16.txt; [ $acc = f16 ] && suite=scratch/ab/m12-15.txt
  impl=hgemm; for n in n8_k128_s6_w4 n16_k32_s4_w8 n16_k64_s4_w4 n32_k32_s4_w8 n32_k64_s4_w4 n64_k32_s4_w8 n128_k32_s4_w4; do impl=$impl,config:decode_${n}_${acc}_tn; done
  timeout 280 /tmp/b/hgemm bench --suite $suite --layout tn --acc $acc --modes graph --impl $impl,cublaslt-best \
    --out $o/decode-$acc.csv > $o/decode-$acc.log 2>&1 || echo "bench rc=$? $acc"
  echo "$acc $(( $(date +%s) - t0 )) s"
done
gzip $o/*.csv $o/*.log; tar czf $OUT/probe.tgz -C $o .
