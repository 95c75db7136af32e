/* SPDX-License-Identifier: MIT */
#include "task_writer.h"

#include <cstring>
#include <stdexcept>

#include "vdla_regs.h"

namespace guest {

static_assert(sizeof(vdla_task_header) == 32, "vdla_task_header is 32 bytes");
static_assert(sizeof(vdla_task_op) == VDLA_TASK_OP_SIZE, "vdla_task_op is 512 bytes");

vdla_task_address taskAddress(uint16_t index, uint64_t offset)
{
	vdla_task_address a;
	std::memset(&a, 0, sizeof(a));
	a.index = index;
	a.offset = offset;
	return a;
}

vdla_task_surface packedSurface(uint16_t index, uint64_t offset, uint32_t dtype, uint32_t n,
	uint32_t c, uint32_t h, uint32_t w)
{
	vdla_task_surface s = flyingSurface(dtype, n, c, h, w);
	s.address = taskAddress(index, offset);
	return s;
}

vdla_task_surface flyingSurface(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
	vdla_task_surface s;
	std::memset(&s, 0, sizeof(s));
	uint32_t e = uint32_t(vdla_test::dtypeSize(dtype));
	s.dtype = dtype;
	s.n = n;
	s.c = c;
	s.h = h;
	s.w = w;
	s.stride_w = e;
	s.stride_h = w * e;
	s.stride_c = h * w * e;
	s.stride_n = c * h * w * e;
	return s;
}

uint64_t surfaceBytes(const vdla_task_surface &s)
{
	return uint64_t(s.n) * s.c * s.h * s.w * vdla_test::dtypeSize(s.dtype);
}

vdla_task_op TaskWriter::newOp(uint8_t engine)
{
	vdla_task_op op;
	std::memset(&op, 0, sizeof(op));
	op.engine = engine;
	op.fused_parent = VDLA_NO_OP;
	for (auto &c : op.consumers)
		c.index = VDLA_NO_OP;
	return op;
}

uint16_t TaskWriter::add(const vdla_task_op &op)
{
	if (ops_.size() >= VDLA_TASK_MAX_OPS)
		throw std::length_error("TaskWriter: too many operations");
	ops_.push_back(op);
	return uint16_t(ops_.size() - 1);
}

uint16_t TaskWriter::bdma(const vdla_task_bdma &b)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_BDMA);
	op.bdma = b;
	return add(op);
}

uint16_t TaskWriter::copy(uint16_t srcIndex, uint64_t srcOffset, uint16_t dstIndex,
	uint64_t dstOffset, uint32_t bytes)
{
	vdla_task_bdma b;
	std::memset(&b, 0, sizeof(b));
	b.src = taskAddress(srcIndex, srcOffset);
	b.dst = taskAddress(dstIndex, dstOffset);
	b.line_bytes = bytes;
	b.lines = 1;
	b.surfaces = 1;
	return bdma(b);
}

uint16_t TaskWriter::conv(const vdla_task_conv &c)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_CONV);
	op.conv = c;
	return add(op);
}

uint16_t TaskWriter::sdp(const vdla_task_sdp &s)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_SDP);
	op.sdp = s;
	if ((s.fly & VDLA_TASK_FLY_IN) && !ops_.empty())
		op.fused_parent = uint16_t(ops_.size() - 1);
	return add(op);
}

void TaskWriter::link(uint16_t producer, uint16_t consumer, uint8_t event)
{
	for (auto &c : op(producer).consumers) {
		if (c.index == VDLA_NO_OP) {
			c.index = consumer;
			c.event = event;
			op(consumer).dependency_count++;
			return;
		}
	}
	throw std::length_error("TaskWriter::link: too many consumers");
}

vdla_task_header TaskWriter::header(uint32_t opsOffset) const
{
	vdla_task_header h;
	std::memset(&h, 0, sizeof(h));
	h.magic = VDLA_TASK_MAGIC;
	h.version_major = VDLA_TASK_VERSION_MAJOR;
	h.version_minor = VDLA_TASK_VERSION_MINOR;
	h.num_ops = uint32_t(ops_.size());
	h.ops_offset = opsOffset;
	return h;
}

size_t TaskWriter::size(uint32_t opsOffset) const
{
	return size_t(opsOffset) + ops_.size() * sizeof(vdla_task_op);
}

bool TaskWriter::write(void *dst, size_t capacity, uint32_t opsOffset) const
{
	if (size(opsOffset) > capacity || opsOffset < sizeof(vdla_task_header))
		return false;
	uint8_t *p = static_cast<uint8_t *>(dst);
	vdla_task_header h = header(opsOffset);
	std::memset(p, 0, opsOffset);
	std::memcpy(p, &h, sizeof(h));
	if (!ops_.empty())
		std::memcpy(p + opsOffset, ops_.data(), ops_.size() * sizeof(vdla_task_op));
	return true;
}

} /* namespace guest */
