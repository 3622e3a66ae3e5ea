#!/bin/bash
# Late GELU (branch late-gelu) against main e6eba06: fused/plain interleaved per build, builds
# alternated; then the verifier with bias_gelu over edge, smoke, the epilogue shapes and llm-fresh.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xf scratch/ab/ref.tar -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=e6eba06 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 8 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for r in 1 2 3; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for e in bias_gelu gelu; do
      $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
        --epilogue $e --out $o/epi-$side-$r-f16-$e.csv > $o/epi-$side-$r-f16-$e.log 2>&1
      echo "$side $r $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
    $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
      --dtype bf16 --epilogue bias_gelu --out $o/epi-$side-$r-bf16-bias_gelu.csv > $o/epi-$side-$r-bf16.log 2>&1
    echo "$side $r bf16 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
for dt in f16 bf16; do
  for s in edge smoke $S; do
    timeout 100 b/hgemm verify --suite $s --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt-$(basename $s .txt).csv > $o/verify-$dt-$(basename $s .txt).log 2>&1
    echo "verify $dt $s rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
timeout 150 b/hgemm verify --suite llm-fresh --acc f32 --layout tn --epilogue gelu --out $o/verify-f16-llm-fresh.csv > $o/verify-f16-llm-fresh.log 2>&1
echo "verify llm-fresh rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
gzip -9 -n $o/*.csv $o/*.log; tar czf $OUT/all.tgz -C $o .
cat $o/progress
