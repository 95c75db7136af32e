/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpus of fuzz_validate.cpp (tests/host/firmware/
 * fuzz_corpus/): valid tasks that reach every engine, a fused chain and
 * every event, so that the fuzzer starts deep inside validation, plus a few
 * invalid ones. The input layout is fuzz_validate.cpp's. No device or
 * firmware needed:
 *
 *   g++ -std=c++17 -Iuapi -Iuapi/hw tests/host/firmware/gen_fuzz_corpus.cpp \
 *     -o /tmp/gen_fuzz_corpus && /tmp/gen_fuzz_corpus tests/host/firmware/fuzz_corpus
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "drm/vdla_task.h"
#include "vdla_regs.h"

namespace {

uint32_t elementSize(uint32_t dtype)
{
	switch (dtype) {
	case VDLA_DTYPE_INT8:
		return 1;
	case VDLA_DTYPE_INT16:
	case VDLA_DTYPE_FP16:
		return 2;
	default:
		return 4;
	}
}

uint32_t fp32(float f)
{
	uint32_t u;
	std::memcpy(&u, &f, 4);
	return u;
}

/* A task in fuzz_validate's input format; tensors live in arena entries. */
class Seed
{
public:
	Seed()
	{
		sizes_.push_back(0); /* entry 0: the descriptor */
		std::memset(&header_, 0, sizeof(header_));
		header_.magic = VDLA_TASK_MAGIC;
		header_.version_major = VDLA_TASK_VERSION_MAJOR;
		header_.version_minor = VDLA_TASK_VERSION_MINOR;
		header_.ops_offset = sizeof(vdla_task_header);
		/* References to ops stay valid while a seed is built. */
		ops_.reserve(64);
	}

	/* @bytes in a new entry, or in the current arena entry when it fits. */
	vdla_task_address place(uint32_t bytes)
	{
		if (sizes_.size() == 1 || used_ + bytes > 65535) {
			sizes_.push_back(0);
			used_ = 0;
		}
		vdla_task_address a = {};
		a.index = uint16_t(sizes_.size() - 1);
		a.offset = used_;
		used_ += (bytes + 7) & ~7u;
		sizes_.back() = uint16_t(used_ > 65535 ? 65535 : used_);
		return a;
	}

	vdla_task_surface tensor(
		uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w, bool flying = false)
	{
		vdla_task_surface s = {};
		uint32_t e = elementSize(dtype);
		s.dtype = dtype;
		s.n = n, s.c = c, s.h = h, s.w = w;
		s.stride_w = e;
		s.stride_h = w * e;
		s.stride_c = h * w * e;
		s.stride_n = c * h * w * e;
		if (!flying)
			s.address = place(n * c * h * w * e);
		return s;
	}

	vdla_task_op &op(uint8_t engine)
	{
		vdla_task_op o;
		std::memset(&o, 0, sizeof(o));
		o.engine = engine;
		o.fused_parent = VDLA_NO_OP;
		for (auto &c : o.consumers)
			c.index = VDLA_NO_OP;
		ops_.push_back(o);
		return ops_.back();
	}
	uint16_t last() const { return uint16_t(ops_.size() - 1); }

	void link(uint16_t producer, uint16_t consumer, uint8_t event = VDLA_EVENT_OP_COMPLETED)
	{
		for (auto &c : ops_[producer].consumers)
			if (c.index == VDLA_NO_OP) {
				c.index = consumer;
				c.event = event;
				ops_[consumer].dependency_count++;
				return;
			}
	}

	vdla_task_header &header() { return header_; }
	vdla_task_op &at(uint16_t i) { return ops_[i]; }
	uint8_t context = 0, irq = 0;

