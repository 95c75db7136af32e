/* SPDX-License-Identifier: MIT */
/*
 * TaskBuilder: writes a task of the vdla_task.h ABI (header + operations)
 * into a descriptor buffer and fills the task's address list, from logical
 * parameters (the reference's ConvParams, SdpParams, ...), with the
 * consumers/dependency_count bookkeeping and fused chains done for the
 * test. Plus deterministic test data.
 *
 * Every tensor gets a buffer of its own (an address-list entry exactly as
 * large as the tensor's extent) surrounded by canary bytes in guest memory,
 * so that the tests see both a firmware that names the wrong buffer and a
 * device that writes outside its tensor.
 */
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "reference.h"
#include "test_data.h"
#include "test_port.h"
#include "drm/vdla_task.h"

namespace vdla_fwtest {

using namespace vdla_testdata;

using vdla_ref::Tensor;
using vdla_test::TensorDesc;



enum class Memory {
	Guest,
	Sram,
};


/* ---- Test data --------------------------------------------------------- */



/* ---- Tasks ------------------------------------------------------------- */

/* A tensor of a task: where it lives in the address list and how it looks. */
struct Surface {
	uint16_t index = 0;
	uint64_t offset = 0;
	/* desc.addr is the device address of element (0,0,0,0); 0 when flying. */
	TensorDesc desc;
	bool flying = false;

	uint32_t dtype() const { return desc.dtype; }
};

/* A BDMA operation: addresses are (index, offset) of the address list. */
struct BdmaCopy {
	uint16_t srcIndex = 0, dstIndex = 0;
	uint64_t srcOffset = 0, dstOffset = 0;
	uint32_t lineBytes = 1, lines = 1, surfaces = 1;
	uint32_t srcLineStride = 0, dstLineStride = 0;
	uint32_t srcSurfStride = 0, dstSurfStride = 0;
};

/* The ABI's encoding of one surface. */
vdla_task_surface encodeSurface(const Surface &s);

class TaskBuilder
{
public:
	/* Address-list entry 0 is kept for the descriptor buffer. */
	explicit TaskBuilder(FwDevice &dev, Memory descriptorMemory = Memory::Guest);

	FwDevice &device() { return dev_; }
	DeviceHarness &dev() { return dev_.dev(); }

	/* ---- Buffers ---- */

	/* A new buffer of @bytes, filled with kCanary (margins too, in guest memory). */
	uint16_t addBuffer(uint64_t bytes, Memory where = Memory::Guest);
	/* A raw entry: any device address and size (for malformed tasks). */
	uint16_t addEntry(uint64_t devAddr, uint64_t size);
	AddressEntry &entry(uint16_t index) { return task_.addresses.at(index); }
	uint16_t numAddresses() const { return uint16_t(task_.addresses.size()); }
	/* Host pointer to @offset of entry @index. */
	uint8_t *hostPtr(uint16_t index, uint64_t offset = 0);
	/* The margins around guest buffer @index still hold kCanary. */
	::testing::AssertionResult marginsUntouched(uint16_t index);

	/* ---- Tensors ---- */

	/* A tensor in a buffer of its own, exactly its extent. */
	Surface alloc(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
		Layout layout = Layout::Nchw, Memory where = Memory::Guest);
	Surface allocLike(
		const Tensor &t, Layout layout = Layout::Nchw, Memory where = Memory::Guest)
	{
		return alloc(t.dtype, t.n, t.c, t.h, t.w, layout, where);
	}
	/* alloc() and store @t into it. */
	Surface place(const Tensor &t, Layout layout = Layout::Nchw, Memory where = Memory::Guest);
	/* A tensor at @offset of an existing buffer. */
	Surface at(uint16_t index, uint64_t offset, uint32_t dtype, uint32_t n, uint32_t c,
		uint32_t h, uint32_t w, Layout layout = Layout::Nchw);
	/* A tensor that flies between fused engines: no address, packed strides. */
	static Surface flying(uint32_t dtype, uint32_t n, uint32_t c, uint32_t h, uint32_t w);
	static Surface flyingLike(const Tensor &t) { return flying(t.dtype, t.n, t.c, t.h, t.w); }
	Tensor load(const Surface &s);
	void store(const Surface &s, const Tensor &t);

