# Sourced by scripts/deps.sh (make deps) and by scripts/test-pact.sh, from the
# repository root. Installs libpact_ffi 0.4.x, which pact-go v2.4.2 links
# (docs/contract-testing.md), from the npm registry only: the npm package
# @pact-foundation/pact-core-linux-x64-glibc@18.1.0 ships it as
# prebuilds/linux-x64/libpact_ffi.so (20.x ships 0.5.x, which lacks symbols
# pact-go needs). Idempotent: npm runs only when that file or version is
# missing. Sets PACT_LIB_DIR to the folder that holds the library.
PACT_CORE_VERSION=18.1.0
PACT_CORE_PKG=@pact-foundation/pact-core-linux-x64-glibc
PACT_LIB_DIR="$PWD/.tools/pact/node_modules/$PACT_CORE_PKG/prebuilds/linux-x64"
export PACT_LIB_DIR

pact_installed() {
  [ -f "$PACT_LIB_DIR/libpact_ffi.so" ] &&
    grep -q "\"version\": \"$PACT_CORE_VERSION\"" "$PACT_LIB_DIR/../../package.json" 2>/dev/null
}

if ! pact_installed; then
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "deps: the Pact tests need $PACT_CORE_PKG, which is for Linux x86_64 with glibc; this is $(uname -s) $(uname -m)" >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "deps: npm is needed to install $PACT_CORE_PKG@$PACT_CORE_VERSION (libpact_ffi)" >&2
    return 1
  fi
  echo "deps: npm install $PACT_CORE_PKG@$PACT_CORE_VERSION into .tools/pact (libpact_ffi for the Pact tests)"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix .tools/pact "$PACT_CORE_PKG@$PACT_CORE_VERSION"
  if ! pact_installed; then
    echo "deps: $PACT_CORE_PKG@$PACT_CORE_VERSION did not bring $PACT_LIB_DIR/libpact_ffi.so" >&2
    return 1
  fi
fi

# cgo (pact-go links libpact_ffi) needs a C compiler; the machine kind ships
# gcc, but install it from Debian if it is missing.
if ! command -v gcc >/dev/null 2>&1; then
  echo "deps: installing Debian packages gcc libc6-dev (cgo for the Pact tests)"
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null
fi
