/* SPDX-License-Identifier: MIT */
/*
 * Lowering of neural-network nodes to DLA operations (docs/openvx.md,
 * "Neural-network layers on the DLA"). A node becomes a Unit: one operation
 * (a RUBIK one for data movement) or one fused chain CONV -> SDP [-> PDP],
 * into which the activation and pooling nodes that follow a convolution are
 * folded when the intermediate tensor is virtual and the hardware computes
 * the same values.
 *
 * Units are built before any buffer exists: their operations name tensors
 * by slot (Lowering::slots) and constants (bias tables, LUTs) by offset in
 * the constant pool, slot kConstantSlot. The plan maps slots to the task's
 * address list when it writes the task.
 */
#pragma once

#include "framework/object.h"
#include "objects/tensor_layout.h"

#include <vdla/task_builder.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vdla::vx::nn {
struct GeneralConvolution;
struct Concatenation;
struct Dequantize;
struct Elementwise;
struct Rearrangement;
struct Softmax;
} /* namespace vdla::vx::nn */

namespace vdla::vx::dla {

constexpr uint16_t kConstantSlot = 0;

struct IntegerOutput;

/* @tensor's values, packed (constants the lowering folds: weights, biases, scales). */
template <typename T> std::vector<T> valuesOf(vx_tensor tensor)
{
	std::vector<T> values(tensor->byteSize() / sizeof(T));
	readPacked(tensor, reinterpret_cast<uint8_t *>(values.data()));
	return values;
}

/* The same buffer read as another element type of the same size. */
inline Tensor reinterpret(Tensor t, DataType type)
{
	t.type = type;
	return t;
}

/* An SDP writing @a times @b, element by element, to @dst. */
inline SdpOp productSdp(const Tensor &a, const Tensor &b, const Tensor &dst)
{
	SdpOp sdp;
	sdp.src = a;
	sdp.ewOp = SdpEwOp::Mul;
	sdp.ew = b;
	sdp.dst = dst;
	return sdp;
}
struct MaxOfTables;
struct LutTable;

/* The DLA's element type of an OpenVX tensor type (INT8, INT16, FLOAT32). */
std::optional<DataType> hardwareType(vx_enum type);

/*
 * Whether fixed-point LRN with @beta over windows of @terms elements stays
 * within 1 LSB in FP32, @extraUlps being the rounding steps a lowering
 * adds (dla_lower_lrn_float.cpp); if not, @why says why.
 */
bool lrnThroughFloatFits(
	float beta, vx_size terms, double extraUlps, vx_enum type, std::string &why);

/* Whether the DLA computes @layer (dla_lower_softmax.cpp); if not, @why says why. */
bool softmaxFits(const nn::Softmax &layer, std::string &why);
/* The same for an affine-quantised convolution (dla_lower_convolution.cpp),
 * whose weights, bias and multipliers hold their values. */
bool generalConvolutionFits(const nn::GeneralConvolution &layer, std::string &why);
/* Whether the DLA takes @tensor: its type, and its dimensions within 65535
 * (those from the fourth on folded into N); if not, @why says why. */
bool tensorFits(vx_tensor tensor, std::string &why);
/* The same for data movement on RUBIK (dla_lower_rearrange.cpp). */
bool rearrangementFits(const nn::Rearrangement &layer, std::string &why);
bool concatenationFits(const nn::Concatenation &layer, std::string &why);
/* The same for the element-wise layer on the SDP (dla_lower_elementwise.cpp). */
bool elementwiseFits(const nn::Elementwise &layer, std::string &why);
/* The same for dequantisation (dla_lower_dequantize.cpp), whose zero points hold values. */
bool dequantizeFits(const nn::Dequantize &layer, std::string &why);

struct Unit {
	/*
	 * The node the unit computes first, then those fused into it. Empty
	 * for the further units of a node lowered to several (softmax): they
	 * follow its first unit.
	 */
	std::vector<vx_node> nodes;
	std::optional<ConvOp> conv;
	std::optional<SdpOp> sdp;
	std::optional<PdpOp> pdp;
	std::optional<CdpOp> cdp;
	/* RUBIK, alone. */
	std::optional<RubikOp> rubik;
	/* Slots the unit reads and the one it writes. */
	std::vector<uint16_t> reads;
	uint16_t writes = kConstantSlot;
	/* Operation indices in the task, set when the task is written. */
	uint16_t headOp = 0;
	uint16_t tailOp = 0;
};

class Lowering
{
public:
	Lowering();

