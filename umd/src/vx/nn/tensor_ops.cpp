/* SPDX-License-Identifier: MIT */
/*
 * The standard tensor kernels of <VX/vx_nodes.h> on the host CPU: add,
 * subtract and multiply element-wise (a dimension of 1 in either input is
 * repeated along the other's), table lookup, transpose, convert depth and
 * matrix multiply. Integer tensors hold raw * 2^-fixed_point_position; rounding
 * never depends on the caller's floating-point environment. docs/openvx.md
 * ("Tensor kernels") states the arithmetic.
 */

#include "nn/exact_sum.h"
#include "nn/nn_layers.h"
#include "framework/object.h"
#include "objects/tensor_elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace vdla::vx;

namespace {

using Dims = std::vector<vx_size>;

/* Calls fn(index) for every index of @dims, dimension 0 fastest. */
void forEachIndex(const Dims &dims, const std::function<void(const Dims &)> &fn)
{
	for (vx_size extent : dims)
		if (extent == 0)
			return;
	Dims index(dims.size(), 0);
	for (;;) {
		fn(index);
		size_t d = 0;
		while (d < dims.size() && ++index[d] == dims[d])
			index[d++] = 0;
		if (d == dims.size())
			return;
	}
}

int64_t saturatingAdd(int64_t x, int64_t y)
{
	int64_t sum;
	if (__builtin_add_overflow(x, y, &sum))
		return y > 0 ? std::numeric_limits<int64_t>::max()
			     : std::numeric_limits<int64_t>::min();
	return sum;
}

/* An integer-valued double to the type: saturated or wrapped. */
int64_t narrow(double value, vx_enum type, vx_enum overflow)
{
	/* Beyond +-2^62 only saturation makes sense, and int64 must not overflow. */
	constexpr double kLimit = 4.611686018427387904e18;
	const int64_t whole = int64_t(std::clamp(value, -kLimit, kLimit));
	return vdla::vx::nn::convert(whole, type, overflow);
}

vx_tensor tensorAt(const vx_reference parameters[], vx_uint32 index)
{
	return reinterpret_cast<vx_tensor>(parameters[index]);
}

/* The scalar's value if it holds a T of @type. */
template <typename T> bool scalarValue(vx_reference ref, vx_enum type, T &value)
{
	auto scalar = reinterpret_cast<vx_scalar>(ref);
	if (!scalar || scalar->dataType != type || scalar->value.size() != sizeof(T))
		return false;
	memcpy(&value, scalar->value.data(), sizeof(T));
	return true;
}

bool isTensorElementType(vx_enum type)
{
	return type == VX_TYPE_INT8 || type == VX_TYPE_UINT8 || type == VX_TYPE_INT16
		|| type == VX_TYPE_FLOAT32;
}

/* The output a validator derived, for the framework to complete or check. */
vx_status describe(vx_meta_format meta, const Dims &dims, vx_tensor format)
{
	meta->dims = dims;
	meta->tensorType = format->dataType;
	meta->fixedPointPosition = format->fixedPointPosition;
	meta->fixedPointSet = true;
	return VX_SUCCESS;
}

/* The output's type and position when given, else those of @input. */
vx_tensor outputFormat(vx_tensor output, vx_tensor input)
{
	return output->resolved() ? output : input;
}

/* ---- Add, subtract, multiply ---------------------------------------- */

enum class Elementwise { Add, Subtract, Multiply };

/*
 * Dimension by dimension the inputs' extents are equal, or one of them is
 * 1 and repeats along the other; nullopt otherwise.
 */
std::optional<Dims> broadcastDims(const Dims &a, const Dims &b)
{
	if (a.size() != b.size())
		return std::nullopt;
	Dims out(a.size());
	for (size_t d = 0; d < a.size(); d++) {
		if (a[d] != b[d] && a[d] != 1 && b[d] != 1)
			return std::nullopt;
		out[d] = std::max(a[d], b[d]);
	}
	return out;
}

struct ElementwiseParameters {
	vx_tensor a, b, out;
	vx_enum overflow, rounding = VX_ROUND_POLICY_TO_ZERO;
	vx_float32 scale = 1;
};

/* Reads and checks a node's parameters: add and subtract (a, b, policy,
 * out), multiply (a, b, scale, overflow, rounding, out). */
vx_status elementwiseParameters(
	Elementwise op, const vx_reference parameters[], ElementwiseParameters &p)
{
	const bool multiply = op == Elementwise::Multiply;
	p.a = tensorAt(parameters, 0);
	p.b = tensorAt(parameters, 1);
	p.out = tensorAt(parameters, multiply ? 5 : 3);
	const bool scalarsTyped = multiply
		? scalarValue(parameters[2], VX_TYPE_FLOAT32, p.scale)
			&& scalarValue(parameters[3], VX_TYPE_ENUM, p.overflow)
			&& scalarValue(parameters[4], VX_TYPE_ENUM, p.rounding)
		: scalarValue(parameters[2], VX_TYPE_ENUM, p.overflow);
	if (!scalarsTyped)
		return VX_ERROR_INVALID_TYPE;
	if ((p.overflow != VX_CONVERT_POLICY_WRAP && p.overflow != VX_CONVERT_POLICY_SATURATE)
		|| (p.rounding != VX_ROUND_POLICY_TO_ZERO
			&& p.rounding != VX_ROUND_POLICY_TO_NEAREST_EVEN)
		|| !std::isfinite(p.scale))
		return VX_ERROR_INVALID_VALUE;
	/* Add and subtract work on raw values: one position for all three. */
	if (!isTensorElementType(p.a->dataType) || p.a->dataType != p.b->dataType
		|| (!multiply && p.a->fixedPointPosition != p.b->fixedPointPosition))
		return VX_ERROR_INVALID_FORMAT;
	if (p.out->resolved()
		&& (p.out->dataType != p.a->dataType
			|| (!multiply && p.out->fixedPointPosition != p.a->fixedPointPosition)))
		return VX_ERROR_INVALID_FORMAT;
	return VX_SUCCESS;
}

template <Elementwise op>
vx_status VX_CALLBACK validateElementwise(
	vx_node, const vx_reference parameters[], vx_uint32 num, vx_meta_format metas[])
{
	ElementwiseParameters p;
	vx_status status = elementwiseParameters(op, parameters, p);
	if (status != VX_SUCCESS)
		return status;
	const std::optional<Dims> dims = broadcastDims(p.a->dims, p.b->dims);
	if (!dims)
		return VX_ERROR_INVALID_DIMENSION;
	return describe(metas[num - 1], *dims, outputFormat(p.out, p.a));
}

/* Floats: in double, stored as float. */
double combineReal(Elementwise op, const ElementwiseParameters &p, double x, double y)
{
	return op == Elementwise::Add ? x + y
		: op == Elementwise::Subtract ? x - y
					      : x * y * double(p.scale);
}

/*
 * Integers, before narrowing: add and subtract the raw values; multiply
 * a * b * scale moved to the output's position and rounded, exactly in
 * integers. The float scale is m * 2^e with |m| < 2^24, and
 * |raw a * raw b * m| < 2^55. (Rounding a double product instead could
 * turn a value just above a tie into a tie, which the caller's rounding
 * mode would then decide.)
 */
int64_t combineRaw(Elementwise op, const ElementwiseParameters &p, const TensorElements &a, vx_size ia,
	const TensorElements &b, vx_size ib, const TensorElements &out)
{
	const int64_t x = a.raw(ia), y = b.raw(ib);
	if (op != Elementwise::Multiply)
		return op == Elementwise::Add ? x + y : x - y;
	int exponent = 0;
	const double fraction = std::frexp(double(p.scale), &exponent);
	const int64_t mantissa = int64_t(std::ldexp(fraction, 24));
	const int shift = exponent - 24 + out.position() - a.position() - b.position();
	return vdla::vx::nn::rescale(x * y * mantissa, 0, shift, p.rounding);
}

template <Elementwise op>
vx_status VX_CALLBACK runElementwise(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	ElementwiseParameters p;
	vx_status status = elementwiseParameters(op, parameters, p);
	if (status != VX_SUCCESS)
		return status;
	TensorElements a(p.a), b(p.b), out(p.out);
	if (!a.hasMemory() || !b.hasMemory() || !out.hasMemory())
		return VX_ERROR_NO_MEMORY;
	forEachIndex(p.out->dims, [&](const Dims &index) {
		const vx_size ia = a.offset(index, true), ib = b.offset(index, true);
		const vx_size offset = out.offset(index);
		if (out.isFloat())
			out.storeFloat(offset, combineReal(op, p, a.real(ia), b.real(ib)));
		else
			out.storeRaw(offset, vdla::vx::nn::convert(combineRaw(op, p, a, ia, b, ib, out),
						     out.type(), p.overflow));
	});
	return VX_SUCCESS;
}

/* ---- Transpose --------------------------------------------------------- */

vx_status transposeParameters(const vx_reference parameters[], vx_size &first, vx_size &second)
{
	vx_tensor in = tensorAt(parameters, 0), out = tensorAt(parameters, 1);
	if (!scalarValue(parameters[2], VX_TYPE_SIZE, first)
		|| !scalarValue(parameters[3], VX_TYPE_SIZE, second))
		return VX_ERROR_INVALID_TYPE;
	if (first >= in->dims.size() || second >= in->dims.size())
		return VX_ERROR_INVALID_PARAMETERS;
	if (out->resolved()
		&& (out->dataType != in->dataType
			|| out->fixedPointPosition != in->fixedPointPosition))
		return VX_ERROR_INVALID_FORMAT;
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateTranspose(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	vx_size first, second;
	vx_status status = transposeParameters(parameters, first, second);
	if (status != VX_SUCCESS)
		return status;
	vx_tensor in = tensorAt(parameters, 0);
	Dims dims = in->dims;
	std::swap(dims[first], dims[second]);
	return describe(metas[1], dims, in);
}

/* out[..., i, ..., j, ...] = in[..., j, ..., i, ...]; the same dimension twice copies. */
vx_status VX_CALLBACK runTranspose(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	vx_size first, second;
	vx_status status = transposeParameters(parameters, first, second);
	if (status != VX_SUCCESS)
		return status;
	vx_tensor in = tensorAt(parameters, 0), out = tensorAt(parameters, 1);
	TensorElements source(in), target(out);
	if (!source.hasMemory() || !target.hasMemory())
		return VX_ERROR_NO_MEMORY;
	const vx_size size = in->elementSize();
	forEachIndex(out->dims, [&](const Dims &index) {
		Dims from = index;
		std::swap(from[first], from[second]);
		memcpy(out->storage() + target.offset(index), in->storage() + source.offset(from),
			size);
	});
	return VX_SUCCESS;
}

/* ---- Table lookup ------------------------------------------------------ */

/* UINT8 tensors with a UINT8 table, INT16 with an INT16 one; the output
 * has the input's dimensions, type and position. */
vx_status tableLookupParameters(const vx_reference parameters[])
{
	vx_tensor in = tensorAt(parameters, 0), out = tensorAt(parameters, 2);
	auto lut = reinterpret_cast<vx_lut>(parameters[1]);
	if (in->dataType != VX_TYPE_UINT8 && in->dataType != VX_TYPE_INT16)
		return VX_ERROR_INVALID_FORMAT;
	if (lut->dataType != in->dataType)
		return VX_ERROR_INVALID_TYPE;
	if (out->resolved()
		&& (out->dataType != in->dataType
			|| out->fixedPointPosition != in->fixedPointPosition))
		return VX_ERROR_INVALID_FORMAT;
	if (out->resolved() && out->dims != in->dims)
		return VX_ERROR_INVALID_DIMENSION;
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateTableLookup(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	vx_status status = tableLookupParameters(parameters);
	if (status != VX_SUCCESS)
		return status;
	vx_tensor in = tensorAt(parameters, 0);
	return describe(metas[2], in->dims, in);
}

/*
 * out = lut[in + VX_LUT_OFFSET], the raw value as the index. The
 * specification leaves an index outside the table undefined; here it
 * takes the nearest entry, so nothing outside the table is ever read.
 */
vx_status VX_CALLBACK runTableLookup(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	vx_status status = tableLookupParameters(parameters);
	if (status != VX_SUCCESS)
		return status;
	vx_tensor in = tensorAt(parameters, 0), out = tensorAt(parameters, 2);
	auto lut = reinterpret_cast<vx_lut>(parameters[1]);
	TensorElements source(in), target(out);
	if (!source.hasMemory() || !target.hasMemory())
		return VX_ERROR_NO_MEMORY;
	const int64_t last = int64_t(lut->count) - 1;
	forEachIndex(in->dims, [&](const Dims &index) {
		const int64_t entry
			= std::clamp(source.raw(source.offset(index)) + lut->offset(), int64_t(0), last);
		int64_t value;
		if (lut->dataType == VX_TYPE_INT16) {
			int16_t word;
			memcpy(&word, lut->data.data() + entry * sizeof(word), sizeof(word));
			value = word;
		} else {
			value = lut->data[entry];
		}
		target.storeRaw(target.offset(index), value);
	});
	return VX_SUCCESS;
}

/* ---- Convert depth ----------------------------------------------------- */

struct ConvertDepthParameters {
	vx_tensor in, out;
	vx_enum overflow;
	vx_float32 norm, offset;
};

vx_status convertDepthParameters(const vx_reference parameters[], ConvertDepthParameters &p)
{
	p.in = tensorAt(parameters, 0);
	p.out = tensorAt(parameters, 4);
	if (!scalarValue(parameters[1], VX_TYPE_ENUM, p.overflow)
		|| !scalarValue(parameters[2], VX_TYPE_FLOAT32, p.norm)
		|| !scalarValue(parameters[3], VX_TYPE_FLOAT32, p.offset))
		return VX_ERROR_INVALID_TYPE;
	if ((p.overflow != VX_CONVERT_POLICY_WRAP && p.overflow != VX_CONVERT_POLICY_SATURATE)
		|| !std::isfinite(p.norm) || p.norm == 0 || !std::isfinite(p.offset))
		return VX_ERROR_INVALID_VALUE;
	if (!isTensorElementType(p.in->dataType)
		|| (p.out->resolved() && !isTensorElementType(p.out->dataType)))
		return VX_ERROR_INVALID_FORMAT;
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateConvertDepth(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	ConvertDepthParameters p;
	vx_status status = convertDepthParameters(parameters, p);
	if (status != VX_SUCCESS)
		return status;
	return describe(metas[4], p.in->dims, outputFormat(p.out, p.in));
}

/*
 * out = (in - offset) / norm in real values; into an integer output it is
 * scaled to the output's position, truncated towards zero, then saturated
 * or wrapped.
 */
vx_status VX_CALLBACK runConvertDepth(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	ConvertDepthParameters p;
	vx_status status = convertDepthParameters(parameters, p);
	if (status != VX_SUCCESS)
		return status;
	TensorElements in(p.in), out(p.out);
	if (!in.hasMemory() || !out.hasMemory())
		return VX_ERROR_NO_MEMORY;
	forEachIndex(p.out->dims, [&](const Dims &index) {
		const double value = (in.real(in.offset(index)) - double(p.offset)) / double(p.norm);
		const vx_size offset = out.offset(index);
		if (out.isFloat())
			out.storeFloat(offset, value);
		else
			out.storeRaw(offset, narrow(std::trunc(std::ldexp(value, out.position())),
						     out.type(), p.overflow));
	});
	return VX_SUCCESS;
}

/* ---- Matrix multiply --------------------------------------------------- */

/* A [columns, rows] tensor seen as a matrix, transposed or not. */
struct Matrix {
	vx_tensor tensor;
	bool transposed;
	vx_size rows() const { return tensor->dims[transposed ? 0 : 1]; }
	vx_size columns() const { return tensor->dims[transposed ? 1 : 0]; }
	/* The tensor index of element (row, column). */
	Dims at(vx_size row, vx_size column) const
	{
		return transposed ? Dims{ row, column } : Dims{ column, row };
	}
};

struct MatrixMultiplyParameters {
	Matrix a, b, c; /* c.tensor null when there is none */
	vx_tensor out;
};

vx_status matrixMultiplyParameters(const vx_reference parameters[], MatrixMultiplyParameters &p)
{
	vx_tensor_matrix_multiply_params_t settings;
	if (!scalarValue(parameters[3], VX_TYPE_TENSOR_MATRIX_MULTIPLY_PARAMS, settings))
		return VX_ERROR_INVALID_TYPE;
	p.a = { tensorAt(parameters, 0), settings.transpose_input1 == vx_true_e };
	p.b = { tensorAt(parameters, 1), settings.transpose_input2 == vx_true_e };
	p.c = { tensorAt(parameters, 2), settings.transpose_input3 == vx_true_e };
	p.out = tensorAt(parameters, 4);
	const vx_enum type = p.a.tensor->dataType;
	if (!isTensorElementType(type) || p.b.tensor->dataType != type
		|| (p.c.tensor && p.c.tensor->dataType != type)
		|| (p.out->resolved() && p.out->dataType != type))
		return VX_ERROR_INVALID_FORMAT;
	if (p.a.tensor->dims.size() != 2 || p.b.tensor->dims.size() != 2
		|| (p.c.tensor && p.c.tensor->dims.size() != 2)
		|| p.a.columns() != p.b.rows())
		return VX_ERROR_INVALID_DIMENSION;
	if (p.c.tensor && (p.c.rows() != p.a.rows() || p.c.columns() != p.b.columns()))
		return VX_ERROR_INVALID_DIMENSION;
	return VX_SUCCESS;
}

vx_status VX_CALLBACK validateMatrixMultiply(
	vx_node, const vx_reference parameters[], vx_uint32, vx_meta_format metas[])
{
	MatrixMultiplyParameters p;
	vx_status status = matrixMultiplyParameters(parameters, p);
	if (status != VX_SUCCESS)
		return status;
	return describe(metas[4], { p.b.columns(), p.a.rows() }, outputFormat(p.out, p.a.tensor));
}

/*
 * out = A' B' (+ C'). Integers: the sum of products at position pos(A) +
 * pos(B) (saturated to 64 bits), plus C exactly whatever its position,
 * rounded once to the output's position (to nearest, ties to even) and
 * saturated. Floats: in double.
 */
vx_status VX_CALLBACK runMatrixMultiply(vx_node, const vx_reference *parameters, vx_uint32)
{
	ApiLock lock(apiLock());
	MatrixMultiplyParameters p;
	vx_status status = matrixMultiplyParameters(parameters, p);
	if (status != VX_SUCCESS)
		return status;
	TensorElements a(p.a.tensor), b(p.b.tensor), out(p.out);
	std::optional<TensorElements> c;
	if (p.c.tensor)
		c.emplace(p.c.tensor);
	if (!a.hasMemory() || !b.hasMemory() || !out.hasMemory() || (c && !c->hasMemory()))
		return VX_ERROR_NO_MEMORY;
	const int position = a.position() + b.position();
	for (vx_size row = 0; row < p.a.rows(); row++)
		for (vx_size column = 0; column < p.b.columns(); column++) {
			const vx_size target = out.offset({ column, row });
			if (out.isFloat()) {
				double sum = c ? c->real(c->offset(p.c.at(row, column))) : 0;
				for (vx_size i = 0; i < p.a.columns(); i++)
					sum += a.real(a.offset(p.a.at(row, i)))
						* b.real(b.offset(p.b.at(i, column)));
				out.storeFloat(target, sum);
				continue;
			}
			/* Saturating: the result saturates anyway, and int64 must not overflow. */
			int64_t sum = 0;
			for (vx_size i = 0; i < p.a.columns(); i++)
				sum = saturatingAdd(sum, a.raw(a.offset(p.a.at(row, i)))
						* b.raw(b.offset(p.b.at(i, column))));
			/* C added exactly whatever its position, then one rounding. */
			const int64_t addend = c ? c->raw(c->offset(p.c.at(row, column))) : 0;
			const int64_t scaled = vdla::vx::nn::exactSumAt(sum, position, addend,
				c ? c->position() : position, out.position());
			out.storeRaw(target, vdla::vx::nn::convert(scaled, out.type(),
						     VX_CONVERT_POLICY_SATURATE));
		}
	return VX_SUCCESS;
}

/* ---- Registration and node creation ------------------------------------ */

constexpr KernelParameter kIn{ true, VX_INPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED };
constexpr KernelParameter kOptionalIn{ true, VX_INPUT, VX_TYPE_TENSOR,
	VX_PARAMETER_STATE_OPTIONAL };
constexpr KernelParameter kScalar{ true, VX_INPUT, VX_TYPE_SCALAR, VX_PARAMETER_STATE_REQUIRED };
constexpr KernelParameter kOut{ true, VX_OUTPUT, VX_TYPE_TENSOR, VX_PARAMETER_STATE_REQUIRED };
constexpr KernelParameter kLut{ true, VX_INPUT, VX_TYPE_LUT, VX_PARAMETER_STATE_REQUIRED };

struct TensorKernel {
	const char *name;
	vx_enum enumeration;
	vx_kernel_f run;
	vx_kernel_validate_f validate;
	std::vector<KernelParameter> parameters;
};

const std::vector<TensorKernel> &tensorKernels()
{
	static const std::vector<TensorKernel> kernels = {
		{ "org.khronos.openvx.tensor_add", VX_KERNEL_TENSOR_ADD,
			runElementwise<Elementwise::Add>, validateElementwise<Elementwise::Add>,
			{ kIn, kIn, kScalar, kOut } },
		{ "org.khronos.openvx.tensor_subtract", VX_KERNEL_TENSOR_SUBTRACT,
			runElementwise<Elementwise::Subtract>,
			validateElementwise<Elementwise::Subtract>, { kIn, kIn, kScalar, kOut } },
		{ "org.khronos.openvx.tensor_multiply", VX_KERNEL_TENSOR_MULTIPLY,
			runElementwise<Elementwise::Multiply>,
			validateElementwise<Elementwise::Multiply>,
			{ kIn, kIn, kScalar, kScalar, kScalar, kOut } },
		{ "org.khronos.openvx.tensor_table_lookup", VX_KERNEL_TENSOR_TABLE_LOOKUP,
			runTableLookup, validateTableLookup, { kIn, kLut, kOut } },
		{ "org.khronos.openvx.tensor_transpose", VX_KERNEL_TENSOR_TRANSPOSE, runTranspose,
			validateTranspose, { kIn, kOut, kScalar, kScalar } },
		{ "org.khronos.openvx.tensor_convert_depth", VX_KERNEL_TENSOR_CONVERT_DEPTH,
			runConvertDepth, validateConvertDepth,
			{ kIn, kScalar, kScalar, kScalar, kOut } },
		{ "org.khronos.openvx.tensor_matrix_multiply", VX_KERNEL_TENSOR_MATRIX_MULTIPLY,
			runMatrixMultiply, validateMatrixMultiply,
			{ kIn, kIn, kOptionalIn, kScalar, kOut } },
	};
	return kernels;
}

template <typename T> vx_reference asReference(T object)
{
	return reinterpret_cast<vx_reference>(object);
}

} /* namespace */

namespace vdla::vx {

void addBuiltinKernels(vx_context context)
{
	for (const TensorKernel &kernel : tensorKernels())
		addStandardKernel(context, kernel.name, kernel.enumeration, kernel.run,
			kernel.validate, kernel.parameters);
}

} /* namespace vdla::vx */

extern "C" {

vx_node vxTensorAddNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_ADD,
		{ asReference(input1), asReference(input2), scalars.enumeration(policy),
			asReference(output) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorSubtractNode(
	vx_graph graph, vx_tensor input1, vx_tensor input2, vx_enum policy, vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_SUBTRACT,
		{ asReference(input1), asReference(input2), scalars.enumeration(policy),
			asReference(output) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorMultiplyNode(vx_graph graph, vx_tensor input1, vx_tensor input2, vx_scalar scale,
	vx_enum overflow_policy, vx_enum rounding_policy, vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_MULTIPLY,
		{ asReference(input1), asReference(input2), asReference(scale),
			scalars.enumeration(overflow_policy), scalars.enumeration(rounding_policy),
			asReference(output) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorTableLookupNode(vx_graph graph, vx_tensor input1, vx_lut lut, vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	return createKernelNode(graph, VX_KERNEL_TENSOR_TABLE_LOOKUP,
		{ asReference(input1), asReference(lut), asReference(output) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorTransposeNode(
	vx_graph graph, vx_tensor input, vx_tensor output, vx_size dimension1, vx_size dimension2)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_TRANSPOSE,
		{ asReference(input), asReference(output), scalars.size(dimension1),
			scalars.size(dimension2) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorConvertDepthNode(vx_graph graph, vx_tensor input, vx_enum policy, vx_scalar norm,
	vx_scalar offset, vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_CONVERT_DEPTH,
		{ asReference(input), scalars.enumeration(policy), asReference(norm),
			asReference(offset), asReference(output) });
}
VX_API_CATCH(nullptr)

vx_node vxTensorMatrixMultiplyNode(vx_graph graph, vx_tensor input1, vx_tensor input2,
	vx_tensor input3, const vx_tensor_matrix_multiply_params_t *matrix_multiply_params,
	vx_tensor output)
try {
	ApiLock lock(apiLock());
	if (!isValid(graph, VX_TYPE_GRAPH))
		return nullptr;
	if (!matrix_multiply_params)
		return errorAs<vx_node>(graph->context, VX_ERROR_INVALID_PARAMETERS);
	ScalarArguments scalars(graph->context);
	return createKernelNode(graph, VX_KERNEL_TENSOR_MATRIX_MULTIPLY,
		{ asReference(input1), asReference(input2), asReference(input3),
			scalars.value(VX_TYPE_TENSOR_MATRIX_MULTIPLY_PARAMS, *matrix_multiply_params),
			asReference(output) });
}
VX_API_CATCH(nullptr)

} /* extern "C" */
