#!/bin/bash
# Swap-AB tiles, direct stores against the TMA-store twin (branch swap-tma-store): verify, sanitize, bench.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
src=/tmp/br; rm -rf $src; mkdir -p $src; tar xf scratch/ab/branch.tar -C $src
cp scratch/ab/swap-shapes.txt $o/
t0=$(date +%s)
cmake -S $src -B $src/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build $src/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
H=$src/b/hgemm
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/env.txt
P=sm90_ws_
T=(160x128x64_s5_c1x1_w2_m8 160x64x64_s7_c1x1_w1_n2 80x64x64_s10_c1x1_w1_m8 80x128x64_s8_c1x1_w2_m8
   208x128x64_s5_c1x1_w2_m8 112x128x64_s7_c1x1_w2_m8 48x64x64_s12_c1x1_w2_m8 16x64x64_s12_c1x1_w2_m8)
names=(); for t in "${T[@]}"; do names+=(${P}${t}_tma_sk1_f32_tn_swap); done
names+=(${P}80x192x64_s6_c1x1_w3_m8_tma_sk4_f32_tn_swap ${P}80x128x64_s8_c1x1_w2_m8_tma_sk1_f16_tn_swap
        ${P}80x128x64_s8_c1x1_w2_m8_tma_sk1_f32_nn_swap ${P}80x128x64_s8_c1x1_w2_m8_tma_sk1_f32_tn_swap_bf16
        ${P}160x64x64_s7_c1x1_w1_n2_tma_sk1_f16_tn_swap)
$H jit build "${names[@]}" --jobs 16 > $o/jit.log 2>&1; echo "jit rc=$?"; tail -3 $o/jit.log
vfail=0
for n in "${names[@]}"; do
  case $n in *_nn_*) l=nn;; *) l=tn;; esac
  case $n in *_f16_*) a=f16;; *) a=f32;; esac
  case $n in *_bf16) d=bf16;; *) d=f16;; esac
  for s in edge $o/swap-shapes.txt; do
    timeout 120 $H verify --suite $s --impl config:$n --layout $l --acc $a --dtype $d --out $o/verify-$n-$(basename $s .txt).csv >> $o/verify.log 2>&1 || { vfail=1; echo "VERIFY FAIL $n $s"; }
  done
done
echo "verify done $(( $(date +%s) - t0 )) s, fail=$vfail"; tail -4 $o/verify.log
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $H verify --suite memcheck --quick --layout tn --acc f32 \
    --impl config:${names[0]} > $o/$tool-0.log 2>&1; echo "$tool 0 rc=$?"
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $H verify --suite memcheck --quick --layout tn --acc f32 \
    --impl config:${names[2]} > $o/$tool-2.log 2>&1; echo "$tool 2 rc=$?"
done
[ $vfail = 0 ] || { tar czf $OUT/all.tgz -C $o .; exit 1; }
# shape st-twin tma-twin
pairs="300x50264x768 160x64x64_s8_c1x1_w1_n2 160x64x64_s7_c1x1_w1_n2
300x50264x768 160x128x64_s6_c1x1_w2_m8 160x128x64_s5_c1x1_w2_m8
300x8192x4608 160x128x64_s6_c1x1_w2_m8 160x128x64_s5_c1x1_w2_m8
150x65536x5120 160x128x64_s6_c1x1_w2_m8 160x128x64_s5_c1x1_w2_m8
77x8192x4608 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8
300x2048x8192 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8
77x73728x4608 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8
150x5120x4096 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8
1200x5120x3072 208x128x64_s5_c1x1_w2_m8 208x128x64_s5_c1x1_w2_m8
1200x3072x8192 112x128x64_s7_c1x1_w2_m8 112x128x64_s7_c1x1_w2_m8
96x3072x8192 48x64x64_s12_c1x1_w2_m8 48x64x64_s12_c1x1_w2_m8
15x4608x4096 16x64x64_s12_c1x1_w2_m8 16x64x64_s12_c1x1_w2_m8"
for acc in f32 f16; do
  i=0
  while read -r shape st tma; do
    i=$((i+1))
    timeout 60 $H bench --shape $shape --impl config:${P}${st}_st_sk1_${acc}_tn_swap,config:${P}${tma}_tma_sk1_${acc}_tn_swap,cublaslt-best \
      --modes graph --layout tn --acc $acc --loops 9 --out $o/bench-$acc-$i.csv >> $o/bench.log 2>&1 || echo "bench fail $acc $shape"
  done <<< "$pairs"
  echo "bench $acc done $(( $(date +%s) - t0 )) s"
  [ $(( $(date +%s) - t0 )) -gt 480 ] && break
done
tar czf $OUT/all.tgz -C $o .
