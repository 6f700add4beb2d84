#!/usr/bin/env bash
# Installs Raw's build and test dependencies on Debian 12 and builds Raw
# into ./build. Idempotent: packages already installed are not touched
# (apt is skipped entirely when nothing is missing) and the build is
# incremental.
#
# usage: scripts/setup.sh [--tests] [TARGET...]
#   Builds the given CMake targets (default: `programs`, the programs a user
#   runs). --tests also installs what the tests need beyond the build (the
#   npm packages the tests drive); scripts/test.sh passes it and builds
#   `all`.
# environment:
#   RAW_JOBS   parallel build jobs (default: the number of CPUs)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root="$(pwd)"

say() { printf 'setup: %s\n' "$*"; }

with_tests=0
if [[ "${1:-}" == "--tests" ]]; then
  with_tests=1
  shift
fi

# The Debian packages Raw needs to build and test.
packages=(
  cmake ninja-build g++ pkg-config ccache
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libsqlite3-dev libcurl4-openssl-dev libssl-dev libncurses-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  libboost-dev libre2-dev libpcre2-dev libgumbo-dev libarchive-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev libutf8proc-dev
  scdoc dpkg-dev
  nodejs
  libjs-markdown-it libjs-highlight.js node-dompurify
  tmux procps
  clang libclang-rt-14-dev
)

# Header-only or data-only packages whose Debian dependencies are far
# heavier than what Raw uses (libvalijson-dev depends on every adapter's
# library): downloaded and unpacked into third_party/debs, never installed.
unpacked=(libvalijson-dev json-schema-test-suite)

# What only the tests use: the .deb's lintian check, rendering the man
# pages, systemd's unit checker and socket activator, the browser the
# dashboard tests drive, and the interpreters and tools of their fixtures
# (Python scripts for fake servers and hostile archives, openssl for a
# test certificate).
if ((with_tests)); then
  packages+=(lintian man-db systemd chromium python3 openssl)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
# Debian's nodejs ships npm separately; other nodejs builds bundle it (and
# conflict with Debian's npm), so npm is installed only when it is absent.
if ! command -v npm >/dev/null && ! dpkg-query -W -f='${Status}' npm 2>/dev/null |
    grep -q 'install ok installed'; then
  missing+=(npm)
fi

if ((${#missing[@]} == 0)); then
  say "all ${#packages[@]} Debian packages are installed"
else
  say "installing ${#missing[@]} Debian packages: ${missing[*]}"
  if ((EUID == 0)); then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    say "error: not root and sudo is not available; install as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
fi

# apt-get download needs the package lists, which a fresh machine may lack.
debs_dir="$repo_root/third_party/debs"
for p in "${unpacked[@]}"; do
  if [[ -f "$debs_dir/.$p.unpacked" ]]; then continue; fi
  say "unpacking $p into third_party/debs"
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && apt-get download "$p" >/dev/null 2>&1); then
    if ((EUID == 0)); then apt-get update >/dev/null; else sudo apt-get update >/dev/null; fi
    (cd "$tmp" && apt-get download "$p" >/dev/null)
  fi
  mkdir -p "$debs_dir"
  dpkg -x "$tmp"/"$p"_*.deb "$debs_dir"
  rm -rf "$tmp"
  touch "$debs_dir/.$p.unpacked"
done

# The official MCP reference servers the MCP tests run (pinned by
# tests/mcp-servers/package-lock.json).
if ((with_tests)) && [[ ! -d "$repo_root/tests/mcp-servers/node_modules" ]]; then
  say "installing the MCP reference servers for the tests (npm ci)"
  (cd "$repo_root/tests/mcp-servers" && npm ci --no-audit --no-fund)
fi

# The ACP client SDKs the raw-acp tests drive it with (pinned by
# tests/acp/package-lock.json).
if ((with_tests)) && [[ ! -d "$repo_root/tests/acp/node_modules" ]]; then
  say "installing the ACP SDKs for the tests (npm ci)"
  (cd "$repo_root/tests/acp" && npm ci --no-audit --no-fund)
fi

# playwright-core, which drives Debian's chromium in the dashboard tests
# (pinned by tests/dashboard/package-lock.json; it downloads no browser).
if ((with_tests)) && [[ ! -d "$repo_root/tests/dashboard/node_modules" ]]; then
  say "installing playwright-core for the dashboard tests (npm ci)"
  (cd "$repo_root/tests/dashboard" && npm ci --no-audit --no-fund)
fi

# ccache: key the cache on paths relative to the checkout, so that another
# checkout of the same sources (a CI clone elsewhere) hits it too.
export CCACHE_BASEDIR="$repo_root"
export CCACHE_NOHASHDIR=1

say "configuring $repo_root/build (Ninja, RelWithDebInfo, ccache)"
cmake -S "$repo_root" -B "$repo_root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRAW_CCACHE=ON >/dev/null

jobs="${RAW_JOBS:-$(nproc)}"
targets=("$@")
((${#targets[@]} > 0)) || targets=(programs)
if [[ "${targets[*]}" == programs ]]; then
  # Measured: about 14 CPU-minutes from scratch (RelWithDebInfo, g++ 12,
  # 818 s of CPU, 7 min 10 s on 2 cores); ccache makes a rebuild of
  # unchanged sources take seconds.
  say "building the programs (raw, rawd, raw-acp, raw-dashboard, raw-package) with $jobs jobs: about $((14 / jobs + 1)) minutes from scratch," \
    "seconds when ccache has them; the tests are built by scripts/test.sh"
else
  say "building ${targets[*]} with $jobs jobs"
fi
cmake --build "$repo_root/build" -j "$jobs" --target "${targets[@]}"
say "done: $repo_root/build/bin/raw"
