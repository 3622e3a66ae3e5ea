#!/bin/bash
# Call 6: the widened wave rule with its tie-break (59276f5) against main, alternated three times, f32
# graph mode, both layouts, on the llm-fresh and llm-heldout shapes whose pick it changes.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
( while true; do tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 20; done ) &
arch=$!
export HGEMM_GIT_HASH=$HASH HGEMM_USER_TABLE=/tmp/absent-user.table
AB_REF=scratch/call6/main.tar AB_REF_HASH=1a67bb9 AB_ROUNDS=3 AB_LAYOUTS=tn,nn \
  timeout 330 scripts/gpu-check $o ab-scratch/call6/changed.txt > $o/console.log 2>&1
echo "ab rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; rm -rf $o/build*.log.gz; gzip -9 $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -3 $o/console.log
