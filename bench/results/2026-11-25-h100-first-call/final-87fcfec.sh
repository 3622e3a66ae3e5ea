#!/usr/bin/env bash
T0=$(date +%s)
W=/tmp/o/final2; rm -rf $W; mkdir -p $W
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON -DHGEMM_GIT_HASH=$1 > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
{ echo "git: $1"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $W/env.txt
(cd build-gpu && timeout 330 ctest -V -L gpu -R "^(test_first_call|test_sm90_family|memcheck_sm90|memcheck_jit|test_api_gpu|test_jit|test_harness|cli_bench_line_times_long_names|python_gpu_variants_gpu)$" > $W/tests-gpu.log 2>&1); echo "tests rc $? $(( $(date +%s) - T0 )) s"
grep -E "tests passed|\(Failed\)|first call f32" $W/tests-gpu.log
for i in 1 2; do build-gpu/tests/test_first_call 2>&1 | grep "first call"; done | tee $W/first-call-more.txt
H=build-gpu/hgemm
for acc in f32 f16; do
  [ $(( $(date +%s) - T0 )) -gt 540 ] && break
  HGEMM_USER_TABLE=/tmp/absent timeout 25 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $W/heldout-$acc.csv < /dev/null > $W/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
done
cd $W && tar czf $OUT/final2.tgz .
