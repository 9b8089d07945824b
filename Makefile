# tilegemm: two commands on a fresh machine.
#   make run    installs what is missing, builds, and prints the benchmark table (needs a GPU;
#               without one it says so, exits non-zero, and names what works without one)
#   make test   installs what is missing, builds, and runs the CPU and GPU test suites, C++
#               (ctest) and Python (pytest, on the package installed into .venv from the same
#               build tree); GPU tests report SKIPPED without a device
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
BENCH_ARGS ?=
TILEGEMM := ./$(BUILD)/tools/tilegemm/tilegemm
VENV ?= .venv
PYTHON := $(VENV)/bin/python
# The generator and test switch $(BUILD) was configured with, for scikit-build-core to keep.
cache_value = $(shell sed -n 's/^$(1):[A-Z]*=//p' $(BUILD)/CMakeCache.txt 2>/dev/null)

.PHONY: all setup configure build run test python pytest sanitize clean
all: build

setup:
	./scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(TILEGEMM) bench $(BENCH_ARGS)

# `pip install .` into $(VENV) (created by setup), building in $(BUILD) itself: the library is
# already compiled there, so only the extension is; no build isolation, so the cache keeps the
# set-up's pinned scikit-build-core and nanobind.
python: build
	CMAKE_GENERATOR="$(call cache_value,CMAKE_GENERATOR)" $(PYTHON) -m pip install --quiet \
	  --no-build-isolation --no-deps . -C build-dir=$(BUILD) \
	  -C cmake.define.TILEGEMM_BUILD_TESTS=$(or $(call cache_value,TILEGEMM_BUILD_TESTS),ON)

pytest: python
	$(PYTHON) -m pytest python/tests

test: build python
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(PYTHON) -m pytest python/tests

sanitize: build
	./scripts/sanitize.sh $(TILEGEMM)

clean:
	rm -rf $(BUILD)
