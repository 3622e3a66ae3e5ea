#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/wn; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/env.txt
L=launch__block_size,launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum
D=$L,sm__cycles_elapsed.avg.per_second,sm__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__warps_launched.sum
while read s cfg; do
  timeout 100 ncu --clock-control none --csv --metrics $L --kernel-name regex:nvjet --launch-count 300 \
    $H bench --shape $s --impl cublaslt-best --modes offline --layout tn --acc f32 --loops 5 --out $W/b1-$s.csv < /dev/null > $W/list-$s.csv 2> $W/list-$s.err
  name=$(python3 bench/results/2026-11-25-h100-nvjet-clusters/fastest.py $W/list-$s.csv)
  echo "$s fastest nvjet: $name $(( $(date +%s) - T0 )) s"
  timeout 100 ncu --clock-control none --csv --metrics $D --kernel-name "$name" --launch-count 1 \
    $H bench --shape $s --impl cublaslt-best --modes offline --layout tn --acc f32 --loops 5 --out $W/b2-$s.csv < /dev/null > $W/nvjet-$s.csv 2> $W/nvjet-$s.err
  timeout 100 ncu --clock-control none --csv --metrics $D --kernel-name regex:sm90_ws --launch-skip 3 --launch-count 1 \
    $H bench --shape $s --impl config:$cfg --modes offline --layout tn --acc f32 --loops 5 --out $W/b3-$s.csv < /dev/null > $W/ours-$s.csv 2> $W/ours-$s.err
  echo "$s $(( $(date +%s) - T0 )) s"
  [ $(( $(date +%s) - T0 )) -gt 450 ] && break
done <<'LIST'
1024x576x7168 sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn
1025x1536x7168 sm90_ws_72x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap
333x5632x2048 sm90_ws_112x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap
256x7168x16384 sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn
LIST
cd $W && tar czf $OUT/ncu.tgz *.csv *.err env.txt
