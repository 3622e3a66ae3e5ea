#!/bin/bash
# 1) Probe (main): three of llm-fresh's lowest fp32 calls (probe39-shapes.txt) against compiled swap-AB tiles
#    other than dispatch's, both layouts, two runs.
# 2) Branch twin-area-112 (ta.patch: kWaveFitTwinMinArea 128x128 -> 112x128, so the 112- and 120-token twins
#    over 128 rows go uncharged from 512 tokens) against main over the 34 fp32 calls it changes
#    (ta-f32-LAYOUT.txt: llm-fresh, llm-heldout, llm-tune/llm and the 288-call prefill probe), three rounds.
# Run: REFHASH=<main> NEWHASH=<branch> bash scratch/ab/call39-ta.sh   (about 5 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/probe
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/ta.patch 2>/dev/null || true   # the device's tree is the branch: back to main
grep -c "kWaveFitTwinMinArea = 128 \* 128" src/dispatch/neighbors.hpp
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/; cp $o/env.txt $o/probe/
cp scratch/ab/probe39-shapes.txt $o/probe/
for run in 1 2; do for lay in tn nn; do
  impls=hgemm,cublaslt-best
  for c in 112x64x64_s8_c1x1_w1_m8_tma 144x64x64_s7_c1x1_w1_m8_tma 160x64x64_s7_c1x1_w1_m8_tma 152x128x64_s5_c1x1_w2_m8_tma \
           160x128x64_s5_c1x1_w2_m8_tma 232x128x64_s3_c1x1_w2_m8_tma 120x128x64_s6_c1x1_w2_m8_tma; do
    impls=$impls,config:sm90_ws_${c}_sk1_f32_${lay}_swap
  done
  timeout 100 /tmp/b/hgemm-ref bench --suite scratch/ab/probe39-shapes.txt --impl $impls --modes graph --layout $lay \
    --acc f32 --out $o/probe/p-$lay-$run.csv > $o/probe/p-$lay-$run.log 2>&1 || echo "probe rc=$? $lay $run"
done; done
echo "probe $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
git apply scratch/ab/ta.patch || { echo PATCH FAILED; exit 1; }
grep -c "kWaveFitTwinMinArea = 112 \* 128" src/dispatch/neighbors.hpp
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 && cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
cp scratch/ab/ta-f32-*.txt $o/ab/
for lay in tn nn; do for side in ref new; do
  /tmp/b/hgemm-$side explain --suite scratch/ab/ta-f32-$lay.txt --layout $lay --acc f32 > $o/ab/explain-$side-$lay.txt 2>&1
done; done
for round in 1 2 3; do
  for side in ref new; do
    for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/ta-f32-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay --acc f32 \
        --out $o/ab/ab-run-ta-$lay-$side-$round-f32.csv >> $o/ab/ab-$lay-f32-$side.log 2>&1 || echo "bench rc=$? $side $lay"
    done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log $o/ab/explain* $o/probe/*.csv $o/probe/*.log
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
