#!/bin/bash
# Swap-AB widths 8 mod 16: direct stores against the TMA-store twin (branch swap-tma-store-8): verify, sanitize, bench.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
src=/tmp/br; rm -rf $src; mkdir -p $src; tar xf scratch/ab/branch.tar -C $src
cp scratch/ab/tw8-shapes.txt $o/
t0=$(date +%s)
cmake -S $src -B $src/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build $src/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
H=$src/b/hgemm
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/env.txt
P=sm90_ws_
A=104x128x64_s7_c1x1_w2_m8; B=72x192x64_s6_c1x1_w3_m8; C=40x64x64_s12_c1x1_w1_m8; D=136x64x64_s8_c1x1_w1_m8
names=($P${A}_tma_sk1_f32_tn_swap $P${C}_tma_sk1_f32_tn_swap $P${A}_tma_sk1_f32_nn_swap $P${A}_tma_sk1_f16_tn_swap
       $P${A}_tma_sk1_f16_nn_swap $P${A}_tma_sk1_f32_tn_swap_bf16 $P${B}_tma_sk1_f32_tn_swap $P${B}_tma_sk1_f32_nn_swap
       $P${B}_tma_sk1_f16_tn_swap $P${B}_tma_sk1_f16_nn_swap $P${C}_tma_sk1_f32_nn_swap $P${C}_tma_sk1_f16_tn_swap
       $P${D}_tma_sk1_f32_tn_swap $P${D}_tma_sk1_f16_tn_swap)
$H jit build "${names[@]}" --jobs 16 > $o/jit.log 2>&1; echo "jit rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $o/jit.log
vfail=0
for n in "${names[@]}"; do
  case $n in *_nn_*) l=nn;; *) l=tn;; esac
  case $n in *_f16_*) a=f16;; *) a=f32;; esac
  case $n in *_bf16) d=bf16;; *) d=f16;; esac
  for s in edge $o/tw8-shapes.txt; do
    timeout 120 $H verify --suite $s --impl config:$n --layout $l --acc $a --dtype $d --out $o/verify-$n-$(basename $s .txt).csv >> $o/verify.log 2>&1 || { vfail=1; echo "VERIFY FAIL $n $s"; }
  done
done
echo "verify done $(( $(date +%s) - t0 )) s, fail=$vfail"; tail -4 $o/verify.log
for tool in memcheck racecheck; do
  for i in 0 1; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $H verify --suite memcheck --quick --layout tn --acc f32 \
      --impl config:${names[$i]} > $o/$tool-$i.log 2>&1; echo "$tool $i rc=$?"
  done
done
echo "sanitizers done $(( $(date +%s) - t0 )) s"
[ $vfail = 0 ] || { tar czf $OUT/all.tgz -C $o .; exit 1; }
# shape layout acc tile
calls="900x16384x2048 tn f32 $A
300x4608x36864 tn f32 $A
300x5120x2880 tn f32 $A
96x16384x3072 tn f32 $A
1025x1536x7168 tn f32 $A
6000x2560x9728 nn f32 $A
768x2048x4096 nn f32 $A
3000x576x7168 tn f32 $B
450x3072x3072 nn f32 $B
129x4608x3584 tn f32 $D
40x8192x8192 tn f32 $C
77x2880x4096 tn f32 $C
40x6144x5120 nn f32 $C
300x4608x4096 tn f16 $A
96x55296x5120 nn f16 $A
1025x1536x7168 tn f16 $B
2500x9216x3072 nn f16 $B
129x4608x3584 tn f16 $D
40x8192x8192 tn f16 $C"
i=0
while read -r shape l acc t; do
  i=$((i+1))
  [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "time: stopped before $i"; break; }
  timeout 60 $H bench --shape $shape --impl config:$P${t}_st_sk1_${acc}_${l}_swap,config:$P${t}_tma_sk1_${acc}_${l}_swap,cublaslt-best \
    --modes graph --layout $l --acc $acc --loops 9 --out $o/bench-$i.csv >> $o/bench.log 2>&1 || echo "bench fail $shape $l $acc"
done <<< "$calls"
echo "bench done $(( $(date +%s) - t0 )) s"
tar czf $OUT/all.tgz -C $o .
