#!/bin/bash
# The whole catalog on two LM-head widths at 300-333 tokens (issue 19's mid-M gap), one run.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; }
HGEMM_PDL=0 timeout 120 b/hgemm tune --shape 300x50264x768,333x50264x768 --layout tn --acc f32 --policy exhaustive \
  --db $o/midm-exhaustive-f32.jsonl --no-user-table --time-limit 100 > $o/tune.log 2>&1
echo "tune rc=$?" >> $o/tune.log
gzip -9 -n $o/*.jsonl; tar czf $OUT/all.tgz -C $o .
tail -8 $o/tune.log
