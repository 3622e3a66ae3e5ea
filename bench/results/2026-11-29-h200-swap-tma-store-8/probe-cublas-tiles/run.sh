#!/bin/bash
# Probe: cuBLASLt's tile for each of llm-fresh's worst small-M / 900-token calls, through the JIT, beside dispatch and cublaslt-best.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
P=sm90_ws_
# shape | configs (without the _sk1_ACC_LAYOUT_swap tail)
cases="94x4096x7168 48x64x64_s12_c1x1_w2_m8_st 48x64x64_s12_c1x1_w2_m8_tma
300x2560x4096 104x64x64_s9_c1x1_w1_m8_tma 104x64x64_s10_c1x1_w1_m8_st
150x3072x8192 80x64x64_s10_c1x1_w1_m8_tma 80x64x64_s10_c1x1_w1_m8_st
900x2048x8192 232x64x64_s5_c1x1_w1_m8_tma 232x64x64_s5_c1x1_w1_m8_st
900x5120x2880 152x128x64_s5_c1x1_w2_m8_tma 152x128x64_s6_c1x1_w2_m8_st
150x59136x8192 152x128x64_s5_c1x1_w2_m8_tma 152x128x64_s6_c1x1_w2_m8_st
640x10240x8192 144x128x64_s6_c1x1_w2_m8_tma 232x128x64_s3_c1x1_w2_m8_tma
96x24576x4096 96x192x64_s5_c1x1_w3_m8_tma 96x256x64_s4_c1x1_w2_m8_tma
96x55296x5120 96x192x64_s5_c1x1_w3_m8_tma 96x256x64_s4_c1x1_w2_m8_tma
900x19456x2560 160x128x64_s5_c1x1_w2_m8_tma 232x128x64_s3_c1x1_w2_m8_tma"
all=(); while read -r s a b; do for l in tn nn; do all+=($P${a}_sk1_f32_${l}_swap $P${b}_sk1_f32_${l}_swap); done; done <<< "$cases"
b/hgemm jit build $(printf '%s\n' "${all[@]}" | sort -u) --jobs 16 > $o/jit.log 2>&1; echo "jit rc=$? $(( $(date +%s) - t0 )) s"; grep -v "^built\|^cached" $o/jit.log | tail -5
for r in 1 2; do
  i=0
  while read -r s a b; do
    for l in tn nn; do
      i=$((i+1))
      [ $(( $(date +%s) - t0 )) -gt 230 ] && { echo "time: stopped at round $r case $i"; break 3; }
      timeout 30 b/hgemm bench --shape $s --impl hgemm,cublaslt-best,config:$P${a}_sk1_f32_${l}_swap,config:$P${b}_sk1_f32_${l}_swap \
        --modes graph --layout $l --acc f32 --loops 9 --out $o/probe-$i-$r.csv >> $o/probe.log 2>&1 || echo "fail $s $l"
    done
  done <<< "$cases"
  echo "round $r $(( $(date +%s) - t0 )) s"
done
tar czf $OUT/all.tgz -C $o .
