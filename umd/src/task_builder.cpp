/* SPDX-License-Identifier: MIT */
#include <vdla/task_builder.h>

#include <cerrno>
#include <cstring>

#include <drm/vdla_task.h>

#include <vdla/buffer.h>

namespace vdla {

namespace {

uint32_t floatBits(float value)
{
	uint32_t bits;
	std::memcpy(&bits, &value, sizeof(bits));
	return bits;
}

vdla_task_address encodeLocation(const Location &l)
{
	vdla_task_address a = {};
	if (l.buffer != Location::kNone) {
		a.index = l.buffer;
		a.offset = l.offset;
	}
	return a;
}

vdla_task_surface encodeTensor(const Tensor &tensor)
{
	Tensor t = tensor.packed();
	vdla_task_surface s = {};
	s.address.index = t.buffer;
	s.address.offset = t.offset;
	s.dtype = uint32_t(t.type);
	s.w = t.w;
	s.h = t.h;
	s.c = t.c;
	s.n = t.n;
	s.stride_w = t.strideW;
	s.stride_h = t.strideH;
	s.stride_c = t.strideC;
	s.stride_n = t.strideN;
	return s;
}

/* A tensor flying between fused engines: no address, packed strides. */
vdla_task_surface flyingTensor(const Tensor &tensor)
{
	Tensor t = tensor;
	t.strideW = t.strideH = t.strideC = t.strideN = 0;
	vdla_task_surface s = encodeTensor(t);
	s.address = {};
	return s;
}

vdla_task_op newOp(uint8_t engine)
{
	vdla_task_op op;
	std::memset(&op, 0, sizeof(op));
	op.engine = engine;
	op.fused_parent = VDLA_NO_OP;
	for (auto &c : op.consumers)
		c.index = VDLA_NO_OP;
	return op;
}

vdla_task_op encodeConv(const ConvOp &p, uint32_t fly)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_CONV);
	vdla_task_conv &c = op.conv;
	c.src = encodeTensor(p.src);
	c.wgt = encodeTensor(p.weights);
	c.dst = fly & VDLA_TASK_FLY_OUT ? flyingTensor(p.dst) : encodeTensor(p.dst);
	c.stride_x = p.strideX;
	c.stride_y = p.strideY;
	c.pad_left = p.padLeft;
	c.pad_right = p.padRight;
	c.pad_top = p.padTop;
	c.pad_bottom = p.padBottom;
	c.dilation_x = p.dilationX;
	c.dilation_y = p.dilationY;
	c.groups = p.groups;
	c.pad_value = isFloat(p.src.type) ? floatBits(p.padValueFloat) : uint32_t(p.padValue);
	c.fly = fly;
	return op;
}

vdla_task_op encodeSdp(const SdpOp &p, uint32_t fly, const Tensor *flyingSrc)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_SDP);
	vdla_task_sdp &s = op.sdp;
	const Tensor &src = flyingSrc ? *flyingSrc : p.src;
	s.src = flyingSrc ? flyingTensor(src) : encodeTensor(src);
	s.dst = fly & VDLA_TASK_FLY_OUT ? flyingTensor(p.dst) : encodeTensor(p.dst);
	if (p.ewOp != SdpEwOp::None)
		s.ew = encodeTensor(p.ew);
	if (p.biasMode == SdpMode::PerChannel)
		s.bias = encodeLocation(p.bias);
	if (p.scaleMode == SdpMode::PerChannel)
		s.scale = encodeLocation(p.scale);
	if (p.activation == SdpActivation::Lut)
		s.lut = encodeLocation(p.lut);
	s.fly = fly;
	s.bias_mode = uint8_t(p.biasMode);
	s.scale_mode = uint8_t(p.scaleMode);
	s.ew_op = uint8_t(p.ewOp);
	s.act = uint8_t(p.activation);
	s.round = uint8_t(p.round);
	s.wrap = p.wrap ? 1 : 0;
	if (!isFloat(src.type)) {
		s.bias_value = uint32_t(p.biasValue);
		s.scale_mul = uint32_t(p.scaleMul);
		s.scale_shift = p.scaleShift;
		s.ew_mul = uint32_t(p.ewMul);
		s.ew_shift = p.ewShift;
		s.ew_post_shift = p.ewPostShift;
		s.clip_min = uint32_t(p.clipMin);
		s.clip_max = uint32_t(p.clipMax);
		s.lut_start = uint32_t(p.lutStart);
		s.lut_shift = p.lutShift;
		s.out_offset = uint32_t(p.outOffset);
	} else {
		s.bias_value = floatBits(p.biasFloat);
		s.scale_mul = floatBits(p.scaleFloat);
		s.ew_mul = floatBits(p.ewMulFloat);
		s.clip_min = floatBits(p.clipMinFloat);
		s.clip_max = floatBits(p.clipMaxFloat);
		s.lut_start = floatBits(p.lutStartFloat);
		s.lut_shift = floatBits(p.lutStepFloat);
	}
	return op;
}

