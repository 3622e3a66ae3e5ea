#!/usr/bin/env bash
# Decode kernels of two m16 tiles (2026-11-28, H200): the build, the decode family's GPU tests
# (every instance through the verifier, memcheck), then every TN row of block_m 32, dispatch and
# cublaslt-best over sweep32.txt (graph, f32), interleaved per shape.
#   HGEMM_GIT_HASH=H bash bench/results/2026-11-28-h200-decode-rule/sweep32.sh
set -u
here=bench/results/2026-11-28-h200-decode-rule
W=/tmp/r; rm -rf $W; mkdir -p $W
save() { tar czf $OUT/r.tgz.tmp -C $W . && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
export HGEMM_USER_TABLE=/tmp/absent-user.table   # the device's /tmp outlives sessions
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
    --format=csv; nvcc --version | tail -1; echo "git ${HGEMM_GIT_HASH:-?}"; } > $W/env.txt
b=build-gpu
t0=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON \
  -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:-unknown} > $W/build.log 2>&1 &&
cmake --build $b -j16 >> $W/build.log 2>&1 || { tail -30 $W/build.log; save; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
t=$(date +%s)
timeout 240 ctest --test-dir $b --output-on-failure -R '^(test_decode_family|memcheck_decode)$' \
  > $W/tests.log 2>&1 < /dev/null
echo "tests: rc=$? $(( $(date +%s) - t )) s"; grep -E "tests passed|Failed|FAIL" $W/tests.log | head -20
save
impls=hgemm,cublaslt-best
for r in m32_n8_k128_s4_w4 m32_n16_k64_s4_w4 m32_n16_k32_s4_w8 m32_n32_k64_s3_w4 \
         m32_n32_k32_s4_w8 m32_n64_k32_s4_w8; do impls+=",config:decode_${r}_f32_tn"; done
t=$(date +%s)
timeout 200 $b/hgemm bench --suite $here/sweep32.txt --impl $impls --modes graph \
  --layout tn --acc f32 --out $W/sweep32-f32.csv > $W/sweep32.log 2>&1 < /dev/null
echo "sweep32: rc=$? $(( $(date +%s) - t )) s"
save
