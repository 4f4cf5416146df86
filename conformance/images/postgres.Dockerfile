# hoop-test/postgres:15 — Debian's PostgreSQL 15 on the local Debian base, for
# the conformance suites' testcontainers-go path where no registry is reached
# (scripts/test-images.sh builds it; docs/container.md, "Tests"). It behaves
# like the official postgres:15 image run with POSTGRES_HOST_AUTH_METHOD=trust:
# user postgres, no password, port 5432, database postgres.
ARG BASE=hoop-test/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/hoop-pg /run/postgresql \
 && chown postgres:postgres /var/lib/hoop-pg /run/postgresql \
 && su postgres -s /bin/sh -c '/usr/lib/postgresql/15/bin/initdb -D /var/lib/hoop-pg/data --auth=trust --username=postgres --encoding=UTF8 --locale=C.UTF-8' \
 && echo "host all all 0.0.0.0/0 trust" >> /var/lib/hoop-pg/data/pg_hba.conf \
 && echo "host all all ::/0 trust" >> /var/lib/hoop-pg/data/pg_hba.conf
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
CMD ["/usr/lib/postgresql/15/bin/postgres", "-D", "/var/lib/hoop-pg/data", "-c", "listen_addresses=*", "-c", "max_connections=300", "-c", "fsync=off"]
