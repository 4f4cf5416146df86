# Sourced by the bench scripts (bench/*.sh) after `cd` to the repository
# root: the helpers they share.

free_port() { # prints a loopback port free now
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

wait_port() { # port: waits up to 10 s until something accepts on it
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
