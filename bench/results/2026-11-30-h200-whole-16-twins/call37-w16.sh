#!/bin/bash
# Prepared 2026-11-30 (not run). Branch whole-16-twins (w16.patch: the TMA-store twins of 80, 112, 144, 176
# and 208 tokens one stage shallower, so the whole C tile is staged instead of double-buffered 16-row chunks)
# against main over the calls whose kernel it changes (w16-ACC-LAYOUT.txt: llm-fresh, llm-heldout, llm-tune,
# llm and the 288-call prefill probe), three rounds alternated, fp32 and fp16; main built, then the patch and
# a rebuild of the changed catalog shards. Then: if it wins, the sm90 family tests and memcheck (call30.sh),
# and an A/B without the odd-width charge of dispatch/neighbors.cpp (tile_slots), which the slow staging
# may have been the cause of.
# Run: REFHASH=<main> NEWHASH=<branch> bash scratch/ab/call37-w16.sh   (about 5 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/w16.patch 2>/dev/null || true   # the device's tree is the branch: back to main
grep -c "num_stages = 4, .num_consumer_wgs = 2" src/launch/sm90_catalog.hpp
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
git apply scratch/ab/w16.patch || { echo PATCH FAILED; exit 1; }
grep -c "num_stages = 4, .num_consumer_wgs = 2" src/launch/sm90_catalog.hpp
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "builds $(( $(date +%s) - t0 )) s"; grep -c spill $o/build.log
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/
cp scratch/ab/w16-*.txt $o/ab/
for round in 1 2 3; do
  for side in ref new; do
    for acc in f32 f16; do for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/w16-$acc-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay \
        --acc $acc --out $o/ab/ab-run-w16-$lay-$side-$round-$acc.csv >> $o/ab/ab-$lay-$acc-$side.log 2>&1 || echo "bench rc=$? $side $acc $lay"
    done; done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log
tar czf $OUT/all.tgz -C $o .
