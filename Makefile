# SPDX-License-Identifier: MIT
# Thin wrapper over CMake/CTest.  `make demo` and `make check` work on a fresh
# Debian 12 machine: missing packages are installed with apt-get when run as
# root, otherwise the exact command is printed.

BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_REL  ?= build-release
# Warnings are errors only where asked for: make check and CI turn them on, a
# plain build (what a packager or user runs) never fails on a new compiler's warning.
WERROR     ?= OFF
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEB_PKGS   := cmake make gcc libc6-dev pkg-config libcmocka-dev libjansson-dev zlib1g-dev libzstd-dev libdw-dev libelf-dev zstd gzip clang

.PHONY: all deps build demo check check-asan check-release test bench clean

all: build

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
	      { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; } || exit 1; \
	  else \
	    echo "mfstat needs these Debian packages:$$missing"; \
	    echo "Install them with:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMFSTAT_WERROR=$(WERROR)
	cmake --build $(BUILD) -j $(JOBS)

# A day of 15-minute SMF type 113 intervals for three z16 systems with GCP and zIIP pools,
# generated deterministically by tools/gensmf.c, summarised per system and pool.
DEMO_DUMP := $(BUILD)/demo-day.smf

demo: build
	./$(BUILD)/gensmf -q --systems 3 --cpus 6 --ziip 2 --intervals 96 --jitter-ms 300 -o $(DEMO_DUMP)
	./$(BUILD)/mfstat report --by system,pool $(DEMO_DUMP)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

check-asan: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DMFSTAT_SANITIZE=ON -DMFSTAT_WERROR=$(WERROR)
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# What a packager builds: Release (-O3) with gcc and with clang, warnings as errors,
# each with its unit and CLI tests (optimisers find other bugs than sanitizers).
check-release: deps
	CC=gcc cmake -S . -B $(BUILD_REL)-gcc -DCMAKE_BUILD_TYPE=Release -DMFSTAT_WERROR=$(WERROR)
	cmake --build $(BUILD_REL)-gcc -j $(JOBS)
	cd $(BUILD_REL)-gcc && ctest --output-on-failure -j $(JOBS) -R '^(unit|cli|fuzz_replay)_'
	CC=clang cmake -S . -B $(BUILD_REL)-clang -DCMAKE_BUILD_TYPE=Release -DMFSTAT_WERROR=$(WERROR)
	cmake --build $(BUILD_REL)-clang -j $(JOBS)
	cd $(BUILD_REL)-clang && ctest --output-on-failure -j $(JOBS) -R '^(unit|cli|fuzz_replay)_'

check: WERROR = ON
check: test check-asan check-release

bench: build
	bench/csv.sh
	bench/smf.sh
	bench/measure.sh

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_REL)-gcc $(BUILD_REL)-clang
