#!/bin/bash
# fp16 accumulation: the three-warpgroup tiles deferring their epilogue with a spill (ref, main)
# against storing at the tile's end without one (new): both CLIs built side by side, then
# three-wg.txt in f16, hgemm and cublaslt-best interleaved, alternated, two rounds.
set -u
o=/tmp/o5; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf ref.tar.gz (git archive of main) -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=4a0c4c7 > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=4a0c4c7+nodefer3 > $o/build.log 2>&1 &&
  cmake --build build-ab -j 8 --target hgemm_cli >> $o/build.log 2>&1 || echo "BUILD FAILED" >> $o/progress
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    [ $(( $(date +%s)-t0 )) -lt 230 ] && [ -x $bin ] && $bin bench --suite three-wg.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f16 \
      --out $o/f16-$side-$r.csv > $o/f16-$side-$r.log 2>&1
    echo "f16 $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/spills.txt
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
