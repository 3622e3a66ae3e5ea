#!/bin/bash
# bf16 against fp16 in one call (issue 20: bf16 at least level with the fp16 results of the same
# run): llm-heldout, llm-fresh and every tenth shape of the paper's grid, each element type against
# cublaslt-best in the same type, both layouts, fp32 accumulation, graph mode.
set -u
o=/tmp/b; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $o/gpu.txt 2>&1
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=${HASH:-unknown} > $o/build.log 2>&1 &&
  cmake --build build-gpu -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for s in ${SUITES:-llm-heldout llm-fresh scratch/ab/grid-tenth.txt}; do
  tag=$(basename $s .txt)
  for dt in f16 bf16; do
    [ $(( $(date +%s)-t0 )) -lt ${STOP:-500} ] || break
    build-gpu/hgemm bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
      --dtype $dt --time-limit ${RUNLIM:-$(( 540 - ($(date +%s)-t0) ))} --out $o/$tag-$dt.csv > $o/$tag-$dt.log 2>&1
    echo "$tag $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz -C $o .
cat $o/progress
