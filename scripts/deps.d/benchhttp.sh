# bench/http.sh: nginx (the reference reverse proxy, Debian's smallest build)
# and wrk (the load generator). Only the bench uses them; no test does.
apt_install nginx-light nginx
apt_install wrk wrk