vdla_task_op encodePdp(const PdpOp &p, uint32_t fly, const Tensor *flyingSrc)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_PDP);
	vdla_task_pdp &d = op.pdp;
	d.src = flyingSrc ? flyingTensor(*flyingSrc) : encodeTensor(p.src);
	d.dst = encodeTensor(p.dst);
	d.fly = fly;
	d.method = uint8_t(p.method);
	d.ceil_mode = p.ceilMode ? 1 : 0;
	d.include_pad = p.includePad ? 1 : 0;
	d.round = uint8_t(p.round);
	d.kernel_w = p.kernelW;
	d.kernel_h = p.kernelH;
	d.stride_x = p.strideX;
	d.stride_y = p.strideY;
	d.pad_left = p.padLeft;
	d.pad_right = p.padRight;
	d.pad_top = p.padTop;
	d.pad_bottom = p.padBottom;
	return op;
}

} /* namespace */

/* ---- Types ----------------------------------------------------------------- */

uint32_t dataTypeSize(DataType type)
{
	switch (type) {
	case DataType::Int8:
		return 1;
	case DataType::Int16:
	case DataType::Fp16:
		return 2;
	case DataType::Int32:
	case DataType::Fp32:
		break;
	}
	return 4;
}

bool isFloat(DataType type)
{
	return type == DataType::Fp16 || type == DataType::Fp32;
}

Tensor Tensor::nchw(uint16_t buffer, uint64_t offset, DataType type, uint32_t n, uint32_t c,
	uint32_t h, uint32_t w)
{
	Tensor t;
	t.buffer = buffer;
	t.offset = offset;
	t.type = type;
	t.n = n;
	t.c = c;
	t.h = h;
	t.w = w;
	return t.packed();
}

Tensor Tensor::packed() const
{
	if (strideW || strideH || strideC || strideN)
		return *this;
	Tensor t = *this;
	t.strideW = dataTypeSize(type);
	t.strideH = t.strideW * w;
	t.strideC = t.strideH * h;
	t.strideN = t.strideC * c;
	return t;
}

uint64_t Tensor::bytes() const
{
	if (!n || !c || !h || !w)
		return 0;
	Tensor t = packed();
	return uint64_t(n - 1) * t.strideN + uint64_t(c - 1) * t.strideC
		+ uint64_t(h - 1) * t.strideH + uint64_t(w - 1) * t.strideW + dataTypeSize(type);
}

/* ---- TaskBuilder ------------------------------------------------------------ */

class TaskBuilder::Private
{
public:
	std::vector<TaskAddress> addresses;
	/* The Device of each entry's Buffer; nullptr for a bare handle. */
	std::vector<const Device *> devices;
	std::vector<vdla_task_op> ops;
	std::optional<Error> error;
};

TaskBuilder::TaskBuilder() : d_(std::make_unique<Private>())
{
}

TaskBuilder::~TaskBuilder() = default;
TaskBuilder::TaskBuilder(TaskBuilder &&) noexcept = default;
TaskBuilder &TaskBuilder::operator=(TaskBuilder &&) noexcept = default;

void TaskBuilder::fail(int code, const std::string &reason)
{
	if (!d_->error)
		d_->error = Error(code, reason);
}

uint16_t TaskBuilder::addBuffer(const Buffer &buffer, BufferUse use, uint64_t offset)
{
	uint16_t index = addHandle(buffer.handle(), use, offset);
	if (index != Location::kNone)
		d_->devices.back() = &buffer.device();
	return index;
}

uint16_t TaskBuilder::addHandle(uint32_t handle, BufferUse use, uint64_t offset)
{
	if (d_->addresses.size() >= kMaxAddresses) {
		fail(E2BIG,
			"the address list is full (" + std::to_string(kMaxAddresses)
				+ " buffers and the descriptor)");
		return Location::kNone;
	}
	d_->addresses.push_back({ handle, use == BufferUse::Write, offset });
	d_->devices.push_back(nullptr);
	return uint16_t(d_->addresses.size() - 1);
}