	/*
	 * Whether @node can run on the DLA with its current parameters; if
	 * not, @why says what stops it. Checks everything lower() needs.
	 */
	static bool supported(vx_node node, std::string &why);
	/* Whether the node's kernel is one the DLA can ever run. */
	static bool kernelSupported(vx_kernel kernel);

	/*
	 * Appends the unit of @node, or folds it into the previous unit when
	 * fusion is enabled and allowed. @node passed supported() (the DLA
	 * target took it).
	 */
	vx_status lower(vx_node node, bool fuse);

	std::vector<Unit> &units() { return units_; }
	const std::vector<Unit> &units() const { return units_; }
	/* Slot s (>= 1) holds tensors()[s - 1]. */
	const std::vector<vx_tensor> &tensors() const { return tensors_; }
	const std::vector<uint8_t> &constants() const { return constants_; }
	/* The tensors whose values constants() holds a copy of (biases). */
	const std::vector<vx_tensor> &copiedValues() const { return copiedValues_; }
	/*
	 * The intermediate tensors of the units (softmax), which no graph
	 * knows: not registered as OpenVX objects, owned by whoever keeps the
	 * task, since its address list names their buffers.
	 */
	std::vector<std::unique_ptr<_vx_tensor_t>> takeScratch() { return std::move(scratch_); }

private:
	/* What convolution and fully connected share: CONV -> SDP. */
	struct MatrixLayer {
		vx_tensor input, weights, bias, output;
		vx_enum overflow, rounding;
	};
	void pushConvolutionUnit(
		vx_node node, ConvOp conv, const Tensor &out, const MatrixLayer &layer);
	/* The SDP part of a convolution with unshared biases: one unit, or
	 * two when an integer output is scaled (dla_lower.cpp). */
	void pushUnsharedBiasUnits(Unit unit, vx_node &node, SdpOp sdp, const MatrixLayer &layer,
		const IntegerOutput &integer);
	/* The layer's bias in the constant pool (an integer one at the
	 * product's position), recorded as a value the tasks copied. */
	uint64_t biasConstant(const MatrixLayer &layer, const IntegerOutput &integer);
	/* An activation of several LUT passes: one SDP per pass and per
	 * maximum (dla_lower.cpp, dla_lower_lut.h). */
	/*
	 * LRN in FP32 (dla_lower_lrn_float.cpp): fixed-point LRN through the
	 * CDP's float path, @layer holding its float parameters, and SAME_MAP
	 * LRN of any type. The helpers give an integer tensor's real values
	 * (a float one as it is), store real values [times @factor] into
	 * @output (rounded to its position if integer), and append a CDP.
	 */
	void pushLrnThroughFloat(
		vx_node node, const CdpOp &layer, vx_tensor input, vx_tensor output);
	void pushSameMapLrn(vx_node node, const CdpOp &layer, vx_tensor input, vx_tensor output);
	Tensor pushRealValues(vx_tensor input, vx_node &node);
	void pushStoreReal(
		const Tensor &real, const Tensor *factor, vx_tensor output, vx_node &node);
	Tensor pushCdp(vx_context context, const CdpOp &layer, const Tensor &src, vx_node &node);
	/*
	 * a = @x clipped to [2^-100, FLT_MAX] (FP32) and y ~ 1/sqrt(a), in
	 * eleven SDPs; with @sqrtInto, the last one writes sqrt(a) there
	 * instead and y is that tensor (dla_lower_sqrt.cpp).
	 */
	struct InverseSqrt {
		Tensor a, y;
	};
	InverseSqrt pushInverseSqrt(
		vx_context context, const Tensor &x, vx_node &node, const Tensor *sqrtInto);
	/* FLOAT32 SQRT: eleven SDPs (dla_lower_sqrt.cpp). */
	void pushFloatSqrtUnits(vx_node node, vx_tensor input, vx_tensor output);
	void pushLutPassUnits(
		vx_node node, vx_tensor input, vx_tensor output, const MaxOfTables &plan);

