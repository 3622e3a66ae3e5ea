#!/usr/bin/env bash
# One device call (2026-11-28, H200): the build, then
#  1. small-M split: the swap-AB tile that holds M (32, 40 or 48 wide, one consumer warpgroup)
#     with K split 1 to 4 ways, dispatch and cublaslt-best over shapes.txt (graph, f32, TN);
#  2. issue 20's bars (../2026-11-28-h200-api-bars): bias + GELU against the plain call (twice,
#     alternating), a batch of 64 heads, bf16 against fp16 on the held-out fifth, and A
#     column-major (NT, TT) against row-major.
#   HGEMM_GIT_HASH=H bash bench/results/2026-11-28-h200-small-m-split/run.sh
set -u
here=bench/results/2026-11-28-h200-small-m-split
api=bench/results/2026-11-28-h200-api-bars
W=/tmp/r; rm -rf $W; mkdir -p $W/split $W/api
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
cmake --build $b -j16 --target hgemm_cli >> $W/build.log 2>&1 || { tail -30 $W/build.log; save; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
h=$b/hgemm
for w in 32 40 48; do
  lo=$(( w == 32 ? 0 : w - 8 ))
  awk -v lo=$lo -v hi=$w '$1 > lo && $1 <= hi' $here/shapes.txt > $W/split/shapes-$w.txt
  impls=hgemm,cublaslt-best
  for s in 1 2 3 4; do impls+=",config:sm90_ws_${w}x64x64_s12_c1x1_w1_m8_st_sk${s}_f32_tn_swap"; done
  step split/w$w 90 $h bench --suite $W/split/shapes-$w.txt --impl $impls --modes graph \
    --layout tn --acc f32 --out $W/split/split-w$w.csv
done
for r in 1 2; do
  for e in none bias_gelu; do
    impls=hgemm,cublaslt-best; [ $e = none ] || impls+=,hgemm-unfused
    step api/epi-$e-$r 60 $h bench --suite $api/epilogue-shapes.txt --impl $impls --modes graph \
      --layout tn --acc f32 --epilogue $e --out $W/api/epi-$e-$r.csv
  done
done
step api/batch 60 $h bench --shape 128x128x64 --batch 64 --impl hgemm,hgemm-loop,cublaslt-best \
  --modes graph,latency --layout tn,nn --acc f32 --out $W/api/batch64-f32.csv
for d in f16 bf16; do
  step api/heldout-$d 60 $h bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph \
    --layout tn,nn --acc f32 --dtype $d --out $W/api/heldout-$d.csv
done
step api/acol 60 $h bench --suite $api/epilogue-shapes.txt --impl hgemm,hgemm-acol --modes graph \
  --layout tn,nn --acc f32 --out $W/api/acol-f32.csv
