#!/usr/bin/env bash
# The decode rule's data (2026-11-28, H200): every TN decode row, hgemm's dispatch and
# cublaslt-best over sweep.txt (graph, f32), interleaved per shape; the bench's header has the
# copy bandwidth measured in the same run.
#   HGEMM_GIT_HASH=H bash bench/results/2026-11-28-h200-decode-rule/sweep.sh
set -u
here=bench/results/2026-11-28-h200-decode-rule
W=/tmp/r; rm -rf $W; mkdir -p $W
save() { tar czf $OUT/r.tgz.tmp -C $W . && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
export HGEMM_USER_TABLE=/tmp/absent-user.table   # the device's /tmp outlives sessions
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
    --format=csv; nvcc --version | tail -1; echo "git ${HGEMM_GIT_HASH:-?}"; } > $W/env.txt
cat $W/env.txt
b=build-gpu
t0=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON \
  -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:-unknown} > $W/build.log 2>&1 &&
cmake --build $b -j16 --target hgemm_cli >> $W/build.log 2>&1 || { tail -30 $W/build.log; save; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
impls=hgemm,cublaslt-best
for r in n8_k128_s6_w4 n16_k64_s4_w4 n32_k64_s4_w4 n64_k32_s4_w8 n128_k32_s4_w4 n16_k32_s4_w8 \
         n32_k32_s4_w8; do impls+=",config:decode_${r}_f32_tn"; done
t=$(date +%s)
timeout ${SWEEP_LIMIT:-400} $b/hgemm bench --suite $here/sweep.txt --impl $impls --modes graph \
  --layout tn --acc f32 --out $W/sweep-f32.csv > $W/sweep.log 2>&1 < /dev/null
echo "sweep: rc=$? $(( $(date +%s) - t )) s"
save
