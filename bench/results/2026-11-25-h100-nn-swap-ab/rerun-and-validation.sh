#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/w5; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=OFF > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/env.txt
(cd build-gpu && timeout 300 ctest -R "^(test_decode_family|test_gemm_general|memcheck_gemm_general)$" --output-on-failure > $W/tests.log 2>&1); echo "tests rc $? $(( $(date +%s) - T0 )) s"
grep -E "Test +#|passed, |tests passed" $W/tests.log | tail -8
export HGEMM_USER_TABLE=/tmp/absent
S=$(cat scratch/val-shapes.txt)
timeout 100 $H bench --shape $S --impl hgemm,cublaslt-best,config:decode_n64_k32_s4_w8_f32_nn,config:decode_n128_k32_s4_w4_f32_nn --modes graph --layout nn --acc f32 --out $W/val-nn-f32.csv < /dev/null > $W/val.log 2>&1
echo "val rc $? $(( $(date +%s) - T0 )) s"
for acc in f32 f16; do
  [ $(( $(date +%s) - T0 )) -gt 480 ] && break
  timeout 100 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $W/heldout-$acc.csv < /dev/null > $W/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
done
cd $W && tar czf $OUT/w5.tgz *.csv *.log env.txt