	std::vector<uint8_t> bytes()
	{
		header_.num_ops = uint32_t(ops_.size());
		std::vector<uint8_t> out;
		out.push_back(uint8_t(sizes_.size() - 1));
		out.push_back(0);
		out.push_back(context);
		out.push_back(irq);
		for (uint16_t s : sizes_) {
			out.push_back(uint8_t(s));
			out.push_back(uint8_t(s >> 8));
		}
		std::vector<uint8_t> desc(header_.ops_offset + ops_.size() * sizeof(vdla_task_op));
		std::memcpy(desc.data(), &header_, sizeof(header_));
		std::memcpy(desc.data() + header_.ops_offset, ops_.data(),
			ops_.size() * sizeof(vdla_task_op));
		out.insert(out.end(), desc.begin(), desc.end());
		return out;
	}

private:
	vdla_task_header header_;
	std::vector<vdla_task_op> ops_;
	std::vector<uint16_t> sizes_;
	uint32_t used_ = 0;
};

void bdma(Seed &s, const vdla_task_surface &src, const vdla_task_surface &dst)
{
	vdla_task_op &o = s.op(VDLA_TASK_ENGINE_BDMA);
	o.bdma.src = src.address;
	o.bdma.dst = dst.address;
	o.bdma.line_bytes = src.n * src.stride_n;
	o.bdma.lines = 1;
	o.bdma.surfaces = 1;
}

/* BDMA -> CONV -> SDP -> PDP fused (INT8), CDP and RUBIK on its output, SDP, BDMA. */
Seed chain(uint32_t convType)
{
	Seed s;
	bool fp = convType == VDLA_DTYPE_FP16 || convType == VDLA_DTYPE_FP32;
	uint32_t accType = fp ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT32;
	uint32_t outType = fp ? VDLA_DTYPE_FP16 : VDLA_DTYPE_INT8;
	vdla_task_surface x = s.tensor(convType, 1, 4, 6, 6);
	vdla_task_surface a = s.tensor(convType, 1, 4, 6, 6);
	bdma(s, x, a);
	uint16_t in = s.last();

	vdla_task_op &c = s.op(VDLA_TASK_ENGINE_CONV);
	c.conv.src = a;
	c.conv.wgt = s.tensor(convType, 4, 4, 3, 3);
	c.conv.dst = s.tensor(accType, 1, 4, 6, 6, true);
	c.conv.stride_x = c.conv.stride_y = 1;
	c.conv.pad_left = c.conv.pad_right = c.conv.pad_top = c.conv.pad_bottom = 1;
	c.conv.dilation_x = c.conv.dilation_y = 1;
	c.conv.groups = 1;
	c.conv.fly = VDLA_TASK_FLY_OUT;
	uint16_t conv = s.last();
	s.link(in, conv);

	vdla_task_op &d = s.op(VDLA_TASK_ENGINE_SDP);
	d.fused_parent = conv;
	d.sdp.src = s.tensor(accType, 1, 4, 6, 6, true);
	d.sdp.dst = s.tensor(outType, 1, 4, 6, 6, true);
	d.sdp.ew = s.tensor(fp ? VDLA_DTYPE_FP16 : VDLA_DTYPE_INT8, 1, 4, 6, 6);
	d.sdp.fly = VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT;
	d.sdp.bias_mode = VDLA_SDP_MODE_PER_CHANNEL;
	d.sdp.scale_mode = VDLA_SDP_MODE_PER_CHANNEL;
	d.sdp.ew_op = VDLA_SDP_EW_OP_ADD;
	d.sdp.act = VDLA_SDP_ACT_LUT;
	d.sdp.bias = s.place(4 * 4);
	d.sdp.scale = s.place(fp ? 4 * 4 : 8 * 4);
	d.sdp.lut = s.place(VDLA_LUT_ENTRIES * (fp ? 4 : 2));
	d.sdp.round = VDLA_ROUND_HALF_EVEN;
	if (fp) {
		d.sdp.ew_mul = fp32(1.0f);
		d.sdp.lut_start = fp32(-1.0f);
		d.sdp.lut_shift = fp32(0.125f);
	} else {
		d.sdp.ew_mul = 1;
		d.sdp.lut_shift = 4;
	}

	vdla_task_op &p = s.op(VDLA_TASK_ENGINE_PDP);
	p.fused_parent = uint16_t(conv + 1);
	p.pdp.src = s.tensor(outType, 1, 4, 6, 6, true);
	p.pdp.dst = s.tensor(outType, 1, 4, 3, 3);
	p.pdp.fly = VDLA_TASK_FLY_IN;
	p.pdp.method = VDLA_PDP_AVG;
	p.pdp.kernel_w = p.pdp.kernel_h = 2;
	p.pdp.stride_x = p.pdp.stride_y = 2;
	uint16_t pdp = s.last();
	vdla_task_surface pooled = p.pdp.dst;

	vdla_task_op &q = s.op(VDLA_TASK_ENGINE_CDP);
	q.cdp.src = pooled;
	q.cdp.dst = s.tensor(outType, 1, 4, 3, 3);
	q.cdp.size = 3;
	if (fp) {
		q.cdp.k = fp32(1.0f);
		q.cdp.alpha = fp32(0.5f);
		q.cdp.beta = fp32(0.75f);
	} else {
		q.cdp.lut = s.place(VDLA_LUT_ENTRIES * 4);
		q.cdp.lut_shift = 8;
		q.cdp.out_shift = 16;
	}
	uint16_t cdp = s.last();
	s.link(pdp, cdp);

	vdla_task_op &r = s.op(VDLA_TASK_ENGINE_RUBIK);
	r.rubik.src = pooled;
	r.rubik.dst = s.tensor(outType, 1, 4, 3, 3);
	r.rubik.mode = VDLA_RUBIK_PERMUTE;
	r.rubik.perm = 0xe1; /* W<-H, H<-W, C, N */
	r.rubik.block_x = r.rubik.block_y = 1;
	vdla_task_surface permuted = r.rubik.dst;
	uint16_t rubik = s.last();
	s.link(pdp, rubik, VDLA_EVENT_OP_COMPLETED);

	vdla_task_op &e = s.op(VDLA_TASK_ENGINE_SDP);
	e.sdp.src = permuted;
	e.sdp.dst = s.tensor(fp ? VDLA_DTYPE_FP32 : VDLA_DTYPE_INT16, 1, 4, 3, 3);
	e.sdp.bias_mode = VDLA_SDP_MODE_PER_TENSOR;
	e.sdp.act = VDLA_SDP_ACT_CLIP;
	e.sdp.clip_min = fp ? fp32(-1.0f) : uint32_t(-50);
	e.sdp.clip_max = fp ? fp32(1.0f) : 50;
	uint16_t sdp2 = s.last();
	s.link(rubik, sdp2);

	vdla_task_surface result = e.sdp.dst;
	vdla_task_surface t = s.tensor(result.dtype, 1, 4, 3, 3);
	bdma(s, result, t);
	s.link(sdp2, s.last());
	s.link(cdp, s.last(), VDLA_EVENT_OP_ENABLED);
	return s;
}

/* One op per engine, no data dependencies, PROGRAMMED and ENABLED links. */
Seed allEngines()
{
	Seed s;
	vdla_task_surface x = s.tensor(VDLA_DTYPE_INT16, 1, 2, 4, 4);
	bdma(s, x, s.tensor(VDLA_DTYPE_INT16, 1, 2, 4, 4));
	vdla_task_op &c = s.op(VDLA_TASK_ENGINE_CONV);
	c.conv.src = x;
	c.conv.wgt = s.tensor(VDLA_DTYPE_INT16, 2, 1, 1, 1);
	c.conv.dst = s.tensor(VDLA_DTYPE_INT32, 1, 2, 4, 4);
	c.conv.stride_x = c.conv.stride_y = 2;
	c.conv.dst.w = c.conv.dst.h = 2;
	c.conv.dilation_x = c.conv.dilation_y = 1;
	c.conv.groups = 2;
	vdla_task_op &d = s.op(VDLA_TASK_ENGINE_SDP);
	d.sdp.src = x;
	d.sdp.dst = s.tensor(VDLA_DTYPE_INT8, 1, 2, 4, 4);
	d.sdp.act = VDLA_SDP_ACT_RELU;
	vdla_task_op &p = s.op(VDLA_TASK_ENGINE_PDP);
	p.pdp.src = x;
	p.pdp.dst = s.tensor(VDLA_DTYPE_INT16, 1, 2, 2, 2);
	p.pdp.method = VDLA_PDP_MIN;
	p.pdp.kernel_w = p.pdp.kernel_h = 3;
	p.pdp.stride_x = p.pdp.stride_y = 2;
	p.pdp.pad_left = p.pdp.pad_top = 1;
	vdla_task_op &q = s.op(VDLA_TASK_ENGINE_CDP);
	q.cdp.src = x;
	q.cdp.dst = s.tensor(VDLA_DTYPE_INT16, 1, 2, 4, 4);
	q.cdp.size = 1;
	q.cdp.lut = s.place(VDLA_LUT_ENTRIES * 4);
	vdla_task_op &r = s.op(VDLA_TASK_ENGINE_RUBIK);
	r.rubik.src = x;
	r.rubik.dst = s.tensor(VDLA_DTYPE_INT16, 1, 8, 2, 2);
	r.rubik.mode = VDLA_RUBIK_SPLIT;
	r.rubik.perm = 0xe4;
	r.rubik.block_x = r.rubik.block_y = 2;
	s.link(0, 1, VDLA_EVENT_OP_PROGRAMMED);
	s.link(0, 2, VDLA_EVENT_OP_ENABLED);
	s.link(1, 3, VDLA_EVENT_OP_ENABLED);
	s.link(2, 5, VDLA_EVENT_OP_PROGRAMMED);
	s.link(3, 4, VDLA_EVENT_OP_COMPLETED);
	s.link(3, 5, VDLA_EVENT_OP_COMPLETED);
	s.irq = 0x55;
	return s;
}

void write(const std::string &dir, const char *name, const std::vector<uint8_t> &bytes)
{
	std::string path = dir + "/" + name;
	FILE *f = std::fopen(path.c_str(), "wb");
	if (!f) {
		std::perror(path.c_str());
		return;
	}
	std::fwrite(bytes.data(), 1, bytes.size(), f);
	std::fclose(f);
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: %s OUTPUT-DIRECTORY\n", argv[0]);
		return 2;
	}
	std::string dir = argv[1];

