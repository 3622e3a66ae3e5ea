#!/usr/bin/env bash
set -u
NEW=$1
O=$OUT/acol; mkdir -p $O
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$NEW >/dev/null && cmake --build build-gpu -j16 ) > $O/build.log 2>&1 || { tail -n 30 $O/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/gpu.txt
for acc in f32 f16; do
  timeout 150 build-gpu/hgemm bench --suite scratch/acol.txt --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc $acc --out $O/acol-$acc.csv > $O/acol-$acc.log 2>&1
  echo "bench $acc rc $?" >> $O/rc.txt
done
(cd build-gpu/tests && timeout 200 ./test_gemm_general > $O/test_gemm_general.log 2>&1; echo "tgg rc $?" >> $O/rc.txt)
(cd build-gpu/tests && timeout 120 ./test_harness > $O/test_harness.log 2>&1; echo "harness rc $?" >> $O/rc.txt)
cat $O/rc.txt; tail -n 2 $O/test_gemm_general.log; grep FAIL $O/*.log | head
