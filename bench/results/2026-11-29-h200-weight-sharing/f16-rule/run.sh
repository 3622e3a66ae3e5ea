#!/bin/bash
# Call 7: share_weights with fp16 accumulation (new) against main 27d91cf (ref), TN f16,
# alternated three times over the four calls it changes and two it does not.
set -u
export HGEMM_USER_TABLE=/tmp/absent-user.table
export AB_REF=scratch/ab/ref3.tar AB_REF_HASH=27d91cf AB_ROUNDS=3 AB_TAG=share16 AB_LAYOUTS=tn AB_ACCS=f16
export ARCHIVE=$OUT/all.tgz HGEMM_GIT_HASH=$NEW_HASH
timeout 400 scripts/gpu-check /tmp/gt ab-scratch/ab/f16share.txt (f16share.txt here)
rc=$?
tar czf $OUT/all.tgz -C /tmp/gt .
echo "rc=$rc"
