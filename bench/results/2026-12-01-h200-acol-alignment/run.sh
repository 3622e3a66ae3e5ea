#!/bin/bash
# GPU suite at main (the rest of the suite after the PDL prologue), then the column-major A
# alignment probe on the same build.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 20; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
TESTS_CPU=0 TESTS_STOP_AFTER=${STOP:-500} scripts/gpu-check $o/tests tests > $o/gpu-check.log 2>&1
echo "tests rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  [ $(( $(date +%s)-t0 )) -lt 560 ] && timeout 30 build-gpu/hgemm bench --suite scratch/acol-align.txt --impl hgemm,hgemm-acol --modes graph --layout tn --acc f32 --out $o/align-$r.csv > $o/align-$r.log 2>&1
  echo "align $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -E "passed|tests failed|Failed|\*\*\*" $o/tests/*.log 2>/dev/null | tail -8; zcat $o/gpu-check.log.gz | tail -15
