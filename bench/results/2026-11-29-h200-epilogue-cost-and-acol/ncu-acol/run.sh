#!/bin/bash
# The column-major-A call against the row-major one where both run the same tile (500x2048x2816,
# 64x128 s6, 0.59 of its speed) and where it has no swap-AB tile (37x4096x4096). ncu with source
# counters.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress

S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters --section LaunchStats --section Occupancy"
run() { # name, bench args...
  local name=$1; shift
  timeout 90 ncu --clock-control none $S --kernel-name regex:sm90_ws_gemm --launch-skip 3 --launch-count 1 \
    -o $o/$name b/hgemm bench --modes offline --acc f32 --out $o/$name.csv "$@" > $o/$name.log 2>&1
  echo "$name rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  ncu --import $o/$name.ncu-rep --page details --csv > $o/$name-details.csv 2>/dev/null
  ncu --import $o/$name.ncu-rep --page source --csv --print-source sass > $o/$name-sass.csv 2>/dev/null
  ncu --import $o/$name.ncu-rep --page raw --csv > $o/$name-raw.csv 2>/dev/null
  gzip -9 $o/$name-sass.csv $o/$name-raw.csv
}
run row-500 --shape 500x2048x2816 --impl hgemm --layout tn
run acol-500 --shape 500x2048x2816 --impl hgemm-acol --layout tn
run acol-37 --shape 37x4096x4096 --impl hgemm-acol --layout tn
rm -f $o/*.ncu-rep
kill $arch; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -h "ms" $o/*.log | grep -v "^==" | head -20
