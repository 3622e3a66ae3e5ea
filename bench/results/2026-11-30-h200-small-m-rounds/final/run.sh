#!/bin/bash
# Branch head: the GPU test the last call's time limit cut (python_gpu_variants_gpu), then llm-fresh + llm-heldout through dispatch.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
HGEMM_GIT_HASH=$HASH scripts/gpu-check $o sm90 > $o/console.txt 2>&1
echo "gpu-check sm90 rc=$? $(( $(date +%s) - t0 )) s" | tee -a $o/console.txt
timeout 150 ctest --test-dir build-gpu -R python_gpu_variants_gpu --output-on-failure > $o/tests-variants.log 2>&1
echo "variants rc=$? $(( $(date +%s) - t0 )) s"; tail -4 $o/tests-variants.log
b=build-gpu/hgemm
for acc in f32 f16; do
  for suite in llm-fresh llm-heldout; do
    [ $(( $(date +%s) - t0 )) -gt 480 ] && { echo "time: suites stopped at $acc $suite"; break 2; }
    timeout 90 $b bench --suite bench/suites/$suite.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
      --out $o/suite-$suite-$acc.csv > $o/suite-$suite-$acc.log 2>&1 || echo "bench rc=$? $suite $acc"
  done
  echo "suites $acc $(( $(date +%s) - t0 )) s"
done
tar czf $OUT/all.tgz -C $o .