const std::vector<TaskAddress> &TaskBuilder::addresses() const
{
	return d_->addresses;
}

uint16_t TaskBuilder::push(const vdla_task_op &op)
{
	if (d_->ops.size() >= kMaxOps) {
		fail(E2BIG, "a task holds at most " + std::to_string(kMaxOps) + " operations");
		return VDLA_NO_OP;
	}
	d_->ops.push_back(op);
	return uint16_t(d_->ops.size() - 1);
}

uint16_t TaskBuilder::copy(const CopyOp &p)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_BDMA);
	vdla_task_bdma &b = op.bdma;
	b.src = encodeLocation(p.src);
	b.dst = encodeLocation(p.dst);
	b.line_bytes = p.lineBytes;
	b.lines = p.lines;
	b.surfaces = p.surfaces;
	b.src_line_stride = p.srcLineStride ? p.srcLineStride : p.lineBytes;
	b.dst_line_stride = p.dstLineStride ? p.dstLineStride : p.lineBytes;
	b.src_surf_stride = p.srcSurfaceStride ? p.srcSurfaceStride : b.src_line_stride * p.lines;
	b.dst_surf_stride = p.dstSurfaceStride ? p.dstSurfaceStride : b.dst_line_stride * p.lines;
	return push(op);
}

uint16_t TaskBuilder::copy(Location src, Location dst, uint32_t bytes)
{
	CopyOp op;
	op.src = src;
	op.dst = dst;
	op.lineBytes = bytes;
	return copy(op);
}

uint16_t TaskBuilder::conv(const ConvOp &p)
{
	return push(encodeConv(p, 0));
}

uint16_t TaskBuilder::sdp(const SdpOp &p)
{
	return push(encodeSdp(p, 0, nullptr));
}

uint16_t TaskBuilder::pdp(const PdpOp &p)
{
	return push(encodePdp(p, 0, nullptr));
}

uint16_t TaskBuilder::cdp(const CdpOp &p)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_CDP);
	vdla_task_cdp &c = op.cdp;
	c.src = encodeTensor(p.src);
	c.dst = encodeTensor(p.dst);
	if (!isFloat(p.src.type))
		c.lut = encodeLocation(p.lut);
	c.size = p.size;
	c.lut_shift = p.lutShift;
	c.out_shift = p.outShift;
	c.k = floatBits(p.k);
	c.alpha = floatBits(p.alpha);
	c.beta = floatBits(p.beta);
	c.round = uint8_t(p.round);
	c.wrap = p.wrap ? 1 : 0;
	return push(op);
}

uint16_t TaskBuilder::rubik(const RubikOp &p)
{
	vdla_task_op op = newOp(VDLA_TASK_ENGINE_RUBIK);
	vdla_task_rubik &r = op.rubik;
	r.src = encodeTensor(p.src);
	r.dst = encodeTensor(p.dst);
	r.mode = uint32_t(p.mode);
	for (unsigned int d = 0; d < 4; d++)
		r.perm |= uint32_t(p.perm[d]) << (2 * d);
	r.block_x = p.blockX;
	r.block_y = p.blockY;
	return push(op);
}

FusedChain TaskBuilder::fuse(const ConvOp &conv, const SdpOp &sdp)
{
	FusedChain chain;
	chain.head = push(encodeConv(conv, VDLA_TASK_FLY_OUT));
	vdla_task_op member = encodeSdp(sdp, VDLA_TASK_FLY_IN, &conv.dst);
	member.fused_parent = chain.head;
	chain.tail = push(member);
	return chain;
}

FusedChain TaskBuilder::fuse(const SdpOp &sdp, const PdpOp &pdp)
{
	FusedChain chain;
	chain.head = push(encodeSdp(sdp, VDLA_TASK_FLY_OUT, nullptr));
	vdla_task_op member = encodePdp(pdp, VDLA_TASK_FLY_IN, &sdp.dst);
	member.fused_parent = chain.head;
	chain.tail = push(member);
	return chain;
}

