# SPDX-License-Identifier: MIT
# Thin wrapper over CMake/CTest.  `make demo` and `make check` work on a fresh
# Debian 12 machine: missing packages are installed with apt-get when run as
# root, otherwise the exact command is printed.

# Build directories and their settings are CMakePresets.json's (dev, asan,
# release-gcc, release-clang, fuzz): the same builds from an IDE or by hand
# with `cmake --preset NAME`.
BUILD      := build
# Warnings are errors only where asked for: make check and CI turn them on, a
# plain build (what a packager or user runs) never fails on a new compiler's warning.
WERROR     ?= OFF
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEB_PKGS   := cmake make gcc libc6-dev pkg-config libcmocka-dev libjansson-dev zlib1g-dev libzstd-dev libdw-dev libelf-dev libsqlite3-dev nettle-dev libmicrohttpd-dev sqlite3 zstd gzip clang clang-format tzdata \
             man-db groff-base strace

.PHONY: all deps build demo check check-asan check-release test bench tidy clean install uninstall

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
	cmake --preset dev -DMFSTAT_WERROR=$(WERROR)
	cmake --build --preset dev -j $(JOBS)

# A day of 15-minute SMF type 113 intervals for three z16 systems with GCP and zIIP pools,
# generated deterministically by tools/gensmf.c, summarised per system and pool.
DEMO_DUMP := $(BUILD)/demo-day.smf

demo: build
	./$(BUILD)/gensmf -q --systems 3 --cpus 6 --ziip 2 --intervals 96 --jitter-ms 300 -o $(DEMO_DUMP)
	./$(BUILD)/mfstat report --by system,pool $(DEMO_DUMP)

test: build
	ctest --preset dev -j $(JOBS)

check-asan: deps
	cmake --preset asan -DMFSTAT_WERROR=$(WERROR)
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

# What a packager builds: Release (-O3) with gcc and with clang, warnings as errors,
# each with its unit and CLI tests (optimisers find other bugs than sanitizers).
check-release: deps
	cmake --preset release-gcc -DMFSTAT_WERROR=$(WERROR)
	cmake --build --preset release-gcc -j $(JOBS)
	ctest --preset release-gcc -j $(JOBS)
	cmake --preset release-clang -DMFSTAT_WERROR=$(WERROR)
	cmake --build --preset release-clang -j $(JOBS)
	ctest --preset release-clang -j $(JOBS)

check: WERROR = ON
check: test check-asan check-release

# clang-tidy with .clang-tidy's checks over the library, CLI and tools (a few minutes; not part of check).
tidy: build
	clang-tidy -p $(BUILD) --quiet $$(git ls-files 'src/*.c' 'tools/*.c')

# make install [PREFIX=DIR]: the program, mfstat-gensmf, man pages, bash completion, README, docs under
# PREFIX (/usr/local), from the release-gcc build when one is configured (make check-release),
# else from the dev build; either is brought up to date first (its program and man pages
# only).  $(BUILD)/install_manifest.txt lists what was installed and install_record.txt the
# prefix and the directories the installation created (cmake/install.sh); make uninstall
# removes exactly those files, refuses any path outside the prefix, then the directories it
# created when they are empty (cmake/uninstall.sh).
PREFIX         ?= /usr/local
INSTALL_PRESET ?= $(if $(wildcard build-release-gcc/CMakeCache.txt),release-gcc,dev)
# Only what is installed is built: the programs and the subcommand man pages, not the tests.
INSTALL_TARGETS := mfstat_cli man_subpages gensmf
INSTALL_DIR     = $(if $(filter dev,$(INSTALL_PRESET)),$(BUILD),build-$(INSTALL_PRESET))

install: deps
	@test -f $(INSTALL_DIR)/CMakeCache.txt || cmake --preset $(INSTALL_PRESET) -DMFSTAT_WERROR=$(WERROR)
	cmake --build --preset $(INSTALL_PRESET) -j $(JOBS) --target $(INSTALL_TARGETS)
	sh cmake/install.sh cmake $(INSTALL_DIR) "$(PREFIX)" $(INSTALL_DIR)/install_record.txt
	@if [ "$(INSTALL_DIR)" != "$(BUILD)" ]; then mkdir -p $(BUILD) && cp $(INSTALL_DIR)/install_manifest.txt $(INSTALL_DIR)/install_record.txt $(BUILD)/; fi
	@echo "Installed the $(INSTALL_PRESET) build under $(PREFIX); $(BUILD)/install_manifest.txt lists the files (make uninstall removes them)."

uninstall:
	@sh cmake/uninstall.sh $(BUILD)/install_manifest.txt $(BUILD)/install_record.txt

bench: build
	bench/csv.sh
	bench/smf.sh
	bench/measure.sh

clean:
	rm -rf build build-asan build-release-gcc build-release-clang build-fuzz
