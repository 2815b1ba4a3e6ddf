# lib-measure.sh: wall and CPU seconds for the benchmark scripts, sourced
# by them.  Needs $work, a scratch directory of the caller's.

now () { date +%s.%N; }
# Seconds since $1 (a `now`).
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# The CPU seconds (user and system) of every process this shell has
# waited for, the sandboxed harnesses and compilers too: the second line
# of the shell's own `times`, which must run in this shell, not in a
# command substitution's.  cpu_mark NAME keeps it; cpu_between A B prints
# what was used between two marks.
cpu_mark () { times >"$work/times.$1"; }
cpu_between () {
	awk 'FNR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] }
		v[++n] = s } END { printf "%.2f\n", v[2] - v[1] }' "$work/times.$1" "$work/times.$2"
}

# median_of FILE LABEL FIELD: the median of FIELD over FILE's lines whose
# first field is LABEL.
median_of () {
	awk -v l="$2" -v f="$3" '$1 == l { v[++n] = $f }
		END {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			printf "%.2f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}' "$1"
}
