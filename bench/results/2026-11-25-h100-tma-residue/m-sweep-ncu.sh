#!/usr/bin/env bash
set -u
W=/tmp/e4; rm -rf $W; mkdir -p $W
H=build-gpu/hgemm
C=sm90_ws_64x96x64_s10_c1x1_w1_m2_st_sk1_f32_tn
$H bench --shape 100x5120x13824,120x5120x13824,127x5120x13824,128x5120x13824,64x5120x13824,36x5120x13824 --impl config:$C,config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn,config:sm90_ws_64x128x64_s6_c1x1_w1_m8_st_sk1_f32_tn --modes graph --layout tn --acc f32 --loops 9 --out $W/b.csv < /dev/null > $W/b.log 2>&1
D=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,smsp__inst_executed.sum
for S in 100x5120x13824 128x5120x13824; do
  timeout 100 ncu --clock-control none --csv --metrics $D --kernel-name regex:sm90_ws --launch-skip 3 --launch-count 1 \
    $H bench --shape $S --impl config:$C --modes offline --layout tn --acc f32 --loops 5 --out $W/n.csv < /dev/null > $W/ours-$S.csv 2> $W/ours-$S.err
done
cd $W && tar czf $OUT/e4.tgz .
