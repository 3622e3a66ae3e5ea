#!/usr/bin/env bash
# The stream-model decode rule on the H200 (2026-11-28): the full build, `hgemm info`, the
# held-out fifth untuned against cublaslt-best (f32 twice, f16 once; graph and latency, both
# layouts), and the sweep's shapes through dispatch alone against cublaslt-best (the decode bar,
# with the copy bandwidth of the same run in the CSV's header).
#   HGEMM_GIT_HASH=H bash bench/results/2026-11-28-h200-decode-rule/check.sh
set -u
here=bench/results/2026-11-28-h200-decode-rule
W=/tmp/r; rm -rf $W; mkdir -p $W
save() { tar czf $OUT/r.tgz.tmp -C $W . && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
step() {  # name timeout command...
  local name=$1 limit=$2; shift 2
  local t=$(date +%s)
  timeout $limit "$@" > $W/$name.log 2>&1 < /dev/null
  echo "$name: rc=$? $(( $(date +%s) - t )) s"
  save
}
export HGEMM_USER_TABLE=/tmp/absent-user.table   # the device's /tmp outlives sessions
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
    --format=csv; nvcc --version | tail -1; echo "git ${HGEMM_GIT_HASH:-?}"; } > $W/env.txt
b=build-gpu
t0=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON \
  -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:-unknown} > $W/build.log 2>&1 &&
cmake --build $b -j16 >> $W/build.log 2>&1 || { tail -30 $W/build.log; save; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
step info 30 $b/hgemm info
grep "^device" $W/info.log
heldout() {  # tag acc
  step heldout-$1 120 $b/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best \
    --modes graph,latency --layout tn,nn --acc $2 --out $W/heldout-$1.csv
}
heldout 1-f32 f32
heldout 1-f16 f16
heldout 2-f32 f32
step decode 90 $b/hgemm bench --suite $here/sweep.txt --impl hgemm,cublaslt-best --modes graph \
  --layout tn --acc f32 --out $W/decode-f32.csv
python3 bench/results/2026-11-28-h200-other-gpus-table/summary.py $W/heldout-*.csv