	/* Parameter arrays in buffers of their own. */
	vdla_task_address putInt16s(const std::vector<int16_t> &v);
	vdla_task_address putInt32s(const std::vector<int32_t> &v);
	vdla_task_address putFloats(const std::vector<float> &v);

	/* ---- Operations: each returns its index ---- */

	uint16_t bdma(const BdmaCopy &c);
	/* A BDMA copy of a whole packed tensor (same dtype and shape, packed NCHW). */
	uint16_t copy(const Surface &src, const Surface &dst);
	uint16_t conv(const Surface &src, const Surface &wgt, const Surface &dst,
		const vdla_ref::ConvParams &p, uint32_t fly = 0);
	/*
	 * SDP; its per-channel arrays and LUT go into new buffers. @y is the
	 * EW operand (p.ew != NONE). With VDLA_TASK_FLY_IN in @fly the op is
	 * the fused member of the op just added (fused_parent = index - 1).
	 */
	uint16_t sdp(const Surface &x, const Surface &dst, const vdla_ref::SdpParams &p,
		const Surface *y = nullptr, uint32_t fly = 0);
	uint16_t pdp(const Surface &src, const Surface &dst, const vdla_ref::PdpParams &p,
		uint32_t fly = 0);
	uint16_t cdp(const Surface &src, const Surface &dst, const vdla_ref::CdpParams &p);
	uint16_t rubik(const Surface &src, const Surface &dst, const vdla_ref::RubikParams &p);
	/*
	 * Fused chains, their members consecutive: CONV -> SDP, CONV -> SDP ->
	 * PDP and SDP -> PDP. The flying tensors between members get their
	 * types and shapes from the parameters (CONV's accumulator type and
	 * output size, SDP's @sdpType and its input's shape); @y is SDP's EW
	 * operand. The ops of a chain are returned head first.
	 */
	struct Fused {
		uint16_t conv = VDLA_NO_OP, sdp = VDLA_NO_OP, pdp = VDLA_NO_OP;
		uint16_t head = VDLA_NO_OP, tail = VDLA_NO_OP;
	};
	Fused convSdp(const Surface &src, const Surface &wgt, const vdla_ref::ConvParams &cp,
		const vdla_ref::SdpParams &sp, const Surface &dst, const Surface *y = nullptr);
	Fused convSdpPdp(const Surface &src, const Surface &wgt, const vdla_ref::ConvParams &cp,
		const vdla_ref::SdpParams &sp, uint32_t sdpType, const vdla_ref::PdpParams &pp,
		const Surface &dst, const Surface *y = nullptr);
	Fused sdpPdp(const Surface &x, const vdla_ref::SdpParams &sp, uint32_t sdpType,
		const vdla_ref::PdpParams &pp, const Surface &dst, const Surface *y = nullptr);

	/* Appends @op as it is (consumers should be VDLA_NO_OP). */
	uint16_t addOp(const vdla_task_op &op);

	/* ---- Dependencies ---- */

	/* A consumer link producer -> consumer; counts it in the consumer. */
	void link(uint16_t producer, uint16_t consumer, uint8_t event = VDLA_EVENT_OP_COMPLETED);
	/* Links from each producer to @consumer. */
	void after(uint16_t consumer, std::initializer_list<uint16_t> producers,
		uint8_t event = VDLA_EVENT_OP_COMPLETED);

	vdla_task_op &op(uint16_t index) { return ops_.at(index); }
	uint32_t numOps() const { return uint32_t(ops_.size()); }

	/* ---- The descriptor ---- */

	/*
	 * Writes header and operations into a new descriptor buffer (entry 0),
	 * the operation array at @opsOffset, and returns the task.
	 */
	TestTask &finish(uint32_t opsOffset = sizeof(vdla_task_header));
	TestTask &task() { return task_; }
	/* The header and operations as written by finish(), in device memory. */
	vdla_task_header &headerInMemory();
	vdla_task_op &opInMemory(uint32_t index);

private:
	vdla_task_op newOp(uint8_t engine);
	uint16_t push(const vdla_task_op &op);
	uint64_t allocBuffer(uint64_t bytes, Memory where);

	FwDevice &dev_;
	Memory descriptorMemory_;
	TestTask task_;
	std::vector<vdla_task_op> ops_;
	uint32_t opsOffset_ = sizeof(vdla_task_header);
};

} /* namespace vdla_fwtest */
