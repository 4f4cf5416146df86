# hoop-test/mariadb:10.11 — Debian's MariaDB 10.11 on the local Debian base,
# for the conformance suites' testcontainers-go path where no registry is
# reached (scripts/test-images.sh builds it; docs/container.md, "Tests"). It
# behaves like the official mariadb:10.11 image run with
# MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1 and MARIADB_DATABASE=test: root without
# a password from any host, port 3306, database test.
ARG BASE=hoop-test/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mariadb-server \
 && rm -rf /var/lib/apt/lists/* /var/lib/mysql/* \
 && mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld \
 && mariadb-install-db --user=mysql --datadir=/var/lib/mysql --auth-root-authentication-method=normal --skip-test-db >/dev/null \
 && (mariadbd --user=mysql --skip-networking --socket=/run/mysqld/boot.sock & \
     for i in $(seq 60); do mariadb --socket=/run/mysqld/boot.sock -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done; \
     mariadb --socket=/run/mysqld/boot.sock -e "CREATE DATABASE test; CREATE USER 'root'@'%' IDENTIFIED BY ''; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION; FLUSH PRIVILEGES;" \
     && mariadb-admin --socket=/run/mysqld/boot.sock shutdown)
EXPOSE 3306
CMD ["mariadbd", "--user=mysql", "--bind-address=0.0.0.0", "--port=3306", "--skip-name-resolve", "--max-connections=300"]
