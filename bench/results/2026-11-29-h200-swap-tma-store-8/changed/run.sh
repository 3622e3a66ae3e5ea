#!/bin/bash
# (1) A/B ref 659327a vs new (tw8 catalog rows) over the calls whose pick changes; (2) probe of wide swap-AB tiles on mid shapes.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
ref=/tmp/ref; rm -rf $ref; mkdir -p $ref; tar xf scratch/ab/ref.tar -C $ref
( cmake -S $ref -B $ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=659327a > $o/build-ref.log 2>&1 &&
  cmake --build $ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
wait || true
[ -x $ref/b/hgemm ] || { echo REF BUILD FAILED; tail -20 $o/build-ref.log; exit 1; }
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
# Probe configs through the JIT, built while the A/B runs.
P=sm90_ws_
probe=(232x128x64_s4_c1x1_w2_m8_st 240x128x64_s4_c1x1_w2_m8_st 112x256x64_s4_c1x1_w2_m8_st 112x256x64_s4_c1x1_w2_m8_tma
       96x256x64_s4_c1x1_w2_m8_tma 232x128x64_s3_c1x1_w2_m8_tma 224x128x64_s4_c1x1_w2_m8_tma)
pn=(); for p in "${probe[@]}"; do pn+=($P${p}_sk1_f32_tn_swap); done
( HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc b/hgemm jit build "${pn[@]}" --jobs 4 > $o/jit.log 2>&1
  for n in "${pn[@]}"; do b/hgemm jit source $n > /tmp/$n.cu && nvcc -std=c++20 -O3 -DNDEBUG --expt-relaxed-constexpr -Iinclude -Ib/include -Isrc \
    -gencode=arch=compute_90a,code=sm_90a -cubin -o /tmp/$n.cubin -Xptxas=-v /tmp/$n.cu > $o/ptxas-$n.log 2>&1; done ) &
jitpid=$!
round=0
for acc in f32 f32 f16; do
  round=$((round+1))
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=$ref/b/hgemm
    for lay in tn nn; do
      f=scratch/ab/tw8-$acc-$lay.txt; [ -s $f ] || continue
      $bin bench --suite $f --impl hgemm,cublaslt-best --modes graph --layout $lay --acc $acc \
        --out $o/ab-run-tw8-$lay-$side-$round-$acc.csv >> $o/ab-$acc-$lay-$side.log 2>&1 || echo "bench rc=$? $side $lay $acc"
    done
  done
  echo "$acc ab round done $(( $(date +%s) - t0 )) s"
done
wait $jitpid; echo "jit done $(( $(date +%s) - t0 )) s"; tail -8 $o/jit.log; grep -h "registers\|spill" $o/ptxas-*.log | sort | uniq -c | head -20
tar czf $OUT/all.tgz -C $o .
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
vf=0
for n in "${pn[@]}"; do timeout 60 b/hgemm verify --suite edge --impl config:$n --layout tn --acc f32 --out $o/verify-$n.csv >> $o/verify.log 2>&1 || { vf=1; echo "VERIFY FAIL $n"; }; done
timeout 60 b/hgemm verify --suite scratch/ab/probe-shapes.txt --impl config:${pn[0]} --layout tn --acc f32 --out $o/verify-probe0.csv >> $o/verify.log 2>&1 || { vf=1; echo "VERIFY FAIL probe shapes"; }
echo "verify fail=$vf $(( $(date +%s) - t0 )) s"
impls=hgemm,cublaslt-best; for n in "${pn[@]}"; do impls=$impls,config:$n; done
for r in 1 2; do
  i=0
  while read -r m n k; do
    i=$((i+1))
    [ $(( $(date +%s) - t0 )) -gt 560 ] && { echo "time: probe stopped at round $r shape $i"; break 2; }
    timeout 60 b/hgemm bench --shape ${m}x${n}x${k} --impl $impls --modes graph --layout tn --acc f32 --loops 9 \
      --out $o/probe-$i-$r.csv >> $o/probe.log 2>&1 || echo "probe fail $m $n $k"
  done < scratch/ab/probe-shapes.txt
  echo "probe round $r $(( $(date +%s) - t0 )) s"
done
tar czf $OUT/all.tgz -C $o .
