/* SPDX-License-Identifier: MIT */
/*
 * The configuration file of vdla-pipelined (docs/ownership.md, "The
 * daemon"): "key = value" lines, '#' comments. Every key is known and
 * checked; a mistake is reported with its line and nothing starts.
 */
#pragma once

#include <cstdint>
#include <string>

#include <vdla/pipeline.h>
#include <vdla/result.h>

namespace pipelined {

struct Config {
	/* Index of the device among vdla::Device::enumerate()'s. */
	unsigned device = 0;
	std::string pipeline = "camera";
	vdla::PipelineParams params{};
	/* The command socket. */
	std::string socket = "/run/vdla-pipelined.sock";
	/* One frame per period. */
	unsigned periodMs = 100;
	/* Output buffers the output channel lends (1 to 8). */
	unsigned outputBuffers = 3;
	/* The inference's SDP scale and shift: the inference channel's initial attributes. */
	int32_t scale = 3;
	uint32_t shift = 1;
	/* "name:bytes" of an SRAM partition to define (if it is not) and lease, or empty. */
	std::string sramPartition;
	/* An engine to reserve (bdma conv sdp pdp cdp rubik), or empty. */
	std::string engineReservation;
	vdla::PipelineExitActions exit;
};

/* Reads @path. Errors: those of reading it, EINVAL "line N: ...". */
vdla::Result<Config> readConfig(const std::string &path);

/* The engine index of @name (0 BDMA ... 5 RUBIK), or -1. */
int engineIndex(const std::string &name);

} /* namespace pipelined */
