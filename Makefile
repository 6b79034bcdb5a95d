# SPDX-License-Identifier: MIT
# Thin wrapper over CMake/CTest.  `make demo` and `make check` work on a fresh
# Debian 12 machine: missing packages are installed with apt-get when run as
# root, otherwise the exact command is printed.

BUILD      ?= build
BUILD_SAN  ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEB_PKGS   := cmake make gcc libc6-dev pkg-config libcmocka-dev libjansson-dev zlib1g-dev libzstd-dev libdw-dev libelf-dev zstd gzip

.PHONY: all deps build demo check check-asan test bench clean

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
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
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
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DMFSTAT_SANITIZE=ON
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

check: test check-asan

bench: build
	bench/csv.sh
	bench/smf.sh
	bench/measure.sh

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
