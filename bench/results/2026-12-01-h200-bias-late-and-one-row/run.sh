#!/bin/bash
# bias words read late (+ one column-major row read as a row) against main f2a3b9e (ref).
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=f2a3b9e > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=f2a3b9e+bias-late > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general test_sm90_family test_api_gpu >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-480} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
ab() {  # round epilogue
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
      --dtype f16 --epilogue $2 --out $o/epi-$side-$1-$2.csv > $o/epi-$side-$1-$2.log 2>&1
    echo "$side $1 $2 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
}
go && ab 1 bias
go && ab 1 bias_gelu
go && ab 2 bias
for side in ref new; do
  bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
  for l in tn nn; do
    go 450 && $bin bench --suite scratch/ab/acol-shapes.txt --impl hgemm,hgemm-acol --modes graph --layout $l --acc f32 \
      --out $o/acol-$side-$l.csv > $o/acol-$side-$l.log 2>&1
    echo "acol $side $l rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
go 400 && timeout 150 b/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 500 && timeout 60 b/test_api_gpu > $o/test_api_gpu.log 2>&1; echo "test_api_gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 520 && timeout 50 b/test_sm90_family > $o/test_sm90_family.log 2>&1; echo "test_sm90_family rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 520 && ab 2 bias_gelu
gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz -C $o .
cat $o/progress
