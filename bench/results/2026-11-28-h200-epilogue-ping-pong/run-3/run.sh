#!/bin/bash
set -u
t0=$(date +%s); o=$OUT
export HGEMM_USER_TABLE=/tmp/absent-user.table
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > /tmp/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> /tmp/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 /tmp/build.log; }
echo "built $(( $(date +%s)-t0 )) s"
S=4096x4096x512,4096x4096x1024,4096x4096x2048,8192x8192x512,8192x8192x1024,2048x16384x768,1024x16384x1024,2048x8192x512,16384x4096x512,3072x12288x768
for e in none bias_gelu; do
  timeout 60 b/hgemm bench --shape $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --epilogue $e --out $o/epi-rule-$e.csv > $o/epi-rule-$e.log 2>&1
  echo "$e rc=$? $(( $(date +%s)-t0 )) s"; grep " ms:" $o/epi-rule-$e.log
done
