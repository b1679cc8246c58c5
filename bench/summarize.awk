# summarize.awk — medians and ratios for bench/run.sh (POSIX awk; mawk is fine).
#
# Input: raw rows "mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max"
# [",load1,p999,client_cpu"]. When rows carry p999 and client_cpu (bench/run.sh), the table gets
# the median p99.9 of each server and the median CPU share of redis-benchmark in each server's
# runs (near 100%: the load generator, not the server, set the pace).
# Output: a Markdown table, one line per (test, pipeline, clients) in first-seen order:
# median rps of redis and of ruvio over the rounds, ruvio/redis, median p99 of each, and the
# median over rounds of the paired ratio (ruvio/redis of the two back-to-back runs of one round,
# which cancels slow drift in background load), and the spread (max-min)/median of each
# server's rps so you can see how noisy a row is.
# With -v fsync_us=N (durable mode: the idle fsync latency measured in the same run), two
# more columns: the ceiling clients / fsync_us (a closed-loop client needs one fsync per
# write) and ruvio's median rps as a share of it.
# Usage: awk -f summarize.awk -v ruvio=ruvio [-v fsync_us=N] raw.csv
BEGIN { FS = ","; if (ruvio == "") ruvio = "ruvio" }

function median(list,    v, n, i, j, t) {
	n = split(list, v, " ")
	if (n == 0) return "NA"
	for (i = 2; i <= n; i++) {            # insertion sort, numeric
		t = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]
		v[j + 1] = t
	}
	if (n % 2) return v[(n + 1) / 2] + 0
	return (v[n / 2] + v[n / 2 + 1]) / 2
}
function spread(list,    v, n, i, lo, hi, m) {
	n = split(list, v, " ")
	if (n < 2) return "-"
	lo = hi = v[1] + 0
	for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
	m = median(list)
	if (m == 0) return "-"
	return sprintf("%.0f%%", 100 * (hi - lo) / m)
}
function num(x) { return x ~ /^[0-9.]+$/ }

{
	srv = ($3 == "redis") ? "redis" : "ruvio"
	k = $4 SUBSEP $5 SUBSEP $6
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	if (num($9))  rps[k, srv] = rps[k, srv] " " $9
	if (num($14)) p99[k, srv] = p99[k, srv] " " $14
	if (num($17)) { p999[k, srv] = p999[k, srv] " " $17; ext = 1 }
	if (num($18)) ccpu[k, srv] = ccpu[k, srv] " " $18
	if (num($9)) { one[k, $2, srv] = $9; if (!((k, $2) in rseen)) { rseen[k, $2] = 1; rounds[k] = rounds[k] " " $2 } }
}

END {
	ceil = (fsync_us + 0 > 0)
	printf "| test | -P | -c | redis rps | %s rps | %s/redis | paired ratio | redis p99 ms | %s p99 ms | spread redis / %s |", ruvio, ruvio, ruvio, ruvio
	if (ext) printf " redis p99.9 ms | %s p99.9 ms | client CPU redis / %s |", ruvio, ruvio
	if (ceil) printf " ceiling rps | %s of ceiling |", ruvio
	printf "\n"
	printf "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	if (ext) printf "--:|--:|--:|"
	if (ceil) printf "--:|--:|"
	printf "\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, SUBSEP)
		a = median(rps[k, "redis"]); b = median(rps[k, "ruvio"])
		ratio = (num(a) && num(b) && a > 0) ? sprintf("%.2f", b / a) : "NA"
		pa = median(p99[k, "redis"]); pb = median(p99[k, "ruvio"])
		# paired: ruvio/redis within each round (the two runs are back to back), then the median
		pr = ""; nr = split(rounds[k], rr, " ")
		for (j = 1; j <= nr; j++)
			if (((k, rr[j], "redis") in one) && ((k, rr[j], "ruvio") in one) && one[k, rr[j], "redis"] > 0)
				pr = pr " " (one[k, rr[j], "ruvio"] / one[k, rr[j], "redis"])
		pr = median(pr); pr = num(pr) ? sprintf("%.2f", pr) : pr
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |", toupper(f[1]), f[2], f[3], \
			num(a) ? sprintf("%.0f", a) : a, num(b) ? sprintf("%.0f", b) : b, ratio, pr, \
			num(pa) ? sprintf("%.2f", pa) : pa, num(pb) ? sprintf("%.2f", pb) : pb, \
			spread(rps[k, "redis"]), spread(rps[k, "ruvio"])
		if (ext) {
			qa = median(p999[k, "redis"]); qb = median(p999[k, "ruvio"])
			ca = median(ccpu[k, "redis"]); cb = median(ccpu[k, "ruvio"])
			printf " %s | %s | %s / %s |", num(qa) ? sprintf("%.2f", qa) : qa, num(qb) ? sprintf("%.2f", qb) : qb, \
				num(ca) ? sprintf("%.0f%%", ca) : ca, num(cb) ? sprintf("%.0f%%", cb) : cb
		}
		if (ceil) {
			c = f[3] * f[2] * 1000000 / fsync_us
			printf " %.0f | %s |", c, num(b) ? sprintf("%.0f%%", 100 * b / c) : "NA"
		}
		printf "\n"
	}
}
