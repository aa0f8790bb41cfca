#!/bin/sh
# The corpus's "env" launcher: starts each rank of a job as a hand-written
# launch script does, with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT,
# then waits for them all.
#   launch_env.sh PYTHON SCRIPT
# CORPUS_WORLD ranks on CORPUS_PORT; ranks in CORPUS_SKIP_RANKS ("2 3") are
# never started; CORPUS_RANK_ENV_<r> ("WORLD_SIZE=3 MASTER_PORT=1") is
# added to rank r's environment.
py=$1
script=$2
r=0
while [ "$r" -lt "$CORPUS_WORLD" ]; do
	case " $CORPUS_SKIP_RANKS " in
	*" $r "*) ;;
	*)
		eval "extra=\${CORPUS_RANK_ENV_$r:-}"
		# shellcheck disable=SC2086
		env RANK=$r LOCAL_RANK=$r WORLD_SIZE="$CORPUS_WORLD" \
			MASTER_ADDR=127.0.0.1 MASTER_PORT="$CORPUS_PORT" \
			$extra "$py" "$script" &
		;;
	esac
	r=$((r + 1))
done
wait
