#!/bin/bash
# padded-c: the GPU tests it touches, then an A/B against main e6eba06 on ragged shapes.
set -u
o=$OUT/r; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xf scratch/ab/ref.tar -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=e6eba06 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 12 >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
(cd b && ctest -L gpu -R 'test_gemm_general|memcheck_gemm_general|padded_c|test_api_gpu|memcheck_sm90$' --output-on-failure > $o/tests.log 2>&1; echo "ctest rc=$?" >> $o/progress)
grep -E "tests passed|Failed|Passed" $o/tests.log | tail -12 >> $o/progress
echo "tests $(( $(date +%s)-t0 )) s" >> $o/progress
wait
for r in 1 2; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    $bin bench --suite scratch/ab/ragged-ab.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
      --out $o/ab-$side-$r-f32.csv > $o/ab-$side-$r-f32.log 2>&1
    echo "$side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
for side in ref new; do
  bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
  $bin bench --suite scratch/ab/ragged-ab.txt --impl hgemm,cublaslt-best --modes graph --layout tn --acc f16 \
    --out $o/ab-$side-1-f16.csv > $o/ab-$side-1-f16.log 2>&1
  echo "$side f16 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
gzip -9 -n $o/*.csv $o/*.log
cat $o/progress
