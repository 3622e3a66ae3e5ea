#!/bin/bash
# Branch small-m-rounds head: the GPU suite, memcheck on the new rows' TMA twins, then llm-fresh + llm-heldout through dispatch.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
TESTS_CPU=0 HGEMM_GIT_HASH=$HASH timeout 400 scripts/gpu-check $o tests > $o/console.txt 2>&1
echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s" | tee -a $o/console.txt
b=build-gpu/hgemm
P=sm90_ws_
for n in 104x64x64_s10_c1x1_w1_m8_tma_sk1_f32_tn_swap 232x64x64_s5_c1x1_w1_m8_tma_sk1_f32_nn_swap 152x128x64_s5_c1x1_w2_m8_tma_sk1_f16_nn_swap 96x192x64_s5_c1x1_w3_m8_tma_sk1_f32_tn_swap; do
  case $n in *_nn_*) l=nn;; *) l=tn;; esac
  case $n in *_f16_*) a=f16;; *) a=f32;; esac
  timeout 45 compute-sanitizer --tool memcheck --error-exitcode 1 $b verify --suite memcheck --quick --layout $l --acc $a \
    --impl config:$P$n > $o/memcheck-$n.log 2>&1; echo "memcheck $n rc=$?"
done
echo "sanitizers $(( $(date +%s) - t0 )) s"
tar czf $OUT/all.tgz -C $o .
for acc in f32 f16; do
  for suite in llm-fresh llm-heldout; do
    [ $(( $(date +%s) - t0 )) -gt 545 ] && { echo "time: suites stopped at $acc $suite"; break 2; }
    timeout 60 $b bench --suite bench/suites/$suite.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
      --out $o/suite-$suite-$acc.csv > $o/suite-$suite-$acc.log 2>&1 || echo "bench rc=$? $suite $acc"
  done
  echo "suites $acc $(( $(date +%s) - t0 )) s"
done
tar czf $OUT/all.tgz -C $o .
grep -v "^    [0-9]" $o/console.txt | tail -12
