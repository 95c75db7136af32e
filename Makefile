# SPDX-License-Identifier: MIT
#
# vdla entry points. `make run` and `make test` work on a fresh machine: they
# install what is missing (scripts/setup-deps, as root) and build the rest.
# Heavy builds are cached in $(VDLA_CACHE), outside the work tree.

SHELL := /bin/bash
export VDLA_CACHE ?= /var/cache/vdla
export VDLA_BUILD ?= $(CURDIR)/build

CMAKE_BUILD := $(VDLA_BUILD)/cmake
GUEST_BIN := $(VDLA_BUILD)/guest-bin

all: qemu kmd userspace

deps:
	@scripts/setup-deps --check || scripts/setup-deps

qemu: deps
	@scripts/build-qemu

kmd: deps
	$(MAKE) -C kmd KVER=$$(cat $(VDLA_CACHE)/guest-kernel-version)

userspace: deps
	@[[ -f $(CMAKE_BUILD)/build.ninja ]] || \
		cmake -S tests -B $(CMAKE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DVDLA_GUEST_BIN_DIR=$(GUEST_BIN) >/dev/null
	ninja -C $(CMAKE_BUILD)

# Boots the emulated machine with two vDLAs, loads the driver, starts the
# pipeline daemon, lists the devices and runs the demos: a LeNet-style
# OpenVX graph on the DLA with a user kernel on the CPU, checked against the
# same graph all on the CPU (umd/examples/lenet_demo.cpp, docs/openvx.md
# "Demo"), the trained digits CNN from ONNX on the CPU and on the DLA
# (umd/examples/onnx_digits.cpp, docs/onnx.md "Example"), then two
# applications attached to the daemon's pipeline (umd/examples/pipeline_demo.sh,
# docs/ownership.md "Example").
run: all
	scripts/guest-run --devices 2 --pipelined umd/tools/pipelined/pipelined.conf -- \
		sh -c 'vdla-info && vdla-demo && vdla-onnx-digits /vdla/models && vdla-pipeline-demo'

test: all
	tests/run-all

bench: all
	scripts/bench

# Kernel coding style of kmd/, firmware/ and uapi/ (downloads checkpatch once).
checkpatch: deps
	scripts/checkpatch

clean:
	rm -rf $(VDLA_BUILD)
	$(MAKE) -C kmd clean KVER=$$(cat $(VDLA_CACHE)/guest-kernel-version 2>/dev/null || true) \
		>/dev/null 2>&1 || true

.PHONY: all deps qemu kmd userspace run test bench checkpatch clean
