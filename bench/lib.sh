# bench/lib.sh: what bench/mysql.sh and bench/mongodb.sh share. Sourced, not run.
#
# A run appends one row per (round, connections, workload, path) to the file
# named by $runs:
#   round conns workload path ops/s p50 p99 proxy_cpu server_cpu client_cpu
# (latencies and CPU per operation in µs; a CPU the script cannot read is -1),
# and bench_summary prints the medians over the rounds and the three readings
# of "what the Sidecar adds" (docs/performance.md, "Reading the numbers").

# ticks pid: CPU time the process has used, in clock ticks (user + system); 0
# without a pid, -1 when it cannot be read.
ticks() {
  [ -n "$1" ] || { echo 0; return; }
  awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo -1
}

# field line key: the value of key=value in a load generator's result line.
field() { tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# measure round conns workload path server_pid proxy_pid command…: runs the
# load generator command (it prints a bench/internal/loadgen line), adds the
# CPU the server and the proxy used meanwhile, appends the row to $runs and
# prints it.
measure() {
  local round=$1 conns=$2 workload=$3 path=$4 spid=$5 ppid=$6
  shift 6
  local s0 p0 s1 p1 line
  s0=$(ticks "$spid") p0=$(ticks "$ppid")
  line=$("$@") || { echo "bench: the load generator failed on $path" >&2; return 1; }
  s1=$(ticks "$spid") p1=$(ticks "$ppid")
  [ "$(field "$line" errors)" = 0 ] || echo "bench: $path: $(field "$line" errors) operations failed" >&2
  awk -v r="$round" -v c="$conns" -v w="$workload" -v p="$path" -v n="$(field "$line" requests)" \
    -v rps="$(field "$line" rps)" -v p50="$(field "$line" p50)" -v p99="$(field "$line" p99)" -v cl="$(field "$line" cpu)" \
    -v s0="$s0" -v s1="$s1" -v x0="$p0" -v x1="$p1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
      sv = (s0 < 0 || s1 < 0 || n == 0) ? -1 : 1e6 * (s1 - s0) / hz / n
      pv = (x0 < 0 || x1 < 0 || n == 0) ? -1 : 1e6 * (x1 - x0) / hz / n
      printf "%s %s %s %s %s %s %s %.1f %.1f %s\n", r, c, w, p, rps, p50, p99, pv, sv, cl
    }' >>"$runs"
  tail -n1 "$runs" | awk '{ printf "%-5s %5s %-8s %-9s %9.0f %7d %7d %8s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, cpu($8), cpu($9), cpu($10) }
    function cpu(v) { return v < 0 ? "-" : sprintf("%.1f", v) }'
}

# bench_header: the column heads of measure's rows.
bench_header() {
  printf '%-5s %5s %-8s %-9s %9s %7s %7s %8s %8s %8s\n' round conns workload path "ops/s" "p50 µs" "p99 µs" "proxy" "server" "client"
}

# bench_summary: medians over the rounds of each (conns, workload, path), then
# the readings for each (conns, workload), against "direct".
bench_summary() {
  awk '
    function median(s,   a, k, i) { k = split(s, a, " "); if (k == 0) return -1; asort(a); return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    function cpu(v) { return v < 0 ? "-" : sprintf("%.1f", v) }
    function pct(a, b) { return b > 0 ? sprintf("%.0f%%", 100 * a / b) : "-" }
    {
      key = $2 SUBSEP $3 SUBSEP $4
      if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
      if (!(($2 SUBSEP $3) in seenCW)) { seenCW[$2 SUBSEP $3] = 1; cw[++ncw] = $2 SUBSEP $3 }
      if (!($4 in seenP)) { seenP[$4] = 1; paths[++np] = $4 }
      rps[key] = rps[key] " " $5; p50[key] = p50[key] " " $6; p99[key] = p99[key] " " $7
      if ($8 >= 0) px[key] = px[key] " " $8
      if ($9 >= 0) sv[key] = sv[key] " " $9
      cl[key] = cl[key] " " $10
    }
    END {
      printf "\nmedians of the rounds (CPU per operation in µs: proxy, server, client)\n"
      printf "%5s %-8s %-9s %9s %7s %7s %8s %8s %8s\n", "conns", "workload", "path", "ops/s", "p50 µs", "p99 µs", "proxy", "server", "client"
      for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, f, SUBSEP)
        M[k, "rps"] = median(rps[k]); M[k, "p50"] = median(p50[k]); M[k, "p99"] = median(p99[k])
        M[k, "px"] = median(px[k]); M[k, "sv"] = median(sv[k]); M[k, "cl"] = median(cl[k])
        printf "%5s %-8s %-9s %9.0f %7d %7d %8s %8s %8s\n", f[1], f[2], f[3], M[k, "rps"], M[k, "p50"], M[k, "p99"], cpu(M[k, "px"]), cpu(M[k, "sv"]), cpu(M[k, "cl"])
      }
      printf "\nreadings of \"what a proxy adds per operation\", each against direct (docs/performance.md)\n"
      printf "%5s %-8s %-9s %11s %13s %17s %19s\n", "conns", "workload", "path", "throughput", "p50 added", "CPU above relay", "CPU of the hop"
      for (j = 1; j <= ncw; j++) {
        split(cw[j], g, SUBSEP); d = cw[j] SUBSEP "direct"; r = cw[j] SUBSEP "relay"
        dcpu = (M[d, "sv"] >= 0 ? M[d, "sv"] : 0) + M[d, "cl"]
        for (q = 1; q <= np; q++) {
          if (paths[q] == "direct") continue
          k = cw[j] SUBSEP paths[q]
          if (!(k in seen)) continue
          added = M[k, "p50"] - M[d, "p50"]
          above = (paths[q] == "relay" || M[k, "px"] < 0 || M[r, "px"] < 0) ? "" : sprintf("%+.1fµs %s", M[k, "px"] - M[r, "px"], pct(M[k, "px"] - M[r, "px"], dcpu))
          hop = M[k, "px"] < 0 ? "-" : sprintf("%.1fµs %s", M[k, "px"], pct(M[k, "px"], dcpu))
          printf "%5s %-8s %-9s %11s %+7dµs %4s %17s %19s\n", g[1], g[2], paths[q], pct(M[k, "rps"], M[d, "rps"]), added, pct(added, M[d, "p50"]), above, hop
        }
        printf "%5s %-8s %-9s direct CPU per operation (server + client): %.1fµs%s\n", g[1], g[2], "", dcpu, M[d, "sv"] < 0 ? " (server not read: client only)" : ""
      }
      print "(throughput: ops/s as a share of direct; p50 added: the median latency above direct, in µs and as a share"
      print " of the direct median; CPU above relay: the proxy CPU per operation beyond the bare relay, in µs and as a"
      print " share of the direct path'"'"'s CPU per operation (server + client); CPU of the hop: the proxy'"'"'s whole CPU per"
      print " operation, the same way. The server is shared with anything else on this machine that uses it.)"
    }' "$runs"
}
