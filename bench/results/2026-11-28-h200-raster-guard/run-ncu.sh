#!/bin/bash
set -u
t0=$(date +%s); out=${OUT:?}
export HGEMM_USER_TABLE=/tmp/absent-user.table
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:?} > $out/build.log 2>&1 &&
  cmake --build build-gpu -j $(nproc) --target hgemm_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for r in m1 m8; do
  timeout 120 ncu --clock-control none --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,launch__grid_size \
    --kernel-name regex:sm90_ws --launch-skip 20 --launch-count 3 \
    build-gpu/hgemm bench --shape 37x4096x4096 --impl config:sm90_ws_32x64x64_s12_c1x1_w2_${r}_st_sk1_f32_nn_swap \
    --modes offline --layout nn --acc f32 --out $out/ncu-$r.csv > $out/ncu-$r.log 2>&1
  echo "ncu $r rc=$? $(( $(date +%s) - t0 )) s"
  grep -E "dram__bytes_read|lts__t_sectors_srcunit|hit_rate|gpu__time_duration|grid_size" $out/ncu-$r.log | tail -5
done
tar czf /tmp/all.tgz -C $out . && rm -f $out/* && mv /tmp/all.tgz $out/
