#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/wn2; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
D=launch__block_size,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.max,l1tex__data_bank_reads.avg,l1tex__data_bank_writes.avg,l1tex__data_bank_reads.max,l1tex__data_bank_writes.max,lts__t_bytes.sum,lts__t_sectors_srcunit_tex.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_uniform.sum,smsp__warps_issue_stalled_long_scoreboard.sum,smsp__cycles_active.avg
S=1024x576x7168
timeout 120 ncu --clock-control none --csv --metrics $D --kernel-name nvjet_sm90_hsh_96x64_64x10_2x4_h_bz_TNN --launch-skip 2 --launch-count 1 \
  $H bench --shape $S --impl cublaslt-best --modes offline --layout tn --acc f32 --loops 5 --out $W/b0.csv < /dev/null > $W/nvjet.csv 2> $W/nvjet.err
echo "nvjet $(( $(date +%s) - T0 )) s"
i=0
for c in sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c1x1_w2_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c4x2_w1_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c4x1_w1_m8_st_sk1_f32_tn; do
  i=$((i+1))
  timeout 120 ncu --clock-control none --csv --metrics $D --kernel-name regex:sm90_ws --launch-skip 3 --launch-count 1 \
    $H bench --shape $S --impl config:$c --modes offline --layout tn --acc f32 --loops 5 --out $W/b$i.csv < /dev/null > $W/ours-$i.csv 2> $W/ours-$i.err
  echo "$c $(( $(date +%s) - T0 )) s"
done
cd $W && tar czf $OUT/ncu2.tgz *.csv *.err
