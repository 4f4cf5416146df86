# bench/lib.sh: what the bench scripts share (bench/mysql.sh and bench/mongodb.sh all of it;
# grpc.sh, http.sh and pgbench.sh free_port and wait_port, grpc.sh and pgbench.sh machine_ticks and
# machine_use; mssql.sh free_port, wait_port, field and ticks). Sourced, not run.
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

# machine_ticks: busy and idle clock ticks of all CPUs so far (/proc/stat's
# cpu line: user nice system irq softirq steal, then idle iowait).
machine_ticks() {
  awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat
}

# machine_use "busy0 idle0" "busy1 idle1" ops: the machine's busy CPU µs per
# operation and the share (%) of CPU time left idle between two readings.
machine_use() {
  awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; id = y[2] - x[2]
    if (n <= 0 || busy + id <= 0) { print "- -"; exit }
    printf "%.1f %.0f\n", busy / hz * 1e6 / n, 100 * id / (busy + id) }'
}

# free_port: a TCP port free on 127.0.0.1 now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

# wait_port port: waits up to 10 s until something accepts on it.
wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# start_sidecars binary: starts the Sidecar (the script's start_sidecar
# binary port name, which leaves the pid in $started) on a free port, and the
# older build SIDECAR_BASE_BIN, when set, on another: sets listen_port,
# sidecar_pid, base_port and base_pid (empty without SIDECAR_BASE_BIN).
start_sidecars() {
  listen_port=$(free_port)
  start_sidecar "$1" "$listen_port" sidecar
  sidecar_pid=$started
  base_port="" base_pid=""
  if [ -n "${SIDECAR_BASE_BIN:-}" ]; then
    base_port=$(free_port)
    start_sidecar "$SIDECAR_BASE_BIN" "$base_port" base
    base_pid=$started
  fi
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
# the readings for each (conns, workload) against "direct", each taken within
# a round (the paths of a round ran back to back) and then the median over
# the rounds: the load of a shared machine moves whole rounds.
bench_summary() {
  awk '
    function median(s,   a, k) { k = split(s, a, " "); if (k == 0) return "x"; asort(a); return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    function cpu(v) { return v == "x" || v < 0 ? "-" : sprintf("%.1f", v) }
    function add(arr, k, v) { arr[k] = arr[k] " " v }
    {
      cw = $2 SUBSEP $3; key = cw SUBSEP $4
      if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
      if (!(cw in seenCW)) { seenCW[cw] = 1; cws[++ncw] = cw }
      if (!($4 in seenP)) { seenP[$4] = 1; paths[++np] = $4 }
      add(rps, key, $5); add(p50, key, $6); add(p99, key, $7)
      if ($8 >= 0) add(px, key, $8)
      if ($9 >= 0) add(sv, key, $9)
      add(cl, key, $10)
      R[$1, key, "rps"] = $5; R[$1, key, "p50"] = $6; R[$1, key, "px"] = $8; R[$1, key, "sv"] = $9; R[$1, key, "cl"] = $10
      rounds[$1] = 1
    }
    END {
      printf "\nmedians of the rounds (CPU per operation in µs: proxy, server, client)\n"
      printf "%5s %-8s %-9s %9s %7s %7s %8s %8s %8s\n", "conns", "workload", "path", "ops/s", "p50 µs", "p99 µs", "proxy", "server", "client"
      for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, f, SUBSEP)
        printf "%5s %-8s %-9s %9.0f %7d %7d %8s %8s %8s\n", f[1], f[2], f[3], median(rps[k]), median(p50[k]), median(p99[k]), cpu(median(px[k])), cpu(median(sv[k])), cpu(median(cl[k]))
      }
      printf "\nreadings of \"what a proxy adds per operation\" against direct: medians of the per-round values\n"
      printf "%5s %-8s %-9s %10s %10s %8s %12s %8s %10s %8s\n", "conns", "workload", "path", "throughput", "p50 added", "", "CPU > relay", "", "CPU of hop", ""
      for (j = 1; j <= ncw; j++) {
        split(cws[j], g, SUBSEP); d = cws[j] SUBSEP "direct"; rl = cws[j] SUBSEP "relay"
        dc = ""
        for (r in rounds) if ((r, d, "rps") in R) dc = dc " " ((R[r, d, "sv"] >= 0 ? R[r, d, "sv"] : 0) + R[r, d, "cl"])
        for (q = 1; q <= np; q++) {
          if (paths[q] == "direct") continue
          k = cws[j] SUBSEP paths[q]
          if (!(k in seen)) continue
          tr = ""; la = ""; lp = ""; ca = ""; cap = ""; ch = ""; chp = ""
          for (r in rounds) {
            if (!((r, k, "rps") in R) || !((r, d, "rps") in R)) continue
            dcpu = (R[r, d, "sv"] >= 0 ? R[r, d, "sv"] : 0) + R[r, d, "cl"]
            tr = tr " " 100 * R[r, k, "rps"] / R[r, d, "rps"]
            la = la " " (R[r, k, "p50"] - R[r, d, "p50"]); lp = lp " " 100 * (R[r, k, "p50"] - R[r, d, "p50"]) / R[r, d, "p50"]
            if (R[r, k, "px"] >= 0 && dcpu > 0) { ch = ch " " R[r, k, "px"]; chp = chp " " 100 * R[r, k, "px"] / dcpu }
            if (paths[q] != "relay" && R[r, k, "px"] >= 0 && ((r, rl, "px") in R) && R[r, rl, "px"] >= 0 && dcpu > 0) {
              ca = ca " " (R[r, k, "px"] - R[r, rl, "px"]); cap = cap " " 100 * (R[r, k, "px"] - R[r, rl, "px"]) / dcpu
            }
          }
          printf "%5s %-8s %-9s %9.0f%% %+8dµs %+7.0f%% %11s %8s %10s %8s\n", g[1], g[2], paths[q], median(tr), median(la), median(lp),
            ca == "" ? "" : sprintf("%+.1fµs", median(ca)), cap == "" ? "" : sprintf("%+.0f%%", median(cap)),
            ch == "" ? "-" : sprintf("%.1fµs", median(ch)), chp == "" ? "" : sprintf("%.0f%%", median(chp))
        }
        printf "%5s %-8s %-9s direct CPU per operation (server + client): %.1fµs\n", g[1], g[2], "", median(dc)
      }
      print "(throughput: ops/s as a share of direct; p50 added: the median latency above direct, in µs and as a share"
      print " of the direct median; CPU > relay: the proxy CPU per operation beyond the bare relay, in µs and as a share"
      print " of the direct path'"'"'s CPU per operation (server + client; server CPU includes whatever else uses that"
      print " server meanwhile); CPU of hop: the proxy'"'"'s whole CPU per operation, and the same share.)"
    }' "$runs"
}
