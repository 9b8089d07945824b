# tilegemm: two commands on a fresh machine.
#   make run    installs what is missing, builds, and prints the benchmark table (needs a GPU;
#               without one it says so, exits non-zero, and names what works without one)
#   make test   installs what is missing, builds, and runs the CPU and GPU test suites
#               (GPU tests report SKIPPED without a device)
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
BENCH_ARGS ?=
TILEGEMM := ./$(BUILD)/tools/tilegemm/tilegemm

.PHONY: all setup configure build run test sanitize clean
all: build

setup:
	./scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(TILEGEMM) bench $(BENCH_ARGS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: build
	./scripts/sanitize.sh $(TILEGEMM)

clean:
	rm -rf $(BUILD)