FusedChain TaskBuilder::fuse(const ConvOp &conv, const SdpOp &sdp, const PdpOp &pdp)
{
	FusedChain chain;
	chain.head = push(encodeConv(conv, VDLA_TASK_FLY_OUT));
	vdla_task_op middle = encodeSdp(sdp, VDLA_TASK_FLY_IN | VDLA_TASK_FLY_OUT, &conv.dst);
	middle.fused_parent = chain.head;
	uint16_t mid = push(middle);
	vdla_task_op tail = encodePdp(pdp, VDLA_TASK_FLY_IN, &sdp.dst);
	tail.fused_parent = mid;
	chain.tail = push(tail);
	return chain;
}

bool TaskBuilder::inFusedChainOf(uint16_t producer, uint16_t consumer) const
{
	for (uint16_t i = consumer; d_->ops[i].fused_parent != VDLA_NO_OP;
		i = d_->ops[i].fused_parent) {
		if (d_->ops[i].fused_parent == producer)
			return true;
	}
	return false;
}

void TaskBuilder::link(uint16_t producer, uint16_t consumer, Event event)
{
	const std::string what
		= "link " + std::to_string(producer) + " -> " + std::to_string(consumer);
	if (producer >= d_->ops.size() || consumer >= d_->ops.size()) {
		fail(EINVAL, what + ": no such operation");
		return;
	}
	if (consumer <= producer) {
		fail(EINVAL, what + ": a link must point to a later operation");
		return;
	}
	if (event == Event::Completed && inFusedChainOf(producer, consumer)) {
		fail(EINVAL,
			what
				+ ": both are in one fused chain, which completes as a whole; "
				  "a member can wait only for an earlier one's Programmed or "
				  "Enabled");
		return;
	}
	vdla_task_op &p = d_->ops[producer];
	for (auto &slot : p.consumers) {
		if (slot.index != VDLA_NO_OP)
			continue;
		slot.index = consumer;
		slot.event = uint8_t(event);
		d_->ops[consumer].dependency_count++;
		return;
	}
	fail(E2BIG,
		what + ": an operation has at most " + std::to_string(kMaxConsumers)
			+ " consumers");
}

void TaskBuilder::after(uint16_t consumer, std::initializer_list<uint16_t> producers)
{
	for (uint16_t producer : producers)
		link(producer, consumer, Event::Completed);
}

uint32_t TaskBuilder::numOps() const
{
	return uint32_t(d_->ops.size());
}

const std::optional<Error> &TaskBuilder::error() const
{
	return d_->error;
}

std::vector<uint8_t> TaskBuilder::encode() const
{
	vdla_task_header h = {};
	h.magic = VDLA_TASK_MAGIC;
	h.version_major = VDLA_TASK_VERSION_MAJOR;
	h.version_minor = VDLA_TASK_VERSION_MINOR;
	h.num_ops = uint32_t(d_->ops.size());
	h.ops_offset = sizeof(h);

	std::vector<uint8_t> bytes(sizeof(h) + d_->ops.size() * sizeof(vdla_task_op));
	std::memcpy(bytes.data(), &h, sizeof(h));
	if (!d_->ops.empty())
		std::memcpy(bytes.data() + sizeof(h), d_->ops.data(),
			d_->ops.size() * sizeof(vdla_task_op));
	return bytes;
}

Result<Task> TaskBuilder::build(Device &device) const
{
	if (d_->error)
		return *d_->error;
	for (size_t i = 0; i < d_->devices.size(); i++) {
		if (d_->devices[i] && d_->devices[i] != &device)
			return Error(EINVAL,
				"address-list entry " + std::to_string(i)
					+ " is a buffer of another Device");
	}

	std::vector<uint8_t> bytes = encode();
	auto buffer = Buffer::create(device, bytes.size());
	if (!buffer)
		return Error(buffer.error().code(),
			"cannot allocate the descriptor: " + buffer.error().reason());
	auto map = (*buffer)->map();
	if (!map)
		return map.error();
	std::memcpy(*map, bytes.data(), bytes.size());
	(*buffer)->unmap();

	Task task;
	task.descriptor_ = std::shared_ptr<Buffer>(std::move(*buffer));
	task.addresses_ = d_->addresses;
	task.addresses_.push_back({ task.descriptor_->handle(), false, 0 });
	task.numOps_ = uint32_t(d_->ops.size());
	return task;
}

static_assert(sizeof(vdla_task_op) == VDLA_TASK_OP_SIZE, "the op size is ABI");

} /* namespace vdla */
