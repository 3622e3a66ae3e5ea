#!/bin/bash
set -u
o=$OUT; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=14e8723 > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__inst_executed.sum,launch__grid_size,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for shape in 384x5120x14336 37x4096x4096 1536x5120x14336; do for sk in 0 1; do
  HGEMM_STREAM_K=$sk timeout 100 ncu --clock-control none --metrics $M --kernel-name regex:sm90_ws --launch-skip 2 --launch-count 2 --csv \
    b/hgemm bench --shape $shape --impl hgemm --modes offline --layout tn --acc f32 --out $o/b-$shape-$sk.csv > $o/ncu-$shape-sk$sk.csv 2> $o/ncu-$shape-sk$sk.err
  echo "$shape sk$sk rc=$? $(( $(date +%s)-t0 )) s"
done; done
for f in $o/ncu-*.csv; do echo "== $f"; grep -E "gpu__time|dram__bytes_read|lts__t_bytes|inst_executed|grid_size|hmma" $f | awk -F'","' '{print $(NF-2), $NF}' | head -14; done