	/* The slot of the buffer holding @tensor, and where in it @tensor
	 * starts (a view in its root's, tensor_layout.h). */
	uint16_t slot(vx_tensor tensor);
	static uint64_t offsetOf(vx_tensor tensor);
	/* Makes @sdp's activation the LUT @table (in the constant pool). */
	void useTable(const LutTable &table, SdpOp &sdp);
	/* A packed intermediate tensor of @type with @shape's dimensions. */
	Tensor scratchLike(vx_context context, const Tensor &shape, DataType type);
	/* Appends @unit carrying @node if not null, then clears @node: the
	 * first of a node's units carries it, the rest none. */
	void pushUnit(Unit unit, vx_node &node);
	/* The same for a unit of one SDP. */
	void pushSdpUnit(const SdpOp &sdp, vx_node &node);
	/* A new intermediate tensor of @count elements of @type, and its slot. */
	uint16_t scratch(vx_context context, DataType type, vx_size count);
	uint64_t addConstant(const void *data, size_t size);
	/* @tensor as (N, C, H, W) = (its dimensions from the fourth on, 3rd, 2nd, 1st). */
	Tensor hardwareTensor(vx_tensor tensor);
	/*
	 * @tensor's elements as the (@n, @c, @h, @w) tensor whose W, H, C and
	 * N each take the next of its dimensions in order: packed at its slot,
	 * or with the root's strides for a view addressed in place. Empty
	 * when one stride cannot walk such a view's group (a partial
	 * dimension, then another that is not 1).
	 */
	std::optional<Tensor> addressAs(
		vx_tensor tensor, uint32_t n, uint32_t c, uint32_t h, uint32_t w);
	/* The same for reading, never empty: otherwise a packed copy, made by
	 * a unit of one SDP carrying @node (pushUnit()). */
	Tensor readAs(
		vx_tensor tensor, uint32_t n, uint32_t c, uint32_t h, uint32_t w, vx_node &node);
	bool tryFuse(vx_node node);

	/* The table of kernels the DLA runs (dla_lower.cpp); null for any other. */
	struct Operation;
	static const Operation *operation(vx_kernel kernel);
	vx_status lowerConvolution(vx_node node);
	vx_status lowerDeconvolution(vx_node node);
	vx_status lowerFullyConnected(vx_node node);
	vx_status lowerPooling(vx_node node);
	vx_status lowerActivation(vx_node node);
	vx_status lowerNormalization(vx_node node);
	vx_status lowerSoftmax(vx_node node);
	vx_status lowerGeneralConvolution(vx_node node);
	vx_status lowerRearrangement(vx_node node);
	/* A unit of one RUBIK operation (dla_lower_rearrange.cpp), carrying @node if not null. */
	void pushRubikUnit(const RubikOp &op, vx_node &node);
	void pushDepthStack(const nn::Rearrangement &layer, const Tensor &in, const Tensor &out,
		vx_node &carrier);
	vx_status lowerConcatenation(vx_node node);
	vx_status lowerElementwise(vx_node node);
	vx_status lowerDequantize(vx_node node);
	/*
	 * Pushes @sdp, an integer SDP whose bias takes its zero point out,
	 * writing its values v plus kIntegerBaseBits as INT32 (dla_float_bits.h)
	 * to a scratch tensor, returned read as FP32: 1.5 * 2^23 + v, exactly.
	 */
	Tensor pushAsFloatBits(vx_context context, SdpOp sdp, vx_node &node);
	/*
	 * @rounding (an SDP rounding to integers) into INT8 @out: directly
	 * when @outputZero is 0, else into INT16 and then an integer SDP
	 * adding @outputZero and saturating (dla_lower_convolution.cpp).
	 */
	void pushWithOutputZero(
		vx_context context, SdpOp rounding, const Tensor &out, int32_t outputZero, vx_node &node);
	void pushWrappingUnits(const nn::Elementwise &layer, const Tensor &out, const Tensor &x,
		const Tensor &y, vx_node &node);

	std::vector<Unit> units_;
	std::vector<vx_tensor> tensors_;
	std::vector<uint8_t> constants_;
	std::vector<vx_tensor> copiedValues_;
	/* The bias constant of each (input, weights, bias, output) lowered:
	 * a deconvolution's phases share one. */
	std::map<std::array<vx_tensor, 4>, uint64_t> biasConstants_;
	std::vector<std::unique_ptr<_vx_tensor_t>> scratch_;
};

} /* namespace vdla::vx::dla */
