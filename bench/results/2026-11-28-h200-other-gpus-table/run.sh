#!/usr/bin/env bash
# The session's one device call (2026-11-28, H200): build, the GPU tests the unverified commits
# touch, `hgemm info`, column-major A of at most 16 rows on the decode path, and the held-out
# fifth untuned through the H100's table (found as another GPU's table) and through none.
#   HGEMM_GIT_HASH=H bash bench/results/2026-11-28-h200-other-gpus-table/run.sh
set -u
W=/tmp/r; rm -rf $W; mkdir -p $W
save() { tar czf $OUT/r.tgz.tmp -C $W . && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
step() {  # name timeout command...
  local name=$1 limit=$2; shift 2
  local t=$(date +%s)
  timeout $limit "$@" > $W/$name.log 2>&1 < /dev/null
  echo "$name: rc=$? $(( $(date +%s) - t )) s"
  save
}
export HGEMM_USER_TABLE=/tmp/absent-user.table   # the device's /tmp outlives sessions
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
    --format=csv; nvcc --version | tail -1; echo "git ${HGEMM_GIT_HASH:-?}"; } > $W/env.txt
cat $W/env.txt
b=build-gpu
t0=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON \
  -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:-unknown} > $W/build.log 2>&1 &&
cmake --build $b -j16 --target hgemm_cli test_gemm_general test_api_gpu test_decode_family \
  test_first_call test_sm90_family >> $W/build.log 2>&1 || { tail -30 $W/build.log; save; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
step info 30 $b/hgemm info
step tests 200 ctest --test-dir $b --output-on-failure -R \
  '^(test_first_call|test_api_gpu|test_decode_family|memcheck_gemm_general|test_sm90_family|test_gemm_general)$'
grep -E "tests passed|Failed|\*\*\*" $W/tests.log
step acol 40 $b/hgemm bench --shape 1x4608x3584,8x7168x5120,16x14336x4096,13x4096x14336 \
  --impl hgemm,hgemm-acol,cublaslt-best --modes graph --layout tn --acc f32 --out $W/acol.csv
# "other": the shipped directory as a user has it, which holds no H200 table; "none": an empty
# HGEMM_DB directory, so the cost heuristic and the decode rule alone.
mkdir -p $W/none
heldout() {
  step heldout-$1 75 $b/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph \
    --layout tn --acc f32 --out $W/heldout-$1.csv
}
(unset HGEMM_DB; heldout other)
HGEMM_DB=$W/none heldout none
python3 bench/results/2026-11-28-h200-other-gpus-table/summary.py $W/heldout-*.csv
grep -v "^#" $W/acol.csv | cut -d, -f1-3,6,8,9
save
