#!/bin/bash
# The second device call of the ncu probe (the first, ../run-ncu-first-try.sh, asked for a mode
# `hgemm bench` does not have; its test_gemm_general run is ../test_gemm_general-3b8503c+test.log.gz).
# Main 3b8503c's CLI; kernel durations with the clocks free, each kernel alone (ncu serializes).
o=$OUT
(cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=3b8503c > $o/build.log 2>&1 &&
  cmake --build build-ab -j 16 --target hgemm_cli >> $o/build.log 2>&1) || tail -20 $o/build.log
while read m n k; do
  printf "%s %s %s\n" $m $n $k > /tmp/one.txt
  for lay in tn nn; do for impl in hgemm hgemm-acol; do
    timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:transpose|sm90_ws|decode' -c 12 \
      build-ab/hgemm bench --suite /tmp/one.txt --impl $impl --modes offline --layout $lay --acc f32 --out /tmp/x.csv \
      > $o/ncu-$m-$n-$k-$lay-$impl.txt 2>&1
  done; done
done <<'SHAPES'
100 5120 13824
5 4608 36864
96 4096 12288
32 4096 4096
SHAPES
