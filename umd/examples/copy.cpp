/* SPDX-License-Identifier: MIT */
/*
 * The example of docs/runtime.md, "Low-level C++ API": copies 4 KiB with
 * the BDMA engine, then runs an INT8 SDP (x * 3 >> 1, ReLU) on the copy,
 * as one task of two linked operations, and checks the result on the CPU.
 */
#include <algorithm>
#include <cstdio>
#include <cstring>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/fence.h>
#include <vdla/task_builder.h>

using namespace std::chrono_literals;

static int fail(const char *what, const vdla::Error &error)
{
	std::fprintf(stderr, "%s: %s\n", what, error.message().c_str());
	return 1;
}

int main()
{
	auto nodes = vdla::Device::enumerate();
	if (!nodes || nodes->empty()) {
		std::fprintf(stderr, "no vdla device\n");
		return 1;
	}
	auto device = vdla::Device::open(nodes->front());
	if (!device)
		return fail("open", device.error());

	constexpr uint32_t kBytes = 4096;
	auto input = vdla::Buffer::create(**device, kBytes);
	auto copy = vdla::Buffer::create(**device, kBytes);
	auto output = vdla::Buffer::create(**device, kBytes);
	if (!input || !copy || !output)
		return fail("buffer",
			!input		? input.error()
				: !copy ? copy.error()
					: output.error());

	auto in = (*input)->map();
	if (!in)
		return fail("map", in.error());
	for (uint32_t i = 0; i < kBytes; i++)
		(*in)[i] = uint8_t(i * 7);

	/* The task: BDMA input -> copy, then SDP copy -> output once the copy completed. */
	vdla::TaskBuilder builder;
	uint16_t src = builder.addBuffer(**input);
	uint16_t tmp = builder.addBuffer(**copy, vdla::BufferUse::Write);
	uint16_t dst = builder.addBuffer(**output, vdla::BufferUse::Write);

	uint16_t bdma = builder.copy({ src, 0 }, { tmp, 0 }, kBytes);

	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(tmp, 0, vdla::DataType::Int8, 1, 16, 16, 16);
	sdp.dst = vdla::Tensor::nchw(dst, 0, vdla::DataType::Int8, 1, 16, 16, 16);
	sdp.scaleMode = vdla::SdpMode::PerTensor;
	sdp.scaleMul = 3;
	sdp.scaleShift = 1;
	sdp.activation = vdla::SdpActivation::Relu;
	uint16_t scale = builder.sdp(sdp);
	builder.link(bdma, scale);

	auto task = builder.build(**device);
	if (!task)
		return fail("build", task.error());

	auto context = vdla::Context::create(**device, vdla::Priority::Normal);
	if (!context)
		return fail("context", context.error());
	auto done = vdla::Fence::create(**device);
	if (!done)
		return fail("fence", done.error());

	auto seqno = (*context)->submit(*task, {}, { done->get() });
	if (!seqno)
		return fail("submit", seqno.error());
	auto waited = (*done)->wait(5s);
	if (!waited)
		return fail("wait", waited.error());
	auto status = (*done)->status();
	if (!status)
		return fail("status", status.error());
	if (status->error)
		return fail("job", vdla::Error(status->error, "the job failed"));

	auto out = (*output)->map();
	if (!out)
		return fail("map", out.error());
	for (uint32_t i = 0; i < kBytes; i++) {
		int x = int8_t(uint8_t(i * 7));
		int expected = x > 0 ? std::min(x * 3 >> 1, 127) : 0;
		if (int8_t((*out)[i]) != expected) {
			std::fprintf(stderr, "byte %u: %d, expected %d\n", i, int8_t((*out)[i]),
				expected);
			return 1;
		}
	}
	std::printf("job %llu: %u bytes copied and scaled\n", (unsigned long long)*seqno, kBytes);
	return 0;
}
