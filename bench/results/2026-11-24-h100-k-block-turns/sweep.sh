#!/usr/bin/env bash
# Each line of scratch/pairs.txt: SHAPE:CONFIG:CONFIG..., timed interleaved with cublaslt-best, two rounds.
set -u
T0=$(date +%s)
if [ ! -x build-gpu/hgemm ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $OUT/cmake.log 2>&1
  cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
fi
echo "build done $(( $(date +%s) - T0 )) s"
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc HGEMM_USER_TABLE=/tmp/absent
H=build-gpu/hgemm
NAMES=$(cut -d: -f2- ${PAIRS:-scratch/pairs.txt} | tr ':' '\n' | sort -u | tr '\n' ' ')
$H jit build $NAMES --jobs 16 > $OUT/jit.log 2>&1 || { tail -40 $OUT/jit.log; exit 1; }
echo "jit done $(( $(date +%s) - T0 )) s"
mkdir -p $OUT/csv
for round in 1 2; do
  i=0
  while IFS=: read -r s rest; do
    i=$((i+1))
    impls=$(echo "$rest" | tr ':' '\n' | sed 's/^/config:/' | tr '\n' ',')cublaslt-best
    $H bench --shape $s --impl $impls --modes graph --layout tn --acc ${ACC:-f32} --out $OUT/csv/r$round-$i-$s.csv < /dev/null > $OUT/csv/r$round-$i.log 2>&1 || tail -3 $OUT/csv/r$round-$i.log
    echo "r$round $s: $(grep -v '^#' $OUT/csv/r$round-$i-$s.csv | awk -F, 'NR>1{printf "%s %s %.2f | ", $6, $8, $9*1000}' | sed 's/config:sm90_ws_//g')"
  done < ${PAIRS:-scratch/pairs.txt}
done
echo "all done $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf sweep.tgz csv jit.log && rm -rf csv
