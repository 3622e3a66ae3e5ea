#!/bin/bash
# The GPU suite at the head (gpu-check tests, CPU tests left to CI), then ncu of the 128x256
# tile at 4096^3 with a bias and without: per-instruction stall samples (SourceCounters).
set -u
o=/tmp/g; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
[ -x build-gpu/hgemm ] || { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > $o/build.log 2>&1 && cmake --build build-gpu -j 16 --target hgemm_cli >> $o/build.log 2>&1; }
echo "gpu-check rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for e in bias none; do
  [ $(( $(date +%s)-t0 )) -lt 540 ] || break
  timeout 40 ncu -k regex:sm90_ws --launch-skip 8 --launch-count 1 --section WarpStateStats \
    --section SourceCounters --section InstructionStats -o $o/ncu-$e \
    build-gpu/hgemm bench --shape 4096x4096x4096 --impl hgemm --modes offline --layout tn --acc f32 \
    --epilogue $e --loops 5 --out /tmp/x-$e.csv > $o/ncu-$e.log 2>&1
  echo "ncu $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  ncu -i $o/ncu-$e.ncu-rep --page source --csv --print-source sass > $o/sass-$e.csv 2>> $o/ncu-$e.log
  ncu -i $o/ncu-$e.ncu-rep --page details --csv > $o/details-$e.csv 2>> $o/ncu-$e.log
done
gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; rm -f $o/*.ncu-rep
tar czf $OUT/all.tgz -C $o .
cat $o/progress
