/* SPDX-License-Identifier: MIT */
/*
 * What vdla-pipelined lends through its output channel's port 0, read by
 * vdla-pipelinectl watch: the inference's result, an INT8 tensor of
 * kResultBytes, then a header the daemon writes once the job has ended.
 * Frame f's input is in[i] = int8(i * 7 + f); the result is the SDP
 * out = ReLU(in * scale >> shift), saturated to 127.
 */
#pragma once

#include <algorithm>
#include <cstdint>

namespace pipelined {

constexpr uint32_t kResultBytes = 4096;
constexpr uint32_t kHeaderOffset = 4096;
constexpr uint32_t kFrameBytes = 8192;
constexpr uint32_t kFrameMagic = 0x46504456; /* "VDPF" */

struct FrameHeader {
	uint32_t magic;
	uint32_t shift;
	uint64_t frame;
	int32_t scale;
	uint32_t pad;
};

inline int8_t frameInput(uint64_t frame, uint32_t i)
{
	return int8_t(uint8_t(i * 7 + frame));
}

inline int8_t frameResult(uint64_t frame, uint32_t i, int32_t scale, uint32_t shift)
{
	int x = frameInput(frame, i);
	return int8_t(x > 0 ? std::min((x * scale) >> shift, 127) : 0);
}

} /* namespace pipelined */
