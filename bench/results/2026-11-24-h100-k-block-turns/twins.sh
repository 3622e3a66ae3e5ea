#!/usr/bin/env bash
# Measure the w2 twin of each shipped winner that is a 64x96 / swapped 32- or 48-wide one-warpgroup
# tile, appending to copies of the shipped databases (PDL off, as every shipped record).
# Inputs, made on the CPU from the shipped databases before the run: scratch/twins/db-ACC.jsonl.gz
# (a copy of data/tuned/<gpu>-ACC.jsonl.gz) and scratch/twins/list-ACC.txt, one line per
# (layout, twin): "ACC LAYOUT TWIN SUITE", where SUITE lists the "M N K" shapes whose best passing
# record is TWIN with _w1_ for _w2_, for the 64x96x64_s10, 32x64x64_s12 and 48x64x64_s12 tiles.
set -u
T0=$(date +%s)
if [ ! -x build-gpu/hgemm ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $OUT/cmake.log 2>&1
  cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
fi
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
for acc in ${ACCS:-f32 f16}; do
  gunzip -c scratch/twins/db-$acc.jsonl.gz > /tmp/db-$acc.jsonl
  while read -r a lay twin suite; do
    if [ $(( $(date +%s) - T0 )) -gt ${LIMIT:-500} ]; then echo "time limit at $twin"; break; fi
    HGEMM_PDL=0 $H tune --suite $suite --layout $lay --acc $a --budget 1 --policy rl --resume \
      --db /tmp/db-$acc.jsonl --include $twin --no-user-table < /dev/null > /tmp/tune.log 2>&1
    echo "$a $lay $twin rc $? $(wc -l < $suite) shapes $(( $(date +%s) - T0 )) s"
  done < scratch/twins/list-$acc.txt
  gzip -9n -c /tmp/db-$acc.jsonl > $OUT/db-$acc.jsonl.gz
  tail -3 /tmp/tune.log
done