	Seed copy;
	vdla_task_surface a = copy.tensor(VDLA_DTYPE_INT8, 1, 1, 1, 256);
	bdma(copy, a, copy.tensor(VDLA_DTYPE_INT8, 1, 1, 1, 256));
	write(dir, "valid_bdma", copy.bytes());
	write(dir, "valid_chain_int8", chain(VDLA_DTYPE_INT8).bytes());
	write(dir, "valid_chain_fp16", chain(VDLA_DTYPE_FP16).bytes());
	write(dir, "valid_all_engines", allEngines().bytes());

	Seed ctx = chain(VDLA_DTYPE_INT8);
	ctx.context = 15;
	ctx.irq = 0xff;
	write(dir, "valid_context15", ctx.bytes());

	Seed magic = chain(VDLA_DTYPE_INT8);
	magic.header().magic = 0;
	write(dir, "invalid_magic", magic.bytes());

	Seed count = chain(VDLA_DTYPE_INT8);
	count.at(1).dependency_count = 2;
	write(dir, "invalid_dependency_count", count.bytes());

	Seed overflow = allEngines();
	overflow.at(4).cdp.src.address.offset = ~0ull - 3;
	write(dir, "invalid_offset_overflow", overflow.bytes());

	Seed fusion = chain(VDLA_DTYPE_FP16);
	fusion.at(2).sdp.fly = VDLA_TASK_FLY_OUT;
	write(dir, "invalid_fly_flags", fusion.bytes());
	return 0;
}
